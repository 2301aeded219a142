#include "corpora.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
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

Corpus user_logs(const std::string &name, const std::string &dir, size_t min_bytes) {
  static const char *const kCompressed[] = {".gz", ".zst", ".xz", ".bz2", ".lz4", ".zip"};
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string ext = it->path().extension().string();
    if (std::find(std::begin(kCompressed), std::end(kCompressed), ext) != std::end(kCompressed)) continue;
    files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto &f : files) all += normalize(read_file(f));
  Corpus c{name, std::to_string(files.size()) + " files from " + dir, all};
  if (all.empty()) return c;
  while (c.bytes.size() < min_bytes) c.bytes += all;
  if (c.bytes.size() > all.size()) c.description += ", repeated to " + std::to_string(c.bytes.size() >> 20) + " MiB";
  return c;
}

namespace {

// Lines of raw text holding `needle`, and all lines. The next occurrence is
// searched for again only once a line has passed it: searching from every
// line start would read the rest of the file per line when the needle is rare.
std::pair<size_t, size_t> lines_with(const std::string &raw, const char *needle) {
  size_t with = 0, lines = 0, start = 0;
  size_t at = raw.find(needle);
  while (start < raw.size()) {
    size_t end = raw.find('\n', start);
    if (end == std::string::npos) end = raw.size();
    lines++;
    if (at != std::string::npos && at < start) at = raw.find(needle, start);
    if (at != std::string::npos && at < end) with++;
    start = end + 1;
  }
  return {with, lines};
}

bool mostly(const std::string &raw, const char *needle) {
  const auto [with, lines] = lines_with(raw, needle);
  return lines && with * 10 >= lines * 3;
}

size_t bare_carriage_returns(const std::string &raw) {
  size_t n = 0;
  for (size_t i = 0; i < raw.size(); i++)
    if (raw[i] == '\r' && (i + 1 == raw.size() || raw[i + 1] != '\n')) n++;
  return n;
}

// Lines with "nan" as a word in any case: "loss: nan", "accuracy=nan", "NaN".
size_t nan_lines(const std::string &raw) {
  size_t n = 0, start = 0;
  while (start < raw.size()) {
    size_t end = raw.find('\n', start);
    if (end == std::string::npos) end = raw.size();
    for (size_t i = start; i + 3 <= end; i++) {
      if ((raw[i] | 0x20) != 'n' || (raw[i + 1] | 0x20) != 'a' || (raw[i + 2] | 0x20) != 'n') continue;
      const bool left = i == start || !std::isalnum(static_cast<unsigned char>(raw[i - 1]));
      const bool right = i + 3 == end || !std::isalnum(static_cast<unsigned char>(raw[i + 3]));
      if (left && right) {
        n++;
        break;
      }
    }
    start = end + 1;
  }
  return n;
}

}  // namespace

const std::vector<Style> &styles() {
  static const std::vector<Style> all = {
      {"style: NCCL debug (NCCL_DEBUG=INFO)", "logs in which 30 % of the lines or more are NCCL's",
       [](const std::string &raw) { return mostly(raw, " NCCL "); }},
      {"style: MLPerf :::MLLOG", "logs in which 30 % of the lines or more are MLPerf's ':::MLLOG {json}' records",
       [](const std::string &raw) { return mostly(raw, ":::MLLOG"); }},
      {"style: progress bars (bare CR)", "logs with 50 or more bare carriage returns (tqdm and Lightning progress bars)",
       [](const std::string &raw) { return bare_carriage_returns(raw) >= 50; }},
      {"style: nan-printing metrics", "logs with 50 or more lines printing a nan metric ('loss: nan', 'accuracy=nan')",
       [](const std::string &raw) { return nan_lines(raw) >= 50; }},
  };
  return all;
}

Corpus style_logs(const Style &style, const std::vector<std::string> &dirs, size_t min_bytes) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto &dir : dirs)
    for (const auto &e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".log") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string all;
  size_t kept = 0;
  for (const auto &f : files) {
    const std::string raw = read_file(f);
    if (!style.holds(raw)) continue;
    all += normalize(raw);
    kept++;
  }
  Corpus c{style.name, std::to_string(kept) + " real " + style.rule, all};
  if (all.empty()) return c;
  while (c.bytes.size() < min_bytes) c.bytes += all;
  if (c.bytes.size() > all.size()) c.description += ", repeated to " + std::to_string(c.bytes.size() >> 20) + " MiB";
  return c;
}

Corpus docker_json(const Corpus &from, size_t bytes) {
  Corpus c{kDockerJsonName,
           "the healthy logs' lines as Docker's json-file driver stores them: "
           "{\"log\":\"<line>\\n\",\"stream\":\"stdout\",\"time\":\"...\"}",
           {}};
  size_t start = 0, line = 0;
  while (c.bytes.size() < bytes && !from.bytes.empty()) {
    size_t end = from.bytes.find('\n', start);
    if (end == std::string::npos) end = from.bytes.size();
    c.bytes += "{\"log\":\"";
    for (size_t i = start; i < end; i++) {
      const unsigned char ch = static_cast<unsigned char>(from.bytes[i]);
      // As moby's jsonlog writes it: Go's JSON string escapes, HTML-safe.
      if (ch == '"' || ch == '\\') {
        c.bytes += '\\';
        c.bytes += static_cast<char>(ch);
      } else if (ch == '\t') {
        c.bytes += "\\t";
      } else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&') {
        char esc[8];
        std::snprintf(esc, sizeof esc, "\\u%04x", ch);
        c.bytes += esc;
      } else {
        c.bytes += static_cast<char>(ch);
      }
    }
    char time[64];
    std::snprintf(time, sizeof time, "2024-05-01T12:%02zu:%02zu.%09zuZ", line / 60000 % 60, line / 1000 % 60,
                  line % 1000 * 1000000);
    c.bytes += "\\n\",\"stream\":\"stdout\",\"time\":\"";
    c.bytes += time;
    c.bytes += "\"}\n";
    line++;
    start = end + 1;
    if (start >= from.bytes.size()) start = 0;
  }
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
