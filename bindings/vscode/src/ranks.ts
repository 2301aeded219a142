// Rank lists as people read them: "0-4,6,7". Pure.

/** Sorted ranks as ranges ("0-4,6,7"), plus how many more the report left out. */
export function formatRanks(ranks: readonly number[], moreRanks = 0): string {
  const sorted = [...new Set(ranks)].sort((a, b) => a - b);
  const parts: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    const first = sorted[i] ?? 0;
    const last = sorted[j] ?? 0;
    parts.push(j > i ? `${first}-${last}` : `${first}`);
    i = j + 1;
  }
  let text = parts.join(",");
  if (moreRanks > 0) text += ` and ${moreRanks} more`;
  return text;
}
