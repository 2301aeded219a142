// scan and pack-info: raw matches for signature authors, and what a pack file
// says about itself.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "commands.h"
#include "faultline.h"
#include "inputs.h"
#include "messages.h"
#include "pack_choice.h"

namespace cli {

namespace {

int print_event(void *ctx, const fl_event *ev) {
  const char *file = static_cast<const char *>(ctx);
  std::printf("%s:%llu: %s/%s", file, static_cast<unsigned long long>(ev->line_number), ev->entry_id, ev->pattern);
  if (ev->rank >= 0) std::printf(" rank=%lld", static_cast<long long>(ev->rank));
  if (ev->host) std::printf(" host=%.*s", static_cast<int>(ev->host_len), ev->host);
  for (uint32_t i = 0; i < ev->capture_count; i++)
    std::printf(" %s=%.*s", ev->captures[i].name, static_cast<int>(ev->captures[i].value_len), ev->captures[i].value);
  std::printf("\n    %.*s\n", static_cast<int>(ev->line_len > 300 ? 300 : ev->line_len), ev->line);
  return 0;
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
    if (!std::strcmp(argv[i], "--pack") && i + 1 < argc)
      pack_path = argv[++i];
    else
      args.push_back(argv[i]);
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
    eprintf("faultline scan: %llu lines, %llu matches\n", static_cast<unsigned long long>(stats.lines),
            static_cast<unsigned long long>(events));
  }
  fl_scanner_free(sc);
  fl_pack_free(pack);
  if (status == 0 && events == 0) return kExitNoFailure;
  return status;
}

int cmd_pack_info(int argc, char **argv) {
  if (argc != 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::printf(
        "usage: faultline pack-info PACK\nPrints the header and versions of a pack file, and whether it verifies.\n"
        "Example: faultline pack-info build/default.flpack\n");
    return argc == 2 ? 0 : kExitError;
  }
  std::ifstream f(argv[1], std::ios::binary);
  if (!f) {
    eprintf("faultline pack-info: cannot open %s\n", argv[1]);
    return kExitError;
  }
  std::string raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<uint64_t> mem(raw.size() / 8 + 1);  // 8-byte aligned copy, as full verification needs
  std::memcpy(mem.data(), raw.data(), raw.size());
  fl_pack_info info{};
  info.struct_size = sizeof info;
  fl_status st = fl_pack_info_get(mem.data(), raw.size(), &info);
  if (st != FL_OK) {
    eprintf("faultline pack-info: %s: %s\n", argv[1], fl_status_str(st));
    return kExitError;
  }
  std::printf(
      "file            %s\nformat          %u.%u (this library reads %d.x)\nbytes           %llu\n"
      "content hash    %016llx (XXH64)\nentries         %u\npatterns        %u\nDFAs            %u\n"
      "verified        %s\npack version    %s\ncompiled by     %s\n",
      argv[1], info.format_major, info.format_minor, FL_PACK_FORMAT_MAJOR, static_cast<unsigned long long>(info.total_bytes),
      static_cast<unsigned long long>(info.content_hash), info.entry_count, info.pattern_count, info.dfa_count,
      info.content_valid ? "yes" : "no", info.pack_version, info.compiler_version);
  return info.content_valid ? 0 : kExitError;
}

}  // namespace cli
