// Growable arrays for the diagnosis side of the runtime, which (unlike the
// scanner) collects an amount of evidence not known in advance. They allocate
// through the object's Allocator, never throw, and hold only trivially
// copyable items. A failed allocation sets a sticky `failed` flag: callers
// check it once at the end of an operation instead of after every append.
// Growing methods pass their caller's line to the allocator as the site.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/alloc.h"

namespace faultline {

template <typename T>
class Vec {
  static_assert(std::is_trivially_copyable_v<T>, "Vec holds plain data only");

 public:
  Vec() = default;
  explicit Vec(const Allocator &a) : alloc_(a) {}
  Vec(const Vec &) = delete;
  Vec &operator=(const Vec &) = delete;
  ~Vec() { alloc_.release(data_); }

  void set_allocator(const Allocator &a) { alloc_ = a; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool failed() const { return failed_; }
  T *data() { return data_; }
  const T *data() const { return data_; }
  T &operator[](size_t i) { return data_[i]; }
  const T &operator[](size_t i) const { return data_[i]; }
  T *begin() { return data_; }
  T *end() { return data_ + size_; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }
  T &back() { return data_[size_ - 1]; }

  bool reserve(size_t n, Site site = Site()) {
    if (n <= cap_) return true;
    size_t cap = cap_ ? cap_ : 8;
    while (cap < n) {
      if (cap > (SIZE_MAX / sizeof(T)) / 2) return fail();
      cap *= 2;
    }
    T *p = static_cast<T *>(alloc_.allocate(cap * sizeof(T), site));
    if (!p) return fail();
    if (size_) std::memcpy(static_cast<void *>(p), data_, size_ * sizeof(T));
    alloc_.release(data_);
    data_ = p;
    cap_ = cap;
    return true;
  }
  bool push(const T &v, Site site = Site()) {
    if (size_ == cap_ && !reserve(size_ + 1, site)) return false;
    data_[size_++] = v;
    return true;
  }
  bool append(const T *p, size_t n, Site site = Site()) {
    if (n == 0) return true;
    if (n > SIZE_MAX - size_ || !reserve(size_ + n, site)) return fail();
    std::memcpy(static_cast<void *>(data_ + size_), p, n * sizeof(T));
    size_ += n;
    return true;
  }
  void clear() { size_ = 0; }
  // Empty, and a failed allocation forgotten: for buffers that are rebuilt.
  void reset() {
    size_ = 0;
    failed_ = false;
  }
  void truncate(size_t n) {
    if (n < size_) size_ = n;
  }
  void erase(size_t i) {
    std::memmove(static_cast<void *>(data_ + i), data_ + i + 1, (size_ - i - 1) * sizeof(T));
    size_--;
  }
  void swap(Vec &o) {
    Allocator a = alloc_;
    alloc_ = o.alloc_;
    o.alloc_ = a;
    T *d = data_;
    data_ = o.data_;
    o.data_ = d;
    size_t n = size_;
    size_ = o.size_;
    o.size_ = n;
    n = cap_;
    cap_ = o.cap_;
    o.cap_ = n;
    bool f = failed_;
    failed_ = o.failed_;
    o.failed_ = f;
  }

 private:
  bool fail() {
    failed_ = true;
    return false;
  }
  Allocator alloc_;
  T *data_ = nullptr;
  size_t size_ = 0, cap_ = 0;
  bool failed_ = false;
};

// A byte buffer used as a text builder.
class Text : public Vec<char> {
 public:
  using Vec<char>::Vec;
  void add(const char *s, Site site = Site()) { append(s, std::strlen(s), site); }
  void add(const char *s, size_t n, Site site = Site()) { append(s, n, site); }
  void addc(char c, Site site = Site()) { push(c, site); }
  void add_u64(uint64_t v);
  void add_i64(int64_t v);
  void addf(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  // NUL-terminates without counting the NUL in size().
  const char *c_str();
};

}  // namespace faultline
