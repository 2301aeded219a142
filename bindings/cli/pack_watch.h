// Whether the pack files a command reads changed on disk since it looked: an
// atomic replacement (a new inode) or a file rewritten in place (size, time)
// is a new pack. `faultline run` and `faultline lsp` reload with it.
#pragma once

#include <sys/stat.h>

#include <string>
#include <vector>

namespace cli {

class PackWatch {
 public:
  // Remembers the state of the files the pack option names (pack_choice.h).
  explicit PackWatch(const std::string &pack_option);
  // Whether there is any file to watch (the embedded pack never changes).
  bool has_files() const { return !files_.empty(); }
  // Looks again: true when some file differs from the last look (a pack that
  // then fails to open is tried again only once it changes again).
  bool changed();

 private:
  struct FileState {
    std::string path;
    struct stat st {};
    bool exists = false;
  };
  static std::vector<FileState> look(const std::vector<std::string> &paths);
  static bool same(const FileState &a, const FileState &b);

  std::vector<std::string> paths_;
  std::vector<FileState> files_;
};

}  // namespace cli
