#include "pack_choice.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "messages.h"

namespace cli {

namespace {

// --pack values are kept one per line: a path may hold ':' there.
constexpr char kOptionSeparator = '\n';

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// Where refusals go: stderr, or the caller's string.
thread_local std::string *g_error = nullptr;

__attribute__((format(printf, 1, 2))) void say(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (g_error)
    *g_error = buf;
  else
    eprintf("%s", buf);
}

fl_pack *open_one(const char *cmd, const std::string &path) {
  fl_pack *pack = nullptr;
  char err[512];
  const bool embedded = path == "default";
  const fl_status st = embedded ? fl_pack_open_default(nullptr, &pack, err, sizeof err)
                                : fl_pack_open_file(path.c_str(), nullptr, &pack, err, sizeof err);
  if (st != FL_OK) {
    say("faultline %s: cannot open pack %s: %s\n", cmd, embedded ? "(embedded)" : path.c_str(), err);
    return nullptr;
  }
  return pack;
}

void free_all(std::vector<fl_pack *> *packs) {
  for (fl_pack *p : *packs) fl_pack_free(p);
  packs->clear();
}

}  // namespace

void add_pack_option(std::string *packs, const char *path) {
  if (!packs->empty()) packs->push_back(kOptionSeparator);
  packs->append(path);
}

// The paths the option names, bottom first: --pack values, else FAULTLINE_PACK, else the embedded pack.
std::vector<std::string> chosen_paths(const std::string &pack_option) {
  if (!pack_option.empty()) return split(pack_option, kOptionSeparator);
  if (const char *env = std::getenv("FAULTLINE_PACK"); env && *env) return split(env, ':');
  return {"default"};
}

std::vector<std::string> chosen_pack_files(const std::string &pack_option) {
  std::vector<std::string> files;
  for (const std::string &p : chosen_paths(pack_option))
    if (!p.empty() && p != "default") files.push_back(p);
  return files;
}

fl_pack *open_chosen_pack(const char *cmd, const std::string &pack_option, std::string *error) {
  g_error = error;
  fl_pack *p = open_chosen_pack(cmd, pack_option);
  g_error = nullptr;
  return p;
}

fl_pack *open_chosen_pack(const char *cmd, const std::string &pack_option) {
  const std::vector<std::string> paths = chosen_paths(pack_option);
  std::vector<fl_pack *> packs;
  for (const std::string &path : paths) {
    if (path.empty()) {
      say("faultline %s: an empty pack path (FAULTLINE_PACK=a:b names packs, bottom first)\n", cmd);
      free_all(&packs);
      return nullptr;
    }
    fl_pack *p = open_one(cmd, path);
    if (!p) {
      free_all(&packs);
      return nullptr;
    }
    packs.push_back(p);
  }
  // The bottom pack must be a library of its own, not a layer over one.
  if (const std::string base = fl_pack_base_name(packs[0]); !base.empty()) {
    fl_pack *embedded = open_one(cmd, "default");
    if (!embedded || base != fl_pack_library_name(embedded)) {
      say("faultline %s: %s is a site pack over the library '%s'; give that library's pack first "
          "(--pack BASE.flpack --pack %s)\n",
          cmd, paths[0].c_str(), printable(base).c_str(), paths[0].c_str());
      fl_pack_free(embedded);
      free_all(&packs);
      return nullptr;
    }
    packs.insert(packs.begin(), embedded);
  }
  if (packs.size() == 1) return packs[0];
  fl_pack *stack = nullptr;
  char err[512];
  const fl_status st = fl_pack_stack(packs.data(), packs.size(), nullptr, &stack, err, sizeof err);
  free_all(&packs);  // the stack holds its own references
  if (st != FL_OK) {
    say("faultline %s: cannot stack the packs: %s\n", cmd, err);
    return nullptr;
  }
  return stack;
}

}  // namespace cli
