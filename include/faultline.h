/*
 * faultline.h - the public C API of libfaultline.
 *
 * faultline finds the cause of a failed ML training run in its logs. This
 * header is the library's whole public surface: what is not declared here is
 * not API. It compiles as C99 and as C++; nothing C++ crosses it.
 *
 * TUTORIAL
 *
 *   #include <faultline.h>
 *
 *   static int on_event(void *ctx, const fl_event *ev) {
 *     printf("line %llu: %s (%s)\n", (unsigned long long)ev->line_number,
 *            ev->entry_id, ev->pattern);
 *     return 0;                                  // nonzero stops the scan
 *   }
 *
 *   fl_pack *pack = NULL;
 *   char err[256];
 *   if (fl_pack_open_default(NULL, &pack, err, sizeof err) != FL_OK) { ... }
 *   fl_scanner *sc = NULL;
 *   fl_scanner_create(pack, NULL, &sc);          // one per stream or thread
 *   while ((n = read(fd, buf, sizeof buf)) > 0)
 *     fl_scanner_feed(sc, buf, n, on_event, NULL);  // chunks of any size
 *   fl_scanner_finish(sc, on_event, NULL);       // the last line may lack '\n'
 *   fl_scanner_free(sc);
 *   fl_pack_free(pack);                          // any time: scanners keep it
 *
 * CONVENTIONS
 *  - Fallible functions return fl_status: FL_OK (0) or a negative code.
 *    Codes are never renumbered or reused.
 *  - On failure every out-parameter is set to NULL / zero.
 *  - *_free(NULL) is a no-op.
 *  - Option structs start with their size (set by the *_INIT macro or
 *    *_options_init()); NULL options mean defaults. Fields are only appended.
 *  - A pack is immutable and may be shared by any number of threads. A
 *    scanner is used by one thread at a time.
 *  - Callbacks must not throw, longjmp out, or call into the scanner that
 *    invoked them.
 */
#ifndef FAULTLINE_H
#define FAULTLINE_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#if defined(FAULTLINE_BUILDING)
#define FL_API __declspec(dllexport)
#else
#define FL_API __declspec(dllimport)
#endif
#else
#define FL_API __attribute__((visibility("default")))
#endif

/* What the *_INIT macros expand to, warning-free in C and in C++ (no
 * old-style cast, no 0 for a null pointer). Not part of the API. */
#ifdef __cplusplus
#define FL__SIZE32(type) static_cast<uint32_t>(sizeof(type))
#if __cplusplus >= 201103L
#define FL__NULL nullptr
#else
#define FL__NULL NULL
#endif
#else
#define FL__SIZE32(type) ((uint32_t)sizeof(type))
#define FL__NULL NULL
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions ----------------------------------------------------------- */

/* Version of this header. CMake reads these three lines: keep their form. */
#define FL_VERSION_MAJOR 0
#define FL_VERSION_MINOR 2
#define FL_VERSION_PATCH 0
#define FL_VERSION_NUMBER (FL_VERSION_MAJOR * 10000 + FL_VERSION_MINOR * 100 + FL_VERSION_PATCH)

/* The pack format this library reads: packs of another major are refused. */
#define FL_PACK_FORMAT_MAJOR 1
#define FL_PACK_FORMAT_MINOR 4

/**
 * Version of the library actually linked, as FL_VERSION_NUMBER computes it.
 * Compare its major (value / 10000) with FL_VERSION_MAJOR at startup.
 * Thread-safety: always safe.  Since: 0.1
 */
FL_API uint32_t fl_version_number(void);

/**
 * Version of the library as text, e.g. "0.1.0". Static; never NULL, never freed.
 * Thread-safety: always safe.  Since: 0.1
 */
FL_API const char *fl_version_string(void);

/* ---- Status codes ------------------------------------------------------- */

typedef int32_t fl_status;

#define FL_OK 0                  /* success */
#define FL_E_INVALID_ARG (-1)    /* NULL where a value is required, bad option size, misaligned memory */
#define FL_E_NOMEM (-2)          /* an allocation failed; nothing was leaked */
#define FL_E_IO (-3)             /* a file could not be opened, read or mapped */
#define FL_E_NOT_A_PACK (-4)     /* the bytes do not start with the pack magic "FLPK" */
#define FL_E_PACK_VERSION (-5)   /* the pack's format major differs from FL_PACK_FORMAT_MAJOR */
#define FL_E_PACK_CORRUPT (-6)   /* length, hash, structure or an index of the pack is wrong */
#define FL_E_SCANNER_IN_USE (-7) /* the scanner is already in a call (another thread, or a callback) */
#define FL_E_STOPPED (-8)        /* a callback returned nonzero; the scanner can go on being fed */
#define FL_E_SIGNATURE (-9)      /* the pack's signature is missing (under FL_PACK_REQUIRE_SIGNATURE) or not valid (Since: 0.2) */

