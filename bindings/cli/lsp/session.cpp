#include "session.h"

#include <cstring>
#include <new>
#include <stdexcept>

#include "code_actions.h"
#include "diagnostics.h"
#include "hover.h"
#include "messages.h"
#include "pack_choice.h"

namespace lsp {

namespace {

// JSON-RPC and LSP error codes.
constexpr int kParseError = -32700, kInvalidRequest = -32600, kMethodNotFound = -32601, kInvalidParams = -32602,
              kInternalError = -32603, kServerNotInitialized = -32002;
// window/showMessage types.
constexpr int kMessageError = 1, kMessageWarning = 2, kMessageInfo = 3;
// DiagnosticSeverity.Warning
constexpr int kSeverityWarning = 2;
// TextDocumentSyncKind.Incremental: ranges; a change without one is the whole text.
constexpr int kSyncIncremental = 2;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decoded(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    int hi = 0, lo = 0;
    if (s[i] == '%' && i + 2 < s.size() && (hi = hex_value(s[i + 1])) >= 0 && (lo = hex_value(s[i + 2])) >= 0) {
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// A change that keeps the whole text and adds bytes at its end: `with`
// replaces [a, b) with b at the end, and starts with the bytes it replaces.
bool is_append(const std::string &text, size_t a, size_t b, const std::string &with) {
  return b == text.size() && with.size() >= b - a && text.compare(a, b - a, with, 0, b - a) == 0;
}

// A request's params that cannot be answered (an unknown document or
// command): an "invalid params" error, like a malformed field.
struct InvalidParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Position position_of(const json &p) { return Position{p.at("line").get<uint64_t>(), p.at("character").get<uint64_t>()}; }

std::string dump(const json &j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::string source_name(const std::string &uri) {
  std::string name;
  if (uri.rfind("file://", 0) == 0) {
    // file:///path or file://host/path: the path
    const size_t slash = uri.find('/', 7);
    name = percent_decoded(slash == std::string::npos ? "" : uri.substr(slash));
  } else {
    const size_t end = uri.find_first_of("?#");
    const std::string path = uri.substr(0, end);
    const size_t slash = path.find_last_of("/:");
    name = percent_decoded(slash == std::string::npos ? path : path.substr(slash + 1));
  }
  if (name.empty()) name = "untitled";
  return cli::printable(name);  // a NUL would cut it, an escape could reach a terminal
}

Session::Session(fl_pack_slot *slot, std::string pack_option, SessionLimits limits, std::function<bool(const std::string &)> send)
    : slot_(slot), pack_option_(std::move(pack_option)), watch_(pack_option_), limits_(limits), send_(std::move(send)) {}

Session::~Session() = default;

// ---- Messages ---------------------------------------------------------------

void Session::handle(const std::string &body) {
  json msg;
  try {
    msg = json::parse(body);
  } catch (const json::exception &e) {
    respond_error(nullptr, kParseError, std::string("not JSON: ") + e.what());
    return;
  }
  const bool has_id = msg.is_object() && msg.contains("id");
  const json id = has_id ? msg["id"] : json(nullptr);
  if (!msg.is_object() || (has_id && !id.is_string() && !id.is_number_integer() && !id.is_null())) {
    respond_error(nullptr, kInvalidRequest, "a message is a JSON object with an integer or string id");
    return;
  }
  const auto method = msg.find("method");
  if (method == msg.end()) return;  // a response to a request of ours: we make none
  if (!method->is_string()) {
    if (has_id) respond_error(id, kInvalidRequest, "method is not a string");
    return;
  }
  const json params = msg.contains("params") ? msg["params"] : json::object();
  const std::string name = method->get<std::string>();
  try {
    if (has_id)
      request(id, name, params);
    else
      notification(name, params);
  } catch (const InvalidParams &e) {
    if (has_id)
      respond_error(id, kInvalidParams, e.what());
    else
      cli::eprintf("faultline lsp: %s: %s\n", name.c_str(), e.what());
  } catch (const json::exception &e) {
    if (has_id)
      respond_error(id, kInvalidParams, std::string("invalid params for ") + name + ": " + e.what());
    else
      cli::eprintf("faultline lsp: %s: invalid params: %s\n", name.c_str(), e.what());
  } catch (const std::bad_alloc &) {
    if (has_id) respond_error(id, kInternalError, "out of memory");
  }
}

void Session::bad_frame(const std::string &problem, bool too_large) {
  respond_error(nullptr, too_large ? kInvalidRequest : kParseError, problem);
}

void Session::request(const json &id, const std::string &method, const json &params) {
  if (method == "initialize") {
    initialized_ = true;
    respond(id, initialize_result());
    return;
  }
  if (!initialized_) return respond_error(id, kServerNotInitialized, "initialize first");
  if (shut_down_) return respond_error(id, kInvalidRequest, "the server is shut down: only exit is left");
  if (method == "shutdown") {
    shut_down_ = true;
    respond(id, nullptr);
  } else if (method == "textDocument/hover") {
    respond(id, hover(params));
  } else if (method == "textDocument/codeAction") {
    respond(id, code_action(params));
  } else if (method == "workspace/executeCommand") {
    respond(id, execute_command(params));
  } else if (method == "faultline/report") {
    respond(id, report_of(params));
  } else if (method == "faultline/scanStats") {
    respond(id, scan_stats(params));
  } else {
    respond_error(id, kMethodNotFound, "no method " + method);
  }
}

void Session::notification(const std::string &method, const json &params) {
  if (method == "exit") {
    exited_ = true;
    exit_status_ = shut_down_ ? 0 : 1;
    return;
  }
  if (!initialized_ || shut_down_) return;  // notifications before initialize are dropped
  if (method == "textDocument/didOpen")
    did_open(params);
  else if (method == "textDocument/didChange")
    did_change(params);
  else if (method == "textDocument/didClose")
    did_close(params);
  // Anything else (initialized, didSave, $/cancelRequest, $/setTrace, ...) needs nothing from us.
}

json Session::initialize_result() const {
  return json{{"capabilities",
               {{"positionEncoding", "utf-16"},
                {"textDocumentSync", {{"openClose", true}, {"change", kSyncIncremental}}},
                {"hoverProvider", true},
                {"codeActionProvider", {{"codeActionKinds", json::array({"quickfix"})}}},
                // faultline.copyText is not listed: clients copy to the clipboard themselves.
                {"executeCommandProvider", {{"commands", json::array({kShowEntryCommand})}}},
                {"experimental", {{"faultlineReport", true}, {"faultlineScanStats", true}}}}},
              {"serverInfo", {{"name", "faultline"}, {"version", fl_version_string()}}}};
}

// ---- Documents --------------------------------------------------------------

Session::Document *Session::document(const json &params) {
  // {textDocument: {uri}} as LSP requests have it; the custom ones also take {uri}.
  const std::string uri =
      params.contains("uri") ? params.at("uri").get<std::string>() : params.at("textDocument").at("uri").get<std::string>();
  const auto it = documents_.find(uri);
  if (it == documents_.end()) throw InvalidParams("document " + uri + " is not open");
  return it->second.get();
}

void Session::did_open(const json &params) {
  const json &td = params.at("textDocument");
  const std::string uri = td.at("uri").get<std::string>();
  std::string text = td.at("text").get<std::string>();
  if (!documents_.count(uri) && documents_.size() >= limits_.max_documents) {
    show_message(kMessageWarning, "faultline: " + std::to_string(limits_.max_documents) +
                                      " documents are open already; close one to diagnose " + cli::printable(uri));
    return;
  }
  auto d = std::make_unique<Document>();
  d->uri = uri;
  d->source = source_name(uri);
  d->version = td.value("version", int64_t{0});
  d->too_large = text.size() > limits_.max_document_bytes;
  if (!d->too_large) d->text.set_text(std::move(text));
  Document *doc = d.get();
  documents_[uri] = std::move(d);
  plan(doc, Clock::duration::zero());  // a new document: at once
}

void Session::did_change(const json &params) {
  Document *d = document(params);
  try {
    apply_changes(d, params);
  } catch (...) {
    // Some changes may be applied: whatever the text is now, it is read again from its start.
    d->scan.text_changed(false);
    plan(d, limits_.debounce);
    throw;
  }
}

void Session::apply_changes(Document *d, const json &params) {
  d->version = params.at("textDocument").value("version", d->version);
  bool appended = !d->too_large;
  for (const json &change : params.at("contentChanges")) {
    const std::string &with = change.at("text").get_ref<const std::string &>();
    const std::string &text = d->text.text();
    if (d->too_large && change.contains("range")) continue;  // its text was not kept: only a whole new text counts
    if (!change.contains("range")) {
      d->too_large = with.size() > limits_.max_document_bytes;
      if (d->too_large) continue;
      appended = appended && is_append(text, 0, text.size(), with);
      d->text.set_text(with);
      continue;
    }
    const json &range = change.at("range");
    const Position start = position_of(range.at("start")), end = position_of(range.at("end"));
    const size_t a = d->text.offset_of(start), b = d->text.offset_of(end);
    appended = appended && is_append(text, a, b, with);
    if (!d->text.replace(start, end, with)) throw InvalidParams("a change whose range ends before it starts");
    if (d->text.size() > limits_.max_document_bytes) {
      d->too_large = true;  // a log that grew past the limit: its text is let go
      d->text.clear();
    }
  }
  if (d->too_large) d->text.clear();
  d->scan.text_changed(appended);
  plan(d, limits_.debounce);
}

void Session::did_close(const json &params) {
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  if (!documents_.erase(uri)) return;
  notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
}

void Session::plan(Document *d, Clock::duration delay) {
  d->due = true;
  d->due_at = Clock::now() + delay;
}

void Session::diagnose_if_due(Document *d) {
  if (d->due) diagnose(d);
}

void Session::diagnose(Document *d) {
  d->due = false;
  if (d->too_large) {
    d->report = nullptr;
    json diag = {{"range", line_range(d->text, 0)},
                 {"severity", kSeverityWarning},
                 {"source", "faultline"},
                 {"message", "not diagnosed: the document is larger than " + std::to_string(limits_.max_document_bytes >> 20) +
                                 " MiB (faultline diagnose FILE reads any size)"}};
    publish(*d, json::array({diag}));
    return;
  }
  d->scan.use_pack(fl_pack_slot_get(slot_));
  std::string error;
  const std::string report = d->scan.diagnose(d->text.text(), d->source, &error);
  if (report.empty()) {
    cli::eprintf("faultline lsp: cannot diagnose %s: %s\n", d->uri.c_str(), error.c_str());
    show_message(kMessageError, "faultline: cannot diagnose " + cli::printable(d->uri) + ": " + cli::printable(error));
    return;
  }
  try {
    d->report = json::parse(report);  // the library's own JSON: valid UTF-8 (the report replaces what is not)
  } catch (const json::exception &e) {
    d->report = nullptr;
    cli::eprintf("faultline lsp: the report of %s is not JSON: %s\n", d->uri.c_str(), e.what());
    return;
  }
  publish(*d, diagnostics_for(d->report, d->source, d->text, d->uri));
}

void Session::publish(const Document &d, json diagnostics) {
  notify("textDocument/publishDiagnostics", {{"uri", d.uri}, {"version", d.version}, {"diagnostics", std::move(diagnostics)}});
}

// ---- Requests on documents --------------------------------------------------

json Session::hover(const json &params) {
  Document *d = document(params);
  diagnose_if_due(d);
  const uint64_t line = params.at("position").at("line").get<uint64_t>();
  return hover_at(d->report, d->source, d->scan.pack(), d->text, line);
}

json Session::code_action(const json &params) {
  Document *d = document(params);
  diagnose_if_due(d);
  const json &range = params.at("range");
  const uint64_t first = range.at("start").at("line").get<uint64_t>(), last = range.at("end").at("line").get<uint64_t>();
  return code_actions_for(d->report, d->source, first, last < first ? first : last);
}

json Session::execute_command(const json &params) {
  const std::string command = params.at("command").get<std::string>();
  const json &args = params.at("arguments");
  const std::string arg = args.at(0).get<std::string>();
  if (command == kCopyTextCommand) {
    // A client without the command of its own: the text goes back, and is shown.
    show_message(kMessageInfo, without_controls(arg));
    return arg;
  }
  if (command == kShowEntryCommand) {
    fl_pack *pack = fl_pack_slot_get(slot_);
    const std::string page = entry_page_markdown(pack, arg);
    fl_pack_free(pack);
    if (page.empty()) throw InvalidParams("no entry " + arg + " in the pack");
    return page;
  }
  throw InvalidParams("no command " + command);
}

json Session::report_of(const json &params) {
  Document *d = document(params);
  diagnose_if_due(d);
  return d->report;
}

json Session::scan_stats(const json &params) {
  Document *d = document(params);
  diagnose_if_due(d);
  const ScanStats &s = d->scan.stats();
  return json{{"documentBytes", d->text.text().size()},
              {"matchedBytes", s.matched_bytes},
              {"skippedBytes", s.skipped_bytes},
              {"diagnoses", s.diagnoses},
              {"indexRestarts", s.index_restarts}};
}

// ---- Time -------------------------------------------------------------------

void Session::tick(Clock::time_point now) {
  if (shut_down_) return;
  if (watch_.has_files() && now >= next_pack_look_) {
    next_pack_look_ = now + std::chrono::seconds(1);
    reload_pack_if_changed();
  }
  for (auto &[uri, d] : documents_) {
    if (!d->due || d->due_at > now) continue;
    try {
      diagnose(d.get());
    } catch (const std::exception &e) {  // out of memory, above all: this document waits for its next change
      cli::eprintf("faultline lsp: cannot diagnose %s: %s\n", uri.c_str(), e.what());
    }
  }
}

int Session::wait_ms(Clock::time_point now) const {
  if (shut_down_) return -1;
  Clock::time_point next = Clock::time_point::max();
  if (watch_.has_files()) next = next_pack_look_;
  for (const auto &[uri, d] : documents_)
    if (d->due && d->due_at < next) next = d->due_at;
  if (next == Clock::time_point::max()) return -1;
  if (next <= now) return 0;
  return static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count()) + 1;
}

void Session::reload_pack_if_changed() {
  if (!watch_.changed()) return;
  std::string why;
  fl_pack *pack = cli::open_chosen_pack("lsp", pack_option_, &why);
  if (!pack) {
    while (!why.empty() && why.back() == '\n') why.pop_back();
    show_message(kMessageWarning, "faultline: the changed pack was not loaded, the previous one is kept: " + cli::printable(why));
    return;
  }
  fl_pack_slot_set(slot_, pack);
  show_message(kMessageInfo, "faultline: pack reloaded (" + cli::printable(fl_pack_library_name(pack)) + " " +
                                 cli::printable(fl_pack_version(pack)) + "); open documents diagnosed again");
  fl_pack_free(pack);  // the slot holds its own reference
  for (auto &[uri, d] : documents_) plan(d.get(), Clock::duration::zero());
}

// ---- Output -----------------------------------------------------------------

void Session::respond(const json &id, json result) {
  if (!send_(dump(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}))) exited_ = true;
}

void Session::respond_error(const json &id, int code, const std::string &message) {
  if (!send_(dump(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}))) exited_ = true;
}

void Session::notify(const std::string &method, json params) {
  if (!send_(dump(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}))) exited_ = true;
}

void Session::show_message(int type, const std::string &text) {
  notify("window/showMessage", {{"type", type}, {"message", text}});
}

}  // namespace lsp
