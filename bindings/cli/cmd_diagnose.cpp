// diagnose, partial, merge: the diagnosis commands.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "faultline.h"
#include "inputs.h"
#include "messages.h"
#include "pack_choice.h"

namespace cli {

namespace {

// Not a library format: a GitHub Actions workflow command built from the result.
constexpr int kFormatGithub = 100;

struct Options {
  int format = FL_REPORT_TEXT;
  std::string pack_path;
  std::string output;
  std::vector<std::string> inputs;
  unsigned jobs = 0;  // files diagnosed at once; 0: one per core
  ColorMode color = ColorMode::kAuto;
  double time_limit = 0;  // seconds of reading before diagnosing what was read; 0: none
};

int usage_error(const char *cmd, const char *msg) {
  eprintf("faultline %s: %s (see faultline --help)\n", cmd, msg);
  return kExitError;
}

bool parse(const char *cmd, int argc, char **argv, Options *o, bool allow_output, int *status) {
  bool only_inputs = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (only_inputs || a == "-" || a.empty() || a[0] != '-') {
      o->inputs.push_back(a);
    } else if (a == "--") {
      only_inputs = true;
    } else if (a == "--json") {
      o->format = FL_REPORT_JSON;
    } else if (a == "--summary") {
      o->format = FL_REPORT_SUMMARY;
    } else if (a.rfind("--format=", 0) == 0 || (a == "--format" && i + 1 < argc)) {
      std::string f = a == "--format" ? argv[++i] : a.substr(9);
      if (f == "text")
        o->format = FL_REPORT_TEXT;
      else if (f == "json")
        o->format = FL_REPORT_JSON;
      else if (f == "summary" || f == "k8s")
        o->format = FL_REPORT_SUMMARY;
      else if (f == "github")
        o->format = kFormatGithub;
      else {
        *status = usage_error(cmd, ("unknown format " + f + " (text, json, summary, k8s, github)").c_str());
        return false;
      }
    } else if (a == "--pack" && i + 1 < argc) {
      add_pack_option(&o->pack_path, argv[++i]);
    } else if (allow_output && a == "-o" && i + 1 < argc) {
      o->output = argv[++i];
    } else if (a.rfind("--pack=", 0) == 0) {
      add_pack_option(&o->pack_path, a.substr(7).c_str());
    } else if ((a == "--jobs" || a == "-j") && i + 1 < argc) {
      const long n = std::strtol(argv[++i], nullptr, 10);
      if (n < 1 || n > 1024) {
        *status = usage_error(cmd, "--jobs needs a number from 1 to 1024");
        return false;
      }
      o->jobs = static_cast<unsigned>(n);
    } else if (a == "--time-limit" && i + 1 < argc) {
      char *end = nullptr;
      o->time_limit = std::strtod(argv[++i], &end);
      if (!(o->time_limit > 0 && o->time_limit < 1e9) || *end) {
        *status = usage_error(cmd, "--time-limit needs a number of seconds above 0");
        return false;
      }
    } else if (a.rfind("--color=", 0) == 0 || (a == "--color" && i + 1 < argc)) {
      if (!parse_color_mode(a == "--color" ? argv[++i] : a.c_str() + 8, &o->color)) {
        *status = usage_error(cmd, "--color takes auto, always or never");
        return false;
      }
    } else if (a == "--format" || a == "--pack" || a == "-o" || a == "--jobs" || a == "-j" || a == "--time-limit" ||
               a == "--color") {
      *status = usage_error(cmd, ("option " + a + " needs a value").c_str());
      return false;
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: faultline %s [--json|--summary|--format text|json|summary|k8s|github] [--pack PACK] [--jobs N]\n"
          "       [--time-limit SECONDS] [--color auto|always|never]%s INPUT...\n"
          "Inputs: files (gzip and zstd are read transparently), directories (every *.log, *.txt, *.out,\n"
          "*.err, *.stdout, *.stderr under them, also .gz/.zst, e.g. torchrun --log-dir), '-' for stdin.\n"
          "The pack: --pack, else FAULTLINE_PACK, else the embedded one. Colors: on a terminal unless\n"
          "NO_COLOR is set or TERM=dumb (--color to choose).\n"
          "Several files are read in parallel, one per core (--jobs N to choose); the report is the same.\n"
          "--time-limit: stop reading after SECONDS and diagnose what was read; the report says its input\n"
          "was incomplete (for epilogs and hooks that must finish in time, whatever the log's size).\n"
          "Exit status: 0 failure found (verdict failure or inconclusive), 1 none, 2 error.\n"
          "Examples:\n"
          "  faultline %s job.log\n"
          "  faultline %s --json logs/ > report.json\n"
          "  faultline %s --format github job.log.gz   # an annotation for a CI step\n",
          cmd, allow_output ? " -o OUT" : "", cmd, cmd, cmd);
      *status = 0;
      return false;
    } else {
      *status = usage_error(cmd, ("unknown option " + a).c_str());
      return false;
    }
  }
  if (o->pack_path.empty())
    if (o->inputs.empty()) {
      if (isatty(0)) {
        *status = usage_error(cmd, "no input (give files, directories, or '-' for stdin)");
        return false;
      }
      o->inputs.push_back("-");
    }
  if (o->format == FL_REPORT_TEXT && use_color(o->color, 1)) o->format = FL_REPORT_TEXT_COLOR;
  return true;
}

