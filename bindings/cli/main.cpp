// faultline: say why an ML training run failed.
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "commands.h"
#include "faultline.h"
#include "messages.h"
#include "pack_choice.h"

namespace {

const char kUsage[] =
    "usage: faultline <command> [options] [args]\n"
    "\n"
    "commands:\n"
    "  diagnose [--json|--summary] [--pack PACK] [FILE|DIR|-]...\n"
    "                      find the failure that started it all, its rank and host, the fix\n"
    "  partial -o OUT [--pack PACK] [FILE|DIR|-]...\n"
    "                      save one node's evidence as a partial report\n"
    "  merge [--json|--summary] [--pack PACK] [-o OUT] PARTIAL...\n"
    "                      diagnose a job from the partials of its nodes (-o: save the merged partial)\n"
    "  run [--report FILE] [--summary-file FILE] [--grace S] -- COMMAND...\n"
    "                      run a training command; diagnose it if it fails\n"
    "  explain [--format text|markdown|json] ID|--all\n"
    "                      an entry (or every entry) as a readable encyclopedia page, or as JSON\n"
    "  list [--category C] [--type T]   the entries of the pack\n"
    "  scan [--pack PACK] FILE|DIR|-...   every match with its line, fields and frame (for signature authors)\n"
    "  pack-info PACK      header, versions and verification of a pack file\n"
    "  pack-info [--pack P]...   the stack of packs a command reads, pack by pack\n"
    "  templates [--pack PACK] FILE|DIR...\n"
    "                      unknown failures of many logs grouped by fingerprint (new entry candidates)\n"
    "  lsp [--pack PACK]   the language server (LSP on stdio): diagnostics, hover and fixes in the editor\n"
    "\n"
    "  help COMMAND        a command's options\n"
    "\n"
    "Options may also come before the command (faultline --pack my.flpack diagnose job.log).\n"
    "--pack is repeatable: a stack of packs, bottom first (a site's pack over ours: --pack default --pack site.flpack;\n"
    "`default` is the embedded pack); FAULTLINE_PACK=A:B says the same. A site pack alone stands over the embedded pack.\n"
    "\n"
    "signed packs (every command):\n"
    "  --trusted-key FILE  a public key (flc keygen's NAME.pub) whose signatures are trusted; repeatable\n"
    "                      (else FAULTLINE_TRUSTED_KEYS=a.pub:b.pub). A pack file's signature is PACK.sig\n"
    "                      (flc sign): a present but invalid one is always refused\n"
    "  --require-signed    refuse a pack file without a valid signature (or FAULTLINE_REQUIRE_SIGNED=1);\n"
    "                      the pack embedded in faultline is part of the binary and trusted as such\n"
    "-V, --version: versions of faultline, the library and the default pack.\n"
    "\n"
    "exit status: 0 a failure was diagnosed (verdict failure or inconclusive),\n"
    "             1 no failure found, 2 error.\n"
    "\n"
    "examples:\n"
    "  faultline diagnose job.log\n"
    "  faultline diagnose --json logs/ > report.json\n"
    "  kubectl logs pod/trainer-0 | faultline diagnose -\n";

using Command = int (*)(int, char **);
struct NamedCommand {
  const char *name;
  Command run;
};
constexpr NamedCommand kCommands[] = {
    {"diagnose", cli::cmd_diagnose},   {"partial", cli::cmd_partial},
    {"merge", cli::cmd_merge},         {"templates", cli::cmd_templates},
    {"explain", cli::cmd_explain},     {"list", cli::cmd_list},
    {"scan", cli::cmd_scan},           {"run", cli::cmd_run},
    {"pack-info", cli::cmd_pack_info}, {"lsp", cli::cmd_lsp},
};

Command find_command(const char *name) {
  for (const NamedCommand &c : kCommands)
    if (!std::strcmp(c.name, name)) return c.run;
  return nullptr;
}

// Options a command takes with a value: before the command, the value is
// not the command's name.
bool takes_value(const char *opt) {
  for (const char *o :
       {"--pack", "--format", "-o", "--jobs", "-j", "--time-limit", "--color", "--report", "--summary-file", "--grace",
        "--category", "--type", "--trusted-key", "--debounce-ms", "--max-documents", "--max-document-mib"})
    if (!std::strcmp(opt, o)) return true;
  return false;
}

}  // namespace

int main(int argc, char **argv) {
  // "faultline --pack P diagnose x" is "faultline diagnose --pack P x": the
  // options before the command are moved behind its name.
  int at = 1;
  while (at < argc && argv[at][0] == '-' && argv[at][1] && std::strcmp(argv[at], "--help") && std::strcmp(argv[at], "-h") &&
         std::strcmp(argv[at], "--version") && std::strcmp(argv[at], "-V"))
    at += takes_value(argv[at]) && at + 1 < argc ? 2 : 1;
  if (at > 1 && at < argc && find_command(argv[at])) {
    char *name = argv[at];
    for (int k = at; k > 1; k--) argv[k] = argv[k - 1];
    argv[1] = name;
  }
  // Signature options belong to every command that opens a pack: taken out
  // here (for `run`, only those before its COMMAND).
  if (argc >= 2 && find_command(argv[1]) && !cli::take_signing_options(&argc, argv, 2, !std::strcmp(argv[1], "run"), takes_value))
    return cli::kExitError;
  if (argc >= 3 && !std::strcmp(argv[1], "help")) {
    if (Command c = find_command(argv[2])) {
      char help[] = "--help";
      char *args[] = {argv[2], help, nullptr};
      return c(2, args);
    }
    cli::eprintf("faultline: no command '%s'\n\n%s", argv[2], kUsage);
    return cli::kExitError;
  }
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? cli::kExitError : 0;
  }
  if (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "-V")) {
    fl_pack *pack = nullptr;
    char err[256];
    fl_pack_open_default(nullptr, &pack, err, sizeof err);
    std::printf("faultline %s (library %s, pack format %d.%d, default pack %s)\n", fl_version_string(), fl_version_string(),
                FL_PACK_FORMAT_MAJOR, FL_PACK_FORMAT_MINOR, pack ? fl_pack_version(pack) : "none");
    fl_pack_free(pack);
    return 0;
  }
  if (Command c = find_command(argv[1])) return c(argc - 1, argv + 1);
  cli::eprintf("faultline: unknown command '%s'\n\n%s", argv[1], kUsage);
  return cli::kExitError;
}
