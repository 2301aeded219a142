// The regex dialect's syntax tree: what flc's parser produces and what the
// Ragel emitter and the program compiler consume.
#pragma once

#include <bitset>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace faultline::regex {

using ByteSet = std::bitset<256>;

enum class NodeKind {
  kEmpty,   // matches the empty string
  kBytes,   // one byte out of `bytes` (literals, classes, `.`, case-folded letters)
  kConcat,  // kids in sequence
  kAlt,     // kids as alternatives, leftmost preferred
  kRepeat,  // kids[0] repeated min..max times (max < 0: unbounded)
  kGroup,   // kids[0]; captures when capture >= 1
  kAssert,  // zero-width: see AssertKind
};

enum class AssertKind { kLineStart, kLineEnd, kWordBoundary, kNotWordBoundary };

struct Node {
  NodeKind kind = NodeKind::kEmpty;
  ByteSet bytes;                            // kBytes
  std::vector<std::unique_ptr<Node>> kids;  // kConcat, kAlt, kRepeat, kGroup
  int min = 0, max = 0;                     // kRepeat; max == -1 means unbounded
  bool greedy = true;                       // kRepeat
  int capture = 0;                          // kGroup: 0 = not capturing, else group number
  AssertKind assertion = AssertKind::kLineStart;
  uint32_t pos = 0;  // byte offset in the pattern, for messages
};

using NodePtr = std::unique_ptr<Node>;

// A parsed pattern: the tree plus its named captures (index i is group i + 1).
struct Regex {
  NodePtr root;
  std::vector<std::string> capture_names;
};

// Number of bytes a node can match at least; used to judge prefilter pieces.
int min_length(const Node &n);

// True when the node can match the empty string.
bool nullable(const Node &n);

}  // namespace faultline::regex
