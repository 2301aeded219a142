// flc: the signature compiler's command line.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "coverage.h"
#include "external_taxonomy.h"
#include "faultline_verify.h"
#include "library_info.h"
#include "lint.h"
#include "literal_filter_build.h"
#include "match/pack_reader.h"
#include "pack_dump.h"
#include "pack_signing.h"
#include "pack_writer.h"
#include "regex_export.h"
#include "signature_reader.h"
#include "signature_tests.h"
#include "version.h"

#ifndef FLC_RAGEL_PATH
#define FLC_RAGEL_PATH "ragel"
#endif

using namespace faultline;

namespace {

const char kUsage[] =
    "usage: flc <command> [options]\n"
    "\n"
    "commands:\n"
    "  compile DIR -o PACK   compile the signatures under DIR into a knowledge pack\n"
    "  test DIR              compile DIR and run every entry's must-match / must-not-match lines\n"
    "  lint DIR [--strict]   report entries that compile but should not ship (--strict: warnings fail)\n"
    "  stats PACK|DIR        DFA states and sizes of a pack; for DIR also compile time and per-entry cost\n"
    "  dump PACK             print a pack in full, readable and diffable\n"
    "  coverage DIR --eval LABELED... -o OUT\n"
    "                        failure types x entries x the labeled real logs each entry explains (Markdown)\n"
    "  literals DIR          the literal every pattern is keyed on, its window and how common it is\n"
    "  export DIR -o FILE    entry patterns in Hyperscan's pattern-file syntax (ID:/REGEX/m, ID = pattern index)\n"
    "  keygen -o NAME        a new signing key pair: NAME.pub (to trust) and NAME.key (secret, mode 0600)\n"
    "  sign --key NAME.key PACK [-o SIG]\n"
    "                        sign a pack: writes the detached signature PACK.sig (or SIG)\n"
    "  verify --trusted-key NAME.pub... PACK [--signature SIG]\n"
    "                        check PACK.sig (or SIG) against the trusted keys: exit 0 good, 1 not\n"
    "  version               print flc's version and pack format\n"
    "\n"
    "options:\n"
    "  --ragel PATH          ragel executable (default: $FLC_RAGEL, else " FLC_RAGEL_PATH
    ")\n"
    "  --state-budget N      split a DFA with more than N states (default 20000)\n"
    "  --jobs N              Ragel runs in parallel (default 2)\n"
    "  --emit-ragel DIR      also write each DFA's Ragel source to DIR (compile)\n"
    "  --stride N            literal filter stride 1-8 (compile, literals; default: the cheapest by flc's estimate)\n"
    "  --no-framing          compile without framing/ (compile): '^' is the line start, as in the exported patterns\n"
    "  --eval DIR            a folder of logs with labels.jsonl (coverage; repeatable)\n"
    "  --base PACK           a site library (library.yaml with base:) is checked against the pack it stands\n"
    "                        over: its name and version, ids defined again, overrides, disables, links\n"
    "                        (compile, test, lint)\n"
    "  --key FILE            the secret key that signs (sign)\n"
    "  --trusted-key FILE    a public key to trust (verify; repeatable)\n"
    "  --signature FILE      the detached signature, if not PACK.sig (verify)\n"
    "\n"
    "examples:\n"
    "  flc compile signatures -o default.flpack\n"
    "  flc test signatures\n"
    "  flc stats default.flpack\n"
    "  flc keygen -o site && flc sign --key site.key default.flpack && flc verify --trusted-key site.pub default.flpack\n"
    "\n"
    "exit status: 0 success, 1 a signature error or failing example, 2 usage or I/O error\n";

struct Args {
  std::string command, input, output, emit_ragel;
  std::string base;  // --base PACK: the pack a layered library stands over
  bool strict = false;
  bool no_framing = false;
  uint32_t stride = 0;
  BuildOptions build;
  std::vector<std::string> evals;
  std::string command_line;
  std::string key, signature;             // sign, verify
  std::vector<std::string> trusted_keys;  // verify
};

[[noreturn]] void usage_error(const std::string &msg) {
  std::fprintf(stderr, "flc: %s\n\n%s", msg.c_str(), kUsage);
  std::exit(2);
}

Args parse_args(int argc, char **argv) {
  Args a;
  const char *env = std::getenv("FLC_RAGEL");
  a.build.ragel = env && *env ? env : FLC_RAGEL_PATH;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; i++) {
    std::string s = argv[i];
    auto value = [&](const char *name) -> std::string {
      if (i + 1 >= argc) usage_error(std::string(name) + " needs a value");
      return argv[++i];
    };
    auto number = [&](const char *name) -> uint32_t {
      std::string v = value(name);
      char *end = nullptr;
      unsigned long n = std::strtoul(v.c_str(), &end, 10);
      if (v.empty() || *end || n == 0 || n > 10000000) usage_error(std::string(name) + " needs a positive number");
      return static_cast<uint32_t>(n);
    };
    if (s == "-o" || s == "--output")
      a.output = value("-o");
    else if (s == "--ragel")
      a.build.ragel = value("--ragel");
    else if (s == "--state-budget")
      a.build.state_budget = number("--state-budget");
    else if (s == "--jobs")
      a.build.jobs = number("--jobs");
    else if (s == "--emit-ragel")
      a.build.emit_ragel_dir = value("--emit-ragel");
    else if (s == "--strict")
      a.strict = true;
    else if (s == "--no-framing")
      a.no_framing = true;
    else if (s == "--stride")
      a.stride = a.build.literal_stride = std::min<uint32_t>(number("--stride"), 8);
    else if (s == "--eval")
      a.evals.push_back(value("--eval"));
    else if (s == "--base")
      a.base = value("--base");
    else if (s == "--key")
      a.key = value("--key");
    else if (s == "--trusted-key")
      a.trusted_keys.push_back(value("--trusted-key"));
    else if (s == "--signature")
      a.signature = value("--signature");
    else if (s == "-h" || s == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (s == "--version")
      positional.push_back("version");
    else if (!s.empty() && s[0] == '-')
      usage_error("unknown option " + s);
    else
      positional.push_back(s);
  }
  if (positional.empty()) usage_error("no command given");
  // The command as reproducible text (coverage prints it), without the output file.
  a.command_line = "flc";
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "-o") || !std::strcmp(argv[i], "--output")) {
      i++;
      continue;
    }
    a.command_line += std::string(" ") + argv[i];
  }
  a.command = positional[0];
  if (positional.size() > 1) a.input = positional[1];
  if (positional.size() > 2) usage_error("unexpected argument " + positional[2]);
  return a;
}

