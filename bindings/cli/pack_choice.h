// Which pack a command reads: --pack, else FAULTLINE_PACK, else the one
// embedded in the library. One rule for every command.
#pragma once

#include <string>

#include "faultline.h"

namespace cli {

// Opens the pack; on failure says why on stderr (naming `cmd`) and returns NULL.
fl_pack *open_chosen_pack(const char *cmd, const std::string &pack_option);

}  // namespace cli