// Reading stops at the deadline (if any); what was cut is said in the report.
struct Budget {
  bool on = false;
  std::chrono::steady_clock::time_point deadline;
  std::atomic<bool> expired{false};
  std::atomic<uint64_t> bytes{0};  // read so far (decompressed)
  bool out_of_time() {
    if (on && !expired && std::chrono::steady_clock::now() >= deadline) expired = true;
    return expired;
  }
};

// One file into a diagnoser as one source. Progress only when one file is
// read. A damaged archive's warning goes to `damage`.
bool feed_file(fl_diagnoser *d, const std::string &f, bool progress, Budget &budget, std::string *damage, std::string *err) {
  if (budget.out_of_time()) return true;
  if (fl_diagnoser_begin_source(d, f.c_str()) != FL_OK) {
    *err = fl_diagnoser_errmsg(d);
    return false;
  }
  bool fed = true;
  bool ok = read_source(
      f,
      [&](const char *p, size_t n) {
        fed = fl_diagnoser_feed(d, p, n) == FL_OK;
        budget.bytes += n;
        return fed && !budget.out_of_time();
      },
      err, progress, damage);
  if (!fed) ok = false;
  if (!ok && err->empty()) *err = fl_diagnoser_errmsg(d);
  if (ok) fl_diagnoser_end_source(d);
  return ok;
}

// Adds a worker's evidence to `d`. Two diagnosers, two calls: the message is
// that of the one whose call failed.
bool merge_worker_evidence(fl_diagnoser *d, fl_diagnoser *worker, std::string *err) {
  const void *bytes = nullptr;
  size_t len = 0;
  if (fl_diagnoser_partial(worker, &bytes, &len) != FL_OK) {
    *err = fl_diagnoser_errmsg(worker);
    return false;
  }
  if (fl_diagnoser_merge_partial(d, bytes, len) != FL_OK) {
    *err = fl_diagnoser_errmsg(d);
    return false;
  }
  return true;
}

