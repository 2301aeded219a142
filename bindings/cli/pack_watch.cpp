#include "pack_watch.h"

#include "pack_choice.h"

namespace cli {

PackWatch::PackWatch(const std::string &pack_option) : paths_(chosen_pack_files(pack_option)), files_(look(paths_)) {}

std::vector<PackWatch::FileState> PackWatch::look(const std::vector<std::string> &paths) {
  std::vector<FileState> out;
  for (const std::string &p : paths) {
    FileState s;
    s.path = p;
    s.exists = stat(p.c_str(), &s.st) == 0;
    out.push_back(s);
  }
  return out;
}

bool PackWatch::same(const FileState &a, const FileState &b) {
  if (a.exists != b.exists) return false;
  return !a.exists || (a.st.st_dev == b.st.st_dev && a.st.st_ino == b.st.st_ino && a.st.st_size == b.st.st_size &&
                       a.st.st_mtim.tv_sec == b.st.st_mtim.tv_sec && a.st.st_mtim.tv_nsec == b.st.st_mtim.tv_nsec);
}

bool PackWatch::changed() {
  if (files_.empty()) return false;
  std::vector<FileState> now = look(paths_);
  bool differs = false;
  for (size_t i = 0; i < now.size() && i < files_.size(); i++) differs = differs || !same(now[i], files_[i]);
  files_ = std::move(now);
  return differs;
}

}  // namespace cli
