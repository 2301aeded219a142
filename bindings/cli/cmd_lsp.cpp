// lsp: the language server (LSP 3.17 over stdio) for logs and terminal
// captures. lsp/session.cpp answers the messages; this file parses the
// options, opens the pack into a hot-reload slot and runs the loop: read
// stdin when it has bytes, run the diagnoses that are due, sleep otherwise.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "commands.h"
#include "faultline.h"
#include "lsp/framing.h"
#include "lsp/session.h"
#include "messages.h"
#include "pack_choice.h"

namespace cli {

namespace {

int usage(int status) {
  std::fprintf(status ? stderr : stdout,
               "usage: faultline lsp [--pack PACK] [--debounce-ms MS] [--max-documents N] [--max-document-mib N] [--stdio]\n"
               "A language server (LSP 3.17 on stdin/stdout) for log files and terminal captures: the root error's\n"
               "line as an error, collateral lines as information with the reason, the entry page on hover, code\n"
               "actions that copy the fix and verification commands. Documents are diagnosed again on every change\n"
               "(MS after the last of a burst, default 200); a document that only grew is not matched again from\n"
               "its start. A pack file that changes on disk is reloaded and open documents diagnosed again.\n"
               "Documents over N MiB (default 64) are not diagnosed; at most N (default 64) are open at once.\n"
               "The pack: --pack, else FAULTLINE_PACK, else the embedded one. --stdio is accepted and is the only\n"
               "transport. Capabilities and custom requests: bindings/cli/lsp/README.md.\n");
  return status;
}

// A whole number in [lo, hi] from `text`; false when it is not one.
bool parse_number(const char *text, long lo, long hi, long *out) {
  char *end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// A message body over this is refused: the largest document, escaped as
// JSON (at most 6 bytes per byte, but logs are mostly printable), plus room.
size_t max_message_bytes(size_t max_document_bytes) { return max_document_bytes * 2 + (1u << 20); }

}  // namespace

int cmd_lsp(int argc, char **argv) {
  std::string pack_option;
  lsp::SessionLimits limits;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    long v = 0;
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h")) return usage(0);
    if (!std::strcmp(a, "--stdio") || !std::strncmp(a, "--clientProcessId", 17)) continue;  // what LSP clients add
    if (!std::strcmp(a, "--pack") && has_value) {
      add_pack_option(&pack_option, argv[++i]);
    } else if (!std::strcmp(a, "--debounce-ms") && has_value && parse_number(argv[i + 1], 0, 60000, &v)) {
      limits.debounce = std::chrono::milliseconds(v);
      i++;
    } else if (!std::strcmp(a, "--max-documents") && has_value && parse_number(argv[i + 1], 1, 100000, &v)) {
      limits.max_documents = static_cast<size_t>(v);
      i++;
    } else if (!std::strcmp(a, "--max-document-mib") && has_value && parse_number(argv[i + 1], 1, 4096, &v)) {
      limits.max_document_bytes = static_cast<size_t>(v) << 20;
      i++;
    } else {
      eprintf("faultline lsp: %s: %s\n", a, a[0] == '-' ? "unknown option, or a missing or bad value" : "takes no operand");
      return usage(kExitError);
    }
  }
  fl_pack *pack = open_chosen_pack("lsp", pack_option);
  if (!pack) return kExitError;
  fl_pack_slot *slot = nullptr;
  const fl_status st = fl_pack_slot_create(pack, nullptr, &slot);
  fl_pack_free(pack);  // the slot holds its own reference
  if (st != FL_OK) {
    eprintf("faultline lsp: %s\n", fl_status_str(st));
    return kExitError;
  }
  // A client gone while we write: EPIPE ends the loop, not SIGPIPE the process.
  signal(SIGPIPE, SIG_IGN);
  int status = 1;  // stdin closed without exit: as LSP says of exit without shutdown
  {
    lsp::Session session(slot, pack_option, limits, [](const std::string &body) { return lsp::write_frame(1, body); });
    lsp::FrameReader reader(max_message_bytes(limits.max_document_bytes));
    static char buf[1 << 16];
    while (!session.exited()) {
      pollfd in{0, POLLIN, 0};
      const int ready = ::poll(&in, 1, session.wait_ms(lsp::Clock::now()));
      if (ready < 0 && errno != EINTR) break;
      if (ready > 0) {
        const ssize_t n = ::read(0, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) break;  // the client is gone
        reader.add(buf, static_cast<size_t>(n));
        lsp::Frame frame;
        while (!session.exited() && reader.next(&frame)) {
          if (frame.kind == lsp::Frame::Kind::kMessage)
            session.handle(frame.body);
          else
            session.bad_frame(frame.problem, frame.kind == lsp::Frame::Kind::kTooLarge);
        }
      }
      session.tick(lsp::Clock::now());
    }
    if (session.exited()) status = session.exit_status();
  }
  fl_pack_slot_free(slot);
  return status;
}

}  // namespace cli