/**
 * Static text for a status ("ok", "pack is corrupt", ...). Never NULL, never
 * freed; unknown codes give "unknown status".
 * Thread-safety: always safe.  Since: 0.1
 */
FL_API const char *fl_status_str(fl_status status);

/**
 * Whether a file found in a directory is a log to diagnose, by its name (the
 * last path component): what launchers and schedulers write, *.log, *.txt,
 * *.out, *.err, *.stdout, *.stderr, also compressed (.gz, .zst); never a
 * hidden file. The faultline command and the bindings pick directory members
 * with it, so they read the same files. Returns 1 or 0 (0 for NULL).
 * Thread-safety: always safe.  Since: 0.1
 */
FL_API int fl_is_log_file_name(const char *file_name);

/* ---- Memory ------------------------------------------------------------- */

/**
 * An allocator for one object and everything it allocates. alloc returns
 * memory aligned for any type (like malloc) or NULL; free accepts NULL.
 * The allocator struct is copied: it need not outlive the call it is passed
 * to, but ctx must outlive the object.  Since: 0.1
 */
typedef struct fl_allocator {
  void *(*alloc)(void *ctx, size_t size);
  void (*free)(void *ctx, void *ptr);
  void *ctx;
} fl_allocator;

/* ---- Packs -------------------------------------------------------------- */

/** An immutable, verified knowledge pack. */
typedef struct fl_pack fl_pack;

/*
 * Option structs (fl_pack_options, fl_scanner_options, fl_diagnoser_options)
 * follow one rule. NULL means defaults. struct_size is the size the caller was
 * built with: the size of a released layout is accepted (fl_pack_options: its
 * 0.1 and 0.2 layouts), any other below this library's is refused; above this
 * library's it is accepted only when the fields this library does not know are
 * all zero (an option it cannot honour is never silently ignored). Reserved
 * fields and flags must be 0. Anything else: FL_E_INVALID_ARG.
 */

/*
 * Signed packs (Since: 0.2). A pack may come with a detached signature (the
 * file `<pack>.sig`, libcore/match/PACK_FORMAT.md "Signatures") made by
 * `flc sign`. Checking it is a verifier's job: this library holds no
 * cryptography. faultline_verify (include/faultline_verify.h, linked with
 * libsodium) makes one from trusted public keys; any other implementation of
 * fl_pack_verifier works the same way.
 *
 * When fl_pack_options.verifier is set, or FL_PACK_REQUIRE_SIGNATURE is, the
 * signature is checked over the pack's raw bytes BEFORE anything reads them
 * (not even the header), so a tampered pack never reaches the pack reader:
 *  - verifier set, signature valid: the pack opens; fl_pack_signer names the key;
 *  - verifier set, signature not valid: FL_E_SIGNATURE, with or without the flag
 *    (a configured verifier that refuses is never ignored);
 *  - no signature: FL_E_SIGNATURE under FL_PACK_REQUIRE_SIGNATURE, else the
 *    pack opens unsigned (fl_pack_signer gives "");
 *  - FL_PACK_REQUIRE_SIGNATURE without a verifier: FL_E_INVALID_ARG (nothing
 *    could satisfy it);
 *  - neither: no signature is looked for (0.1 behaviour).
 * The pack embedded in the library (fl_pack_open_default) is part of the
 * library's own binary and trusted as such: FL_PACK_REQUIRE_SIGNATURE does not
 * refuse it (a signature given for it is still checked).
 */

/**
 * Checks a detached signature over a pack's bytes. Called at most once per
 * open, from the thread that opens, before the pack is read; it may be called
 * by several threads at once when opens run concurrently.
 *
 * @param ctx         fl_pack_verifier.ctx.
 * @param pack_bytes  the whole pack, exactly as it will be read (header
 *                    included); borrowed for the call.
 * @param pack_size   its size in bytes.
 * @param sig         the signature's bytes (untrusted: any content and size).
 * @param sig_size    their size; never 0.
 * @param signer      buffer of signer_size bytes (the library passes 128):
 *                    receives a NUL-terminated text. On FL_OK, who signed
 *                    (faultline_verify: the key id in hex; fl_pack_signer
 *                    keeps its first 63 bytes); on failure, why (e.g.
 *                    "unknown key id 0123456789abcdef", "bad signature: ...").
 * @return FL_OK when the signature is valid and made by a trusted key;
 *         FL_E_SIGNATURE when it is not; FL_E_NOMEM. Any other value is
 *         taken as FL_E_SIGNATURE. Must not throw or longjmp.
 * Since: 0.2
 */
typedef struct fl_pack_verifier {
  fl_status (*verify)(void *ctx, const void *pack_bytes, size_t pack_size, const void *sig, size_t sig_size, char *signer,
                      size_t signer_size);
  void *ctx; /* passed to verify; must outlive every open that uses the verifier */
} fl_pack_verifier;

