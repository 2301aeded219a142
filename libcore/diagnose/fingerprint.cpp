#include "diagnose/fingerprint.h"

#include <cstdio>

#include "common/hash.h"
#include "diagnose/diagnosis.h"

namespace faultline {

namespace {

constexpr uint64_t kFingerprintVersion = 1;  // the 1 of "fp1:" and of faultline-fp/1

bool digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

FingerprintText::FingerprintText(uint64_t fingerprint) {
  std::snprintf(text, sizeof text, "fp%llu:%016llx", static_cast<unsigned long long>(kFingerprintVersion),
                static_cast<unsigned long long>(fingerprint));
}

void fingerprint_root(const Evidence &ev, Diagnosis *d) {
  Text &t = d->fingerprint_template;
  if (d->verdict == Verdict::kNoFailure) return;
  if (d->root_group >= 0) {
    t.add(ev.str(ev.groups[d->root_group].entry_id));
  } else if (d->root_candidate >= 0) {
    const Candidate &x = ev.candidates[d->root_candidate];
    t.add("unknown:");
    if (x.exception.len)
      template_of(ev.str(x.exception), x.exception.len, &t);
    else
      template_of(ev.str(x.text), x.text.len, &t);
  } else if (d->root_hint >= 0) {
    const LaunchHint &h = ev.hints[d->root_hint];
    t.add("unknown:exit:");
    t.add_i64(h.signal ? -h.signal : h.exitcode);
  }
  Text seed(d->alloc);
  seed.add_u64(kFingerprintVersion);
  seed.addc('\0');
  seed.add(t.data(), t.size());
  d->fingerprint = xxh64(seed.data(), seed.size());
}

void template_of(const char *s, size_t n, Text *out) {
  size_t i = 0;
  bool space = false;
  while (i < n) {
    char c = s[i];
    if (c == ' ' || c == '\t') {
      space = true;
      i++;
      continue;
    }
    if (space && out->size()) out->addc(' ');
    space = false;
    bool word_start =
        i == 0 || !((s[i - 1] >= 'a' && s[i - 1] <= 'z') || (s[i - 1] >= 'A' && s[i - 1] <= 'Z') || s[i - 1] == '_');
    if (c == '/' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\'' || s[i - 1] == '"' || s[i - 1] == '(' || s[i - 1] == '=')) {
      // A path: up to a space or quote.
      while (i < n && s[i] != ' ' && s[i] != '\'' && s[i] != '"' && s[i] != ')' && s[i] != ',') i++;
      out->add("<path>");
      continue;
    }
    if (word_start && c == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
      i += 2;
      while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F'))) i++;
      out->add("<hex>");
      continue;
    }
    if (digit(c)) {
      // A run of digits, with '.', ':' or '-' between digits (numbers, IPs, times).
      while (i < n &&
             (digit(s[i]) || ((s[i] == '.' || s[i] == ':' || s[i] == '-' || s[i] == ',') && i + 1 < n && digit(s[i + 1]))))
        i++;
      out->add("<n>");
      continue;
    }
    out->addc(c);
    i++;
  }
}

}  // namespace faultline
