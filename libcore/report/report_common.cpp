// What every report shares: names, the launcher's advice, captured fields,
// command placeholders, text safe for a terminal.
#include <cstdio>
#include <cstring>

#include "common/value_type.h"
#include "common/vocabulary.h"
#include "report/report.h"

namespace faultline {

const char *verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kFailure:
      return "failure";
    case Verdict::kInconclusive:
      return "inconclusive";
    default:
      return "no-failure";
  }
}

const char *action_name(fb::Action a) {
  switch (a) {
    case fb::Action::Retry:
      return "retry";
    case fb::Action::ExcludeNodeAndRetry:
      return "exclude-node-and-retry";
    case fb::Action::FixConfig:
      return "fix-config";
    case fb::Action::FixCode:
      return "fix-code";
    case fb::Action::FixEnvironment:
      return "fix-environment";
    case fb::Action::AddResources:
      return "add-resources";
    case fb::Action::Stop:
      return "stop";
    default:
      return "investigate";
  }
}

const char *role_name(fb::Role r) {
  switch (r) {
    case fb::Role::Cause:
      return "cause";
    case fb::Role::Collateral:
      return "collateral";
    case fb::Role::Wrapper:
      return "wrapper";
    default:
      return "symptom";
  }
}

const char *severity_name(fb::Severity s) {
  switch (s) {
    case fb::Severity::Critical:
      return "critical";
    case fb::Severity::High:
      return "high";
    case fb::Severity::Medium:
      return "medium";
    case fb::Severity::Low:
      return "low";
    default:
      return "info";
  }
}

const fb::Entry *root_entry(const ReportInput &in) {
  const uint32_t entry = root_site(in.ev, in.d).entry;
  return entry < in.pack.entry_count() ? in.pack.entry(entry) : nullptr;
}

namespace {

const char *advice_text(fb::Action a) {
  switch (a) {
    case fb::Action::Retry:
      return "transient failure: retry the job as is";
    case fb::Action::ExcludeNodeAndRetry:
      return "faulty node: exclude the host and retry";
    case fb::Action::FixConfig:
      return "do not retry unchanged: fix the configuration first";
    case fb::Action::FixCode:
      return "do not retry: the code must be fixed";
    case fb::Action::FixEnvironment:
      return "do not retry unchanged: fix the environment (drivers, packages, image, mounts)";
    case fb::Action::AddResources:
      return "do not retry unchanged: give the job more resources or use less";
    case fb::Action::Stop:
      return "stop: retrying cannot help";
    default:
      return "investigate before retrying: this failure alone does not decide";
  }
}

}  // namespace

Advice advice_for(const ReportInput &in) {
  const Diagnosis &d = in.d;
  if (d.verdict == Verdict::kNoFailure) return Advice{"none", false, false, "no failure found: nothing to do"};
  const fb::Entry *e = root_entry(in);
  if (d.verdict == Verdict::kFailure && e) {
    const fb::Action a = e->action();
    const bool retry = a == fb::Action::Retry || a == fb::Action::ExcludeNodeAndRetry;
    return Advice{action_name(a), retry, a == fb::Action::ExcludeNodeAndRetry && d.root_host.len > 0, advice_text(a)};
  }
  return Advice{"investigate", false, false,
                d.verdict == Verdict::kInconclusive
                    ? "investigate: the initiating failure is in another log (see missing_evidence)"
                    : "investigate: no entry knows this failure; read the root text"};
}

bool FieldCursor::next(const char **name, size_t *name_len, const char **value, size_t *value_len) {
  const void *z1 = i < len ? std::memchr(p + i, '\0', len - i) : nullptr;
  if (!z1) return false;
  size_t a = static_cast<const char *>(z1) - p;
  const void *z2 = a + 1 < len ? std::memchr(p + a + 1, '\0', len - a - 1) : nullptr;
  if (!z2) return false;
  size_t b = static_cast<const char *>(z2) - p;
  *name = p + i, *name_len = a - i, *value = p + a + 1, *value_len = b - a - 1;
  i = b + 1;
  return true;
}

