// scan and pack-info: raw matches for signature authors, and what a pack file
// says about itself.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "commands.h"
#include "faultline.h"
#include "inputs.h"
#include "messages.h"
#include "pack_choice.h"

namespace cli {

namespace {

// Far above any real pack (the default one is a few MB): what pack-info reads at most.
constexpr uint64_t kMaxPackFileBytes = 1ull << 30;
// A signature is 80 bytes (PACK_FORMAT.md "Signatures"); a larger file is refused unread.
constexpr off_t kMaxSignatureFileBytes = 512;

// Log and pack text on stdout: control bytes as '?' (a log cannot drive the terminal).
void put(const char *s, size_t n) { std::fputs(printable(std::string_view(s, n)).c_str(), stdout); }
void put(const char *s) { put(s, std::strlen(s)); }

int print_event(void *ctx, const fl_event *ev) {
  put(static_cast<const char *>(ctx));
  std::printf(":%llu: ", static_cast<unsigned long long>(ev->line_number));
  put(ev->entry_id);
  std::putchar('/');
  put(ev->pattern);
  if (ev->rank >= 0) std::printf(" rank=%lld", static_cast<long long>(ev->rank));
  if (ev->host) std::printf(" host="), put(ev->host, ev->host_len);
  for (uint32_t i = 0; i < ev->capture_count; i++) {
    std::putchar(' ');
    put(ev->captures[i].name);
    std::putchar('=');
    put(ev->captures[i].value, ev->captures[i].value_len);
  }
  std::printf("\n    ");
  put(ev->line, ev->line_len > 300 ? 300 : ev->line_len);
  std::putchar('\n');
  return 0;
}

// A detached signature file, read whole and bounded: one open, fstat on it.
// Returns false with `why` when it exists but cannot be used; `*present`
// false when there is none.
bool read_signature_file(const std::string &path, std::string *sig, bool *present, std::string *why) {
  *present = false;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return true;
    *present = true;
    *why = std::strerror(errno);
    return false;
  }
  *present = true;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxSignatureFileBytes) {
    close(fd);
    *why = "not a regular file of at most " + std::to_string(kMaxSignatureFileBytes) + " bytes";
    return false;
  }
  sig->resize(static_cast<size_t>(kMaxSignatureFileBytes) + 1);
  ssize_t n = read(fd, sig->data(), sig->size());
  close(fd);
  if (n < 0 || n > kMaxSignatureFileBytes) {
    *why = n < 0 ? std::strerror(errno) : "larger than a signature";
    return false;
  }
  sig->resize(static_cast<size_t>(n));
  return true;
}

// The signature line of pack-info: checked when keys are trusted. Sets
// `*refused` when the pack would be refused for it.
std::string signature_state(const std::string &pack_path, const void *bytes, size_t size, bool *refused) {
  *refused = false;
  fl_pack_options opts = FL_PACK_OPTIONS_INIT;
  if (!signing_pack_options("pack-info", &opts)) return *refused = true, "not checked: the trusted keys are unusable";
  const bool require = (opts.flags & FL_PACK_REQUIRE_SIGNATURE) != 0;
  const std::string sig_path = pack_path + ".sig";
  std::string sig, why;
  bool present = false;
  if (!read_signature_file(sig_path, &sig, &present, &why)) return *refused = true, "INVALID: " + sig_path + ": " + why;
  if (!present) {
    *refused = require;
    return "none (no " + sig_path + ")" + (require ? ": REFUSED, signed packs are required" : "");
  }
  if (!opts.verifier) return "present (" + sig_path + "), not checked: no trusted key (--trusted-key)";
  // The verifier the library calls on open, over the same bytes.
  char text[128] = "";
  fl_status st = sig.empty() ? FL_E_SIGNATURE
                             : opts.verifier->verify(opts.verifier->ctx, bytes, size, sig.data(), sig.size(), text, sizeof text);
  text[sizeof text - 1] = '\0';
  if (st != FL_OK)
    return *refused = true, "INVALID: " + printable(sig.empty() ? "empty signature file" : text) + " (" + sig_path + ")";
  return "signed by key " + printable(text) + " (" + sig_path + ")";
}

}  // namespace

