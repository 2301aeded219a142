#include "engines.h"

#include <faultline.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

#ifdef FAULTLINE_BENCH_VECTORSCAN
#include <hs/hs.h>
#endif
#ifdef FAULTLINE_BENCH_RE2
#include <re2/re2.h>
#include <re2/set.h>
#endif

namespace bench {

std::vector<std::string> read_exported_patterns(const std::string &path) {
  std::vector<std::string> out;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t open = line.find(":/"), close = line.rfind('/');
    if (open == std::string::npos || close <= open + 1) continue;
    const size_t index = std::stoul(line.substr(0, open));
    if (out.size() <= index) out.resize(index + 1);
    out[index] = line.substr(open + 2, close - open - 2);
  }
  return out;
}

namespace {

// faultline: the C API as an embedder uses it, events counted.
class Faultline : public Engine {
 public:
  Faultline(size_t chunk, const std::string &pack_path, std::string name, bool counts)
      : chunk_(chunk), name_(std::move(name)), counts_(counts) {
    // FAULTLINE_PACK: another pack (flc compile --stride N ...) in place of the shipped one.
    const char *env = std::getenv("FAULTLINE_PACK");
    const std::string path = !pack_path.empty() ? pack_path : env && *env ? env : "";
    const fl_status st = !path.empty() ? fl_pack_open_file(path.c_str(), nullptr, &pack_, nullptr, 0)
                                       : fl_pack_open_default(nullptr, &pack_, nullptr, 0);
    if (st != FL_OK || fl_scanner_create(pack_, nullptr, &scanner_) != FL_OK) std::abort();
  }
  ~Faultline() override {
    fl_scanner_free(scanner_);
    fl_pack_free(pack_);
  }
  std::string name() const override { return name_; }
  bool counts() const override { return counts_; }
  uint64_t scan(const std::string &text) override {
    uint64_t events = 0;
    auto count = [](void *ctx, const fl_event *) { return ++*static_cast<uint64_t *>(ctx), 0; };
    for (size_t at = 0; at < text.size(); at += chunk_)
      fl_scanner_feed(scanner_, text.data() + at, std::min(chunk_, text.size() - at), count, &events);
    fl_scanner_finish(scanner_, count, &events);
    return events;
  }

 private:
  size_t chunk_;
  std::string name_;
  bool counts_;
  fl_pack *pack_ = nullptr;
  fl_scanner *scanner_ = nullptr;
};

// What no matcher can beat: one pass of memchr over every byte, for a byte
// that is rare in text (0x01; the binary corpus has some, which are counted).
class Memchr : public Engine {
 public:
  std::string name() const override { return "memchr (ceiling)"; }
  bool counts() const override { return false; }
  uint64_t scan(const std::string &text) override {
    uint64_t n = 0;
    const char *p = text.data(), *end = p + text.size();
    while ((p = static_cast<const char *>(std::memchr(p, 0x01, static_cast<size_t>(end - p))))) p++, n++;
    return n;
  }
};

// faultline matches the first max_line_bytes of a longer line (the rest is
// not read; the event is flagged truncated). The baselines count matches on
// the same bytes: a match ending past that point in its line is not counted.
constexpr uint64_t kLineReadBytes = 65536;  // fl_scanner_options.max_line_bytes = 0

// Counting (line, pattern) pairs from match end offsets: matches come in
// order of end offset, so a pattern's match before the end of the line it
// was last counted on is on that line.
struct LineCounter {
  const std::string *text = nullptr;
  std::vector<uint64_t> counted_until;  // per pattern: offset of the '\n' ending its last counted line, + 1
  uint64_t count = 0;
  uint64_t line_start = 0, searched_to = 0;  // the start of the line holding offset searched_to

