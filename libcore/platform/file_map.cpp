#include "platform/file_map.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace faultline {

Status map_file(const char *path, MappedFile *out, ErrorText *err) {
  *out = MappedFile{};
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer; only
  // regular files are mapped, and for them the flag changes nothing.
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    err->set("cannot open %s: %s", path, std::strerror(errno));
    return Status::kIo;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    err->set("%s is not a regular file", path);
    close(fd);
    return Status::kIo;
  }
  if (st.st_size == 0) {
    err->set("%s is empty", path);
    close(fd);
    return Status::kNotAPack;
  }
  void *p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  int saved = errno;
  close(fd);  // the mapping keeps the file
  if (p == MAP_FAILED) {
    err->set("cannot map %s: %s", path, std::strerror(saved));
    return Status::kIo;
  }
  out->data = p;
  out->size = static_cast<size_t>(st.st_size);
  return Status::kOk;
}

void unmap_file(MappedFile *f) {
  if (f->data) munmap(f->data, f->size);
  *f = MappedFile{};
}

}  // namespace faultline