/* fl_pack_options.flags */
#define FL_PACK_REQUIRE_SIGNATURE 1u /* refuse a pack without a valid signature (needs a verifier). Since: 0.2 */

typedef struct fl_pack_options {
  uint32_t struct_size;          /* sizeof(fl_pack_options): set by FL_PACK_OPTIONS_INIT */
  uint32_t flags;                /* FL_PACK_* bits; others reserved: 0 */
  const fl_allocator *allocator; /* NULL: malloc/free */
  /* Since: 0.2 (a 0.1 caller's smaller struct stays accepted). */
  const fl_pack_verifier *verifier; /* NULL: signatures are not checked; borrowed for the call */
  const void *signature;            /* detached signature bytes, borrowed for the call; NULL: fl_pack_open_file
                                       reads <path>.sig, the other opens have none */
  size_t signature_size;            /* bytes at signature; 0 when it is NULL */
} fl_pack_options;

#define FL_PACK_OPTIONS_INIT \
  { FL__SIZE32(fl_pack_options), 0u, FL__NULL, FL__NULL, FL__NULL, 0u }

/**
 * Initializes `opts` (of `size` bytes, normally sizeof *opts) to defaults.
 * @return FL_OK, or FL_E_INVALID_ARG for NULL or a size this library cannot fill.
 * Thread-safety: always safe.  Since: 0.1
 */
FL_API fl_status fl_pack_options_init(fl_pack_options *opts, size_t size);

/**
 * Opens the pack at `path`: maps the file read-only and verifies it fully
 * (header, content hash, FlatBuffers verifier, every index) before a handle
 * exists. The pack owns the mapping.
 *
 * With a verifier or FL_PACK_REQUIRE_SIGNATURE (see "Signed packs" above),
 * the signature is opts->signature, else the file `<path>.sig` (a missing
 * file: no signature; one over 512 bytes or not a regular file:
 * FL_E_SIGNATURE); and the pack is read into memory the pack owns instead of
 * mapped, so that the bytes checked are the bytes used whatever happens to the
 * file afterwards.
 *
 * @param path    file to open; copied, need not outlive the call.
 * @param opts    options or NULL.
 * @param out     receives the pack, to be freed with fl_pack_free; NULL on failure.
 * @param errbuf  optional buffer (may be NULL) that receives a message saying
 *                precisely what is wrong (e.g. both format versions, or why
 *                a signature was refused);
 * @param errbuf_size its size in bytes; the message is truncated to fit.
 * @return FL_OK, FL_E_INVALID_ARG, FL_E_IO, FL_E_NOMEM, FL_E_NOT_A_PACK,
 *         FL_E_PACK_VERSION, FL_E_PACK_CORRUPT or FL_E_SIGNATURE.
 * Thread-safety: always safe.  Since: 0.1 (signatures: 0.2)
 */
FL_API fl_status fl_pack_open_file(const char *path, const fl_pack_options *opts, fl_pack **out, char *errbuf,
                                   size_t errbuf_size);

/**
 * Opens a pack in caller memory, zero-copy: the pack BORROWS `bytes`, which
 * must stay valid and unchanged until fl_pack_free. `bytes` must be 8-byte
 * aligned. Verified like fl_pack_open_file; its signature, if any, is
 * opts->signature.
 * @return as fl_pack_open_file, but never FL_E_IO.
 * Thread-safety: always safe.  Since: 0.1 (signatures: 0.2)
 */
FL_API fl_status fl_pack_open_memory(const void *bytes, size_t size, const fl_pack_options *opts, fl_pack **out, char *errbuf,
                                     size_t errbuf_size);

/**
 * Opens the default pack embedded in the library at build time (compiled
 * from the signatures/ directory of the same source tree). It is trusted as
 * part of the library: FL_PACK_REQUIRE_SIGNATURE does not refuse it unsigned;
 * a signature given in opts->signature is checked like any other.
 * A library built without one (FAULTLINE_EMBED_DEFAULT_PACK=OFF, as the
 * WebAssembly build is) returns FL_E_IO, saying so in errbuf.
 * @return FL_OK, FL_E_INVALID_ARG, FL_E_NOMEM, FL_E_SIGNATURE or FL_E_IO.
 * Thread-safety: always safe.  Since: 0.1
 */
FL_API fl_status fl_pack_open_default(const fl_pack_options *opts, fl_pack **out, char *errbuf, size_t errbuf_size);

/**
 * Releases the caller's reference to a pack. Scanners and diagnosers created
 * from it hold their own: the pack (and its file mapping) is freed when the
 * last of them is freed, so it may be released while they are still in use.
 * A pack opened from memory borrows those bytes until then. NULL is a no-op.
 * Thread-safety: safe (the references are atomic).  Since: 0.1
 */
FL_API void fl_pack_free(fl_pack *pack);

