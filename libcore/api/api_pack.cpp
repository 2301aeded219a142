// C API: status texts, versions, packs.
#include <cstdio>
#include <cstring>
#include <new>

#include "api/handles.h"
#include "api/options.h"
#include "common/hash.h"
#include "common/limits.h"
#include "flatbuffers/flatbuffers.h"
#include "report/entry_json.h"
#include "report/entry_page.h"

using namespace faultline;

#ifndef FL_NO_DEFAULT_PACK
// The default pack, embedded by default_pack.S at build time.
extern "C" const uint8_t fl__default_pack_start[];
extern "C" const uint8_t fl__default_pack_end[];
#endif

namespace {

fl_status to_public(Status s) {
  switch (s) {
    case Status::kOk:
      return FL_OK;
    case Status::kInvalidArg:
      return FL_E_INVALID_ARG;
    case Status::kNoMem:
      return FL_E_NOMEM;
    case Status::kIo:
      return FL_E_IO;
    case Status::kNotAPack:
      return FL_E_NOT_A_PACK;
    case Status::kPackVersion:
      return FL_E_PACK_VERSION;
    case Status::kPackCorrupt:
      return FL_E_PACK_CORRUPT;
  }
  return FL_E_INVALID_ARG;
}

void copy_error(const char *text, char *errbuf, size_t size) {
  if (!errbuf || size == 0) return;
  std::strncpy(errbuf, text, size - 1);
  errbuf[size - 1] = '\0';
}

// Copies at most size - 1 bytes of `text` and a NUL.
void copy_text(char *dst, size_t size, const char *text) {
  size_t n = strnlen(text, size - 1);
  std::memcpy(dst, text, n);
  dst[n] = '\0';
}

fl_status fail(fl_status st, const ErrorText &err, char *errbuf, size_t errbuf_size) {
  copy_error(err.text, errbuf, errbuf_size);
  return st;
}

// Where a pack's bytes live: borrowed (caller memory, the embedded pack), a
// mapping of its file, or a copy of its file that the pack owns.
struct Storage {
  MappedFile map;
  void *owned = nullptr;
};

void release_storage(Storage *s, const Allocator &alloc) {
  unmap_file(&s->map);
  alloc.release(s->owned);
  s->owned = nullptr;
}

// The caller's options, read and checked once per open.
struct Options {
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  Allocator alloc;
  bool require = false;
  // A signature is looked for (and checked when there is one).
  bool signing() const { return o.verifier || require; }
};

fl_status read_pack_options(const fl_pack_options *given, Options *out, char *errbuf, size_t errbuf_size) {
  ErrorText err;
  if (!read_options(given, &out->o)) {
    err.set("invalid fl_pack_options (struct_size, or a reserved field or flag not zero)");
    return fail(FL_E_INVALID_ARG, err, errbuf, errbuf_size);
  }
  const fl_pack_options &o = out->o;
  out->alloc = Allocator::from(o.allocator);
  out->require = (o.flags & FL_PACK_REQUIRE_SIGNATURE) != 0;
  // Options that cannot be honoured are refused, never ignored: a policy
  // nothing can satisfy, a verifier that cannot verify, a signature nothing
  // would check.
  if (o.verifier && !o.verifier->verify)
    err.set("fl_pack_options.verifier has no verify function");
  else if (out->require && !o.verifier)
    err.set("FL_PACK_REQUIRE_SIGNATURE needs fl_pack_options.verifier: without trusted keys no pack can be accepted");
  else if (o.signature && !o.verifier)
    err.set("fl_pack_options.signature is set but no verifier is: the signature would not be checked");
  else if (!o.signature && o.signature_size)
    err.set("fl_pack_options.signature_size is not 0 but signature is NULL");
  else
    return FL_OK;
  return fail(FL_E_INVALID_ARG, err, errbuf, errbuf_size);
}

// The signature step, over the raw bytes, before anything else reads them
// (the header included): a tampered pack never reaches the pack reader. `sig`
// NULL: the pack has none. `what` names the signature in messages. On FL_OK,
// `signer` (64 bytes) holds who signed, or "" for an unsigned pack the
// options allow.
fl_status check_signature(const Options &opts, const uint8_t *bytes, size_t size, const void *sig, size_t sig_size,
                          const char *what, char *signer, char *errbuf, size_t errbuf_size) {
  ErrorText err;
  signer[0] = '\0';
  if (!sig) {
    if (!opts.require) return FL_OK;
    err.set("no signature, and signed packs are required (%s)", what);
    return fail(FL_E_SIGNATURE, err, errbuf, errbuf_size);
  }
  if (sig_size == 0) {
    err.set("bad signature: empty (%s)", what);
    return fail(FL_E_SIGNATURE, err, errbuf, errbuf_size);
  }
  // The verifier's text: the signer, or why it refused. Whatever it writes,
  // only this buffer is read, and it ends with a NUL.
  char text[128] = {0};
  const fl_pack_verifier *v = opts.o.verifier;
  fl_status st = v->verify(v->ctx, bytes, size, sig, sig_size, text, sizeof text);
  text[sizeof text - 1] = '\0';
  if (st == FL_OK) {
    copy_text(signer, 64, text[0] ? text : "(unnamed signer)");
    return FL_OK;
  }
  if (st == FL_E_NOMEM) {
    err.set("out of memory while checking the signature (%s)", what);
    return fail(FL_E_NOMEM, err, errbuf, errbuf_size);
  }
  // FL_E_SIGNATURE, or anything else a verifier returns: a refusal.
  // The reason first: a long path may be cut, the reason is not.
  err.set("signature refused: %s (%s)", text[0] ? text : "the verifier gave no reason", what);
  return fail(FL_E_SIGNATURE, err, errbuf, errbuf_size);
}

// Verifies the pack's structure and makes the handle, which takes `storage`
// (released here on failure).
fl_status open_view(const uint8_t *bytes, size_t size, const Options &opts, Storage storage, const char *signer, fl_pack **out,
                    char *errbuf, size_t errbuf_size) {
  ErrorText err;
  PackView view;
  Status st = open_pack_view(bytes, size, &view, &err);
  if (st != Status::kOk) {
    release_storage(&storage, opts.alloc);
    return fail(to_public(st), err, errbuf, errbuf_size);
  }
  void *mem = opts.alloc.allocate(sizeof(fl_pack));
  if (!mem) {
    release_storage(&storage, opts.alloc);
    copy_error("out of memory", errbuf, errbuf_size);
    return FL_E_NOMEM;
  }
  fl_pack *p = new (mem) fl_pack;
  p->view = view;
  p->lib.init_single(&p->view);
  p->alloc = opts.alloc;
  p->map = storage.map;
  p->owned = storage.owned;
  copy_text(p->signer, sizeof p->signer, signer);
  *out = p;
  copy_error("", errbuf, errbuf_size);
  return FL_OK;
}

const fb::Entry *entry_at(const fl_pack *pack, uint32_t index) {
  if (!pack || index >= pack->lib.entry_count()) return nullptr;
  return pack->lib.entry(index);
}

const char *c_str(const flatbuffers::String *s) { return s ? s->c_str() : ""; }

}  // namespace

