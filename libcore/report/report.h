// Rendering a diagnosis: the JSON report (schema faultline.report/1,
// documented in libcore/report/REPORT.md), the human text report and the one-line
// summary.
#pragma once

#include "diagnose/diagnosis.h"

namespace faultline {

struct ReportInput {
  const Evidence &ev;
  const PackView &pack;
  const Diagnosis &d;
  const char *incomplete = nullptr;  // why the inputs were not read whole; NULL when they were
};

void render_json(const ReportInput &in, Text *out);
void render_text(const ReportInput &in, bool color, Text *out);
void render_summary(const ReportInput &in, Text *out);

// Walks a group's captured fields: "name\0value\0" pairs.
struct FieldCursor {
  const char *p;
  size_t len, i = 0;
  bool next(const char **name, size_t *name_len, const char **value, size_t *value_len);
};

// Fills {name} placeholders of a fix or verify command from the root's
// captured fields, {rank} and {host}; unknown ones stay as written.
void fill_placeholders(const ReportInput &in, const char *tmpl, Text *out);

// The root group's captured field `name`, or NULL.
const char *root_field(const ReportInput &in, const char *name, size_t name_len, size_t *value_len);

}  // namespace faultline