int cmd_scan(int argc, char **argv) {
  std::vector<std::string> args;
  std::string pack_path;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "usage: faultline scan [--pack PACK] FILE|DIR|-...\n"
          "Prints every match: file:line: entry/pattern, the line's rank and host, captured fields, the line.\n"
          "Example: faultline scan --pack my.flpack job.log\n");
      return 0;
    }
    if (!std::strcmp(argv[i], "--pack") && i + 1 < argc) {
      add_pack_option(&pack_path, argv[++i]);
    } else if (!std::strcmp(argv[i], "--")) {
      args.insert(args.end(), argv + i + 1, argv + argc);
      break;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      eprintf("faultline scan: %s %s (files that begin with '-': after --)\n", argv[i],
              !std::strcmp(argv[i], "--pack") ? "needs a value" : "is an unknown option");
      return kExitError;
    } else {
      args.push_back(argv[i]);
    }
  }
  if (args.empty()) args.push_back("-");
  std::vector<std::string> files;
  std::string err;
  if (!expand_inputs(args, &files, &err)) {
    eprintf("faultline scan: %s\n", err.c_str());
    return kExitError;
  }
  fl_pack *pack = open_chosen_pack("scan", pack_path);
  if (!pack) return kExitError;
  fl_scanner *sc = nullptr;
  uint64_t events = 0;
  int status = kExitError;
  if (fl_scanner_create(pack, nullptr, &sc) == FL_OK) {
    status = 0;
    for (const std::string &f : files) {
      void *ctx = const_cast<char *>(f.c_str());
      bool ok = read_source(
          f, [&](const char *p, size_t n) { return fl_scanner_feed(sc, p, n, print_event, ctx) == FL_OK; }, &err);
      fl_scanner_finish(sc, print_event, ctx);
      if (!ok) {
        eprintf("faultline scan: %s\n", err.c_str());
        status = kExitError;
      }
    }
    fl_scanner_stats stats{};
    stats.struct_size = sizeof stats;
    fl_scanner_get_stats(sc, &stats);
    events = stats.events;
    eprintf("faultline scan: %llu line%s, %llu match%s\n", static_cast<unsigned long long>(stats.lines),
            stats.lines == 1 ? "" : "s", static_cast<unsigned long long>(events), events == 1 ? "" : "es");
  }
  fl_scanner_free(sc);
  fl_pack_free(pack);
  if (status == 0 && events == 0) return kExitNoFailure;
  return status;
}

namespace {

std::string utc_time(uint64_t t) {
  if (t == 0) return "not recorded";
  const time_t tt = static_cast<time_t>(t);
  struct tm tm {};
  char buf[64];
  if (!gmtime_r(&tt, &tm) || !std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm)) return std::to_string(t);
  return buf;
}

// What a pack says of itself beyond its header: library, base, build time.
void print_library(const fl_pack *p, const char *indent) {
  const std::string name = printable(fl_pack_library_name(p)), base = printable(fl_pack_base_name(p));
  std::printf("%slibrary         %s\n", indent, name.empty() ? "(not named: pack format < 1.4)" : name.c_str());
  if (!base.empty()) std::printf("%sstands over     %s %s\n", indent, base.c_str(), printable(fl_pack_base_versions(p)).c_str());
  std::printf("%sbuilt           %s\n", indent, utc_time(fl_pack_build_time(p)).c_str());
}

// The stack a command would read (--pack, FAULTLINE_PACK, or the embedded
// pack), pack by pack, bottom first.
int print_stack(const std::string &packs) {
  fl_pack *stack = open_chosen_pack("pack-info", packs);
  if (!stack) return kExitError;
  const uint32_t n = fl_pack_layer_count(stack);
  uint32_t sum = 0;
  for (uint32_t k = 0; k < n; k++) {
    const fl_pack *p = fl_pack_layer(stack, k);
    sum += fl_pack_entry_count(p);
    std::printf("pack %u%s\n", k, k == 0 ? " (bottom)" : "");
    print_library(p, "  ");
    const std::string signer = printable(fl_pack_signer(p));
    std::printf(
        "  pack version    %s\n  entries         %u\n  content hash    %016llx (XXH64)\n  compiled by     %s\n"
        "  signed by       %s\n",
        printable(fl_pack_version(p)).c_str(), fl_pack_entry_count(p), static_cast<unsigned long long>(fl_pack_content_hash(p)),
        printable(fl_pack_compiler_version(p)).c_str(),
        signer.empty() ? "no verified signature (unsigned, embedded, or no trusted key given)" : signer.c_str());
    // A site pack written for other versions of the pack below it still
    // stacks (ids are matched by name), but its author should know.
    const std::string versions = fl_pack_base_versions(p);
    if (k > 0 && !versions.empty())
      std::printf("  written for     %s of the pack below (that one is %s)\n", printable(versions).c_str(),
                  printable(fl_pack_version(fl_pack_layer(stack, k - 1))).c_str());
  }
  uint32_t replaced = 0;
  for (uint32_t i = 0; i < fl_pack_entry_count(stack); i++) replaced += fl_pack_entry_replaces(stack, i) ? 1u : 0u;
  std::printf(
      "stack           %u pack%s, %u entries seen (%u of them replace an entry below; %u entries of the packs are hidden:"
      " replaced or turned off)\n",
      n, n == 1 ? "" : "s", fl_pack_entry_count(stack), replaced, sum - fl_pack_entry_count(stack));
  fl_pack_free(stack);
  return 0;
}

}  // namespace