// Reads a whole file into 8-byte aligned memory, as packs require.
std::vector<uint64_t> read_aligned(const std::string &path, size_t *size) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "flc: cannot open %s: %s\n", path.c_str(), std::strerror(errno));
    std::exit(2);
  }
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<uint64_t> mem((bytes.size() + 7) / 8 + 1);
  std::memcpy(mem.data(), bytes.data(), bytes.size());
  *size = bytes.size();
  return mem;
}

PackView open_or_exit(const uint8_t *bytes, size_t size, const std::string &what) {
  PackView v;
  ErrorText err;
  if (open_pack_view(bytes, size, &v, &err) != Status::kOk) {
    std::fprintf(stderr, "flc: %s: %s\n", what.c_str(), err.text);
    std::exit(2);
  }
  return v;
}

// What a signatures directory holds: failure entries and framing formats.
struct Library {
  LibraryInfo info;
  std::vector<Signature> sigs;
  std::vector<Framing> framings;
  std::vector<ExternalTaxonomy> taxonomies;
};

// Loads and compiles a signatures directory (and its framing/ formats);
// exits 1 on signature errors.
Library load_or_exit(const Args &a, Diagnostics *diags) {
  if (a.input.empty()) usage_error(a.command + " needs a signatures directory");
  Library lib;
  lib.info = read_library_info(a.input, diags);
  LoadOptions opt;
  opt.layered = lib.info.layered;
  lib.sigs = load_signatures(a.input, opt, diags);
  if (!a.no_framing) lib.framings = load_framings(a.input, LoadOptions{}, diags);
  lib.taxonomies = load_external_taxonomies(a.input, lib.sigs, diags);
  if (!a.base.empty()) {
    size_t size = 0;
    std::vector<uint64_t> mem = read_aligned(a.base, &size);
    const PackView base = open_or_exit(reinterpret_cast<const uint8_t *>(mem.data()), size, a.base);
    check_against_base(lib.info, lib.sigs, base, diags);
  } else if (lib.info.layered) {
    diags->warning(Diagnostic{Diagnostic::kWarning, lib.info.file, lib.info.base_pos.line, lib.info.base_pos.col, "",
                              "not checked against the pack it stands over: give it with --base PACK", ""});
  }
  if (diags->has_errors()) {
    diags->print();
    std::fprintf(stderr, "flc: %zu error(s) in %s\n", diags->error_count(), a.input.c_str());
    std::exit(1);
  }
  return lib;
}

