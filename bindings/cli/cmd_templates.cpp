// templates: the unknown failures of a set of logs, grouped by fingerprint,
// most frequent first: the candidates for new encyclopedia entries.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "commands.h"
#include "faultline.h"
#include "inputs.h"
#include "messages.h"
#include "pack_choice.h"

namespace cli {

int cmd_templates(int argc, char **argv) {
  std::vector<std::string> args;
  std::string pack_path;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "usage: faultline templates [--pack PACK] FILE|DIR...\n"
          "Diagnoses each log on its own and lists the failures no entry explains, grouped by\n"
          "fingerprint (count, fingerprint, template, example logs). The pack: --pack, else\n"
          "FAULTLINE_PACK, else the embedded one.\n"
          "Example: faultline templates /shared/failed-jobs/\n");
      return 0;
    }
    if (!std::strcmp(argv[i], "--pack") && i + 1 < argc)
      add_pack_option(&pack_path, argv[++i]);
    else
      args.push_back(argv[i]);
  }
  std::vector<std::string> files;
  std::string err;
  if (args.empty() || !expand_inputs(args, &files, &err)) {
    eprintf("faultline templates: %s\n", args.empty() ? "no input" : err.c_str());
    return kExitError;
  }
  fl_pack *pack = open_chosen_pack("templates", pack_path);
  if (!pack) return kExitError;
  struct Group {
    std::string text;
    std::vector<std::string> logs;
  };
  std::map<std::string, Group> groups;
  int status = 0;
  for (const std::string &f : files) {
    fl_diagnoser *d = nullptr;
    if (fl_diagnoser_create(pack, nullptr, &d) != FL_OK) {
      status = kExitError;
      break;
    }
    fl_diagnoser_begin_source(d, f.c_str());
    bool ok = read_source(
        f, [&](const char *p, size_t n) { return fl_diagnoser_feed(d, p, n) == FL_OK; }, &err);
    fl_diagnosis r{};
    r.struct_size = sizeof r;
    if (ok && fl_diagnoser_result(d, &r) == FL_OK && r.template_text[0]) {
      Group &g = groups[r.fingerprint];
      g.text = r.template_text;
      g.logs.push_back(f);
    } else if (!ok) {
      eprintf("faultline templates: %s\n", err.c_str());
      status = kExitError;
    }
    fl_diagnoser_free(d);
  }
  fl_pack_free(pack);
  std::vector<std::pair<std::string, Group>> sorted(groups.begin(), groups.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto &a, const auto &b) { return a.second.logs.size() > b.second.logs.size(); });
  for (const auto &[fp, g] : sorted) {
    std::printf("%5zu  %s  %s\n", g.logs.size(), fp.c_str(), g.text.c_str());
    for (size_t i = 0; i < g.logs.size() && i < 3; i++) std::printf("       %s\n", g.logs[i].c_str());
  }
  if (status == 0 && sorted.empty()) return kExitNoFailure;
  return status;
}

}  // namespace cli
