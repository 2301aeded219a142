// Argument lists for the faultline CLI. They are always arrays handed to
// spawn() without a shell, so no argument is ever parsed by one. Each pack is
// "--pack" followed by its path (faultline takes the next argument as the
// value, whatever it starts with) and files come after "--", so a name that
// starts with "-" stays a name. Pure.

import { ENTRY_ID } from "./report";

function packArgs(packs: readonly string[]): string[] {
  return packs.filter((p) => p !== "").flatMap((p) => ["--pack", p]);
}

/** `faultline lsp`, the language server on stdio. */
export function lspArgs(packs: readonly string[]): string[] {
  return ["lsp", ...packArgs(packs)];
}

/** Diagnose text written to faultline's standard input. */
export function diagnoseStdinArgs(packs: readonly string[]): string[] {
  return ["diagnose", "--json", ...packArgs(packs), "-"];
}

/** Diagnose files (several: the logs of one job, e.g. one per node or rank). */
export function diagnoseFilesArgs(packs: readonly string[], files: readonly string[]): string[] {
  if (files.length === 0) throw new Error("no file to diagnose");
  return ["diagnose", "--json", ...packArgs(packs), "--", ...files];
}

/** An entry's encyclopedia page as Markdown. The id must be an entry id, so it can never be an option. */
export function explainArgs(packs: readonly string[], entryId: string): string[] {
  if (!ENTRY_ID.test(entryId) || entryId === "unknown") throw new Error(`not an entry id: ${JSON.stringify(entryId)}`);
  return ["explain", "--markdown", ...packArgs(packs), entryId];
}
