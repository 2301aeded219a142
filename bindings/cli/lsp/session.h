// The language server's state: open documents, their diagnoses, the pack
// slot, and the answers to each LSP message. It reads parsed frames and
// writes messages through `send`; the loop around it (cmd_lsp.cpp) owns
// stdin, stdout and time.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "document_scan.h"
#include "faultline.h"
#include "pack_watch.h"
#include "report_view.h"
#include "text_document.h"

namespace lsp {

using Clock = std::chrono::steady_clock;

struct SessionLimits {
  size_t max_documents = 64;                // open documents diagnosed at once
  size_t max_document_bytes = 64u << 20;    // larger documents are not diagnosed (faultline diagnose FILE is)
  std::chrono::milliseconds debounce{200};  // a burst of changes is diagnosed once, this long after its last
};

class Session {
 public:
  // `slot` is borrowed; `pack_option` names the pack files to watch (pack_choice.h).
  Session(fl_pack_slot *slot, std::string pack_option, SessionLimits limits, std::function<bool(const std::string &)> send);
  ~Session();

  // One message body from the client.
  void handle(const std::string &body);
  // A frame that could not be read: answered with a JSON-RPC error (id null).
  void bad_frame(const std::string &problem, bool too_large);
  // Runs the diagnoses that are due and looks at the pack files once a second.
  void tick(Clock::time_point now);
  // Milliseconds until tick has something to do (-1: nothing planned).
  int wait_ms(Clock::time_point now) const;

  bool exited() const { return exited_; }
  int exit_status() const { return exit_status_; }

 private:
  struct Document {
    std::string uri;
    std::string source;  // its name in the report: the file's path, else the URI's last segment
    int64_t version = 0;
    TextDocument text;
    DocumentScan scan;
    json report;       // the last report, null before the first
    bool due = false;  // a diagnosis is planned at `due_at`
    Clock::time_point due_at{};
    bool too_large = false;
  };

  void request(const json &id, const std::string &method, const json &params);
  void notification(const std::string &method, const json &params);
  json initialize_result() const;

  void did_open(const json &params);
  void did_change(const json &params);
  void apply_changes(Document *d, const json &params);
  void did_close(const json &params);
  json hover(const json &params);
  json code_action(const json &params);
  json execute_command(const json &params);
  json report_of(const json &params);
  json scan_stats(const json &params);

  Document *document(const json &params);  // throws json errors for a bad or unknown uri
  void plan(Document *d, Clock::duration delay);
  void diagnose(Document *d);
  void diagnose_if_due(Document *d);  // before answering about it: its text now
  void publish(const Document &d, json diagnostics);
  void reload_pack_if_changed();

  void respond(const json &id, json result);
  void respond_error(const json &id, int code, const std::string &message);
  void notify(const std::string &method, json params);
  void show_message(int type, const std::string &text);

  fl_pack_slot *slot_;
  std::string pack_option_;
  cli::PackWatch watch_;
  Clock::time_point next_pack_look_{};
  SessionLimits limits_;
  std::function<bool(const std::string &)> send_;
  std::map<std::string, std::unique_ptr<Document>> documents_;
  bool initialized_ = false, shut_down_ = false, exited_ = false;
  int exit_status_ = 0;
};

// The source name of a document: for a file: URI its path (percent-decoded),
// else the URI's last segment; control characters become '?'.
std::string source_name(const std::string &uri);

}  // namespace lsp
