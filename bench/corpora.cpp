#include "corpora.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "match/line_text.h"

namespace fs = std::filesystem;

namespace bench {

namespace {

std::string read_file(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A small deterministic generator: the corpora are the same on every run.
struct Rng {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
};

}  // namespace

std::string normalize(const std::string &text) {
  std::string out;
  out.reserve(text.size() + 1);
  std::vector<uint8_t> clean;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); i++) {
    const bool end = i == text.size();
    if (!end && text[i] != '\n' && text[i] != '\r') continue;
    if (end && start == i) break;
    const uint8_t *line = reinterpret_cast<const uint8_t *>(text.data()) + start;
    size_t n = i - start;
    if (std::find(line, line + n, 0x1b) != line + n) {
      clean.resize(n);
      n = faultline::strip_ansi(line, n, clean.data());
      line = clean.data();
    }
    out.append(reinterpret_cast<const char *>(line), n);
    out += '\n';
    if (!end && text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') i++;
    start = i + 1;
  }
  return out;
}

Corpus real_logs(const std::string &name, const std::string &dir, size_t min_bytes) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".log") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto &f : files) all += normalize(read_file(f));
  Corpus c{name, std::to_string(files.size()) + " real logs from " + dir, all};
  if (all.empty()) return c;
  while (c.bytes.size() < min_bytes) c.bytes += all;
  if (c.bytes.size() > all.size()) c.description += ", repeated to " + std::to_string(c.bytes.size() >> 20) + " MiB";
  return c;
}

// Each line: a log prefix and three keys with one byte changed (the middle
// one, to a byte that is not a letter of either case), cycling through all
// keys: every probe and fingerprint finds its grams, no key verifies.
Corpus near_misses(const std::vector<std::string> &keys, size_t bytes) {
  Corpus c{"adversarial: near misses", "every key of the pack with its middle byte changed, 3 per line", {}};
  if (keys.empty()) return c;
  size_t k = 0, line = 0;
  while (c.bytes.size() < bytes) {
    c.bytes += "[2024-05-01 12:00:" + std::to_string(10 + line % 50) + "] [rank" + std::to_string(line % 64) + "]:";
    for (int i = 0; i < 3; i++, k++) {
      std::string key = keys[k % keys.size()];
      char &m = key[key.size() / 2];
      m = m == '#' ? '%' : '#';
      c.bytes += " " + key;
    }
    c.bytes += '\n';
    line++;
  }
  return c;
}

// Lines of `line_bytes` made of the pack's keys themselves, unchanged,
// cycling through all of them: every line holds keys of every DFA, so every
// DFA runs over it and many patterns reach confirmation. The worst case of
// the matcher's work per byte, which its per-line work budget bounds.
Corpus key_dense(const std::vector<std::string> &keys, size_t line_bytes, size_t bytes) {
  const std::string size = line_bytes >= 1024 ? std::to_string(line_bytes >> 10) + " KiB" : std::to_string(line_bytes) + " B";
  Corpus c{"adversarial: key-dense " + size + " lines",
           "lines of " + size + " made of the pack's keys, unchanged, one after another",
           {},
           true};
  if (keys.empty()) return c;
  size_t k = 0;
  while (c.bytes.size() < bytes) {
    std::string line = "[rank" + std::to_string(k % 64) + "]:";
    while (line.size() < line_bytes) line += " " + keys[k++ % keys.size()];
    line.resize(line_bytes);
    c.bytes += line + '\n';
  }
  return c;
}

Corpus giant_line(const Corpus &near, size_t bytes) {
  Corpus c{"adversarial: one giant line", "the near misses joined into one line", near.bytes.substr(0, bytes)};
  std::replace(c.bytes.begin(), c.bytes.end(), '\n', ' ');
  c.bytes += '\n';
  return c;
}

Corpus newline_every_byte(size_t bytes) {
  return Corpus{"adversarial: every byte a line break", "only line feeds: every line empty", std::string(bytes, '\n')};
}

Corpus nul_binary(size_t bytes) {
  Corpus c{"adversarial: NUL-heavy binary", "random bytes, half of them NUL, a line break about every 256 bytes", {}};
  Rng rng;
  std::string raw(bytes, '\0');
  for (size_t i = 0; i < bytes; i++) {
    const uint64_t r = rng.next();
    raw[i] = (r & 1) ? static_cast<char>(r >> 8) : '\0';
    if (((r >> 16) & 255) == 0) raw[i] = '\n';
  }
  c.bytes = normalize(raw);
  return c;
}

}  // namespace bench
