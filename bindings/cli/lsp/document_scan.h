// Diagnosis of one document, re-done on every change without matching the
// unchanged prefix again when the document only grew (a log being written, a
// terminal capture).
//
// The C API cannot read a diagnoser and go on feeding the same source (a
// report ends it: its line count restarts, its open tracebacks are closed).
// But a diagnoser's evidence comes only from the lines that produce events,
// and fl_diagnoser_skip passes over lines keeping their numbers and counts. So
// a scanner kept per document finds, once, which complete lines produce
// events; each diagnosis then feeds only those lines and what follows the last
// complete line, and skips the rest (line breaks counted at memory speed). The
// evidence, hence the report, is the same as a full scan's. One exception:
// on key-dense lines the scanner's work budget (docs/GUARANTEES.md) makes
// matching depend on the lines before; when the index meets such a line, the
// document is fed whole from then on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "faultline.h"

namespace lsp {

struct ScanStats {
  uint64_t matched_bytes = 0;   // fed to matching (index scanner and diagnosers), since open
  uint64_t skipped_bytes = 0;   // passed over by diagnosers without matching
  uint64_t diagnoses = 0;       // reports made
  uint64_t index_restarts = 0;  // times the index was built again from the start (edits, pack reloads)
};

class DocumentScan {
 public:
  DocumentScan() = default;
  ~DocumentScan();
  DocumentScan(const DocumentScan &) = delete;
  DocumentScan &operator=(const DocumentScan &) = delete;

  // The document changed: `appended` when the new text is the old one with
  // bytes added at its end; anything else starts the index again.
  void text_changed(bool appended);
  // The pack changed: the index is made again on it.
  void use_pack(fl_pack *pack);

  // Diagnoses `text` as the source `name` and returns the JSON report, or
  // "" with the reason in `*error`.
  std::string diagnose(const std::string &text, const std::string &name, std::string *error);

  const ScanStats &stats() const { return stats_; }
  // The pack of the last report (borrowed; lives while this object or its next report does).
  const fl_pack *pack() const { return pack_; }

 private:
  bool extend_index(const std::string &text, std::string *error);
  void drop_index();
  static int on_index_event(void *ctx, const fl_event *ev);

  fl_pack *pack_ = nullptr;            // own reference
  fl_scanner *index_ = nullptr;        // fed the document's complete lines, in order
  size_t indexed_ = 0;                 // bytes of the document fed to index_
  std::vector<uint64_t> event_lines_;  // start offsets of the lines that produced events, ascending
  bool feed_whole_ = false;            // the work budget ran out on some line: no skipping
  ScanStats stats_;
};

// The end of the last complete line of `text`: after its last line break,
// unless that break is a '\r' ending the text (a '\n' may follow and belong to it).
size_t complete_lines_end(const std::string &text);

}  // namespace lsp
