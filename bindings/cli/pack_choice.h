// Which packs a command reads: --pack (repeatable: a stack, bottom first),
// else FAULTLINE_PACK (a ':'-separated stack), else the one embedded in the
// library. The word `default` names the embedded pack in either. One rule for
// every command.
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

}  // namespace cli
