// Splitting a pattern into DFA pieces. A piece is a run of the pattern between
// gaps (`.*`, `\S+`, `.{2,40}`: repetitions of wide classes); every line that matches the
// pattern contains a match of each piece, so pieces can go into one shared DFA
// as a necessary condition, and the whole pattern is confirmed afterwards.
// Keeping gaps out of the union is what keeps the DFA near-linear in size.
#pragma once

#include <string>
#include <vector>

#include "regex_ast.h"

namespace faultline {

struct PieceOptions {
  int wide_class = 16;      // a class with more members than this is "wide"; repeated, it is a gap
  int min_piece_bytes = 3;  // shorter pieces are too common to be worth a DFA slot
};

struct Piece {
  std::vector<const regex::Node *> items;  // borrowed from the Regex
  bool anchored_end = false;               // ends at the end of the line
  int min_bytes = 0;
};

struct PatternPieces {
  std::vector<Piece> pieces;
  // True when the pieces are exactly the pattern: one piece, nothing dropped
  // or approximated. A DFA hit then proves the match without the program.
  bool exact = false;
  // True when the strongest piece is shorter than min_piece_bytes (lint).
  bool weak = false;
  // The pattern starts with "^": its program runs from the message start.
  bool anchored = false;
};

struct NoPieces : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws NoPieces when nothing in the pattern is specific enough to look for.
PatternPieces split_pattern(const regex::Regex &re, const PieceOptions &opt);

// Ragel source of one piece: a machine over unsigned bytes, '\n' = line end.
std::string piece_to_ragel(const Piece &piece);

}  // namespace faultline
