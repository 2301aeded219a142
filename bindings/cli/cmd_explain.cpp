// explain and list: the encyclopedia in the pack, read from the terminal.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "faultline.h"
#include "messages.h"
#include "pack_choice.h"

namespace cli {

namespace {

// Entry `index` as `format`, all of it (fl_pack_entry_page is snprintf-like).
std::vector<char> entry_page(const fl_pack *pack, uint32_t index, int format) {
  size_t n = fl_pack_entry_page(pack, index, format, nullptr, 0);
  std::vector<char> page(n + 1);
  fl_pack_entry_page(pack, index, format, page.data(), page.size());
  page.resize(n);
  return page;
}

bool page_format_named(const char *name, int *format) {
  if (!std::strcmp(name, "text"))
    *format = FL_PAGE_TEXT;
  else if (!std::strcmp(name, "markdown"))
    *format = FL_PAGE_MARKDOWN;
  else if (!std::strcmp(name, "json"))
    *format = FL_PAGE_JSON;
  else
    return false;
  return true;
}

// Every entry: JSON as one array (a program reads the whole encyclopedia in
// one parse), text and Markdown pages one after another.
void print_all_pages(const fl_pack *pack, int format) {
  const uint32_t n = fl_pack_entry_count(pack);
  if (format == FL_PAGE_JSON) std::fputs("[\n", stdout);
  for (uint32_t i = 0; i < n; i++) {
    std::vector<char> page = entry_page(pack, i, format);
    if (format == FL_PAGE_JSON && !page.empty()) page.pop_back();  // the newline, before the comma
    std::fwrite(page.data(), 1, page.size(), stdout);
    if (format == FL_PAGE_JSON)
      std::fputs(i + 1 < n ? ",\n" : "\n", stdout);
    else if (i + 1 < n)
      std::fputs(format == FL_PAGE_MARKDOWN ? "\n---\n\n" : "\n\n", stdout);
  }
  if (format == FL_PAGE_JSON) std::fputs("]\n", stdout);
}

}  // namespace

int cmd_explain(int argc, char **argv) {
  int format = FL_PAGE_TEXT;
  bool all = false;
  const char *id = nullptr;
  std::string pack_path;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--markdown"))
      format = FL_PAGE_MARKDOWN;
    else if (!std::strcmp(argv[i], "--all"))
      all = true;
    else if (!std::strcmp(argv[i], "--format") && i + 1 < argc) {
      if (!page_format_named(argv[++i], &format)) {
        eprintf("faultline explain: --format %s: give text, markdown or json\n", printable(argv[i]).c_str());
        return kExitError;
      }
    } else if (!std::strcmp(argv[i], "--pack") && i + 1 < argc)
      add_pack_option(&pack_path, argv[++i]);
    else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "usage: faultline explain [--format text|markdown|json] [--markdown] [--pack PACK] ID\n"
          "       faultline explain --all [--format text|markdown|json] [--pack PACK]\n"
          "Prints the encyclopedia page of an entry, e.g. faultline explain nccl-watchdog-timeout\n"
          "--all prints every entry's (JSON: one array of the entries).\n"
          "The pack: --pack, else FAULTLINE_PACK, else the embedded one.\n");
      return 0;
    } else if (argv[i][0] == '-') {
      const bool needs_value = !std::strcmp(argv[i], "--pack") || !std::strcmp(argv[i], "--format");
      eprintf("faultline explain: %s %s\n", argv[i], needs_value ? "needs a value" : "is an unknown option");
      return kExitError;
    } else {
      id = argv[i];
    }
  }
  if (!id == !all) {
    eprintf(all ? "faultline explain: give an entry id or --all, not both\n"
                : "faultline explain: give an entry id (faultline list shows them) or --all\n");
    return kExitError;
  }
  fl_pack *pack = open_chosen_pack("explain", pack_path);
  if (!pack) return kExitError;
  int status = 0;
  if (all) {
    print_all_pages(pack, format);
  } else if (uint32_t index = fl_pack_find_entry(pack, id); index == UINT32_MAX) {
    eprintf("faultline explain: no entry '%s' in pack %s (faultline list shows the ids)\n", id,
            printable(fl_pack_version(pack)).c_str());
    status = kExitError;
  } else {
    std::vector<char> page = entry_page(pack, index, format);
    std::fwrite(page.data(), 1, page.size(), stdout);
  }
  fl_pack_free(pack);
  return status;
}

int cmd_list(int argc, char **argv) {
  std::string category, type, pack_path;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--category") && i + 1 < argc)
      category = argv[++i];
    else if (!std::strcmp(argv[i], "--type") && i + 1 < argc)
      type = argv[++i];
    else if (!std::strcmp(argv[i], "--pack") && i + 1 < argc)
      add_pack_option(&pack_path, argv[++i]);
    else {
      const bool help = !std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h");
      if (!help) eprintf("faultline list: %s: unknown option or missing value\n", argv[i]);
      std::fprintf(help ? stdout : stderr,
                   "usage: faultline list [--category C] [--type T] [--pack PACK]\n"
                   "Lists the entries of the pack (--pack, else FAULTLINE_PACK, else the embedded one): id, type,\n"
                   "category, title.\n"
                   "Examples:\n  faultline list --category hardware\n  faultline list --type nccl_timeout\n");
      return help ? 0 : kExitError;
    }
  }
  fl_pack *pack = open_chosen_pack("list", pack_path);
  if (!pack) return kExitError;
  uint32_t shown = 0;
  for (uint32_t i = 0; i < fl_pack_entry_count(pack); i++) {
    std::string id = fl_pack_entry_id(pack, i), t = fl_pack_entry_type(pack, i), cat = fl_pack_entry_category(pack, i);
    if ((!category.empty() && cat != category) || (!type.empty() && t != type)) continue;
    std::printf("%-42s %-24s %-11s %s\n", printable(id).c_str(), printable(t).c_str(), printable(cat).c_str(),
                printable(fl_pack_entry_title(pack, i)).c_str());
    shown++;
  }
  fl_pack_free(pack);
  return shown ? 0 : kExitNoFailure;
}

}  // namespace cli
