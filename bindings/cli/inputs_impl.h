#pragma once

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace cli {

template <typename Sink>
bool read_source(const std::string &path, Sink sink, std::string *err) {
  int fd = path == "-" ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = path + ": " + std::strerror(errno);
    return false;
  }
  static thread_local char buf[1 << 20];
  bool ok = true;
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *err = path + ": " + std::strerror(errno);
      ok = false;
      break;
    }
    if (n == 0) break;
    if (!sink(buf, static_cast<size_t>(n))) {
      ok = false;
      break;
    }
  }
  if (fd != 0) ::close(fd);
  return ok;
}

}  // namespace cli
