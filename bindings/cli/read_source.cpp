// Reading one input: plain, gzip or zstd (by magic bytes), with an optional
// progress line on a terminal.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "inputs.h"
#include "messages.h"

namespace cli {

namespace {

constexpr size_t kChunk = 1 << 20;

// Compressed bytes read so far, for the progress line.
struct Progress {
  bool on = false;
  uint64_t total = 0, done = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(), last = start;
  const std::string *name = nullptr;
  void tick(size_t n) {
    done += n;
    if (!on) return;
    auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::milliseconds(250)) return;
    last = now;
    double secs = std::chrono::duration<double>(now - start).count();
    double mb = static_cast<double>(done) / 1e6;
    const std::string shown = printable(*name);  // '\r' starts the progress line; the name holds no control byte
    std::fprintf(stderr, "\rfaultline: %s %.0f/%.0f MB (%.0f%%) %.0f MB/s  ", shown.c_str(), mb, static_cast<double>(total) / 1e6,
                 total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 0.0, secs > 0 ? mb / secs : 0.0);
  }
  void end() {
    if (on && done) std::fputs("\r\x1b[K", stderr);
  }
};

// Reads the next block of raw file bytes; 0 at end; -1 on error (errno set).
ssize_t read_raw(int fd, char *buf, size_t n) {
  for (;;) {
    ssize_t r = ::read(fd, buf, n);
    if (r < 0 && errno == EINTR) continue;
    return r;
  }
}

bool gunzip(int fd, std::vector<char> &in, size_t have, const Sink &sink, Progress &pg, std::string *err) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) return *err = "cannot initialize zlib", false;  // +32: gzip or zlib header
  std::vector<char> out(kChunk);
  bool ok = true, eof = false, between_members = false;
  int rc = Z_OK;
  z.next_in = reinterpret_cast<Bytef *>(in.data());
  z.avail_in = static_cast<uInt>(have);
  while (ok) {
    if (z.avail_in == 0 && !eof) {
      ssize_t r = read_raw(fd, in.data(), in.size());
      if (r < 0) {
        *err = std::strerror(errno);
        ok = false;
        break;
      }
      eof = r == 0;
      if (eof && between_members) break;  // the last member ended exactly at the end of the file
      pg.tick(static_cast<size_t>(r));
      z.next_in = reinterpret_cast<Bytef *>(in.data());
      z.avail_in = static_cast<uInt>(r);
    }
    z.next_out = reinterpret_cast<Bytef *>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    rc = inflate(&z, Z_NO_FLUSH);
    size_t produced = out.size() - z.avail_out;
    if (produced && !sink(out.data(), produced)) break;
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members (as `cat a.gz b.gz` makes) continue.
      if (z.avail_in == 0 && eof) break;
      if (inflateReset(&z) != Z_OK) ok = false;
      between_members = true;
      continue;
    }
    between_members = false;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      *err = std::string("corrupt gzip data: ") + (z.msg ? z.msg : "inflate failed");
      ok = false;
    } else if (rc == Z_BUF_ERROR && eof && z.avail_in == 0) {
      *err = "truncated gzip data (the bytes before the cut were diagnosed)";
      ok = false;
    }
  }
  inflateEnd(&z);
  return ok;
}

bool unzstd(int fd, std::vector<char> &in, size_t have, const Sink &sink, Progress &pg, std::string *err) {
  ZSTD_DCtx *z = ZSTD_createDCtx();
  if (!z) return *err = "cannot initialize zstd", false;
  std::vector<char> out(ZSTD_DStreamOutSize());
  ZSTD_inBuffer ib{in.data(), have, 0};
  bool ok = true, eof = false;
  size_t last = 0;
  while (ok) {
    if (ib.pos == ib.size) {
      if (eof) break;
      ssize_t r = read_raw(fd, in.data(), in.size());
      if (r < 0) {
        *err = std::strerror(errno);
        ok = false;
        break;
      }
      if (r == 0) {
        eof = true;
        break;
      }
      pg.tick(static_cast<size_t>(r));
      ib = {in.data(), static_cast<size_t>(r), 0};
    }
    ZSTD_outBuffer ob{out.data(), out.size(), 0};
    last = ZSTD_decompressStream(z, &ob, &ib);
    if (ZSTD_isError(last)) {
      *err = std::string("corrupt zstd data: ") + ZSTD_getErrorName(last);
      ok = false;
      break;
    }
    if (ob.pos && !sink(out.data(), ob.pos)) break;
  }
  if (ok && eof && last != 0) {
    *err = "truncated zstd data (the bytes before the cut were diagnosed)";
    ok = false;
  }
  ZSTD_freeDCtx(z);
  return ok;
}

}  // namespace

bool read_source(const std::string &path, const Sink &sink, std::string *err, bool progress, std::string *damage) {
  int fd = path == "-" ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = path + ": " + std::strerror(errno);
    return false;
  }
  Progress pg;
  pg.name = &path;
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) pg.total = static_cast<uint64_t>(st.st_size);
  pg.on = progress && pg.total >= (64u << 20) && isatty(2);
  std::vector<char> buf(kChunk);
  ssize_t first = read_raw(fd, buf.data(), buf.size());
  bool ok = first >= 0;
  std::string why;
  if (!ok) why = std::strerror(errno);
  if (ok) pg.tick(static_cast<size_t>(first));
  const auto *b = reinterpret_cast<const unsigned char *>(buf.data());
  if (ok && first >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
    ok = gunzip(fd, buf, static_cast<size_t>(first), sink, pg, &why);
  } else if (ok && first >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd) {
    ok = unzstd(fd, buf, static_cast<size_t>(first), sink, pg, &why);
  } else if (ok && first > 0 && sink(buf.data(), static_cast<size_t>(first))) {
    for (;;) {
      ssize_t r = read_raw(fd, buf.data(), buf.size());
      if (r < 0) {
        why = std::strerror(errno);
        ok = false;
        break;
      }
      if (r == 0) break;
      pg.tick(static_cast<size_t>(r));
      if (!sink(buf.data(), static_cast<size_t>(r))) break;
    }
  }
  pg.end();
  if (fd != 0) ::close(fd);
  if (!ok && (why.rfind("corrupt", 0) == 0 || why.rfind("truncated", 0) == 0)) {
    // A damaged archive still had its good part diagnosed: say so, go on.
    eprintf("faultline: warning: %s: %s\n", path.c_str(), why.c_str());
    if (damage) *damage = path + ": " + why;
    return true;
  }
  if (!ok) *err = path + ": " + why;
  return ok;
}

}  // namespace cli
