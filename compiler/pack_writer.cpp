#include "pack_writer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <future>
#include <cstring>
#include <map>

#include "common/hash.h"
#include "match/literal_filter.h"
#include "match/pack_header.h"
#include "pack_generated.h"
#include "literal_filter_build.h"
#include "taxonomy.h"
#include "version.h"

namespace faultline {
namespace {

using Clock = std::chrono::steady_clock;

// Unions of more pieces are not minimized by Ragel (see run_ragel).
constexpr size_t kMinimizeMaxPieces = 100;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct BuiltDfa {
  std::vector<DfaPiece> pieces;
  DfaTables tables;
  DfaStats stats;
};

// Builds one DFA for `pieces`; if it exceeds the budget, splits the pieces in
// two halves and builds each (in parallel when jobs allow).
void build_partition(const std::vector<DfaPiece> &pieces, const BuildOptions &opt, std::vector<BuiltDfa> *out) {
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
      auto fut = std::async(std::launch::async, [&] { build_partition(a, opt, &left); });
      build_partition(b, opt, &right);
      fut.get();
    } else {
      build_partition(a, opt, &left);
      build_partition(b, opt, &right);
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
std::vector<BuiltDfa> build_bins(const std::vector<std::vector<DfaPiece>> &bins, const BuildOptions &opt) {
  std::vector<std::vector<BuiltDfa>> built(bins.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < bins.size();)
      if (!bins[i].empty()) build_partition(bins[i], opt, &built[i]);
  };
  BuildOptions serial = opt;
  serial.jobs = 1;
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
std::vector<std::vector<DfaPiece>> dfa_bins(const std::vector<DfaPiece> &pieces, const std::vector<uint32_t> &piece_pattern,
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

}  // namespace

BuildResult build_pack(const std::vector<Signature> &sigs, const BuildOptions &opt, const std::vector<Framing> &framings) {
  auto t0 = Clock::now();
  BuildResult result;

  // Global numbering: entries by id (sigs are sorted), patterns in entry
  // order, pieces in pattern order. Deterministic by construction.
  std::map<std::string, uint32_t> entry_index;
  for (uint32_t i = 0; i < sigs.size(); i++) entry_index[sigs[i].id] = i;
  struct PieceRef {
    uint32_t pattern;
    uint8_t bit;
  };
  std::vector<PieceRef> piece_refs;
  std::vector<DfaPiece> dfa_pieces;
  uint32_t pattern_no = 0;
  auto add_pieces = [&](const std::string &owner, const PatternDef &p) {
    for (size_t k = 0; k < p.pieces.pieces.size(); k++) {
      uint32_t id = static_cast<uint32_t>(piece_refs.size());
      piece_refs.push_back(PieceRef{pattern_no, static_cast<uint8_t>(k)});
      dfa_pieces.push_back(DfaPiece{id, piece_to_ragel(p.pieces.pieces[k]), p.pieces.pieces[k].anchored_start, owner + "/" + p.name});
    }
    pattern_no++;
  };
  for (const auto &s : sigs)
    for (const auto &p : s.patterns) add_pieces(s.id, p);
  for (const auto &f : framings)
    for (const auto &p : f.patterns) add_pieces("framing/" + f.id, p);

  // The literal filter's keys for every entry pattern (framing patterns are
  // only looked at on lines where an entry pattern is a candidate).
  const uint32_t entry_patterns = pattern_no - [&] {
    uint32_t n = 0;
    for (const auto &f : framings) n += static_cast<uint32_t>(f.patterns.size());
    return n;
  }();
  std::vector<const regex::Regex *> regexes;
  for (const auto &s : sigs)
    for (const auto &p : s.patterns) regexes.push_back(&p.parsed);
  const LiteralPlan plan = plan_literals(regexes, opt.literal_stride);
  const LiteralTables lt = build_literal_tables(plan);

  std::vector<uint32_t> piece_pattern;
  for (const auto &r : piece_refs) piece_pattern.push_back(r.pattern);
  std::vector<BuiltDfa> dfas;
  if (!dfa_pieces.empty()) dfas = build_bins(dfa_bins(dfa_pieces, piece_pattern, entry_patterns, plan), opt);
  // Which DFAs hold each pattern's pieces; keys run the DFAs of their patterns.
  std::vector<std::vector<uint32_t>> pattern_dfas(pattern_no);
  std::vector<uint32_t> framing_dfas;
  for (uint32_t d = 0; d < dfas.size(); d++)
    for (const auto &piece : dfas[d].pieces) {
      const uint32_t p = piece_refs[piece.id].pattern;
      auto &v = pattern_dfas[p];
      if (std::find(v.begin(), v.end(), d) == v.end()) v.push_back(d);
      if (p >= entry_patterns && std::find(framing_dfas.begin(), framing_dfas.end(), d) == framing_dfas.end()) framing_dfas.push_back(d);
    }
  std::vector<std::vector<uint32_t>> key_dfas(plan.keys.size());
  for (uint32_t p = 0; p < entry_patterns; p++)
    for (uint32_t k : plan.pattern_keys[p])
      for (uint32_t d : pattern_dfas[p])
        if (std::find(key_dfas[k].begin(), key_dfas[k].end(), d) == key_dfas[k].end()) key_dfas[k].push_back(d);
  for (auto &v : key_dfas) std::sort(v.begin(), v.end());
  if (!opt.emit_ragel_dir.empty()) {
    std::filesystem::create_directories(opt.emit_ragel_dir);
    for (size_t i = 0; i < dfas.size(); i++) {
      std::ofstream f(std::filesystem::path(opt.emit_ragel_dir) / ("dfa" + std::to_string(i) + ".rl"));
      f << emit_ragel_source(dfas[i].pieces, "flc_dfa");
    }
  }

  flatbuffers::FlatBufferBuilder b(1 << 20);
  b.ForceDefaults(true);  // explicit zeros keep dumps and diffs honest
  // Children are created one statement at a time, never as arguments of one
  // call: argument evaluation order is unspecified, byte order must not be.
  auto str = [&b](const std::string &v) { return b.CreateString(v); };
  auto strs = [&b](const std::vector<std::string> &v) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> offs;
    for (const auto &x : v) offs.push_back(b.CreateString(x));
    return b.CreateVector(offs);
  };

  std::vector<flatbuffers::Offset<fb::Entry>> entries;
  std::vector<flatbuffers::Offset<fb::Pattern>> patterns;
  uint32_t max_insns = 1, max_slots = 2;
  pattern_no = 0;
  auto add_pattern = [&](uint32_t owner, const PatternDef &p) {
    max_insns = std::max(max_insns, p.program.insn_count());
    max_slots = std::max(max_slots, p.program.slot_count);
    std::vector<uint8_t> class_bytes;
    for (const auto &c : p.program.classes) class_bytes.insert(class_bytes.end(), c.begin(), c.end());
    auto name = str(p.name);
    auto rx = str(p.regex);
    auto source = str(p.source);
    auto caps = strs(p.parsed.capture_names);
    auto prog = b.CreateVector(p.program.words);
    auto classes = b.CreateVector(class_bytes);
    patterns.push_back(fb::CreatePattern(b, owner, name, rx, source, caps, prog, classes, p.program.slot_count,
                                         static_cast<uint8_t>(p.pieces.pieces.size()), p.pieces.exact));
    pattern_no++;
  };
  for (uint32_t ei = 0; ei < sigs.size(); ei++) {
    const Signature &s = sigs[ei];
    const uint32_t first_pattern = pattern_no;
    for (const auto &p : s.patterns) add_pattern(ei, p);
    auto indices = [&](const std::vector<std::string> &names) {
      std::vector<uint32_t> v;
      for (const auto &n : names) v.push_back(entry_index.at(n));
      return b.CreateVector(v);
    };
    auto id = str(s.id);
    auto title = str(s.title);
    auto category = str(s.category);
    auto type = str(s.type);
    auto tags = strs(s.tags);
    auto affects = strs(s.affects);
    std::vector<flatbuffers::Offset<fb::VersionScope>> versions;
    for (const auto &x : s.versions) {
      auto c = str(x.component), r = str(x.range), n = str(x.note);
      versions.push_back(fb::CreateVersionScope(b, c, r, n));
    }
    auto versions_v = b.CreateVector(versions);
    auto summary = str(s.summary);
    auto mechanism = str(s.mechanism);
    std::vector<flatbuffers::Offset<fb::Symptom>> symptoms;
    for (const auto &x : s.symptoms) {
      auto o = str(x.observe), w = str(x.why);
      symptoms.push_back(fb::CreateSymptom(b, o, w));
    }
    auto symptoms_v = b.CreateVector(symptoms);
    auto confirm = strs(s.confirm);
    auto root_cause = str(s.root_cause);
    auto fix_steps = strs(s.fix_steps);
    std::vector<flatbuffers::Offset<fb::Command>> commands;
    for (const auto &x : s.fix_commands) {
      auto r = str(x.run), e = str(x.explain);
      commands.push_back(fb::CreateCommand(b, r, e));
    }
    auto commands_v = b.CreateVector(commands);
    std::vector<flatbuffers::Offset<fb::Verification>> verify;
    for (const auto &x : s.verify) {
      auto r = str(x.run), e = str(x.expect);
      verify.push_back(fb::CreateVerification(b, r, e));
    }
    auto verify_v = b.CreateVector(verify);
    auto prevention = strs(s.prevention);
    auto fingerprint = str(s.fingerprint);
    std::vector<flatbuffers::Offset<fb::Reference>> refs;
    for (const auto &x : s.references) {
      auto t = str(x.title), u = str(x.url);
      refs.push_back(fb::CreateReference(b, t, u));
    }
    auto refs_v = b.CreateVector(refs);
    auto related = indices(s.related);
    auto causes = indices(s.causes);
    auto rel_path = str(s.rel_path);
    fb::Condition cond(s.require == "all" ? fb::Require::All : fb::Require::Any, s.scope == "job" ? fb::Scope::Job : fb::Scope::Rank,
                       s.min_count);
    entries.push_back(fb::CreateEntry(
        b, id, title, category, type, tags, static_cast<fb::Severity>(taxonomy::index_of(taxonomy::severities(), s.severity)),
        affects, versions_v, summary, mechanism, symptoms_v, confirm, root_cause, fix_steps, commands_v, verify_v, prevention,
        fingerprint, refs_v, related, static_cast<fb::Action>(taxonomy::index_of(taxonomy::actions(), s.action)),
        static_cast<fb::Role>(taxonomy::index_of(taxonomy::roles(), s.role)), causes, &cond, first_pattern,
        static_cast<uint32_t>(s.patterns.size()), s.deprecated, rel_path));
  }

  std::vector<flatbuffers::Offset<fb::Framing>> framing_offsets;
  for (const auto &f : framings) {
    const uint32_t first_pattern = pattern_no;
    for (const auto &p : f.patterns) add_pattern(kFramingEntry, p);
    auto name = str(f.id);
    auto title = str(f.title);
    auto description = str(f.description);
    auto rel_path = str(f.rel_path);
    framing_offsets.push_back(fb::CreateFraming(b, name, title, description, first_pattern,
                                                static_cast<uint32_t>(f.patterns.size()), rel_path));
  }

  std::vector<fb::Piece> pieces;
  for (const auto &r : piece_refs) pieces.emplace_back(r.pattern, r.bit);

  std::vector<flatbuffers::Offset<fb::Dfa>> dfa_offsets;
  for (auto &d : dfas) {
    const DfaTables &t = d.tables;
    auto cmap = b.CreateVector(t.class_map.data(), t.class_map.size());
    // The narrowest transition width that holds every state number.
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> t8 = 0;
    flatbuffers::Offset<flatbuffers::Vector<uint16_t>> t16 = 0;
    flatbuffers::Offset<flatbuffers::Vector<uint32_t>> t32 = 0;
    if (t.state_count <= 0x100) {
      std::vector<uint8_t> v(t.trans.begin(), t.trans.end());
      t8 = b.CreateVector(v);
      d.stats.table_bytes = static_cast<uint32_t>(v.size());
    } else if (t.state_count <= 0x10000) {
      std::vector<uint16_t> v(t.trans.begin(), t.trans.end());
      t16 = b.CreateVector(v);
      d.stats.table_bytes = static_cast<uint32_t>(v.size() * 2);
    } else {
      t32 = b.CreateVector(t.trans);
      d.stats.table_bytes = static_cast<uint32_t>(t.trans.size() * 4);
    }
    auto offsets = b.CreateVector(t.accept_offsets);
    auto accepts = b.CreateVector(t.accepts);
    dfa_offsets.push_back(fb::CreateDfa(b, t.state_count, t.class_count, t.start, t.accept_base, cmap, t8, t16, t32, offsets, accepts));
    result.dfas.push_back(d.stats);
  }

  // The literal filter: keys for every entry pattern (framing patterns are
  // only looked at on lines where an entry pattern is a candidate).
  auto key_vector = [&](const std::vector<uint32_t> &ids) {
    std::vector<flatbuffers::Offset<fb::LiteralKey>> keys;
    for (uint32_t k : ids) {
      const LiteralKey &key = plan.keys[k];
      auto text = b.CreateVector(reinterpret_cast<const uint8_t *>(key.literal.bytes.data()), key.literal.bytes.size());
      auto dfas_v = b.CreateVector(key_dfas[k]);
      keys.push_back(fb::CreateLiteralKey(b, text, key.literal.caseless, key.anchor, dfas_v));
    }
    return b.CreateVector(keys);
  };
  auto long_keys = key_vector(lt.long_keys);
  auto short_keys = key_vector(lt.short_keys);
  // Each reference carries what verifying it needs (where the key starts,
  // its bytes in long_text): no key table is touched on the hot path.
  std::vector<uint8_t> long_text;
  std::vector<uint32_t> text_at;
  for (uint32_t k : lt.long_keys) {
    text_at.push_back(static_cast<uint32_t>(long_text.size()));
    long_text.insert(long_text.end(), plan.keys[k].literal.bytes.begin(), plan.keys[k].literal.bytes.end());
  }
  std::vector<fb::LiteralRef> refs;
  for (const auto &[key, offset] : lt.refs) {
    const LiteralKey &k = plan.keys[lt.long_keys[key]];
    refs.emplace_back(key, offset, offset + k.anchor, text_at[key], static_cast<uint16_t>(k.literal.bytes.size()),
                      static_cast<uint8_t>(k.literal.caseless));
  }
  auto bits_v = b.CreateVector(lt.bits);
  std::vector<fb::LiteralSlot> slots;
  for (const auto &s : lt.slots) slots.emplace_back(s.gram, s.first, s.count);
  auto slots_v = b.CreateVectorOfStructs(slots);
  auto refs_v = b.CreateVectorOfStructs(refs);
  auto bucket_first_v = b.CreateVector(lt.bucket_first);
  auto masks_v = b.CreateVector(lt.masks);
  auto framing_dfas_v = b.CreateVector(framing_dfas);
  auto long_text_v = b.CreateVector(long_text);
  auto literal_filter = fb::CreateLiteralFilter(b, plan.complete, plan.stride, long_keys, bits_v, slots_v, refs_v, short_keys,
                                                bucket_first_v, masks_v, framing_dfas_v, long_text_v);
  result.literal_filter_complete = plan.complete;

  auto pack_version = str(opt.pack_version);
  auto compiler_version = str(kCompilerVersion);
  auto entries_v = b.CreateVector(entries);
  auto patterns_v = b.CreateVector(patterns);
  auto pieces_v = b.CreateVectorOfStructs(pieces);
  auto dfas_v = b.CreateVector(dfa_offsets);
  auto framing_v = b.CreateVector(framing_offsets);
  auto root = fb::CreatePack(b, pack_version, compiler_version, entries_v, patterns_v, pieces_v, dfas_v, framing_v, max_insns,
                             max_slots, literal_filter);
  fb::FinishPackBuffer(b, root);

  result.bytes = frame_pack(b.GetBufferPointer(), b.GetSize());
  result.seconds = since(t0);
  return result;
}

std::vector<uint8_t> frame_pack(const uint8_t *content, size_t size) {
  const fb::Pack *root = fb::GetPack(content);
  PackHeader h{};
  std::memcpy(h.magic, kPackMagic, 4);
  h.format_major = kPackFormatMajor;
  h.format_minor = kPackFormatMinor;
  h.header_bytes = kPackHeaderBytes;
  h.total_bytes = kPackHeaderBytes + size;
  h.content_hash = xxh64(content, size);
  h.entry_count = root->entries() ? root->entries()->size() : 0;
  h.pattern_count = root->patterns() ? root->patterns()->size() : 0;
  h.dfa_count = root->dfas() ? root->dfas()->size() : 0;
  std::vector<uint8_t> out(h.total_bytes);
  std::memcpy(out.data(), &h, sizeof h);
  std::memcpy(out.data() + kPackHeaderBytes, content, size);
  return out;
}

void write_file(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace faultline