/** What a pack blob says about itself (fl_pack_info). */
typedef struct fl_pack_info {
  uint32_t struct_size; /* set by the caller: sizeof(fl_pack_info) */
  uint16_t format_major;
  uint16_t format_minor;
  uint64_t total_bytes;
  uint64_t content_hash; /* XXH64 of the content, as stored in the header */
  uint32_t entry_count;
  uint32_t pattern_count;
  uint32_t dfa_count;
  uint32_t content_valid;    /* 1 if the whole pack verified (needs 8-byte aligned bytes): strings below filled */
  char pack_version[32];     /* "" unless content_valid */
  char compiler_version[32]; /* "" unless content_valid */
} fl_pack_info;

/**
 * Describes a pack blob without opening it: header fields always (once magic,
 * format major and length check out), version strings when the content also
 * verifies. `bytes` need not be aligned.
 * @return FL_OK, FL_E_INVALID_ARG, FL_E_NOT_A_PACK, FL_E_PACK_VERSION or FL_E_PACK_CORRUPT.
 * Thread-safety: always safe.  Since: 0.1
 */
FL_API fl_status fl_pack_info_get(const void *bytes, size_t size, fl_pack_info *info);

/** Number of entries (failures) in the pack.  Since: 0.1 */
FL_API uint32_t fl_pack_entry_count(const fl_pack *pack);

/**
 * Text fields of entry `index` (0 .. fl_pack_entry_count - 1): owned by the
 * pack, valid until fl_pack_free; NULL for a bad index.  Since: 0.1
 */
FL_API const char *fl_pack_entry_id(const fl_pack *pack, uint32_t index);
FL_API const char *fl_pack_entry_title(const fl_pack *pack, uint32_t index);
FL_API const char *fl_pack_entry_type(const fl_pack *pack, uint32_t index);
FL_API const char *fl_pack_entry_category(const fl_pack *pack, uint32_t index);

/** Index of the entry with id `id`, or UINT32_MAX when the pack has none.  Since: 0.1 */
FL_API uint32_t fl_pack_find_entry(const fl_pack *pack, const char *id);

#define FL_PAGE_TEXT 0     /* plain text for a terminal */
#define FL_PAGE_MARKDOWN 1 /* Markdown */
/**
 * One JSON object (UTF-8, pretty-printed, ending in a newline), Since: 0.2.
 * Every field of the page, structured: id, title, type, category, severity,
 * role, action, deprecated, tags, affects; pack {library, version, replaces,
 * source_path} (which pack of a stack the entry comes from); summary,
 * answers [{question, text}], mechanism, symptoms [{observe, why}], confirm,
 * root_cause, fix_steps, fix_commands [{run, explain}], code_examples [{stack,
 * stack_name, language, code, why}], verify [{run, expect}], prevention,
 * versions [{component, range, note}], fingerprint, patterns [{name, regex,
 * source}] (the error signature: what the log says and who prints it),
 * related and causes [{id, title, severity}], references [{title, url}].
 * Commands show their placeholders as "{name}". Pack text is escaped for
 * JSON, never for HTML: a page built from it must escape it itself.
 */
#define FL_PAGE_JSON 2

/**
 * Renders entry `index` as a readable encyclopedia page (summary, mechanism,
 * symptoms, confirmation, fix with commands, verification, prevention,
 * patterns with their sources, related entries, references), or as JSON
 * (FL_PAGE_JSON). Like snprintf:
 * writes at most `size` bytes including the NUL and returns the length of the
 * whole page, so a second call with a buffer of that length + 1 gets it all.
 * @return the page length, or 0 for a bad index or format.
 * Thread-safety: safe (the pack is read only).  Since: 0.1 (FL_PAGE_JSON: 0.2)
 */
FL_API size_t fl_pack_entry_page(const fl_pack *pack, uint32_t index, int format, char *buf, size_t size);

/** The signature library version the pack was built from (e.g. "0.1.0"). Since: 0.1 */
FL_API const char *fl_pack_version(const fl_pack *pack);

/* ---- Pack stacks -------------------------------------------------------- */

/**
 * Stacks packs into one: `packs[0]` is the bottom (ours, the vendor pack),
 * each one after it a layer over those below (a site's own pack, compiled
 * by flc from its own signatures). An upper pack's entry replaces a lower
 * entry of the same id, and an upper pack turns off the lower entries its
 * `disables` lists; its framing formats frame every pack's lines. The result
 * is an fl_pack like any other: scanners, diagnosers and the entry functions
 * above see the visible entries, sorted by id (indices are the stack's own),
 * and events carry the stack's entry and pattern indices. A stack of stacks
 * is flattened. The stack holds a reference to each pack: the caller may
 * free its own at once. At most 16 packs. A site pack must stand over the
 * library it names as its base (some pack below it); the base versions it
 * names are not enforced here (`faultline pack-info` shows a mismatch).
 * @return FL_OK, FL_E_INVALID_ARG (NULL, 0 or more than 16 packs, bad
 *         options, a site pack without its base below it) or FL_E_NOMEM.
 * Thread-safety: safe; packs may be shared.  Since: 0.2
 */