namespace faultline {

void pack_retain(const fl_pack *pack) { pack->refs.fetch_add(1, std::memory_order_relaxed); }

void pack_release(const fl_pack *pack) {
  if (!pack || pack->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  auto *p = const_cast<fl_pack *>(pack);  // the last reference: nothing else can see it
  unmap_file(&p->map);
  Allocator alloc = p->alloc;
  p->lib.release(alloc);
  for (uint32_t k = 0; k < p->layer_count; k++) pack_release(p->layers[k]);
  alloc.release(p->owned);
  p->~fl_pack();
  alloc.release(p);
}

}  // namespace faultline

extern "C" {

const char *fl_status_str(fl_status status) {
  switch (status) {
    case FL_OK:
      return "ok";
    case FL_E_INVALID_ARG:
      return "invalid argument";
    case FL_E_NOMEM:
      return "out of memory";
    case FL_E_IO:
      return "input/output error";
    case FL_E_NOT_A_PACK:
      return "not a faultline pack";
    case FL_E_PACK_VERSION:
      return "unsupported pack format version";
    case FL_E_PACK_CORRUPT:
      return "pack is corrupt";
    case FL_E_SCANNER_IN_USE:
      return "scanner is already in use";
    case FL_E_STOPPED:
      return "stopped by the callback";
    case FL_E_SIGNATURE:
      return "signature missing or not valid";
    default:
      return "unknown status";
  }
}

fl_status fl_pack_options_init(fl_pack_options *opts, size_t size) {
  return init_options(opts, size, fl_pack_options FL_PACK_OPTIONS_INIT);
}

fl_status fl_pack_open_memory(const void *bytes, size_t size, const fl_pack_options *opts, fl_pack **out, char *errbuf,
                              size_t errbuf_size) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  if (!bytes) {
    copy_error("pack bytes are NULL", errbuf, errbuf_size);
    return FL_E_INVALID_ARG;
  }
  Options o;
  if (fl_status st = read_pack_options(opts, &o, errbuf, errbuf_size); st != FL_OK) return st;
  const auto *b = static_cast<const uint8_t *>(bytes);
  char signer[64] = {0};
  if (o.signing()) {
    fl_status st =
        check_signature(o, b, size, o.o.signature, o.o.signature_size, "fl_pack_options.signature", signer, errbuf, errbuf_size);
    if (st != FL_OK) return st;
  }
  return open_view(b, size, o, Storage{}, signer, out, errbuf, errbuf_size);
}

fl_status fl_pack_open_file(const char *path, const fl_pack_options *opts, fl_pack **out, char *errbuf, size_t errbuf_size) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  if (!path) {
    copy_error("path is NULL", errbuf, errbuf_size);
    return FL_E_INVALID_ARG;
  }
  Options o;
  if (fl_status st = read_pack_options(opts, &o, errbuf, errbuf_size); st != FL_OK) return st;
  ErrorText err;
  Storage storage;
  if (!o.signing()) {
    Status st = map_file(path, &storage.map, &err);
    if (st != Status::kOk) return fail(to_public(st), err, errbuf, errbuf_size);
    return open_view(static_cast<const uint8_t *>(storage.map.data), storage.map.size, o, storage, "", out, errbuf, errbuf_size);
  }