BuildResult build_or_exit(const Library &lib, Args &a) {
  a.build.pack_version = read_pack_version(a.input);
  a.build.library_name = lib.info.name;
  a.build.layered = lib.info.layered;
  a.build.base_name = lib.info.base_name;
  a.build.base_versions = lib.info.base_versions;
  for (const auto &d : lib.info.disables) a.build.disables.push_back(d.id);
  // Reproducible builds: the time comes from the environment, never the clock.
  if (const char *epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch && *epoch)
    a.build.build_time = std::strtoull(epoch, nullptr, 10);
  try {
    return build_pack(lib.sigs, a.build, lib.framings);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "flc: cannot build the pack: %s\n", e.what());
    std::exit(2);
  }
}

int cmd_compile(Args &a) {
  if (a.output.empty()) usage_error("compile needs -o PACK");
  Diagnostics diags;
  auto lib = load_or_exit(a, &diags);
  const auto &sigs = lib.sigs;
  BuildResult r = build_or_exit(lib, a);
  open_or_exit(r.bytes.data(), r.bytes.size(), "freshly built pack");  // never write what the runtime would refuse
  try {
    write_file(a.output, r.bytes);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "flc: %s\n", e.what());
    return 2;
  }
  diags.print();
  uint32_t states = 0;
  for (const auto &d : r.dfas) states += d.states;
  std::fprintf(stderr, "flc: %zu entries, %zu DFA(s), %u states, %zu bytes -> %s (%.2f s)\n", sigs.size(), r.dfas.size(), states,
               r.bytes.size(), a.output.c_str(), r.seconds);
  return 0;
}

int cmd_test(Args &a) {
  Diagnostics diags;
  auto lib = load_or_exit(a, &diags);
  const auto &sigs = lib.sigs;
  BuildResult r = build_or_exit(lib, a);
  PackView pack = open_or_exit(r.bytes.data(), r.bytes.size(), "freshly built pack");
  TestSummary sum;
  try {
    sum = run_signature_tests(sigs, pack, &diags);
    TestSummary framing = run_framing_tests(lib.framings, pack, &diags);
    TestSummary stacked = run_framing_composition(lib.framings, pack, &diags);
    sum.lines += framing.lines + stacked.lines;
    sum.failures += framing.failures + stacked.failures;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "flc: %s\n", e.what());
    return 2;
  }
  diags.print();
  std::printf("flc test: %zu entries, %zu framing formats, %zu example lines, %zu failure(s)\n", sigs.size(), lib.framings.size(),
              sum.lines, sum.failures);
  return sum.failures ? 1 : 0;
}