FL_API fl_status fl_pack_stack(const fl_pack *const *packs, size_t count, const fl_pack_options *opts, fl_pack **out,
                               char *errbuf, size_t errbuf_size);

/** Number of packs in a stack, bottom first; 1 for a single pack, 0 for NULL.  Since: 0.2 */
FL_API uint32_t fl_pack_layer_count(const fl_pack *pack);

/**
 * Pack `k` (0 = bottom) of a stack, or the pack itself for k == 0 of a
 * single pack; NULL for a bad k. Borrowed: valid while `pack` lives.  Since: 0.2
 */
FL_API const fl_pack *fl_pack_layer(const fl_pack *pack, uint32_t k);

/**
 * About a pack (of a stack: its top pack): the name of the signature library
 * it was built from ("faultline" for ours, a site's own name; "" for packs of
 * format < 1.4), its build time (seconds since 1970, 0 when not recorded), the
 * XXH64 hash of its content and the compiler that built it.  Since: 0.2
 */
FL_API const char *fl_pack_library_name(const fl_pack *pack);
FL_API uint64_t fl_pack_build_time(const fl_pack *pack);
FL_API uint64_t fl_pack_content_hash(const fl_pack *pack);
FL_API const char *fl_pack_compiler_version(const fl_pack *pack);

/**
 * A site pack stands over a base library: its name ("faultline" for ours) and
 * the base pack versions it was written for (">=0.1.0,<0.2.0"); "" for a
 * pack that is a library of its own. Of a stack: its top pack's.  Since: 0.2
 */
FL_API const char *fl_pack_base_name(const fl_pack *pack);
FL_API const char *fl_pack_base_versions(const fl_pack *pack);

/**
 * The library name of the pack entry `index` comes from (provenance in
 * reports), or NULL for a bad index; and whether it replaces an entry of the
 * same id in a pack below it (1) or not (0).  Since: 0.2
 */
FL_API const char *fl_pack_entry_origin(const fl_pack *pack, uint32_t index);
FL_API int fl_pack_entry_replaces(const fl_pack *pack, uint32_t index);

/* ---- Hot reload ---------------------------------------------------------- */

/**
 * A slot holding the current pack of a long-running host (a launcher
 * wrapper, a daemon, an editor server): one thread swaps a new pack in while
 * others take the current one for each new scanner or diagnoser. Those made
 * from the old pack keep it (they hold references) and finish their work on
 * it; it is freed with the last of them.
 *   fl_pack *p = fl_pack_slot_get(slot);     // for each new job
 *   fl_diagnoser_create(p, NULL, &d);  fl_pack_free(p);
 *   ...
 *   fl_pack_slot_set(slot, new_pack);        // on SIGHUP / file change
 */
typedef struct fl_pack_slot fl_pack_slot;

/**
 * Creates a slot holding `pack` (the slot takes its own reference).
 * @return FL_OK, FL_E_INVALID_ARG (NULL) or FL_E_NOMEM.
 * Thread-safety: always safe.  Since: 0.2
 */
FL_API fl_status fl_pack_slot_create(const fl_pack *pack, const fl_allocator *allocator, fl_pack_slot **out);

/**
 * A new reference to the slot's current pack, to be freed with fl_pack_free;
 * NULL only for a NULL slot.
 * Thread-safety: safe, concurrently with fl_pack_slot_set.  Since: 0.2
 */
FL_API fl_pack *fl_pack_slot_get(fl_pack_slot *slot);

/**
 * Puts `pack` in the slot (taking a reference) and drops the slot's
 * reference to the pack it held. @return FL_OK or FL_E_INVALID_ARG (NULL).
 * Thread-safety: safe, concurrently with fl_pack_slot_get and other sets.  Since: 0.2
 */
FL_API fl_status fl_pack_slot_set(fl_pack_slot *slot, const fl_pack *pack);

/** Frees the slot and its reference to the current pack. NULL is a no-op. Since: 0.2 */
FL_API void fl_pack_slot_free(fl_pack_slot *slot);
/**
 * Who signed the pack, as the verifier named it when the pack was opened
 * (faultline_verify: the key id, 16 hex digits). "" when the pack was opened
 * without a verifier, or unsigned. Owned by the pack; never NULL ("" for NULL).
 * Thread-safety: safe (the pack is read only).  Since: 0.2
 */
FL_API const char *fl_pack_signer(const fl_pack *pack);

/* ---- Scanners ----------------------------------------------------------- */

/** Per-stream matching state: lines, the current partial line, VM memory. */
typedef struct fl_scanner fl_scanner;

typedef struct fl_scanner_options {
  uint32_t struct_size;          /* sizeof(fl_scanner_options): set by FL_SCANNER_OPTIONS_INIT */
  uint32_t flags;                /* reserved: 0 */
  uint32_t max_line_bytes;       /* 0 = 65536; longer lines are matched on their first part and flagged */
  uint32_t reserved;             /* reserved: 0 */
  const fl_allocator *allocator; /* NULL: malloc/free */
} fl_scanner_options;