// Several files: worker threads take files in turn, each with its own
// diagnoser (packs are shared read-only), and their partial reports are
// merged into `d`. Merging is order-independent, so the report is the one a
// single thread would give.
bool feed_parallel(fl_diagnoser *d, const fl_pack *pack, const std::vector<std::string> &files, unsigned jobs, Budget &budget,
                   std::string *damage, std::string *err) {
  std::atomic<size_t> next{0};
  std::mutex lock;
  bool failed = false;
  auto worker = [&] {
    fl_diagnoser *mine = nullptr;
    if (fl_diagnoser_create(pack, nullptr, &mine) != FL_OK) {
      std::lock_guard<std::mutex> g(lock);
      failed = true, *err = "out of memory";
      return;
    }
    for (size_t i; (i = next++) < files.size();) {
      std::string why, damaged;
      bool ok = feed_file(mine, files[i], false, budget, &damaged, &why);
      std::lock_guard<std::mutex> g(lock);
      if (!damaged.empty() && damage->empty()) *damage = damaged;
      if (!ok) {
        if (!failed) *err = why;
        failed = true;
        break;
      }
    }
    std::lock_guard<std::mutex> g(lock);
    if (!failed && !merge_worker_evidence(d, mine, err)) failed = true;
    fl_diagnoser_free(mine);
  };
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < jobs; j++) threads.emplace_back(worker);
  for (auto &t : threads) t.join();
  return !failed;
}

bool feed_inputs(fl_diagnoser *d, const fl_pack *pack, const Options &o, const char *cmd) {
  Budget budget;
  if (o.time_limit > 0) {
    budget.on = true;
    budget.deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                             std::chrono::duration<double>(o.time_limit));
  }
  std::vector<std::string> files;
  std::string err, damage;
  if (!expand_inputs(o.inputs, &files, &err)) {
    eprintf("faultline %s: %s\n", cmd, err.c_str());
    return false;
  }
  unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, files.size()));
  bool ok = true;
  if (jobs > 1)
    ok = feed_parallel(d, pack, files, jobs, budget, &damage, &err);
  else
    for (const std::string &f : files)
      if (!(ok = feed_file(d, f, true, budget, &damage, &err))) break;
  if (!ok) {
    eprintf("faultline %s: %s\n", cmd, err.c_str());
    return false;
  }
  if (budget.expired) {
    char why[160];
    std::snprintf(why, sizeof why, "time limit of %g s reached after reading %.1f MB", o.time_limit,
                  static_cast<double>(budget.bytes) / 1e6);
    eprintf("faultline %s: %s; diagnosing what was read\n", cmd, why);
    fl_diagnoser_set_incomplete(d, why);
  } else if (!damage.empty()) {
    fl_diagnoser_set_incomplete(d, damage.c_str());
  }
  return true;
}

// GitHub annotation: ::error file=F,line=N,title=T::message (values escaped as
// the workflow command syntax requires).
std::string gh_escape(const std::string &s, bool property) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

int report(fl_diagnoser *d, int format) {
  const char *text = nullptr;
  size_t len = 0;
  if (format == kFormatGithub) {
    fl_diagnosis r{};
    r.struct_size = sizeof r;
    if (fl_diagnoser_result(d, &r) != FL_OK || fl_diagnoser_report(d, FL_REPORT_SUMMARY, &text, &len) != FL_OK) {
      eprintf("faultline: %s\n", fl_diagnoser_errmsg(d));
      return kExitError;
    }
    if (r.verdict == FL_VERDICT_NO_FAILURE) {
      std::printf("::notice title=faultline::%s\n", gh_escape(text, false).c_str());
      return kExitNoFailure;
    }
    std::string props;
    if (r.source[0] && std::strcmp(r.source, "-")) props = "file=" + gh_escape(r.source, true) + ",";
    if (r.line) props += "line=" + std::to_string(r.line) + ",";
    std::printf("::%s %stitle=faultline::%s\n", r.verdict == FL_VERDICT_FAILURE ? "error" : "warning", props.c_str(),
                gh_escape(text, false).c_str());
    return kExitFailure;
  }
  if (fl_diagnoser_report(d, format, &text, &len) != FL_OK) {
    eprintf("faultline: %s\n", fl_diagnoser_errmsg(d));
    return kExitError;
  }
  std::fwrite(text, 1, len, stdout);
  if (format == FL_REPORT_SUMMARY) std::fputc('\n', stdout);
  fl_diagnosis r{};
  r.struct_size = sizeof r;
  if (fl_diagnoser_result(d, &r) != FL_OK) return kExitError;
  return r.verdict == FL_VERDICT_NO_FAILURE ? kExitNoFailure : kExitFailure;
}