  // The signature: the caller's, else <path>.sig, a tiny file read whole into
  // this buffer (bounded: a larger one is refused unread).
  const void *sig = o.o.signature;
  size_t sig_size = o.o.signature_size;
  char sig_path[4096 + 8];
  alignas(8) unsigned char sig_file[FL_MAX_SIGNATURE_BYTES];
  const char *what = "fl_pack_options.signature";
  if (!sig) {
    if (std::snprintf(sig_path, sizeof sig_path, "%s.sig", path) >= static_cast<int>(sizeof sig_path)) {
      err.set("path too long for its signature file: %.64s...", path);
      return fail(FL_E_IO, err, errbuf, errbuf_size);
    }
    what = sig_path;
    switch (read_small_file(sig_path, sig_file, sizeof sig_file, &sig_size, &err)) {
      case SmallFile::kRead:
        sig = sig_file;
        break;
      case SmallFile::kMissing:
        err.set("%s does not exist", sig_path);
        break;
      case SmallFile::kNotRegular:
        err.set("bad signature: not a regular file (%s)", sig_path);
        return fail(FL_E_SIGNATURE, err, errbuf, errbuf_size);
      case SmallFile::kTooLarge:
        err.set("bad signature: larger than %d bytes, the most a signature file may have (%s)",
                static_cast<int>(FL_MAX_SIGNATURE_BYTES), sig_path);
        return fail(FL_E_SIGNATURE, err, errbuf, errbuf_size);
      case SmallFile::kError:
        return fail(FL_E_IO, err, errbuf, errbuf_size);
    }
  }
  char signer[64] = {0};
  if (!sig) {
    // Unsigned: refused under the policy before the pack is even read;
    // otherwise opened as without a verifier.
    if (o.require) return check_signature(o, nullptr, 0, nullptr, 0, err.text, signer, errbuf, errbuf_size);
    Status st = map_file(path, &storage.map, &err);
    if (st != Status::kOk) return fail(to_public(st), err, errbuf, errbuf_size);
    return open_view(static_cast<const uint8_t *>(storage.map.data), storage.map.size, o, storage, "", out, errbuf, errbuf_size);
  }
  // A copy, not a mapping: a mapped file can change after its signature is
  // checked; these bytes cannot.
  size_t size = 0;
  Status st = read_whole_file(path, o.alloc, FL_MAX_SIGNED_PACK_BYTES, &storage.owned, &size, &err);
  if (st != Status::kOk) return fail(to_public(st), err, errbuf, errbuf_size);
  const auto *bytes = static_cast<const uint8_t *>(storage.owned);
  if (fl_status vs = check_signature(o, bytes, size, sig, sig_size, what, signer, errbuf, errbuf_size); vs != FL_OK) {
    release_storage(&storage, o.alloc);
    return vs;
  }
  return open_view(bytes, size, o, storage, signer, out, errbuf, errbuf_size);
}

