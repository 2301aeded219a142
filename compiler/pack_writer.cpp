#include "pack_writer.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/hash.h"
#include "confirm_dfa.h"
#include "literal_filter_build.h"
#include "match/pack_header.h"
#include "pack_generated.h"
#include "taxonomy.h"
#include "version.h"

namespace faultline {
namespace {

using Clock = std::chrono::steady_clock;
using flatbuffers::Offset;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The pack's numbering, decided here once and used by every later step:
// entries by id (sigs are sorted), patterns in entry order then framing
// order, pieces in pattern order. Deterministic by construction.
struct PackNumbering {
  struct Pattern {
    const PatternDef *def;
    uint32_t owner;  // entry index, or kFramingEntry
  };
  std::map<std::string, uint32_t> entry_index;  // by entry id
  std::vector<Pattern> patterns;                // by pattern index
  uint32_t entry_patterns = 0;                  // patterns below it are the entries', the rest the framings'
  std::vector<uint32_t> entry_first_pattern;    // by entry index
  std::vector<uint32_t> framing_first_pattern;  // by framing index
  std::vector<DfaPiece> pieces;                 // by piece index (DfaPiece::id)
  std::vector<uint32_t> piece_pattern;          // by piece index
  std::vector<uint8_t> piece_bit;               // by piece index: its place in its pattern
};

PackNumbering number_pack(const std::vector<Signature> &sigs, const std::vector<Framing> &framings) {
  PackNumbering n;
  for (uint32_t i = 0; i < sigs.size(); i++) n.entry_index[sigs[i].id] = i;
  auto add_pattern = [&n](const PatternDef &p, uint32_t owner, const std::string &owner_name) {
    const uint32_t pattern = static_cast<uint32_t>(n.patterns.size());
    n.patterns.push_back({&p, owner});
    for (size_t k = 0; k < p.pieces.pieces.size(); k++) {
      const Piece &piece = p.pieces.pieces[k];
      const uint32_t id = static_cast<uint32_t>(n.pieces.size());
      n.pieces.push_back(DfaPiece{id, piece_to_ragel(piece), owner_name + "/" + p.name});
      n.piece_pattern.push_back(pattern);
      n.piece_bit.push_back(static_cast<uint8_t>(k));
    }
  };
  for (uint32_t e = 0; e < sigs.size(); e++) {
    n.entry_first_pattern.push_back(static_cast<uint32_t>(n.patterns.size()));
    for (const auto &p : sigs[e].patterns) add_pattern(p, e, sigs[e].id);
  }
  n.entry_patterns = static_cast<uint32_t>(n.patterns.size());
  for (const auto &f : framings) {
    n.framing_first_pattern.push_back(static_cast<uint32_t>(n.patterns.size()));
    for (const auto &p : f.patterns) add_pattern(p, kFramingEntry, "framing/" + f.id);
  }
  return n;
}

// The literal filter keys entry patterns only: framing patterns are looked
// at only on lines where an entry pattern is a candidate.
std::vector<const regex::Regex *> entry_pattern_regexes(const PackNumbering &n) {
  std::vector<const regex::Regex *> regexes;
  for (uint32_t p = 0; p < n.entry_patterns; p++) regexes.push_back(&n.patterns[p].def->parsed);
  return regexes;
}

// The FlatBuffers content, written in the order of the calls (entries with
// their patterns, framings with theirs, DFAs, literal filter, then finish):
// that order is the pack's byte order. Children are created one statement at
// a time, never as arguments of one call: argument evaluation order is
// unspecified, byte order must not be.
class PackWriter {
 public:
  explicit PackWriter(const PackNumbering &numbering) : n_(numbering) {
    b_.ForceDefaults(true);  // explicit zeros keep dumps and diffs honest
  }

  void write_entry(uint32_t entry, const Signature &s);
  void write_framing(uint32_t framing, const Framing &f);
  uint32_t write_dfa(const DfaTables &t);  // returns the transition table's bytes
  void write_literal_filter(const LiteralPlan &plan, const DfaPartition &partition);
  std::vector<uint8_t> finish(const BuildOptions &opt);  // the whole pack, header included

