// faultline: say why an ML training run failed.
#include <cstdio>
#include <cstring>

#include "commands.h"
#include "faultline.h"
#include "messages.h"

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
    "  run [--report FILE] [--grace S] -- COMMAND...   run a training command; diagnose it if it fails\n"
    "  explain [--markdown] ID   an entry as a readable encyclopedia page\n"
    "  list [--category C] [--type T]   the entries of the pack\n"
    "  scan [--pack PACK] FILE|DIR|-...   every match with its line, fields and frame (for signature authors)\n"
    "  pack-info PACK      header, versions and verification of a pack file\n"
    "  templates FILE|DIR...\n"
    "                      unknown failures of many logs grouped by fingerprint (new entry candidates)\n"
    "\n"
    "exit status: 0 a failure was diagnosed (verdict failure or inconclusive),\n"
    "             1 no failure found, 2 error.\n"
    "\n"
    "examples:\n"
    "  faultline diagnose job.log\n"
    "  faultline diagnose --json logs/ > report.json\n"
    "  kubectl logs pod/trainer-0 | faultline diagnose -\n";

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? cli::kExitError : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    fl_pack *pack = nullptr;
    char err[256];
    fl_pack_open_default(nullptr, &pack, err, sizeof err);
    std::printf("faultline %s (library %s, pack format %d.%d, default pack %s)\n", fl_version_string(), fl_version_string(),
                FL_PACK_FORMAT_MAJOR, FL_PACK_FORMAT_MINOR, pack ? fl_pack_version(pack) : "none");
    fl_pack_free(pack);
    return 0;
  }
  if (!std::strcmp(argv[1], "diagnose")) return cli::cmd_diagnose(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "partial")) return cli::cmd_partial(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "merge")) return cli::cmd_merge(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "templates")) return cli::cmd_templates(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "explain")) return cli::cmd_explain(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "list")) return cli::cmd_list(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "scan")) return cli::cmd_scan(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "run")) return cli::cmd_run(argc - 1, argv + 1);
  if (!std::strcmp(argv[1], "pack-info")) return cli::cmd_pack_info(argc - 1, argv + 1);
  cli::eprintf("faultline: unknown command '%s'\n\n%s", argv[1], kUsage);
  return cli::kExitError;
}