int cmd_lint(Args &a) {
  Diagnostics diags;
  auto lib = load_or_exit(a, &diags);
  const auto &sigs = lib.sigs;
  BuildResult r = build_or_exit(lib, a);
  PackView pack = open_or_exit(r.bytes.data(), r.bytes.size(), "freshly built pack");
  lint_signatures(sigs, pack, &diags);
  lint_framings(lib.framings, &diags);
  diags.print();
  size_t errors = diags.error_count(), warnings = diags.all().size() - errors;
  std::printf("flc lint: %zu entries, %zu error(s), %zu warning(s)\n", sigs.size(), errors, warnings);
  return errors || (a.strict && warnings) ? 1 : 0;
}

int cmd_coverage(Args &a) {
  if (a.output.empty() || a.evals.empty()) usage_error("coverage needs --eval DIR and -o OUT");
  Diagnostics diags;
  auto lib = load_or_exit(a, &diags);
  BuildResult r = build_or_exit(lib, a);
  PackView pack = open_or_exit(r.bytes.data(), r.bytes.size(), "freshly built pack");
  std::vector<LabeledSet> sets;
  for (const auto &d : a.evals) {
    std::string base = d;
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    sets.push_back({base, base.substr(base.rfind('/') + 1)});
  }
  std::string md;
  try {
    md = coverage_markdown(lib.sigs, pack, sets, a.command_line) + external_taxonomies_markdown(lib.taxonomies, lib.sigs);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "flc: %s\n", e.what());
    return 2;
  }
  std::ofstream out(a.output, std::ios::binary);
  out << md;
  if (!out) {
    std::fprintf(stderr, "flc: cannot write %s\n", a.output.c_str());
    return 2;
  }
  std::printf("flc coverage: %zu entries over %zu labeled sets -> %s\n", lib.sigs.size(), sets.size(), a.output.c_str());
  return 0;
}

int cmd_stats(Args &a) {
  if (a.input.empty()) usage_error("stats needs a pack or a signatures directory");
  if (std::filesystem::is_directory(a.input)) {
    auto t0 = std::chrono::steady_clock::now();
    Diagnostics diags;
    auto lib = load_or_exit(a, &diags);
    const auto &sigs = lib.sigs;
    double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BuildResult r = build_or_exit(lib, a);
    PackView pack = open_or_exit(r.bytes.data(), r.bytes.size(), "freshly built pack");
    print_pack_stats(pack, stdout);
    std::printf("\ncompile time: %.2f s (read and parse %.2f s, DFAs and pack %.2f s); pack size %zu bytes\n", load_s + r.seconds,
                load_s, r.seconds, r.bytes.size());
    for (size_t i = 0; i < r.dfas.size(); i++) std::printf("  dfa %zu: ragel and tables %.2f s\n", i, r.dfas[i].seconds);
    // Cost of each entry on its own: the DFA states its pieces need alone
    // (what it adds to the union, roughly) and its program sizes.
    std::printf("\n%-48s %8s %8s %12s\n", "entry (alone)", "pieces", "states", "program insns");
    for (const auto &sig : sigs) {
      std::vector<DfaPiece> pieces;
      uint32_t insns = 0;
      for (const auto &p : sig.patterns) {
        insns += p.program.insn_count();
        for (const auto &piece : p.pieces.pieces)
          pieces.push_back(DfaPiece{static_cast<uint32_t>(pieces.size()), piece_to_ragel(piece), sig.id + "/" + p.name});
      }
      try {
        DfaTables t = compile_dfa(a.build.ragel, pieces, "flc_cost", a.build.ragel_limits);
        std::printf("%-48s %8zu %8u %12u\n", sig.id.c_str(), pieces.size(), t.state_count, insns);
      } catch (const std::exception &e) {
        std::printf("%-48s %8zu %8s %12u  (%s)\n", sig.id.c_str(), pieces.size(), "-", insns, e.what());
      }
    }
    return 0;
  }
  size_t size = 0;
  auto mem = read_aligned(a.input, &size);
  PackView pack = open_or_exit(reinterpret_cast<const uint8_t *>(mem.data()), size, a.input);
  print_pack_stats(pack, stdout);
  return 0;
}