  void reset(const std::string &t, size_t patterns) {
    text = &t;
    counted_until.assign(patterns, 0);
    count = line_start = searched_to = 0;
  }
  // The start of the line holding `at`. End offsets come in order, so the
  // search goes forward only: linear in the text.
  uint64_t start_of_line(uint64_t at) {
    const char *base = text->data();
    if (at < searched_to) {  // not expected; a backward search keeps it correct
      while (at > 0 && base[at - 1] != '\n') at--;
      return at;
    }
    for (const char *p = base + searched_to, *end = base + at; p < end;) {
      const void *nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
      if (!nl) break;
      p = static_cast<const char *>(nl) + 1;
      line_start = static_cast<uint64_t>(p - base);
    }
    searched_to = at;
    return line_start;
  }
  void on_match(uint32_t id, uint64_t to) {
    const uint64_t at = to > 0 ? to - 1 : 0;  // the match's last byte (or a '$' before '\n')
    if (at < counted_until[id]) return;
    if (to - start_of_line(at) > kLineReadBytes) return;
    const void *nl = std::memchr(text->data() + at, '\n', text->size() - at);
    counted_until[id] = nl ? static_cast<uint64_t>(static_cast<const char *>(nl) - text->data()) + 1 : text->size();
    count++;
  }
};

#ifdef FAULTLINE_BENCH_VECTORSCAN
hs_database_t *compile_hs(const std::vector<std::string> &patterns, unsigned mode, std::string *why) {
  std::vector<const char *> exprs;
  std::vector<unsigned> flags, ids;
  for (size_t i = 0; i < patterns.size(); i++) {
    if (patterns[i].empty()) continue;
    exprs.push_back(patterns[i].c_str());
    flags.push_back(HS_FLAG_MULTILINE);
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_database_t *db = nullptr;
  hs_compile_error_t *err = nullptr;
  if (hs_compile_multi(exprs.data(), flags.data(), ids.data(), static_cast<unsigned>(exprs.size()), mode, nullptr, &db, &err) !=
      HS_SUCCESS) {
    *why = std::string("Vectorscan cannot compile pattern ") +
           (err->expression >= 0 ? std::to_string(ids[err->expression]) : "?") + ": " + err->message;
    hs_free_compile_error(err);
    return nullptr;
  }
  return db;
}

int on_hs_match(unsigned id, unsigned long long, unsigned long long to, unsigned, void *ctx) {
  static_cast<LineCounter *>(ctx)->on_match(id, to);
  return 0;
}

// Block mode scans the whole text in one call; streaming mode feeds it in
// chunks as a log arrives, carrying state across them.
class Vectorscan : public Engine {
 public:
  Vectorscan(hs_database_t *db, size_t patterns, size_t chunk) : db_(db), patterns_(patterns), chunk_(chunk) {
    hs_alloc_scratch(db_, &scratch_);
  }
  ~Vectorscan() override {
    hs_free_scratch(scratch_);
    hs_free_database(db_);
  }
  std::string name() const override { return chunk_ ? "Vectorscan (streaming)" : "Vectorscan (block)"; }
  uint64_t scan(const std::string &text) override {
    counter_.reset(text, patterns_);
    if (!chunk_) {
      hs_scan(db_, text.data(), static_cast<unsigned>(text.size()), 0, scratch_, on_hs_match, &counter_);
      return counter_.count;
    }
    hs_stream_t *stream = nullptr;
    hs_open_stream(db_, 0, &stream);
    for (size_t at = 0; at < text.size(); at += chunk_)
      hs_scan_stream(stream, text.data() + at, static_cast<unsigned>(std::min(chunk_, text.size() - at)), 0, scratch_,
                     on_hs_match, &counter_);
    hs_close_stream(stream, scratch_, on_hs_match, &counter_);
    return counter_.count;
  }

 private:
  hs_database_t *db_;
  hs_scratch_t *scratch_ = nullptr;
  size_t patterns_, chunk_;  // chunk_ 0: block mode
  LineCounter counter_;
};
#endif

#ifdef FAULTLINE_BENCH_RE2
// RE2::Set, one line at a time (its matches cannot be told apart by line
// otherwise): Latin-1, so \xHH classes are bytes.
class Re2Set : public Engine {
 public:
  Re2Set() : set_(options(), RE2::UNANCHORED) {}
  static RE2::Options options() {
    RE2::Options o;
    o.set_encoding(RE2::Options::EncodingLatin1);
    o.set_log_errors(false);
    o.set_max_mem(int64_t{1} << 31);
    return o;
  }
  bool add(const std::vector<std::string> &patterns, std::string *why) {
    for (size_t i = 0; i < patterns.size(); i++) {
      std::string error;
      if (patterns[i].empty()) continue;
      if (set_.Add(patterns[i], &error) < 0) {
        *why = "RE2 cannot parse pattern " + std::to_string(i) + ": " + error;
        return false;
      }
    }
    if (!set_.Compile()) {
      *why = "RE2::Set::Compile failed (out of memory budget)";
      return false;
    }
    return true;
  }
  std::string name() const override { return "RE2::Set (per line)"; }
  uint64_t scan(const std::string &text) override {
    uint64_t count = 0;
    std::vector<int> hits;
    size_t start = 0;
    while (start < text.size()) {
      const void *nl = std::memchr(text.data() + start, '\n', text.size() - start);
      const size_t end = nl ? static_cast<size_t>(static_cast<const char *>(nl) - text.data()) : text.size();
      hits.clear();
      const size_t read = std::min<size_t>(end - start, kLineReadBytes);  // as faultline reads it
      if (set_.Match(std::string_view(text.data() + start, read), &hits)) count += hits.size();
      start = end + 1;
    }
    return count;
  }

 private:
  RE2::Set set_;
};
#endif

}  // namespace

std::unique_ptr<Engine> make_faultline(size_t chunk_bytes, const std::string &pack_path, const std::string &name, bool counts) {
  return std::make_unique<Faultline>(chunk_bytes, pack_path, name, counts);
}
std::unique_ptr<Engine> make_memchr() { return std::make_unique<Memchr>(); }

std::unique_ptr<Engine> make_vectorscan_block(const std::vector<std::string> &patterns, std::string *why) {
#ifdef FAULTLINE_BENCH_VECTORSCAN
  hs_database_t *db = compile_hs(patterns, HS_MODE_BLOCK, why);
  return db ? std::make_unique<Vectorscan>(db, patterns.size(), 0) : nullptr;
#else
  (void)patterns;
  *why = "not built: libvectorscan-dev was not found";
  return nullptr;
#endif
}

std::unique_ptr<Engine> make_vectorscan_stream(const std::vector<std::string> &patterns, size_t chunk_bytes, std::string *why) {
#ifdef FAULTLINE_BENCH_VECTORSCAN
  hs_database_t *db = compile_hs(patterns, HS_MODE_STREAM, why);
  return db ? std::make_unique<Vectorscan>(db, patterns.size(), chunk_bytes) : nullptr;
#else
  (void)patterns, (void)chunk_bytes;
  *why = "not built: libvectorscan-dev was not found";
  return nullptr;
#endif
}

std::unique_ptr<Engine> make_re2_set(const std::vector<std::string> &patterns, std::string *why) {
#ifdef FAULTLINE_BENCH_RE2
  auto e = std::make_unique<Re2Set>();
  if (!e->add(patterns, why)) return nullptr;
  return e;
#else
  (void)patterns;
  *why = "not built: libre2-dev was not found";
  return nullptr;
#endif
}

}  // namespace bench
