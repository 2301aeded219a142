// Rendering a diagnosis: the JSON report (schema faultline.report/2,
// documented in libcore/report/REPORT.md), the human text report and the
// one-line summary; and what the renderers share (report_common.cpp): the
// names of the pack's enums, the advice for a launcher, captured fields, the
// safe filling of command placeholders.
#pragma once

#include "diagnose/diagnosis.h"

namespace faultline {

struct ReportInput {
  const Evidence &ev;
  const Library &pack;
  const Diagnosis &d;
  const char *incomplete = nullptr;  // why the inputs were not read whole; NULL when they were
};

void render_json(const ReportInput &in, Text *out);
void render_text(const ReportInput &in, bool color, Text *out);
void render_summary(const ReportInput &in, Text *out);

// Names as reports print them (and signatures spell them).
const char *verdict_name(Verdict v);
const char *action_name(fb::Action a);
const char *role_name(fb::Role r);
const char *severity_name(fb::Severity s);

// The root's entry: a known failure, or the collateral an inconclusive
// verdict stands on; NULL when no entry knows the root.
const fb::Entry *root_entry(const ReportInput &in);

// What a launcher should do about this diagnosis.
struct Advice {
  const char *action;      // the root entry's action for a known failure, "none" without one, else "investigate"
  bool retry;              // retrying may help (retry, exclude-node-and-retry)
  bool exclude_root_host;  // the root's host is faulty
  const char *text;        // one sentence for a person
};
Advice advice_for(const ReportInput &in);

// Walks a group's captured fields: "name\0value\0" pairs.
struct FieldCursor {
  const char *p;
  size_t len, i = 0;
  bool next(const char **name, size_t *name_len, const char **value, size_t *value_len);
};

// The root group's captured field `name`, or NULL.
const char *root_field(const ReportInput &in, const char *name, size_t name_len, size_t *value_len);

// Fills {name} placeholders of a fix or verify command from the root's
// captured fields, {rank} and {host}; unknown ones stay as written.
void fill_placeholders(const ReportInput &in, const char *tmpl, Text *out);
// The template with every placeholder shown as "{name}" (encyclopedia pages).
void show_placeholders(const char *tmpl, Text *out);

// Appends log text for a terminal: control characters (escape sequences above
// all) become '?', so that a log cannot drive the reader's terminal.
void add_safe(Text *out, const char *s, size_t n);
// The same, keeping line breaks (a pack's multi-line text).
void add_safe_text(Text *out, const char *s, size_t n);

}  // namespace faultline