fl_status fl_pack_open_default(const fl_pack_options *opts, fl_pack **out, char *errbuf, size_t errbuf_size) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  Options o;
  if (fl_status st = read_pack_options(opts, &o, errbuf, errbuf_size); st != FL_OK) return st;
#ifdef FL_NO_DEFAULT_PACK
  // Built with FAULTLINE_EMBED_DEFAULT_PACK=OFF (WebAssembly: Emscripten has
  // no .incbin): there is nothing to open, and the caller must say so.
  ErrorText err;
  err.set("this build of libfaultline embeds no default pack (FAULTLINE_EMBED_DEFAULT_PACK=OFF): open a pack file or pack bytes");
  return fail(FL_E_IO, err, errbuf, errbuf_size);
#else
  size_t size = static_cast<size_t>(fl__default_pack_end - fl__default_pack_start);
  // The embedded pack is part of this library's binary and trusted as such:
  // the policy does not refuse it unsigned; a signature given is checked.
  char signer[64] = {0};
  if (o.o.signature) {
    fl_status st = check_signature(o, fl__default_pack_start, size, o.o.signature, o.o.signature_size,
                                   "fl_pack_options.signature", signer, errbuf, errbuf_size);
    if (st != FL_OK) return st;
  }
  return open_view(fl__default_pack_start, size, o, Storage{}, signer, out, errbuf, errbuf_size);
#endif
}

void fl_pack_free(fl_pack *pack) { pack_release(pack); }

