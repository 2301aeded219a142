#include "pack_choice.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "faultline_verify.h"
#include "messages.h"

namespace cli {

namespace {

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
  eprintf("faultline %s: FAULTLINE_REQUIRE_SIGNED=%s: give 1 (require signed packs) or 0\n", cmd, env);
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
        eprintf("faultline: --trusted-key needs a public key file\n");
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
    eprintf(
        "faultline %s: signed packs are required (--require-signed or FAULTLINE_REQUIRE_SIGNED=1) but no key is "
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
    if (!g_trusted.ok) eprintf("faultline %s: trusted keys: %s\n", cmd, err);
  }
  if (!g_trusted.ok) return false;
  opts->verifier = g_trusted.verifier;
  if (require) opts->flags |= FL_PACK_REQUIRE_SIGNATURE;
  return true;
}

fl_pack *open_chosen_pack(const char *cmd, const std::string &pack_option) {
  std::string path = pack_option;
  if (path.empty())
    if (const char *env = std::getenv("FAULTLINE_PACK"); env && *env) path = env;
  fl_pack_options opts = FL_PACK_OPTIONS_INIT;
  if (!signing_pack_options(cmd, &opts)) return nullptr;
  fl_pack *pack = nullptr;
  char err[512];
  const fl_status st = path.empty() ? fl_pack_open_default(&opts, &pack, err, sizeof err)
                                    : fl_pack_open_file(path.c_str(), &opts, &pack, err, sizeof err);
  if (st != FL_OK) {
    eprintf("faultline %s: cannot open pack %s: %s\n", cmd, path.empty() ? "(embedded)" : path.c_str(), err);
    return nullptr;
  }
  return pack;
}

}  // namespace cli
