// A table-driven DFA as stored in a pack: byte -> equivalence class, then
// (state, class) -> state. States at or above accept_base carry a list of the
// pieces they accept. Lines are run from the start state and end with a '\n'
// byte, which marks the end of the line for patterns anchored with '$'.
#pragma once

#include <cstddef>
#include <cstdint>

namespace faultline {

struct DfaView {
  uint32_t state_count = 0;
  uint32_t class_count = 0;
  uint32_t start = 0;
  uint32_t accept_base = 0;
  const uint8_t *class_map = nullptr;  // 256 entries
  uint8_t width = 0;                   // bytes per transition: 1, 2 or 4
  const void *trans = nullptr;         // state_count * class_count entries
  const uint32_t *accept_offsets = nullptr;
  const uint32_t *accepts = nullptr;

  // Pieces accepted on entering `state` (which must be >= accept_base).
  const uint32_t *accepts_begin(uint32_t state) const { return accepts + accept_offsets[state - accept_base]; }
  const uint32_t *accepts_end(uint32_t state) const { return accepts + accept_offsets[state - accept_base + 1]; }
};

// Runs `dfa` over line + '\n' and calls on_accept(state) for every accepting
// state entered. The template keeps the per-byte loop free of indirection.
template <typename T, typename F>
inline void dfa_run_typed(const DfaView &dfa, const uint8_t *line, size_t len, F &&on_accept) {
  const T *trans = static_cast<const T *>(dfa.trans);
  const uint8_t *cmap = dfa.class_map;
  const uint32_t classes = dfa.class_count, accept_base = dfa.accept_base;
  uint32_t s = dfa.start;
  for (size_t i = 0; i < len; i++) {
    s = trans[static_cast<size_t>(s) * classes + cmap[line[i]]];
    if (s >= accept_base) on_accept(s);
  }
  s = trans[static_cast<size_t>(s) * classes + cmap[static_cast<uint8_t>('\n')]];
  if (s >= accept_base) on_accept(s);
}

template <typename F>
inline void dfa_run(const DfaView &dfa, const uint8_t *line, size_t len, F &&on_accept) {
  switch (dfa.width) {
    case 1:
      dfa_run_typed<uint8_t>(dfa, line, len, on_accept);
      break;
    case 2:
      dfa_run_typed<uint16_t>(dfa, line, len, on_accept);
      break;
    default:
      dfa_run_typed<uint32_t>(dfa, line, len, on_accept);
      break;
  }
}

// A confirmation DFA (a pattern's whole-pattern DFA): its states at or
// above accept_base are final, so the run stops at the first one; the line
// matches when that state accepts something. Runs over line + '\n'.
template <typename T>
inline bool dfa_decides_typed(const DfaView &dfa, const uint8_t *line, size_t len) {
  const T *trans = static_cast<const T *>(dfa.trans);
  const uint8_t *cmap = dfa.class_map;
  const uint32_t classes = dfa.class_count, final_base = dfa.accept_base;
  uint32_t s = dfa.start;
  for (size_t i = 0; i < len && s < final_base; i++) s = trans[static_cast<size_t>(s) * classes + cmap[line[i]]];
  if (s < final_base) s = trans[static_cast<size_t>(s) * classes + cmap[static_cast<uint8_t>('\n')]];
  return s >= final_base && dfa.accepts_begin(s) != dfa.accepts_end(s);
}

inline bool dfa_decides(const DfaView &dfa, const uint8_t *line, size_t len) {
  switch (dfa.width) {
    case 1:
      return dfa_decides_typed<uint8_t>(dfa, line, len);
    case 2:
      return dfa_decides_typed<uint16_t>(dfa, line, len);
    default:
      return dfa_decides_typed<uint32_t>(dfa, line, len);
  }
}

}  // namespace faultline
