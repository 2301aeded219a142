// JSON-RPC framing over a byte stream, as LSP does it: "Content-Length: N"
// headers, a blank line, N bytes of JSON. The peer is not trusted: headers and
// bodies have hard size limits, and a malformed frame is skipped and reported,
// never fatal.
#pragma once

#include <cstddef>
#include <string>

namespace lsp {

// Headers longer than this are no LSP client's: the stream is resynchronized.
constexpr size_t kMaxHeaderBytes = 8 * 1024;

// One thing taken from the stream.
struct Frame {
  enum class Kind {
    kMessage,   // `body` is a complete message body
    kBadFrame,  // a frame that cannot be read (no or bad Content-Length, header too long): `problem` says why
    kTooLarge,  // a body over the limit, passed over without being kept: `problem` says so
  };
  Kind kind = Kind::kMessage;
  std::string body;
  std::string problem;
};

class FrameReader {
 public:
  explicit FrameReader(size_t max_body_bytes) : max_body_(max_body_bytes) {}
  // Adds bytes read from the stream.
  void add(const char *bytes, size_t len);
  // Takes the next frame, if a whole one has arrived.
  bool next(Frame *out);
  // Bytes held: at most a header, or a body within the limit, at a time.
  size_t buffered() const { return buf_.size(); }

 private:
  bool take_header(Frame *out);

  size_t max_body_;
  std::string buf_;
  size_t body_len_ = 0;       // of the frame whose header was read
  bool have_header_ = false;  // buf_ holds (the start of) that frame's body
  size_t discard_ = 0;        // bytes of an oversized body still to pass over
};

// Writes one message (its header and `body`) to `fd` whole; false when the
// stream is closed.
bool write_frame(int fd, const std::string &body);

}  // namespace lsp
