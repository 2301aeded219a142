#include "pack_writer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
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

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

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
  DfaPartition partition = partition_dfas(dfa_pieces, piece_pattern, entry_patterns, plan, opt);
  std::vector<BuiltDfa> &dfas = partition.dfas;
  const std::vector<std::vector<uint32_t>> &key_dfas = partition.key_dfas;
  const std::vector<uint32_t> &framing_dfas = partition.framing_dfas;

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