#define FL_SCANNER_OPTIONS_INIT \
  { FL__SIZE32(fl_scanner_options), 0u, 0u, 0u, FL__NULL }

/** As fl_pack_options_init.  Since: 0.1 */
FL_API fl_status fl_scanner_options_init(fl_scanner_options *opts, size_t size);

/** One named field a pattern captured. */
typedef struct fl_capture {
  const char *name;  /* owned by the pack */
  const char *value; /* points into the line: valid only during the callback; not NUL-terminated */
  size_t value_len;
} fl_capture;

#define FL_EVENT_LINE_TRUNCATED 1u /* the line was longer than max_line_bytes; its first part was matched */

/** A pattern matched a line. Valid only during the callback. */
typedef struct fl_event {
  uint32_t struct_size;   /* sizeof(fl_event) of the library: fields are only appended */
  uint32_t flags;         /* FL_EVENT_* bits */
  uint32_t entry;         /* entry index in the pack */
  uint32_t pattern_index; /* pattern index in the pack */
  const char *entry_id;   /* owned by the pack */
  const char *pattern;    /* pattern name, owned by the pack */
  uint64_t line_number;   /* 1-based; '\n', "\r\n" and a bare '\r' each end a line */
  uint64_t byte_offset;   /* offset of the line's first byte in the stream */
  const char *line;       /* the matched text (ANSI escapes removed): valid during the callback */
  size_t line_len;
  const fl_capture *captures; /* capture_count fields set by the pattern: valid during the callback */
  uint32_t capture_count;
  /* Where the line comes from, read from its prefix by the pack's framing
     formats (torchrun "[rank3]:", srun --label, NCCL "host:pid:tid [dev]",
     glog, Python logging, ...). Numbers are -1 and texts NULL when the line
     does not say. Texts point into the line: valid during the callback. */
  int64_t rank;
  int64_t local_rank;
  int64_t pid;
  int64_t device;
  const char *host;
  size_t host_len;
  const char *time; /* the timestamp as printed */
  size_t time_len;
} fl_event;

/**
 * Called for every match. Return 0 to go on, nonzero to stop: no more
 * callbacks are made during that feed/finish call, which still consumes the
 * rest of its bytes (so line numbers stay right) and returns FL_E_STOPPED.
 */
typedef int (*fl_event_fn)(void *ctx, const fl_event *event);

/**
 * Creates a scanner. All memory it will ever use is allocated here, sized
 * from the pack and the options; feeding allocates nothing.
 * @param pack  the scanner holds a reference to it (see fl_pack_free).
 * @param out   receives the scanner (free with fl_scanner_free); NULL on failure.
 * @return FL_OK, FL_E_INVALID_ARG or FL_E_NOMEM.
 * Thread-safety: safe; the pack may be shared.  Since: 0.1
 */
FL_API fl_status fl_scanner_create(const fl_pack *pack, const fl_scanner_options *opts, fl_scanner **out);

/**
 * Feeds the next `len` bytes of the stream. Chunks may split lines (and
 * "\r\n") anywhere: the events are the same for any chunking. Calls `fn`
 * (may be NULL) for each match of each completed line, in order.
 * @return FL_OK, FL_E_INVALID_ARG, FL_E_SCANNER_IN_USE or FL_E_STOPPED.
 * Thread-safety: one thread at a time per scanner; overlapping calls are
 * detected (best effort) and return FL_E_SCANNER_IN_USE.  Since: 0.1
 */
FL_API fl_status fl_scanner_feed(fl_scanner *scanner, const void *bytes, size_t len, fl_event_fn fn, void *ctx);

/**
 * Passes over the next `len` bytes of the stream without matching them, for
 * a caller that fell behind a live stream and must drop some of it: later
 * lines keep their line numbers and offsets in the whole stream, and the
 * skipped lines count in the stats' `lines` (not in `bytes`). The line the
 * bytes cut at their start is matched with what was fed of it (flagged
 * FL_EVENT_LINE_TRUNCATED); the line they cut at their end is not matched.
 * Line breaks are counted at memory speed.
 * @return as fl_scanner_feed.  Since: 0.1
 */
FL_API fl_status fl_scanner_skip(fl_scanner *scanner, const void *bytes, size_t len, fl_event_fn fn, void *ctx);

/**
 * Ends the stream: matches the last line if it had no line break, then
 * resets the scanner for a new stream (line numbers start again at 1).
 * @return as fl_scanner_feed.  Since: 0.1
 */
FL_API fl_status fl_scanner_finish(fl_scanner *scanner, fl_event_fn fn, void *ctx);

