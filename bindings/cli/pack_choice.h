// Which packs a command reads: --pack (repeatable: a stack, bottom first),
// else FAULTLINE_PACK (a ':'-separated stack), else the one embedded in the
// library. The word `default` names the embedded pack in either. One rule for
// every command.
//
// And whose signatures it trusts (every command, options anywhere before
// "--"): --trusted-key FILE (repeatable), else FAULTLINE_TRUSTED_KEYS
// (colon-separated files); --require-signed or FAULTLINE_REQUIRE_SIGNED=1
// refuses a pack file without a valid signature (PACK.sig) by one of them.
// The embedded pack is part of the binary and trusted as such.
#pragma once

#include <string>
#include <vector>

#include "faultline.h"

namespace cli {

// Adds one --pack value to the command's pack option (kept in order).
void add_pack_option(std::string *packs, const char *path);

// Opens the pack, or the stack of packs; on failure says why on stderr
// (naming `cmd`) and returns NULL. A site pack (one that stands over a base
// library) given without its base is stacked over the embedded pack when
// that is its base, and refused otherwise: a site pack alone would silently
// drop every failure of the library it extends.
fl_pack *open_chosen_pack(const char *cmd, const std::string &pack_option);
// The same, saying why in `*error` instead of on stderr (for a thread that
// must not write between another program's lines).
fl_pack *open_chosen_pack(const char *cmd, const std::string &pack_option, std::string *error);

// The pack files the option names (`default`, the embedded pack, is none).
std::vector<std::string> chosen_pack_files(const std::string &pack_option);

// Takes --trusted-key FILE, --trusted-key=FILE and --require-signed out of
// argv[first..] (up to "--", and for `faultline run` up to its COMMAND: an
// argument that is no option, `takes_value` telling which options have a
// value), keeping them for signing_pack_options. False (said on stderr) when
// --trusted-key has no value.
bool take_signing_options(int *argc, char **argv, int first, bool stop_at_operand, bool (*takes_value)(const char *));

// Sets the signature fields of `opts` (verifier, FL_PACK_REQUIRE_SIGNATURE)
// from those options, else the environment; the trusted keys are loaded once
// per process. False, said on stderr naming `cmd`, when a key cannot be
// loaded or the settings contradict each other.
bool signing_pack_options(const char *cmd, fl_pack_options *opts);

// Whether any trusted key is configured (options or environment).
bool have_trusted_keys();

}  // namespace cli
