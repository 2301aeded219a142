// Which pack a command reads: --pack, else FAULTLINE_PACK, else the one
// embedded in the library. One rule for every command.
//
// And whose signatures it trusts (every command, options anywhere before
// "--"): --trusted-key FILE (repeatable), else FAULTLINE_TRUSTED_KEYS
// (colon-separated files); --require-signed or FAULTLINE_REQUIRE_SIGNED=1
// refuses a pack file without a valid signature (PACK.sig) by one of them.
// The embedded pack is part of the binary and trusted as such.
#pragma once

#include <string>

#include "faultline.h"

namespace cli {

// Opens the pack; on failure says why on stderr (naming `cmd`) and returns NULL.
fl_pack *open_chosen_pack(const char *cmd, const std::string &pack_option);

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
