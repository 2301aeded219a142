#include "inputs.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "faultline.h"

namespace fs = std::filesystem;

namespace cli {

namespace {

// Files in a directory that are logs: the library's rule, shared with the bindings.
bool looks_like_log(const fs::path &p) { return fl_is_log_file_name(p.filename().c_str()) != 0; }

}  // namespace

bool expand_inputs(const std::vector<std::string> &args, std::vector<std::string> *out, std::string *err) {
  for (const std::string &a : args) {
    if (a == "-") {
      out->push_back(a);
      continue;
    }
    std::error_code ec;
    fs::file_status st = fs::status(a, ec);
    if (ec || !fs::exists(st)) {
      *err = a + ": No such file or directory";
      return false;
    }
    if (!fs::is_directory(st)) {
      out->push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(a, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file(ec) && looks_like_log(it->path())) found.push_back(it->path().string());
    std::sort(found.begin(), found.end());
    if (found.empty()) {
      *err = a + ": directory holds no log files (*.log, *.txt, *.out, *.err, *.stdout, *.stderr, also .gz or .zst)";
      return false;
    }
    out->insert(out->end(), found.begin(), found.end());
  }
  return true;
}

}  // namespace cli