// The literal filter's plan: what each pattern is keyed on and what it costs.
int cmd_literals(Args &a) {
  Diagnostics diags;
  auto lib = load_or_exit(a, &diags);
  std::vector<const regex::Regex *> regexes;
  std::vector<std::string> names;
  for (const auto &s : lib.sigs)
    for (const auto &p : s.patterns) {
      regexes.push_back(&p.parsed);
      names.push_back(s.id + "/" + p.name);
    }
  LiteralPlan plan = plan_literals(regexes, a.stride);
  size_t shorts = 0;
  for (const auto &k : plan.keys) shorts += k.is_short;
  std::printf("stride %u, %zu keys (%zu short), %s; estimated work per 10 MB of healthy log: probes %.0f, keys %.0f\n",
              plan.stride, plan.keys.size(), shorts,
              plan.complete ? "complete" : "incomplete (some pattern has no literal: the filter is off)", plan.probe_cost,
              plan.key_cost);
  std::printf("\n%-60s %10s  %s\n", "pattern", "per 10 MB", "keys ([window] of long keys, <fingerprint> of short ones)");
  for (size_t i = 0; i < regexes.size(); i++) {
    std::string keys;
    double freq = 0;
    for (uint32_t k : plan.pattern_keys[i]) {
      const LiteralKey &key = plan.keys[k];
      const std::string &b = key.literal.bytes;
      const size_t w = key.anchor, n = key.is_short ? 4 : plan.stride + 3;
      const char *open = key.is_short ? "<" : "[", *close = key.is_short ? ">" : "]";
      keys += (keys.empty() ? "" : " | ") + std::string(key.literal.caseless ? "(?i)" : "") + "'" + b.substr(0, w) + open +
              b.substr(w, n) + close + b.substr(w + n) + "'";
      freq += literal_frequency(key.literal);
    }
    if (plan.pattern_keys[i].empty()) keys = "(none: no literal of 4+ bytes)";
    std::printf("%-60s %10.0f  %s\n", names[i].c_str(), freq, keys.c_str());
  }
  return 0;
}

// The entry patterns for other engines (the benchmark's baselines), in the
// format of Hyperscan's tools: one "ID:/REGEX/FLAGS" per line, ID being the
// pattern's index in the pack, so that matches compare one to one.
int cmd_export(Args &a) {
  Diagnostics diags;
  auto lib = load_or_exit(a, &diags);
  if (a.output.empty()) usage_error("export needs -o FILE");
  std::ofstream out(a.output, std::ios::binary);
  out << "# faultline entry patterns, exported by " << kCompilerVersion << " from " << a.input
      << " (line semantics: see compiler/regex_export.h)\n";
  uint32_t index = 0;
  for (const auto &s : lib.sigs)
    for (const auto &p : s.patterns) out << index++ << ":/" << export_regex(p.parsed) << "/m\n";
  out.close();
  if (!out) {
    std::fprintf(stderr, "flc: cannot write %s\n", a.output.c_str());
    return 2;
  }
  std::printf("flc export: %u patterns -> %s\n", index, a.output.c_str());
  return 0;
}

int cmd_dump(Args &a) {
  if (a.input.empty()) usage_error("dump needs a pack");
  size_t size = 0;
  auto mem = read_aligned(a.input, &size);
  PackView pack = open_or_exit(reinterpret_cast<const uint8_t *>(mem.data()), size, a.input);
  dump_pack(pack, stdout);
  return 0;
}

// ---- Signing (pack_signing.h writes keys and signatures; faultline_verify reads them) ----

int cmd_keygen(Args &a) {
  if (a.output.empty() || !a.input.empty()) usage_error("keygen needs -o NAME (writes NAME.pub and NAME.key)");
  try {
    std::string id = generate_key_pair(a.output);
    std::printf(
        "flc keygen: key id %s\n  %s.pub  public: trust it (faultline --trusted-key, fl_verifier_create)\n"
        "  %s.key  SECRET (mode 0600): signs packs (flc sign --key); keep it off the machines that only verify\n",
        id.c_str(), a.output.c_str(), a.output.c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "flc keygen: %s\n", e.what());
    return 2;
  }
  return 0;
}

