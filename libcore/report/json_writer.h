// A small JSON writer into a Text: pretty-printed (two-space indent), keys
// in the order written, strings escaped and made valid UTF-8 (invalid bytes
// become U+FFFD) because log text is arbitrary bytes.
#pragma once

#include <cstdint>

#include "common/growbuf.h"

namespace faultline {

class JsonWriter {
 public:
  explicit JsonWriter(Text *out) : out_(out) {}

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(const char *k);
  void string(const char *s, size_t n);
  void string(const char *s);
  void number(int64_t v);
  void real(double v);
  void boolean(bool v);
  void null();

  // key + value shorthands
  void kv(const char *k, const char *s) { key(k), string(s); }
  void kv(const char *k, const char *s, size_t n) { key(k), string(s, n); }
  void kv_num(const char *k, int64_t v) { key(k), number(v); }
  void kv_bool(const char *k, bool v) { key(k), boolean(v); }

 private:
  void before_value();
  void newline();
  void open(char bracket);
  void close(char bracket);
  Text *out_;
  int depth_ = 0;
  bool first_ = true;  // no value yet at this depth
  bool after_key_ = false;
};

// Appends `s` as the body of a JSON string (no quotes).
void json_escape(Text *out, const char *s, size_t n);

}  // namespace faultline