/** Counters since the scanner was created (over all its streams). */
typedef struct fl_scanner_stats {
  uint32_t struct_size; /* set by the caller: sizeof(fl_scanner_stats) */
  uint32_t reserved;
  uint64_t bytes;           /* fed so far */
  uint64_t lines;           /* completed lines */
  uint64_t truncated_lines; /* lines longer than max_line_bytes */
  uint64_t events;          /* matches reported */
  uint64_t candidate_lines; /* lines that held a key of the literal filter and ran the DFAs */
  /* lines on which matching stopped early because the work budget
     was spent (key-dense lines no real log holds; docs/GUARANTEES.md). Matches
     found on them before that were reported. */
  uint64_t over_budget_lines;
} fl_scanner_stats;

/** Fills `stats`. @return FL_OK or FL_E_INVALID_ARG.  Since: 0.1 */
FL_API fl_status fl_scanner_get_stats(const fl_scanner *scanner, fl_scanner_stats *stats);

/**
 * Detail of the last failure of fl_scanner_feed or fl_scanner_finish on
 * `scanner` (FL_E_INVALID_ARG, FL_E_STOPPED); each call clears it first, except
 * one refused with FL_E_SCANNER_IN_USE, which leaves the other call's alone.
 * Owned by the scanner, valid until its next call. Never NULL ("" when the
 * last call succeeded).  Since: 0.1
 */
FL_API const char *fl_scanner_errmsg(const fl_scanner *scanner);

/** Frees a scanner. NULL is a no-op.  Since: 0.1 */
FL_API void fl_scanner_free(fl_scanner *scanner);

/* ---- Diagnosis ---------------------------------------------------------- */

/**
 * A diagnoser collects the evidence of one job (one or more logs: per-rank
 * files, a node's combined output, stdin) and answers what failed first,
 * where, what is collateral, and what to do. It keeps bounded memory
 * whatever the log size: counts and first occurrences, not lines.
 *
 *   fl_diagnoser *d = NULL;
 *   fl_diagnoser_create(pack, NULL, &d);
 *   fl_diagnoser_begin_source(d, "logs/rank3.log");   // name hints the rank
 *   while ((n = read(fd, buf, sizeof buf)) > 0) fl_diagnoser_feed(d, buf, n);
 *   fl_diagnoser_end_source(d);
 *   const char *json; size_t len;
 *   fl_diagnoser_report(d, FL_REPORT_JSON, &json, &len);  // faultline.report/2
 *   fl_diagnoser_free(d);
 *
 * Out of memory: a call that adds evidence (begin_source, feed, end_source,
 * merge_partial, and the source a report or partial closes) and fails with
 * FL_E_NOMEM has lost evidence; every later call but fl_diagnoser_free then
 * returns FL_E_NOMEM, rather than a diagnosis of part of the logs. A report,
 * result or partial that fails only in its own rendering can be retried.
 *
 * Scale out: each node saves its evidence as a partial
 * (fl_diagnoser_partial); a collector merges partials in any order
 * (fl_diagnoser_merge_partial) and reports exactly what diagnosing all logs
 * together would.
 */
typedef struct fl_diagnoser fl_diagnoser;

typedef struct fl_diagnoser_options {
  uint32_t struct_size;          /* sizeof(fl_diagnoser_options): set by FL_DIAGNOSER_OPTIONS_INIT */
  uint32_t flags;                /* reserved: 0 */
  uint32_t max_line_bytes;       /* as fl_scanner_options; 0 = 65536 */
  uint32_t reserved;             /* reserved: 0 */
  const fl_allocator *allocator; /* NULL: malloc/free */
} fl_diagnoser_options;

#define FL_DIAGNOSER_OPTIONS_INIT \
  { FL__SIZE32(fl_diagnoser_options), 0u, 0u, 0u, FL__NULL }

/** As fl_pack_options_init.  Since: 0.1 */
FL_API fl_status fl_diagnoser_options_init(fl_diagnoser_options *opts, size_t size);

/**
 * Creates a diagnoser over `pack`, holding a reference to it (see fl_pack_free).
 * @return FL_OK, FL_E_INVALID_ARG or FL_E_NOMEM.
 * Thread-safety: safe; a diagnoser is used by one thread at a time.  Since: 0.1
 */
FL_API fl_status fl_diagnoser_create(const fl_pack *pack, const fl_diagnoser_options *opts, fl_diagnoser **out);

/**
 * Starts (or continues) the source called `name`: a file path, "-" for
 * stdin, any label. Ends the previous source. The name orders sources in the
 * report and hints the rank ("rank3.log", "rank-3", torchrun --log-dir
 * ".../attempt_0/3/stderr.log" gives local rank 3).
 * @return FL_OK, FL_E_INVALID_ARG or FL_E_NOMEM.  Since: 0.1
 */
FL_API fl_status fl_diagnoser_begin_source(fl_diagnoser *d, const char *name);

/** Feeds bytes of the current source (any chunking). @return FL_OK, FL_E_INVALID_ARG, FL_E_NOMEM. Since: 0.1 */
FL_API fl_status fl_diagnoser_feed(fl_diagnoser *d, const void *bytes, size_t len);

