// The inputs every engine of the benchmark scans, byte for byte the same:
// real logs (healthy, failing) and generated adversarial text. All are in
// one line model: lines end with '\n' ("\r\n" and bare '\r' are rewritten,
// ANSI sequences removed, as faultline's scanner sees them), so that match
// counts of engines without faultline's line handling can be compared.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace bench {

struct Corpus {
  std::string name;         // "healthy", "adversarial: near misses", ...
  std::string description;  // how it was made
  std::string bytes;
  // Lines with more matching work than faultline's work budget pays for:
  // faultline reports fewer matches there by design (limits.h), so its count
  // is not compared with the other engines'.
  bool over_work_budget = false;
};

// Every *.log under dir, in name order, normalized; repeated up to min_bytes.
Corpus real_logs(const std::string &name, const std::string &dir, size_t min_bytes);

// Every regular file under dir and its subfolders (a user's own logs, any
// name), in path order, normalized; repeated up to min_bytes. Compressed
// files are skipped: the engines compare on text.
Corpus user_logs(const std::string &name, const std::string &dir, size_t min_bytes);

// One style of log, from the real logs of dirs: the *.log files in which
// `style` holds (it sees the raw text, before normalization); repeated up to
// min_bytes. `rule` says in words which files were kept.
struct Style {
  std::string name, rule;
  bool (*holds)(const std::string &raw);
};
Corpus style_logs(const Style &style, const std::vector<std::string> &dirs, size_t min_bytes);
const std::vector<Style> &styles();

inline constexpr const char *kDockerJsonName = "style: JSON lines (Docker json-file)";
// The lines of `from` as Docker's json-file logging driver stores a
// container's output: {"log":"<line, JSON-escaped>\n","stream":"stdout","time":"..."}.
Corpus docker_json(const Corpus &from, size_t bytes);

// Generated, size about `bytes`. `keys` are the literal filter's keys.
Corpus near_misses(const std::vector<std::string> &keys, size_t bytes);
Corpus key_dense(const std::vector<std::string> &keys, size_t line_bytes, size_t bytes);
Corpus giant_line(const Corpus &near, size_t bytes);
Corpus newline_every_byte(size_t bytes);
Corpus nul_binary(size_t bytes);

// The line model above, applied to any text.
std::string normalize(const std::string &text);

}  // namespace bench