fl_status fl_pack_info_get(const void *bytes, size_t size, fl_pack_info *info) {
  if (!bytes || !info || info->struct_size < sizeof(fl_pack_info)) return FL_E_INVALID_ARG;
  uint32_t caller_size = info->struct_size;
  std::memset(info, 0, sizeof *info);
  info->struct_size = caller_size;
  PackHeader h;
  ErrorText err;
  Status st = read_header(static_cast<const uint8_t *>(bytes), size, &h, &err);
  if (st != Status::kOk) return to_public(st);
  info->format_major = h.format_major;
  info->format_minor = h.format_minor;
  info->total_bytes = h.total_bytes;
  info->content_hash = h.content_hash;
  info->entry_count = h.entry_count;
  info->pattern_count = h.pattern_count;
  info->dfa_count = h.dfa_count;
  // The blob may be unaligned: verify an aligned copy only if we can afford
  // not to allocate. Without a copy, verify only the hash.
  const uint8_t *content = static_cast<const uint8_t *>(bytes) + h.header_bytes;
  if (xxh64(content, size - h.header_bytes) != h.content_hash) return FL_E_PACK_CORRUPT;
  if (reinterpret_cast<uintptr_t>(bytes) % 8 == 0) {
    PackView view;
    if (open_pack_view(static_cast<const uint8_t *>(bytes), size, &view, &err) != Status::kOk) return FL_E_PACK_CORRUPT;
    info->content_valid = 1;
    std::strncpy(info->pack_version, c_str(view.root->pack_version()), sizeof info->pack_version - 1);
    std::strncpy(info->compiler_version, c_str(view.root->compiler_version()), sizeof info->compiler_version - 1);
  }
  return FL_OK;
}

fl_status fl_pack_stack(const fl_pack *const *packs, size_t count, const fl_pack_options *opts, fl_pack **out, char *errbuf,
                        size_t errbuf_size) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  if (!packs || count == 0 || count > Library::kMaxLayers || !read_options(opts, &o)) {
    copy_error("a stack needs 1 to 16 packs and valid fl_pack_options", errbuf, errbuf_size);
    return FL_E_INVALID_ARG;
  }
  // A stack of stacks is flattened: its layers are packs read in place.
  const PackView *views[Library::kMaxLayers];
  const fl_pack *owners[Library::kMaxLayers];
  uint32_t n = 0;
  for (size_t i = 0; i < count; i++) {
    if (!packs[i]) {
      copy_error("a pack of the stack is NULL", errbuf, errbuf_size);
      return FL_E_INVALID_ARG;
    }
    const uint32_t inner = packs[i]->layer_count ? packs[i]->layer_count : 1;
    if (n + inner > Library::kMaxLayers) {
      copy_error("a stack holds at most 16 packs", errbuf, errbuf_size);
      return FL_E_INVALID_ARG;
    }
    for (uint32_t k = 0; k < inner; k++) {
      owners[n] = packs[i]->layer_count ? packs[i]->layers[k] : packs[i];
      views[n] = &owners[n]->view;
      n++;
    }
  }
  // A site pack stands over the library it names: one of the packs below.
  for (uint32_t k = 0; k < n; k++) {
    const fb::Base *base = views[k]->root->base();
    if (!base) continue;
    bool found = false, unnamed_below = false;
    for (uint32_t j = 0; j < k && !found; j++) {
      const auto *name = views[j]->root->library_name();
      found = name && base->name() && std::strcmp(name->c_str(), base->name()->c_str()) == 0;
      unnamed_below = unnamed_below || !name;
    }
    if (!found) {
      copy_error(unnamed_below ? "a site pack of the stack stands over a library that no pack below it is (packs of format < 1.4 "
                                 "name no library)"
                               : "a site pack of the stack stands over a library that no pack below it is",
                 errbuf, errbuf_size);
      return FL_E_INVALID_ARG;
    }
  }
  Allocator alloc = Allocator::from(o.allocator);
  void *mem = alloc.allocate(sizeof(fl_pack));
  if (!mem) {
    copy_error("out of memory", errbuf, errbuf_size);
    return FL_E_NOMEM;
  }
  fl_pack *p = new (mem) fl_pack;
  p->alloc = alloc;
  ErrorText err;
  const Status st = p->lib.init_stack(views, n, alloc, &err);
  if (st != Status::kOk) {
    p->~fl_pack();
    alloc.release(p);
    copy_error(err.text, errbuf, errbuf_size);
    return to_public(st);
  }
  for (uint32_t k = 0; k < n; k++) {
    pack_retain(owners[k]);
    p->layers[k] = owners[k];
  }
  p->layer_count = n;
  *out = p;
  copy_error("", errbuf, errbuf_size);
  return FL_OK;
}

