// The faultline command's subcommands. Each returns the process exit status.
#pragma once

namespace cli {

// Exit statuses, like grep: a failure was found / none was / error.
constexpr int kExitFailure = 0;
constexpr int kExitNoFailure = 1;
constexpr int kExitError = 2;

int cmd_diagnose(int argc, char **argv);  // diagnose [--json|--summary] [--pack P] INPUT...
int cmd_partial(int argc, char **argv);   // partial -o OUT [--pack P] INPUT...
int cmd_merge(int argc, char **argv);
int cmd_explain(int argc, char **argv);    // explain [--markdown] ID: an entry's encyclopedia page
int cmd_list(int argc, char **argv);       // list [--category C] [--type T]
int cmd_run(int argc, char **argv);        // run [--report F] -- CMD...: the launcher wrapper
int cmd_scan(int argc, char **argv);       // scan [--pack P] FILE...: raw matches with line numbers
int cmd_pack_info(int argc, char **argv);  // pack-info PACK
int cmd_lsp(int argc, char **argv);        // lsp [--pack P]: the language server on stdio
int cmd_templates(int argc, char **argv);  // templates FILE|DIR...: unknown failures grouped by fingerprint     // merge
                                           // [--json|--summary] [--pack P] [-o OUT] PARTIAL...

}  // namespace cli
