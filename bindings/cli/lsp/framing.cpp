#include "framing.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace lsp {

namespace {

// Where the value of the last "Content-Length:" field starts in `header`
// (names are case-insensitive), or npos. The last one: bytes that were no
// frame (a client's stray output) may stand before a real header, and are
// passed over with it.
size_t content_length_value(const std::string &header) {
  static const char kName[] = "content-length:";
  const size_t n = sizeof kName - 1;
  for (size_t at = header.size() >= n ? header.size() - n + 1 : 0; at-- > 0;) {
    size_t i = 0;
    for (; i < n; i++) {
      char c = header[at + i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != kName[i]) break;
    }
    if (i == n) return at + n;
  }
  return std::string::npos;
}

// A decimal length without sign, blanks around allowed; false when it is not one.
bool parse_length(const std::string &text, size_t *out) {
  size_t i = 0, n = text.size();
  while (i < n && (text[i] == ' ' || text[i] == '\t')) i++;
  while (n > i && (text[n - 1] == ' ' || text[n - 1] == '\t')) n--;
  if (i == n || n - i > 15) return false;  // 15 digits: far above any limit, far below overflow
  size_t v = 0;
  for (; i < n; i++) {
    if (text[i] < '0' || text[i] > '9') return false;
    v = v * 10 + static_cast<size_t>(text[i] - '0');
  }
  *out = v;
  return true;
}

}  // namespace

void FrameReader::add(const char *bytes, size_t len) {
  // An oversized body is passed over as it arrives, never held.
  if (discard_) {
    const size_t n = len < discard_ ? len : discard_;
    discard_ -= n;
    bytes += n;
    len -= n;
  }
  buf_.append(bytes, len);
}

bool FrameReader::take_header(Frame *out) {
  const size_t end = buf_.find("\r\n\r\n");
  if (end == std::string::npos) {
    if (buf_.size() <= kMaxHeaderBytes) return false;
    // No header ends within the limit: drop what came, keeping the last
    // bytes in case the end of a header is split across two reads.
    buf_.erase(0, buf_.size() - 3);
    out->kind = Frame::Kind::kBadFrame;
    out->problem = "header longer than 8 KiB";
    return true;
  }
  const std::string header = buf_.substr(0, end);
  buf_.erase(0, end + 4);
  const size_t value = content_length_value(header);
  size_t len = 0;
  bool valid = false;
  if (value != std::string::npos) {
    const size_t eol = header.find("\r\n", value);
    valid = parse_length(header.substr(value, eol == std::string::npos ? std::string::npos : eol - value), &len);
  }
  if (end > kMaxHeaderBytes || !valid) {
    out->kind = Frame::Kind::kBadFrame;
    out->problem = end > kMaxHeaderBytes        ? "header longer than 8 KiB"
                   : value == std::string::npos ? "header without Content-Length"
                                                : "Content-Length is not a length";
    return true;
  }
  if (len > max_body_) {
    const size_t have = buf_.size() < len ? buf_.size() : len;
    buf_.erase(0, have);
    discard_ = len - have;
    out->kind = Frame::Kind::kTooLarge;
    out->problem = "message of " + std::to_string(len) + " bytes is over the limit of " + std::to_string(max_body_) + " bytes";
    return true;
  }
  body_len_ = len;
  have_header_ = true;
  return false;
}

bool FrameReader::next(Frame *out) {
  *out = Frame{};
  if (!have_header_ && take_header(out)) return true;
  if (!have_header_ || buf_.size() < body_len_) return false;
  out->kind = Frame::Kind::kMessage;
  out->body = buf_.substr(0, body_len_);
  buf_.erase(0, body_len_);
  have_header_ = false;
  return true;
}

bool write_frame(int fd, const std::string &body) {
  char header[64];
  const int n = std::snprintf(header, sizeof header, "Content-Length: %zu\r\n\r\n", body.size());
  std::string all(header, static_cast<size_t>(n));
  all += body;
  size_t done = 0;
  while (done < all.size()) {
    const ssize_t w = ::write(fd, all.data() + done, all.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

}  // namespace lsp