int cmd_sign(Args &a) {
  if (a.key.empty() || a.input.empty()) usage_error("sign needs --key NAME.key and a PACK");
  size_t size = 0;
  auto mem = read_aligned(a.input, &size);
  const auto *bytes = reinterpret_cast<const uint8_t *>(mem.data());
  open_or_exit(bytes, size, a.input);  // only what the runtime would load is signed
  const std::string out = a.output.empty() ? a.input + ".sig" : a.output;
  try {
    std::string id;
    PackSignature sig = sign_pack(a.key, bytes, size, &id);
    write_file(out, std::vector<uint8_t>(sig.begin(), sig.end()));
    std::printf("flc sign: %s signed by key %s -> %s\n", a.input.c_str(), id.c_str(), out.c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "flc sign: %s\n", e.what());
    return 2;
  }
  return 0;
}

// What the runtime does under FL_PACK_REQUIRE_SIGNATURE, with the same
// verifier (libfaultline_verify): the signature first, then the pack.
int cmd_verify(Args &a) {
  if (a.trusted_keys.empty() || a.input.empty()) usage_error("verify needs --trusted-key NAME.pub (one or more) and a PACK");
  std::vector<const char *> paths;
  for (const auto &k : a.trusted_keys) paths.push_back(k.c_str());
  fl_pack_verifier *v = nullptr;
  char err[512];
  if (fl_status st = fl_verifier_create(paths.data(), paths.size(), &v, err, sizeof err); st != FL_OK) {
    std::fprintf(stderr, "flc verify: %s\n", err);
    return 2;
  }
  const std::string sig_path = a.signature.empty() ? a.input + ".sig" : a.signature;
  // The signature file is tiny: read at most a little more than a signature.
  std::string sig;
  {
    std::ifstream f(sig_path, std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "flc verify: %s: NOT SIGNED: no signature %s (%s)\n", a.input.c_str(), sig_path.c_str(),
                   std::strerror(errno));
      fl_verifier_free(v);
      return 1;
    }
    sig.resize(4096);
    f.read(sig.data(), static_cast<std::streamsize>(sig.size()));
    sig.resize(static_cast<size_t>(f.gcount()));
  }
  size_t size = 0;
  auto mem = read_aligned(a.input, &size);
  const auto *bytes = reinterpret_cast<const uint8_t *>(mem.data());
  char text[128] = {0};
  fl_status st = v->verify(v->ctx, bytes, size, sig.data(), sig.size(), text, sizeof text);
  fl_verifier_free(v);
  if (st != FL_OK) {
    std::fprintf(stderr, "flc verify: %s: REFUSED: %s (signature %s)\n", a.input.c_str(), text, sig_path.c_str());
    return 1;
  }
  PackView view;
  ErrorText perr;
  if (open_pack_view(bytes, size, &view, &perr) != Status::kOk) {
    std::fprintf(stderr, "flc verify: %s: signed by key %s, but the pack does not load: %s\n", a.input.c_str(), text, perr.text);
    return 1;
  }
  std::printf("flc verify: %s: good signature by key %s (%s)\n", a.input.c_str(), text, sig_path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  Args a = parse_args(argc, argv);
  if (a.command == "compile") return cmd_compile(a);
  if (a.command == "test") return cmd_test(a);
  if (a.command == "lint") return cmd_lint(a);
  if (a.command == "coverage") return cmd_coverage(a);
  if (a.command == "stats") return cmd_stats(a);
  if (a.command == "dump") return cmd_dump(a);
  if (a.command == "literals") return cmd_literals(a);
  if (a.command == "export") return cmd_export(a);
  if (a.command == "keygen") return cmd_keygen(a);
  if (a.command == "sign") return cmd_sign(a);
  if (a.command == "verify") return cmd_verify(a);
  if (a.command == "version") {
    std::printf("%s (pack format %u.%u)\n", kCompilerVersion, kPackFormatMajor, kPackFormatMinor);
    return 0;
  }
  if (a.command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  usage_error("unknown command '" + a.command + "'");
}
