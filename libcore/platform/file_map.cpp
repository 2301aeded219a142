#include "platform/file_map.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace faultline {

namespace {

// Opens `path` for reading if it is a regular file that is not empty: what
// a pack can be. On success the caller closes *fd.
Status open_pack_file(const char *path, int *fd, struct stat *st, ErrorText *err) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer; only
  // regular files are read, and for them the flag changes nothing.
  *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (*fd < 0) {
    err->set("cannot open %s: %s", path, std::strerror(errno));
    return Status::kIo;
  }
  Status result = Status::kOk;
  if (fstat(*fd, st) != 0 || !S_ISREG(st->st_mode)) {
    err->set("%s is not a regular file", path);
    result = Status::kIo;
  } else if (st->st_size == 0) {
    err->set("%s is empty", path);
    result = Status::kNotAPack;
  }
  if (result != Status::kOk) {
    close(*fd);
    *fd = -1;
  }
  return result;
}

}  // namespace

Status map_file(const char *path, MappedFile *out, ErrorText *err) {
  *out = MappedFile{};
  int fd = -1;
  struct stat st;
  if (const Status s = open_pack_file(path, &fd, &st, err); s != Status::kOk) return s;
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

namespace {

// read(2) until `n` bytes or end of file; returns the count, or -1 on error.
ssize_t read_fully(int fd, void *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, static_cast<char *>(buf) + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

}  // namespace

Status read_whole_file(const char *path, const Allocator &alloc, size_t max_size, void **out, size_t *size, ErrorText *err) {
  *out = nullptr;
  *size = 0;
  int fd = -1;
  struct stat st;
  if (const Status s = open_pack_file(path, &fd, &st, err); s != Status::kOk) return s;
  if (static_cast<uint64_t>(st.st_size) > max_size) {
    err->set("%s is %lld bytes, more than the %zu a pack may have", path, static_cast<long long>(st.st_size), max_size);
    close(fd);
    return Status::kIo;
  }
  const size_t n = static_cast<size_t>(st.st_size);
  void *mem = alloc.allocate(n);
  if (!mem) {
    err->set("out of memory");
    close(fd);
    return Status::kNoMem;
  }
  // One byte more than fstat said, to notice a file that grew while read.
  char extra;
  ssize_t got = read_fully(fd, mem, n);
  ssize_t more = got == static_cast<ssize_t>(n) ? read_fully(fd, &extra, 1) : 0;
  int saved = errno;
  close(fd);
  if (got < 0 || more < 0) {
    err->set("cannot read %s: %s", path, std::strerror(saved));
    alloc.release(mem);
    return Status::kIo;
  }
  if (got != static_cast<ssize_t>(n) || more != 0) {
    err->set("%s changed size while it was read", path);
    alloc.release(mem);
    return Status::kIo;
  }
  *out = mem;
  *size = n;
  return Status::kOk;
}

SmallFile read_small_file(const char *path, void *buf, size_t cap, size_t *size, ErrorText *err) {
  *size = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return SmallFile::kMissing;
    err->set("cannot open %s: %s", path, std::strerror(errno));
    return SmallFile::kError;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    err->set("%s is not a regular file", path);
    close(fd);
    return SmallFile::kNotRegular;
  }
  if (static_cast<uint64_t>(st.st_size) > cap) {
    err->set("%s is %lld bytes, more than %zu", path, static_cast<long long>(st.st_size), cap);
    close(fd);
    return SmallFile::kTooLarge;
  }
  // Read up to cap + 1 bytes: the file may have grown since fstat, and what
  // is read is bounded by the buffer whatever fstat said.
  char tmp[1];
  ssize_t got = read_fully(fd, buf, cap);
  ssize_t more = got == static_cast<ssize_t>(cap) ? read_fully(fd, tmp, 1) : 0;
  int saved = errno;
  close(fd);
  if (got < 0 || more < 0) {
    err->set("cannot read %s: %s", path, std::strerror(saved));
    return SmallFile::kError;
  }
  if (more > 0) {
    err->set("%s is more than %zu bytes", path, cap);
    return SmallFile::kTooLarge;
  }
  *size = static_cast<size_t>(got);
  return SmallFile::kRead;
}

}  // namespace faultline