int cmd_pack_info(int argc, char **argv) {
  std::string packs;
  std::vector<const char *> files;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "usage: faultline pack-info [--trusted-key FILE]... [--require-signed] PACK\n"
          "           the header, versions and verification of a pack file, and its signature (PACK.sig): signed by\n"
          "           <key id>, INVALID, or none; checked against the trusted keys when some are given\n"
          "       faultline pack-info [--trusted-key FILE]... [--pack P]...\n"
          "           the stack a command reads (--pack, FAULTLINE_PACK, the embedded pack): each pack's library,\n"
          "           version, entries, hash, signer, build time, compiler\n"
          "Exit status 2 when a pack, or its signature, would be refused.\n"
          "Example: faultline pack-info --trusted-key /etc/faultline/site.pub /etc/faultline/site.flpack\n"
          "         faultline pack-info --pack default --pack site.flpack\n");
      return 0;
    }
    if (!std::strcmp(argv[i], "--pack") && i + 1 < argc)
      add_pack_option(&packs, argv[++i]);
    else if (argv[i][0] == '-' && argv[i][1]) {
      eprintf("faultline pack-info: %s %s\n", argv[i],
              !std::strcmp(argv[i], "--pack") ? "needs a value" : "is an unknown option");
      return kExitError;
    } else
      files.push_back(argv[i]);
  }
  if (files.size() != 1 || !packs.empty()) {
    for (const char *f : files) add_pack_option(&packs, f);
    return print_stack(packs);
  }
  argv[1] = const_cast<char *>(files[0]);
  // A pack is a regular file of bounded size: a directory, a FIFO or
  // /dev/zero is refused before anything is read.
  struct stat file;
  if (stat(argv[1], &file) != 0) {
    eprintf("faultline pack-info: %s: %s\n", argv[1], std::strerror(errno));
    return kExitError;
  }
  if (!S_ISREG(file.st_mode)) {
    eprintf("faultline pack-info: %s: not a regular file\n", argv[1]);
    return kExitError;
  }
  if (static_cast<uint64_t>(file.st_size) > kMaxPackFileBytes) {
    eprintf("faultline pack-info: %s: %lld bytes, larger than any pack (%llu)\n", argv[1], static_cast<long long>(file.st_size),
            static_cast<unsigned long long>(kMaxPackFileBytes));
    return kExitError;
  }
  std::vector<uint64_t> mem(static_cast<size_t>(file.st_size) / 8 + 1);  // 8-byte aligned, as full verification needs
  FILE *f = std::fopen(argv[1], "rb");
  const size_t size = f ? std::fread(mem.data(), 1, static_cast<size_t>(file.st_size), f) : 0;
  if (!f || std::ferror(f)) {
    eprintf("faultline pack-info: cannot read %s: %s\n", argv[1], std::strerror(errno));
    if (f) std::fclose(f);
    return kExitError;
  }
  std::fclose(f);
  fl_pack_info info{};
  info.struct_size = sizeof info;
  // The verifier's reason, whether or not the header can be read.
  char why[512] = "";
  fl_pack *pack = nullptr;
  const fl_status verified = fl_pack_open_memory(mem.data(), size, nullptr, &pack, why, sizeof why);
  const fl_status st = fl_pack_info_get(mem.data(), size, &info);
  const std::string pack_version = printable(info.pack_version), compiler_version = printable(info.compiler_version);
  if (st != FL_OK) {
    eprintf("faultline pack-info: %s: %s: %s\n", argv[1], fl_status_str(st), why[0] ? why : fl_status_str(verified));
    fl_pack_free(pack);
    return kExitError;
  }
  bool sig_refused = false;
  const std::string signature = printable(signature_state(argv[1], mem.data(), size, &sig_refused));
  std::printf(
      "file            %s\nformat          %u.%u (this library reads %d.x)\nbytes           %llu\n"
      "content hash    %016llx (XXH64)\nentries         %u\npatterns        %u\nDFAs            %u\n"
      "verified        %s%s%s\npack version    %s\ncompiled by     %s\nsignature       %s\n",
      argv[1], info.format_major, info.format_minor, FL_PACK_FORMAT_MAJOR, static_cast<unsigned long long>(info.total_bytes),
      static_cast<unsigned long long>(info.content_hash), info.entry_count, info.pattern_count, info.dfa_count,
      verified == FL_OK ? "yes" : "no", verified == FL_OK ? "" : ": ", verified == FL_OK ? "" : why, pack_version.c_str(),
      compiler_version.c_str(), signature.c_str());
  if (pack) print_library(pack, "");
  fl_pack_free(pack);
  return verified == FL_OK && !sig_refused ? 0 : kExitError;
}

}  // namespace cli
