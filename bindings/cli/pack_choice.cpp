#include "pack_choice.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "faultline_verify.h"
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
  fl_pack_options opts = FL_PACK_OPTIONS_INIT;
  if (!signing_pack_options(cmd, &opts)) return nullptr;
  const fl_status st = embedded ? fl_pack_open_default(&opts, &pack, err, sizeof err)
                                : fl_pack_open_file(path.c_str(), &opts, &pack, err, sizeof err);
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

// What the command line said about signatures (take_signing_options).
struct SigningArgs {
  std::vector<std::string> trusted_keys;
  bool require = false;
};
SigningArgs g_args;

// The verifier of the trusted keys, made once and kept to the end of the process.
struct Trusted {
  fl_pack_verifier *verifier = nullptr;
  bool loaded = false, ok = false;
  ~Trusted() { fl_verifier_free(verifier); }
};
Trusted g_trusted;

std::vector<std::string> trusted_key_files() {
  if (!g_args.trusted_keys.empty()) return g_args.trusted_keys;
  std::vector<std::string> files;
  if (const char *env = std::getenv("FAULTLINE_TRUSTED_KEYS")) {
    std::string all = env;
    for (size_t at = 0; at <= all.size();) {
      size_t end = all.find(':', at);
      if (end == std::string::npos) end = all.size();
      if (end > at) files.push_back(all.substr(at, end - at));
      at = end + 1;
    }
  }
  return files;
}

// --require-signed, or FAULTLINE_REQUIRE_SIGNED: 1 on, 0 or empty off, anything
// else an error (a policy mistyped must not turn it off silently).
bool require_signed(const char *cmd, bool *out) {
  *out = g_args.require;
  const char *env = std::getenv("FAULTLINE_REQUIRE_SIGNED");
  if (!env || !*env || !std::strcmp(env, "0")) return true;
  if (!std::strcmp(env, "1")) return *out = true;
  say("faultline %s: FAULTLINE_REQUIRE_SIGNED=%s: give 1 (require signed packs) or 0\n", cmd, env);
  return false;
}

}  // namespace

bool take_signing_options(int *argc, char **argv, int first, bool stop_at_operand, bool (*takes_value)(const char *)) {
  int out = first, i = first;
  for (; i < *argc; i++) {
    const char *a = argv[i];
    if (!std::strcmp(a, "--")) break;
    if (!std::strcmp(a, "--require-signed")) {
      g_args.require = true;
      continue;
    }
    if (!std::strcmp(a, "--trusted-key")) {
      if (i + 1 >= *argc) {
        say("faultline: --trusted-key needs a public key file\n");
        return false;
      }
      g_args.trusted_keys.push_back(argv[++i]);
      continue;
    }
    if (!std::strncmp(a, "--trusted-key=", 14)) {
      g_args.trusted_keys.push_back(a + 14);
      continue;
    }
    argv[out++] = argv[i];
    if (a[0] != '-' && stop_at_operand) {
      i++;
      break;
    }
    if (takes_value(a) && i + 1 < *argc) argv[out++] = argv[++i];
  }
  while (i < *argc) argv[out++] = argv[i++];
  argv[out] = nullptr;
  *argc = out;
  return true;
}

bool have_trusted_keys() { return !trusted_key_files().empty(); }

bool signing_pack_options(const char *cmd, fl_pack_options *opts) {
  bool require = false;
  if (!require_signed(cmd, &require)) return false;
  const std::vector<std::string> files = trusted_key_files();
  if (files.empty()) {
    if (!require) return true;  // no signature is looked for
    say("faultline %s: signed packs are required (--require-signed or FAULTLINE_REQUIRE_SIGNED=1) but no key is "
        "trusted: give --trusted-key FILE.pub or FAULTLINE_TRUSTED_KEYS\n",
        cmd);
    return false;
  }
  if (!g_trusted.loaded) {
    g_trusted.loaded = true;
    std::vector<const char *> paths;
    for (const std::string &f : files) paths.push_back(f.c_str());
    char err[512];
    g_trusted.ok = fl_verifier_create(paths.data(), paths.size(), &g_trusted.verifier, err, sizeof err) == FL_OK;
    if (!g_trusted.ok) say("faultline %s: trusted keys: %s\n", cmd, err);
  }
  if (!g_trusted.ok) return false;
  opts->verifier = g_trusted.verifier;
  if (require) opts->flags |= FL_PACK_REQUIRE_SIGNATURE;
  return true;
}

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
