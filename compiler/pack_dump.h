// Printing packs: `flc dump` (everything, readable and diffable) and
// `flc stats` (sizes, DFA states, per-pattern cost).
#pragma once

#include <cstdio>

#include "match/pack_reader.h"

namespace faultline {

void dump_pack(const PackView &pack, std::FILE *out);
void print_pack_stats(const PackView &pack, std::FILE *out);

// Disassembles one confirmation program (used by dump and tests).
std::string disassemble(const ProgramView &p);

}  // namespace faultline
