#include "document_scan.h"

namespace lsp {

size_t complete_lines_end(const std::string &text) {
  size_t n = text.size();
  if (n && text[n - 1] == '\r') n--;
  while (n > 0 && text[n - 1] != '\n' && text[n - 1] != '\r') n--;
  return n;
}

namespace {

// Where the line starting at `start` ends, its break included ("\r\n" whole).
size_t line_end(const std::string &text, size_t start) {
  size_t i = text.find_first_of("\r\n", start);
  if (i == std::string::npos) return text.size();
  if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') i++;
  return i + 1;
}

uint64_t over_budget_lines(const fl_scanner *scanner) {
  fl_scanner_stats st{};
  st.struct_size = sizeof st;
  fl_scanner_get_stats(scanner, &st);
  return st.over_budget_lines;
}

}  // namespace

DocumentScan::~DocumentScan() {
  fl_scanner_free(index_);
  fl_pack_free(pack_);
}

void DocumentScan::drop_index() {
  fl_scanner_free(index_);
  index_ = nullptr;
  indexed_ = 0;
  event_lines_.clear();
  feed_whole_ = false;
}

void DocumentScan::text_changed(bool appended) {
  if (appended) return;
  if (indexed_) stats_.index_restarts++;
  drop_index();
}

void DocumentScan::use_pack(fl_pack *pack) {
  if (pack == pack_) {
    fl_pack_free(pack);
    return;
  }
  if (indexed_) stats_.index_restarts++;
  drop_index();
  fl_pack_free(pack_);
  pack_ = pack;
}

int DocumentScan::on_index_event(void *ctx, const fl_event *ev) {
  auto *self = static_cast<DocumentScan *>(ctx);
  // Several events of one line come together: keep the line once.
  if (self->event_lines_.empty() || self->event_lines_.back() != ev->byte_offset) self->event_lines_.push_back(ev->byte_offset);
  return 0;
}

bool DocumentScan::extend_index(const std::string &text, std::string *error) {
  if (!index_) {
    if (fl_scanner_create(pack_, nullptr, &index_) != FL_OK) {
      *error = "out of memory";
      return false;
    }
  }
  const size_t end = complete_lines_end(text);
  if (end > indexed_) {
    if (fl_scanner_feed(index_, text.data() + indexed_, end - indexed_, on_index_event, this) != FL_OK) {
      *error = fl_scanner_errmsg(index_);
      drop_index();
      return false;
    }
    stats_.matched_bytes += end - indexed_;
    indexed_ = end;
  }
  if (over_budget_lines(index_)) feed_whole_ = true;
  return true;
}

std::string DocumentScan::diagnose(const std::string &text, const std::string &name, std::string *error) {
  if (!pack_) {
    *error = "no pack";
    return "";
  }
  if (indexed_ > text.size()) drop_index();  // not the text it was built on (the caller missed telling us)
  if (!extend_index(text, error)) return "";
  fl_diagnoser *d = nullptr;
  if (fl_diagnoser_create(pack_, nullptr, &d) != FL_OK) {
    *error = "out of memory";
    return "";
  }
  fl_status st = fl_diagnoser_begin_source(d, name.c_str());
  size_t at = 0;
  auto feed = [&](size_t to) {
    if (st == FL_OK && to > at) st = fl_diagnoser_feed(d, text.data() + at, to - at);
    stats_.matched_bytes += to - at;
    at = to;
  };
  auto skip = [&](size_t to) {
    if (st == FL_OK && to > at) st = fl_diagnoser_skip(d, text.data() + at, to - at);
    stats_.skipped_bytes += to - at;
    at = to;
  };
  if (!feed_whole_) {
    // Lines that produced events, fed whole; the lines between them, skipped
    // (each region starts and ends at a line's start, so no line is cut).
    for (uint64_t start : event_lines_) {
      if (start >= indexed_ || start < at) break;
      skip(static_cast<size_t>(start));
      feed(line_end(text, static_cast<size_t>(start)));
    }
    skip(indexed_);
  }
  feed(text.size());  // the last line, not complete yet (or everything)
  const char *json = nullptr;
  size_t len = 0;
  if (st == FL_OK) st = fl_diagnoser_report(d, FL_REPORT_JSON, &json, &len);
  std::string report;
  if (st == FL_OK)
    report.assign(json, len);
  else
    *error = std::string(fl_status_str(st)) + ": " + fl_diagnoser_errmsg(d);
  fl_diagnoser_free(d);
  stats_.diagnoses++;
  return report;
}

}  // namespace lsp
