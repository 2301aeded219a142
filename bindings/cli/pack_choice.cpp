#include "pack_choice.h"

#include <cstdlib>

#include "messages.h"

namespace cli {

fl_pack *open_chosen_pack(const char *cmd, const std::string &pack_option) {
  std::string path = pack_option;
  if (path.empty())
    if (const char *env = std::getenv("FAULTLINE_PACK"); env && *env) path = env;
  fl_pack *pack = nullptr;
  char err[512];
  const fl_status st = path.empty() ? fl_pack_open_default(nullptr, &pack, err, sizeof err)
                                    : fl_pack_open_file(path.c_str(), nullptr, &pack, err, sizeof err);
  if (st != FL_OK) {
    eprintf("faultline %s: cannot open pack %s: %s\n", cmd, path.empty() ? "(embedded)" : path.c_str(), err);
    return nullptr;
  }
  return pack;
}

}  // namespace cli
