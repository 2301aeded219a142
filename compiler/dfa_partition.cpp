#include "dfa_partition.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>

namespace faultline {
namespace {

using Clock = std::chrono::steady_clock;

// Unions of more pieces are not minimized by Ragel (see run_ragel).
constexpr size_t kMinimizeMaxPieces = 100;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Builds one DFA for `pieces`; if it exceeds the budget, splits the pieces in
// two halves and builds each (in parallel when jobs allow).
void build_within_budget(const std::vector<DfaPiece> &pieces, const DfaPartitionOptions &opt, std::vector<BuiltDfa> *out) {
  auto t0 = Clock::now();
  BuiltDfa d;
  d.pieces = pieces;
  std::string source = emit_ragel_source(pieces, "flc_dfa");
  bool too_large = false;
  RagelLimits limits = opt.ragel_limits;
  limits.minimize = pieces.size() <= kMinimizeMaxPieces;
  try {
    d.tables = build_tables(parse_ragel_xml(run_ragel(opt.ragel, source, limits)));
  } catch (const RagelTooLarge &e) {
    if (pieces.size() == 1)
      throw RagelError("pattern " + pieces[0].label + ": one of its pieces alone is too large for a DFA (" + e.what() +
                       "); split it with .* or simplify its repetitions");
    too_large = true;
  }
  d.stats.seconds = since(t0);
  if ((too_large || d.tables.state_count > opt.state_budget) && pieces.size() > 1) {
    size_t half = pieces.size() / 2;
    std::vector<DfaPiece> a(pieces.begin(), pieces.begin() + half), b(pieces.begin() + half, pieces.end());
    std::vector<BuiltDfa> left, right;
    if (opt.jobs > 1) {
      auto fut = std::async(std::launch::async, [&] { build_within_budget(a, opt, &left); });
      build_within_budget(b, opt, &right);
      fut.get();
    } else {
      build_within_budget(a, opt, &left);
      build_within_budget(b, opt, &right);
    }
    for (auto &x : left) out->push_back(std::move(x));
    for (auto &x : right) out->push_back(std::move(x));
    return;
  }
  if (d.tables.state_count > opt.state_budget)
    std::fprintf(stderr, "flc: warning: pattern %s: one piece alone needs %u DFA states (budget %u)\n", pieces[0].label.c_str(),
                 d.tables.state_count, opt.state_budget);
  d.stats.pieces = static_cast<uint32_t>(pieces.size());
  d.stats.states = d.tables.state_count;
  d.stats.classes = d.tables.class_count;
  out->push_back(std::move(d));
}

// Builds every bin's DFAs, bins in parallel when jobs allow, in bin order.
std::vector<BuiltDfa> build_bins(const std::vector<std::vector<DfaPiece>> &bins, const DfaPartitionOptions &opt) {
  std::vector<std::vector<BuiltDfa>> built(bins.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < bins.size();)
      if (!bins[i].empty()) build_within_budget(bins[i], opt, &built[i]);
  };
  std::vector<std::future<void>> helpers;
  for (unsigned j = 1; j < opt.jobs; j++) helpers.push_back(std::async(std::launch::async, worker));
  worker();
  for (auto &h : helpers) h.get();
  std::vector<BuiltDfa> out;
  for (auto &b : built)
    for (auto &d : b) out.push_back(std::move(d));
  return out;
}

// With a complete literal filter a line runs only the DFAs of the keys it
// holds, so DFAs are cut along keys: patterns that share a key stay together,
// groups are packed into small bins (small tables stay in cache), a group
// with a common key gets a bin of its own, and framing patterns get theirs
// (run only once an entry pattern is a candidate). Without the filter: one
// bin, split by the state budget.
std::vector<std::vector<DfaPiece>> bins_by_key(const std::vector<DfaPiece> &pieces, const std::vector<uint32_t> &piece_pattern,
                                               uint32_t entry_patterns, const LiteralPlan &plan) {
  if (!plan.complete) return {pieces};
  constexpr size_t kBinPieces = 12;
  constexpr double kCommonGroup = 200;  // per 10 MB of healthy log
  std::vector<uint32_t> parent(entry_patterns);
  for (uint32_t i = 0; i < entry_patterns; i++) parent[i] = i;
  auto find = [&](uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::map<uint32_t, uint32_t> key_owner;
  for (uint32_t p = 0; p < entry_patterns; p++)
    for (uint32_t k : plan.pattern_keys[p]) {
      auto [it, fresh] = key_owner.emplace(k, p);
      if (!fresh) parent[find(p)] = find(it->second);
    }
  std::map<uint32_t, std::vector<DfaPiece>> groups;  // by root pattern: deterministic order
  std::map<uint32_t, double> group_freq;
  std::vector<DfaPiece> framing;
  for (size_t i = 0; i < pieces.size(); i++) {
    const uint32_t p = piece_pattern[i];
    if (p >= entry_patterns) {
      framing.push_back(pieces[i]);
      continue;
    }
    groups[find(p)].push_back(pieces[i]);
  }
  for (uint32_t p = 0; p < entry_patterns; p++)
    for (uint32_t k : plan.pattern_keys[p]) group_freq[find(p)] += literal_frequency(plan.keys[k].literal);
  std::vector<std::vector<DfaPiece>> bins;
  std::vector<DfaPiece> bin;
  for (auto &[root, group] : groups) {
    if (group_freq[root] >= kCommonGroup) {
      bins.push_back(group);
      continue;
    }
    bin.insert(bin.end(), group.begin(), group.end());
    if (bin.size() >= kBinPieces) bins.push_back(std::move(bin)), bin.clear();
  }
  if (!bin.empty()) bins.push_back(std::move(bin));
  if (!framing.empty()) bins.push_back(std::move(framing));
  return bins;
}

// A key runs the DFAs that hold a piece of one of its patterns; framing
// DFAs run once any entry pattern is a candidate.
void route_keys(const std::vector<uint32_t> &piece_pattern, uint32_t entry_patterns, const LiteralPlan &plan,
                DfaPartition *part) {
  std::vector<std::vector<uint32_t>> pattern_dfas(entry_patterns);
  for (uint32_t d = 0; d < part->dfas.size(); d++)
    for (const auto &piece : part->dfas[d].pieces) {
      const uint32_t p = piece_pattern[piece.id];
      auto &v = p < entry_patterns ? pattern_dfas[p] : part->framing_dfas;
      if (std::find(v.begin(), v.end(), d) == v.end()) v.push_back(d);
    }
  part->key_dfas.assign(plan.keys.size(), {});
  for (uint32_t p = 0; p < entry_patterns; p++)
    for (uint32_t k : plan.pattern_keys[p]) {
      auto &v = part->key_dfas[k];
      for (uint32_t d : pattern_dfas[p])
        if (std::find(v.begin(), v.end(), d) == v.end()) v.push_back(d);
    }
  for (auto &v : part->key_dfas) std::sort(v.begin(), v.end());
}

// dfa<i>.rl for each DFA, as given to Ragel (flc --emit-ragel).
void write_ragel_sources(const std::vector<BuiltDfa> &dfas, const std::string &dir) {
  std::filesystem::create_directories(dir);
  for (size_t i = 0; i < dfas.size(); i++) {
    std::ofstream f(std::filesystem::path(dir) / ("dfa" + std::to_string(i) + ".rl"));
    f << emit_ragel_source(dfas[i].pieces, "flc_dfa");
  }
}

}  // namespace

DfaPartition partition_dfas(const std::vector<DfaPiece> &pieces, const std::vector<uint32_t> &piece_pattern,
                            uint32_t entry_patterns, const LiteralPlan &plan, const DfaPartitionOptions &opt) {
  DfaPartition part;
  if (!pieces.empty()) part.dfas = build_bins(bins_by_key(pieces, piece_pattern, entry_patterns, plan), opt);
  route_keys(piece_pattern, entry_patterns, plan, &part);
  if (!opt.emit_ragel_dir.empty()) write_ragel_sources(part.dfas, opt.emit_ragel_dir);
  return part;
}

}  // namespace faultline
