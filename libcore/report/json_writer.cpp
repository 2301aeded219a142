#include "report/json_writer.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace faultline {

namespace {

// Length of the valid UTF-8 sequence at p (1..4), or 0 when invalid.
size_t utf8_len(const uint8_t *p, size_t n) {
  uint8_t c = p[0];
  size_t len;
  uint32_t min;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0)
    len = 2, min = 0x80;
  else if ((c & 0xF0) == 0xE0)
    len = 3, min = 0x800;
  else if ((c & 0xF8) == 0xF0)
    len = 4, min = 0x10000;
  else
    return 0;
  if (n < len) return 0;
  uint32_t cp = c & (0x7F >> len);
  for (size_t i = 1; i < len; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

void json_escape(Text *out, const char *s, size_t n) {
  const auto *p = reinterpret_cast<const uint8_t *>(s);
  size_t i = 0;
  while (i < n) {
    uint8_t c = p[i];
    if (c == '"' || c == '\\') {
      out->addc('\\');
      out->addc(static_cast<char>(c));
      i++;
    } else if (c < 0x20 || c == 0x7F) {
      if (c == '\n')
        out->add("\\n");
      else if (c == '\t')
        out->add("\\t");
      else if (c == '\r')
        out->add("\\r");
      else
        out->addf("\\u%04x", c);
      i++;
    } else if (c < 0x80) {
      out->addc(static_cast<char>(c));
      i++;
    } else {
      size_t len = utf8_len(p + i, n - i);
      if (len == 0) {
        out->add("\xEF\xBF\xBD");  // U+FFFD
        i++;
      } else {
        out->add(s + i, len);
        i += len;
      }
    }
  }
}

void JsonWriter::newline() {
  out_->addc('\n');
  for (int i = 0; i < depth_; i++) out_->add("  ");
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_ > 0) {
    if (!first_) out_->addc(',');
    newline();
  }
  first_ = false;
}

void JsonWriter::open(char bracket) {
  before_value();
  out_->addc(bracket);
  depth_++;
  first_ = true;
}

void JsonWriter::close(char bracket) {
  depth_--;
  if (!first_) newline();
  out_->addc(bracket);
  first_ = false;
}

void JsonWriter::begin_object() { open('{'); }
void JsonWriter::end_object() { close('}'); }
void JsonWriter::begin_array() { open('['); }
void JsonWriter::end_array() { close(']'); }

void JsonWriter::key(const char *k) {
  before_value();
  out_->addc('"');
  json_escape(out_, k, std::strlen(k));
  out_->add("\": ");
  after_key_ = true;
}

void JsonWriter::string(const char *s, size_t n) {
  before_value();
  out_->addc('"');
  json_escape(out_, s, n);
  out_->addc('"');
}

void JsonWriter::string(const char *s) { string(s, s ? std::strlen(s) : 0); }

void JsonWriter::number(int64_t v) {
  before_value();
  out_->add_i64(v);
}

void JsonWriter::real(double v) {
  before_value();
  if (!std::isfinite(v)) v = 0;
  out_->addf("%.2f", v);
}

void JsonWriter::boolean(bool v) {
  before_value();
  out_->add(v ? "true" : "false");
}

void JsonWriter::null() {
  before_value();
  out_->add("null");
}

}  // namespace faultline