uint32_t fl_pack_layer_count(const fl_pack *pack) { return pack ? pack->lib.layer_count() : 0; }

const fl_pack *fl_pack_layer(const fl_pack *pack, uint32_t k) {
  if (!pack || k >= pack->lib.layer_count()) return nullptr;
  return pack->layer_count ? pack->layers[k] : pack;
}

const char *fl_pack_library_name(const fl_pack *pack) {
  if (!pack) return "";
  const auto *name = pack->lib.top().root->library_name();
  return name ? name->c_str() : "";
}

uint64_t fl_pack_build_time(const fl_pack *pack) { return pack ? pack->lib.top().root->build_time() : 0; }

uint64_t fl_pack_content_hash(const fl_pack *pack) { return pack ? pack->lib.top().header.content_hash : 0; }

const char *fl_pack_compiler_version(const fl_pack *pack) { return pack ? c_str(pack->lib.top().root->compiler_version()) : ""; }

const char *fl_pack_base_name(const fl_pack *pack) {
  const fb::Base *base = pack ? pack->lib.top().root->base() : nullptr;
  return base ? c_str(base->name()) : "";
}

const char *fl_pack_base_versions(const fl_pack *pack) {
  const fb::Base *base = pack ? pack->lib.top().root->base() : nullptr;
  return base ? c_str(base->versions()) : "";
}

const char *fl_pack_entry_origin(const fl_pack *pack, uint32_t index) {
  if (!entry_at(pack, index)) return nullptr;
  return pack->lib.origin(index);
}

int fl_pack_entry_replaces(const fl_pack *pack, uint32_t index) {
  return entry_at(pack, index) && pack->lib.replaces(index) ? 1 : 0;
}

uint32_t fl_pack_entry_count(const fl_pack *pack) { return pack ? pack->lib.entry_count() : 0; }

const char *fl_pack_entry_id(const fl_pack *pack, uint32_t index) {
  const fb::Entry *e = entry_at(pack, index);
  return e ? c_str(e->id()) : nullptr;
}

const char *fl_pack_entry_title(const fl_pack *pack, uint32_t index) {
  const fb::Entry *e = entry_at(pack, index);
  return e ? c_str(e->title()) : nullptr;
}

const char *fl_pack_entry_type(const fl_pack *pack, uint32_t index) {
  const fb::Entry *e = entry_at(pack, index);
  return e ? c_str(e->type()) : nullptr;
}

const char *fl_pack_entry_category(const fl_pack *pack, uint32_t index) {
  const fb::Entry *e = entry_at(pack, index);
  return e ? c_str(e->category()) : nullptr;
}

uint32_t fl_pack_find_entry(const fl_pack *pack, const char *id) {
  if (!pack || !id) return UINT32_MAX;
  return pack->lib.find(id);
}

size_t fl_pack_entry_page(const fl_pack *pack, uint32_t index, int format, char *buf, size_t size) {
  if (!entry_at(pack, index) || (format != FL_PAGE_TEXT && format != FL_PAGE_MARKDOWN && format != FL_PAGE_JSON)) return 0;
  Text page(pack->alloc);
  bool ok = true;
  if (format == FL_PAGE_JSON) {
    ok = render_entry_json(pack->lib, index, pack->alloc, &page);
    page.addc('\n');
  } else {
    render_entry_page(pack->lib, index, format == FL_PAGE_MARKDOWN, &page);
  }
  if (!ok || page.failed()) return 0;
  if (buf && size) {
    size_t n = page.size() < size - 1 ? page.size() : size - 1;
    std::memcpy(buf, page.data(), n);
    buf[n] = '\0';
  }
  return page.size();
}

const char *fl_pack_version(const fl_pack *pack) { return pack ? c_str(pack->lib.top().root->pack_version()) : ""; }

const char *fl_pack_signer(const fl_pack *pack) { return pack ? pack->signer : ""; }

}  // extern "C"