 private:
  void write_patterns(uint32_t first, size_t count);
  Offset<fb::Dfa> dfa_table(const DfaTables &t, uint32_t *table_bytes);
  Offset<flatbuffers::String> str(const std::string &v) { return b_.CreateString(v); }
  Offset<flatbuffers::Vector<Offset<flatbuffers::String>>> strs(const std::vector<std::string> &v);
  Offset<flatbuffers::Vector<uint32_t>> entry_indices(const std::vector<std::string> &ids);
  // Tables of two strings (symptoms, commands, verifications, references):
  // each item's strings, then its table, then the vector of them.
  template <typename Table, typename Item, typename Create>
  Offset<flatbuffers::Vector<Offset<Table>>> pair_tables(const std::vector<Item> &items, std::string Item::*first,
                                                         std::string Item::*second, Create create) {
    std::vector<Offset<Table>> offs;
    for (const Item &x : items) {
      auto a = str(x.*first), b = str(x.*second);
      offs.push_back(create(b_, a, b));
    }
    return b_.CreateVector(offs);
  }

  const PackNumbering &n_;
  flatbuffers::FlatBufferBuilder b_{1 << 20};
  std::vector<Offset<fb::Entry>> entries_;
  std::vector<Offset<fb::Pattern>> patterns_;  // by pattern index
  std::vector<Offset<fb::Framing>> framings_;
  std::vector<Offset<fb::Dfa>> dfas_;
  Offset<fb::LiteralFilter> literal_filter_;
  uint32_t max_insns_ = 1, max_slots_ = 2;
};

Offset<flatbuffers::Vector<Offset<flatbuffers::String>>> PackWriter::strs(const std::vector<std::string> &v) {
  std::vector<Offset<flatbuffers::String>> offs;
  for (const auto &x : v) offs.push_back(b_.CreateString(x));
  return b_.CreateVector(offs);
}

Offset<flatbuffers::Vector<uint32_t>> PackWriter::entry_indices(const std::vector<std::string> &ids) {
  std::vector<uint32_t> v;
  for (const auto &id : ids) v.push_back(n_.entry_index.at(id));
  return b_.CreateVector(v);
}

// Patterns [first, first + count), each under its owner. Entries, then
// framings, are written in index order, so patterns_ follows the numbering.
void PackWriter::write_patterns(uint32_t first, size_t count) {
  for (uint32_t i = first; i < first + count; i++) {
    const PatternDef &p = *n_.patterns[i].def;
    max_insns_ = std::max(max_insns_, p.program.insn_count());
    max_slots_ = std::max(max_slots_, p.program.slot_count);
    std::vector<uint8_t> class_bytes;
    for (const auto &c : p.program.classes) class_bytes.insert(class_bytes.end(), c.begin(), c.end());
    auto name = str(p.name);
    auto rx = str(p.regex);
    auto source = str(p.source);
    auto caps = strs(p.parsed.capture_names);
    auto prog = b_.CreateVector(p.program.words);
    auto classes = b_.CreateVector(class_bytes);
    // Entry patterns the pieces do not decide get their whole-pattern DFA
    // (framing patterns are confirmed for their captures' ends anyway).
    Offset<fb::Dfa> confirm = 0;
    uint32_t unused;
    if (n_.patterns[i].owner != kFramingEntry && !p.pieces.exact)
      if (const std::optional<DfaTables> t = build_confirm_dfa(p.program)) confirm = dfa_table(*t, &unused);
    Offset<flatbuffers::Vector<uint8_t>> starts = 0;
    if (const auto bits = program_start_bytes(p.program)) starts = b_.CreateVector(bits->data(), bits->size());
    patterns_.push_back(fb::CreatePattern(b_, n_.patterns[i].owner, name, rx, source, caps, prog, classes, p.program.slot_count,
                                          static_cast<uint8_t>(p.pieces.pieces.size()), p.pieces.exact, confirm, starts));
  }
}

void PackWriter::write_entry(uint32_t entry, const Signature &s) {
  const uint32_t first_pattern = n_.entry_first_pattern[entry];
  write_patterns(first_pattern, s.patterns.size());
  auto id = str(s.id);
  auto title = str(s.title);
  auto category = str(s.category);
  auto type = str(s.type);
  auto tags = strs(s.tags);
  auto affects = strs(s.affects);
  std::vector<Offset<fb::VersionScope>> versions;
  for (const auto &x : s.versions) {
    auto c = str(x.component), r = str(x.range), n = str(x.note);
    versions.push_back(fb::CreateVersionScope(b_, c, r, n));
  }
  auto versions_v = b_.CreateVector(versions);
  auto summary = str(s.summary);
  auto mechanism = str(s.mechanism);
  auto symptoms_v = pair_tables<fb::Symptom>(s.symptoms, &Symptom::observe, &Symptom::why, fb::CreateSymptom);
  auto confirm = strs(s.confirm);
  auto root_cause = str(s.root_cause);
  auto fix_steps = strs(s.fix_steps);
  auto commands_v = pair_tables<fb::Command>(s.fix_commands, &CommandLine::run, &CommandLine::explain, fb::CreateCommand);
  auto verify_v = pair_tables<fb::Verification>(s.verify, &Verification::run, &Verification::expect, fb::CreateVerification);
  auto prevention = strs(s.prevention);
  auto fingerprint = str(s.fingerprint);
  auto refs_v = pair_tables<fb::Reference>(s.references, &Reference::title, &Reference::url, fb::CreateReference);
  auto related = entry_indices(s.related);
  auto causes = entry_indices(s.causes);
  auto rel_path = str(s.rel_path);
  // A layered library's links into its base, by id; absent otherwise.
  Offset<flatbuffers::Vector<Offset<flatbuffers::String>>> external_related, external_causes;
  if (!s.external_related.empty()) external_related = strs(s.external_related);
  if (!s.external_causes.empty()) external_causes = strs(s.external_causes);
  // Absent (not empty) when an entry has none: packs without them stay as they were.
  Offset<flatbuffers::Vector<Offset<fb::CodeExample>>> code_v;
  if (!s.code_examples.empty()) {
    std::vector<Offset<fb::CodeExample>> v;
    for (const auto &x : s.code_examples) {
      auto st = str(x.stack), lang = str(x.language), code = str(x.code), why = str(x.why);
      v.push_back(fb::CreateCodeExample(b_, st, lang, code, why));
    }
    code_v = b_.CreateVector(v);
  }
  Offset<flatbuffers::Vector<Offset<fb::Answer>>> answers_v;
  if (!s.answers.empty()) {
    std::vector<Offset<fb::Answer>> v;
    for (const auto &x : s.answers) {
      auto t = str(x.text);
      v.push_back(fb::CreateAnswer(b_, static_cast<fb::Question>(x.question), t));
    }
    answers_v = b_.CreateVector(v);
  }
  fb::Condition cond(s.require == "all" ? fb::Require::All : fb::Require::Any,
                     s.scope == "job" ? fb::Scope::Job : fb::Scope::Rank, s.min_count);
  entries_.push_back(fb::CreateEntry(
      b_, id, title, category, type, tags, static_cast<fb::Severity>(taxonomy::index_of(taxonomy::severities(), s.severity)),
      affects, versions_v, summary, mechanism, symptoms_v, confirm, root_cause, fix_steps, commands_v, verify_v, prevention,
      fingerprint, refs_v, related, static_cast<fb::Action>(taxonomy::index_of(taxonomy::actions(), s.action)),
      static_cast<fb::Role>(taxonomy::index_of(taxonomy::roles(), s.role)), causes, &cond, first_pattern,
      static_cast<uint32_t>(s.patterns.size()), s.deprecated, rel_path, s.context_required, s.context_excluded, code_v, answers_v,
      s.overrides, external_related, external_causes));
}

void PackWriter::write_framing(uint32_t framing, const Framing &f) {
  const uint32_t first_pattern = n_.framing_first_pattern[framing];
  write_patterns(first_pattern, f.patterns.size());
  auto name = str(f.id);
  auto title = str(f.title);
  auto description = str(f.description);
  auto rel_path = str(f.rel_path);
  framings_.push_back(
      fb::CreateFraming(b_, name, title, description, first_pattern, static_cast<uint32_t>(f.patterns.size()), rel_path));
}

uint32_t PackWriter::write_dfa(const DfaTables &t) {
  uint32_t table_bytes;
  dfas_.push_back(dfa_table(t, &table_bytes));
  return table_bytes;
}

Offset<fb::Dfa> PackWriter::dfa_table(const DfaTables &t, uint32_t *table_bytes) {
  auto cmap = b_.CreateVector(t.class_map.data(), t.class_map.size());
  // The narrowest transition width that holds every state number.
  Offset<flatbuffers::Vector<uint8_t>> t8 = 0;
  Offset<flatbuffers::Vector<uint16_t>> t16 = 0;
  Offset<flatbuffers::Vector<uint32_t>> t32 = 0;
  if (t.state_count <= 0x100) {
    std::vector<uint8_t> v(t.trans.begin(), t.trans.end());
    t8 = b_.CreateVector(v);
    *table_bytes = static_cast<uint32_t>(v.size());
  } else if (t.state_count <= 0x10000) {
    std::vector<uint16_t> v(t.trans.begin(), t.trans.end());
    t16 = b_.CreateVector(v);
    *table_bytes = static_cast<uint32_t>(v.size() * 2);
  } else {
    t32 = b_.CreateVector(t.trans);
    *table_bytes = static_cast<uint32_t>(t.trans.size() * 4);
  }
  auto offsets = b_.CreateVector(t.accept_offsets);
  auto accepts = b_.CreateVector(t.accepts);
  return fb::CreateDfa(b_, t.state_count, t.class_count, t.start, t.accept_base, cmap, t8, t16, t32, offsets, accepts);
}

void PackWriter::write_literal_filter(const LiteralPlan &plan, const DfaPartition &partition) {
  const LiteralTables lt = build_literal_tables(plan);
  auto key_vector = [&](const std::vector<uint32_t> &ids) {
    std::vector<Offset<fb::LiteralKey>> keys;
    for (uint32_t k : ids) {
      const LiteralKey &key = plan.keys[k];
      auto text = b_.CreateVector(reinterpret_cast<const uint8_t *>(key.literal.bytes.data()), key.literal.bytes.size());
      auto dfas_v = b_.CreateVector(partition.key_dfas[k]);
      keys.push_back(fb::CreateLiteralKey(b_, text, key.literal.caseless, key.anchor, dfas_v));
    }
    return b_.CreateVector(keys);
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
  auto bits_v = b_.CreateVector(lt.bits);
  std::vector<fb::LiteralSlot> slots;
  for (const auto &s : lt.slots) slots.emplace_back(s.gram, s.first, s.count);
  auto slots_v = b_.CreateVectorOfStructs(slots);
  auto refs_v = b_.CreateVectorOfStructs(refs);
  auto bucket_first_v = b_.CreateVector(lt.bucket_first);
  auto masks_v = b_.CreateVector(lt.masks);
  auto framing_dfas_v = b_.CreateVector(partition.framing_dfas);
  auto long_text_v = b_.CreateVector(long_text);
  literal_filter_ = fb::CreateLiteralFilter(b_, plan.complete, plan.stride, long_keys, bits_v, slots_v, refs_v, short_keys,
                                            bucket_first_v, masks_v, framing_dfas_v, long_text_v);
}

std::vector<uint8_t> PackWriter::finish(const BuildOptions &opt) {
  std::vector<fb::Piece> pieces;
  for (size_t i = 0; i < n_.pieces.size(); i++) pieces.emplace_back(n_.piece_pattern[i], n_.piece_bit[i]);
  auto pack_version_s = str(opt.pack_version);
  Offset<flatbuffers::String> library_name;
  if (!opt.library_name.empty()) library_name = str(opt.library_name);
  Offset<fb::Base> base;
  if (opt.layered) {
    auto base_name = str(opt.base_name), versions = str(opt.base_versions);
    auto disables = strs(opt.disables);
    base = fb::CreateBase(b_, base_name, versions, disables);
  }
  auto compiler_version = str(kCompilerVersion);
  auto entries_v = b_.CreateVector(entries_);
  auto patterns_v = b_.CreateVector(patterns_);
  auto pieces_v = b_.CreateVectorOfStructs(pieces);
  auto dfas_v = b_.CreateVector(dfas_);
  auto framing_v = b_.CreateVector(framings_);
  auto root = fb::CreatePack(b_, pack_version_s, compiler_version, entries_v, patterns_v, pieces_v, dfas_v, framing_v, max_insns_,
                             max_slots_, literal_filter_, library_name, opt.build_time, base);
  fb::FinishPackBuffer(b_, root);
  return frame_pack(b_.GetBufferPointer(), b_.GetSize());
}

}  // namespace

BuildResult build_pack(const std::vector<Signature> &sigs, const BuildOptions &opt, const std::vector<Framing> &framings) {
  const auto t0 = Clock::now();
  const PackNumbering numbering = number_pack(sigs, framings);
  const LiteralPlan plan = plan_literals(entry_pattern_regexes(numbering), opt.literal_stride);
  const DfaPartition partition = partition_dfas(numbering.pieces, numbering.piece_pattern, numbering.entry_patterns, plan, opt);

  BuildResult result;
  PackWriter pack(numbering);
  for (uint32_t e = 0; e < sigs.size(); e++) pack.write_entry(e, sigs[e]);
  for (uint32_t f = 0; f < framings.size(); f++) pack.write_framing(f, framings[f]);
  for (const BuiltDfa &d : partition.dfas) {
    result.dfas.push_back(d.stats);
    result.dfas.back().table_bytes = pack.write_dfa(d.tables);
  }
  pack.write_literal_filter(plan, partition);
  result.bytes = pack.finish(opt);
  result.literal_filter_complete = plan.complete;
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