const char *root_field(const ReportInput &in, const char *name, size_t name_len, size_t *value_len) {
  if (in.d.root_group < 0) return nullptr;
  const Group &g = in.ev.groups[in.d.root_group];
  FieldCursor c{in.ev.str(g.fields), g.fields.len};
  const char *n, *v;
  size_t nl, vl;
  while (c.next(&n, &nl, &v, &vl))
    if (nl == name_len && std::memcmp(n, name, nl) == 0) {
      *value_len = vl;
      return v;
    }
  return nullptr;
}

namespace {

bool named(const char *name, size_t len, const char *lit) { return std::strlen(lit) == len && std::memcmp(name, lit, len) == 0; }

// The value of placeholder `name` of type `type`, when the diagnosis has one
// that fits the type.
bool placeholder_value(const ReportInput &in, const char *name, size_t len, ValueType type, Text *out) {
  size_t vl = 0;
  const char *v = root_field(in, name, len, &vl);
  char num[24];
  if (!v && named(name, len, kPlaceholderRank) && in.d.root_rank >= 0) {
    vl = static_cast<size_t>(std::snprintf(num, sizeof num, "%lld", static_cast<long long>(in.d.root_rank)));
    v = num;
  }
  if (!v && named(name, len, kPlaceholderHost) && in.d.root_host.len) v = in.ev.str(in.d.root_host), vl = in.d.root_host.len;
  if (!v || !value_fits(type, v, vl)) return false;
  out->add(v, vl);
  return true;
}

}  // namespace

// Copies template `t` to `out`, calling fill(name, len, type) for each
// placeholder "{name:type}" (flc writes the type the entry declares; "${VAR}"
// is the shell's). A placeholder fill() does not fill, or one without a
// type, is shown as "{name}": a hole for the reader, never text from a log,
// and a plain word in every shell context (no redirection like "<name>").
template <typename Fill>
static void walk_template(const char *t, Text *out, Fill fill) {
  const size_t n = std::strlen(t);
  for (size_t i = 0; i < n; i++) {
    if (t[i] == '{' && (i == 0 || t[i - 1] != '$')) {
      size_t j = i + 1;
      while (j < n && ((t[j] >= 'a' && t[j] <= 'z') || t[j] == '_' || (j > i + 1 && t[j] >= '0' && t[j] <= '9'))) j++;
      const size_t name_end = j;
      size_t type_at = j;
      if (j < n && t[j] == ':') {
        type_at = ++j;
        while (j < n && t[j] >= 'a' && t[j] <= 'z') j++;
      }
      if (j < n && t[j] == '}' && name_end > i + 1) {
        const char *name = t + i + 1;
        const size_t len = name_end - i - 1;
        const ValueType type = type_at < j ? value_type_named(t + type_at, j - type_at) : ValueType::kUnknown;
        if (!fill(name, len, type)) {
          out->addc('{');
          out->add(name, len);
          out->addc('}');
        }
        i = j;
        continue;
      }
    }
    add_safe(out, t + i, 1);  // a pack's command is one line, shown as it will run
  }
}

void fill_placeholders(const ReportInput &in, const char *t, Text *out) {
  walk_template(t, out,
                [&](const char *name, size_t len, ValueType type) { return placeholder_value(in, name, len, type, out); });
}

void show_placeholders(const char *t, Text *out) {
  walk_template(t, out, [](const char *, size_t, ValueType) { return false; });
}

namespace {

void add_escaped(Text *out, const char *s, size_t n, bool keep_newlines) {
  for (size_t i = 0; i < n; i++) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    out->addc((c < 0x20 && !(keep_newlines && c == '\n')) || c == 0x7f ? '?' : static_cast<char>(c));
  }
}

}  // namespace

void add_safe(Text *out, const char *s, size_t n) { add_escaped(out, s, n, false); }

void add_safe_text(Text *out, const char *s, size_t n) { add_escaped(out, s, n, true); }

}  // namespace faultline