/**
 * Passes over bytes of the current source without diagnosing them (see
 * fl_scanner_skip): what comes after keeps its line numbers. The caller says
 * why with fl_diagnoser_set_incomplete. @return as fl_diagnoser_feed. Since: 0.1
 */
FL_API fl_status fl_diagnoser_skip(fl_diagnoser *d, const void *bytes, size_t len);

/** Ends the current source (its last line may lack '\n'). No-op without one. Since: 0.1 */
FL_API fl_status fl_diagnoser_end_source(fl_diagnoser *d);

/**
 * Records that the inputs were not read whole, and why, e.g. "time limit of
 * 60 s reached after 1.2 GB of 20 GB": a diagnosis of part of the logs says
 * so. Every report then carries the reason (JSON `inputs.incomplete`, a line
 * of the text report, "; inputs incomplete" in the summary). The first reason
 * is kept. It belongs to this diagnoser only: partials do not carry it.
 * @return FL_OK or FL_E_INVALID_ARG.  Since: 0.1
 */
FL_API fl_status fl_diagnoser_set_incomplete(fl_diagnoser *d, const char *why);

/**
 * The evidence so far as a serialized partial (ends the current source).
 * `*bytes` is owned by the diagnoser, valid until its next call.
 * @return FL_OK, FL_E_INVALID_ARG or FL_E_NOMEM.  Since: 0.1
 */
FL_API fl_status fl_diagnoser_partial(fl_diagnoser *d, const void **bytes, size_t *len);

/**
 * Merges a partial made by fl_diagnoser_partial (of any diagnoser, any
 * machine). Merging is associative and commutative. A malformed partial is
 * refused whole: FL_E_INVALID_ARG, with the reason in fl_diagnoser_errmsg.
 * @return FL_OK, FL_E_INVALID_ARG or FL_E_NOMEM.  Since: 0.1
 */
FL_API fl_status fl_diagnoser_merge_partial(fl_diagnoser *d, const void *bytes, size_t len);

#define FL_REPORT_JSON 0       /* the JSON report, schema "faultline.report/2" (libcore/report/REPORT.md) */
#define FL_REPORT_TEXT 1       /* the human report */
#define FL_REPORT_TEXT_COLOR 2 /* the human report with ANSI colors */
#define FL_REPORT_SUMMARY 3    /* one line, at most 1 KiB: "failure: ID (type) on rank R host H; action A" */

/**
 * Diagnoses the evidence so far (ends the current source) and renders the
 * report in `format`. `*text` is NUL-terminated, owned by the diagnoser and
 * valid until its next call. More sources may be fed afterwards.
 * @return FL_OK, FL_E_INVALID_ARG or FL_E_NOMEM.  Since: 0.1
 */
FL_API fl_status fl_diagnoser_report(fl_diagnoser *d, int format, const char **text, size_t *len);

#define FL_VERDICT_NO_FAILURE 0
#define FL_VERDICT_FAILURE 1
#define FL_VERDICT_INCONCLUSIVE 2 /* a failure, but its cause is not in these logs (only collateral) */

/** The decision in numbers, for launchers that do not parse JSON. */
typedef struct fl_diagnosis {
  uint32_t struct_size;    /* set by the caller: sizeof(fl_diagnosis) */
  int32_t verdict;         /* FL_VERDICT_* */
  uint32_t entry;          /* root entry index in the pack; UINT32_MAX: none or unknown */
  uint32_t retry;          /* 1 if the launcher may retry (after excluding the host if so advised) */
  int64_t rank;            /* initiating rank, -1 unknown */
  double confidence;       /* 0..1 */
  char action[32];         /* "retry", "exclude-node-and-retry", "fix-code", ..., "investigate", "none" */
  char host[128];          /* initiating host, "" unknown */
  char fingerprint[32];    /* "fp1:<16 hex>", "" for no-failure */
  char template_text[256]; /* unknown failures: what the fingerprint hashes (numbers, hex, paths normalized); else "" */
  char source[256];        /* the source (file name) holding the root's line; "" when none */
  uint64_t line;           /* the root's line number in it (1-based); 0 when none */
} fl_diagnosis;

/** Diagnoses like fl_diagnoser_report and fills `out`. @return FL_OK, FL_E_INVALID_ARG or FL_E_NOMEM. Since: 0.1 */
FL_API fl_status fl_diagnoser_result(fl_diagnoser *d, fl_diagnosis *out);

/** Detail of the last failure on `d`; never NULL.  Since: 0.1 */
FL_API const char *fl_diagnoser_errmsg(const fl_diagnoser *d);

/** Frees a diagnoser. NULL is a no-op.  Since: 0.1 */
FL_API void fl_diagnoser_free(fl_diagnoser *d);

#ifdef __cplusplus
}
#endif

#endif /* FAULTLINE_H */