// Saves the diagnoser's evidence as a partial report file.
int write_partial(fl_diagnoser *d, const std::string &path, const char *cmd) {
  const void *bytes = nullptr;
  size_t len = 0;
  if (fl_diagnoser_partial(d, &bytes, &len) != FL_OK) {
    eprintf("faultline %s: %s\n", cmd, fl_diagnoser_errmsg(d));
    return kExitError;
  }
  FILE *f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(bytes, 1, len, f) == len;
  if (f && std::fclose(f) != 0) ok = false;
  if (!ok) {
    eprintf("faultline %s: cannot write %s\n", cmd, path.c_str());
    return kExitError;
  }
  return 0;
}

// Opens the pack and a diagnoser, runs `body`, frees both.
template <typename Body>
int with_diagnoser(const Options &o, const char *cmd, Body body) {
  fl_pack *pack = open_chosen_pack(cmd, o.pack_path);
  if (!pack) return kExitError;
  fl_diagnoser *d = nullptr;
  int status = kExitError;
  if (fl_diagnoser_create(pack, nullptr, &d) == FL_OK)
    status = body(d, pack);
  else
    eprintf("faultline %s: out of memory\n", cmd);
  fl_diagnoser_free(d);
  fl_pack_free(pack);
  return status;
}

}  // namespace

int cmd_diagnose(int argc, char **argv) {
  Options o;
  int status = kExitError;
  if (!parse("diagnose", argc, argv, &o, false, &status)) return status;
  return with_diagnoser(o, "diagnose", [&](fl_diagnoser *d, const fl_pack *pack) {
    return feed_inputs(d, pack, o, "diagnose") ? report(d, o.format) : kExitError;
  });
}

int cmd_partial(int argc, char **argv) {
  Options o;
  int status = kExitError;
  if (!parse("partial", argc, argv, &o, true, &status)) return status;
  if (o.output.empty()) return usage_error("partial", "-o OUT is required");
  return with_diagnoser(o, "partial", [&](fl_diagnoser *d, const fl_pack *pack) {
    if (!feed_inputs(d, pack, o, "partial")) return kExitError;
    return write_partial(d, o.output, "partial");
  });
}

int cmd_merge(int argc, char **argv) {
  Options o;
  int status = kExitError;
  if (!parse("merge", argc, argv, &o, true, &status)) return status;
  return with_diagnoser(o, "merge", [&](fl_diagnoser *d, const fl_pack *) {
    for (const std::string &p : o.inputs) {
      std::string bytes, err;
      // A partial holds bounded evidence (docs/GUARANTEES.md): /dev/zero is not read forever.
      constexpr size_t kMaxPartialBytes = size_t{1} << 30;
      bool too_big = false;
      if (!read_source(
              p,
              [&](const char *b, size_t n) {
                if (bytes.size() + n > kMaxPartialBytes) return !(too_big = true);
                bytes.append(b, n);
                return true;
              },
              &err) ||
          too_big) {
        eprintf("faultline merge: %s\n", too_big ? (p + ": larger than any partial (1 GiB)").c_str() : err.c_str());
        return kExitError;
      }
      if (fl_diagnoser_merge_partial(d, bytes.data(), bytes.size()) != FL_OK) {
        eprintf("faultline merge: %s: %s\n", p.c_str(), fl_diagnoser_errmsg(d));
        return kExitError;
      }
    }
    if (!o.output.empty()) return write_partial(d, o.output, "merge");
    return report(d, o.format);
  });
}

}  // namespace cli
