// Diagnosis through the CLI: faultline's exit status 0 (a failure) and 1 (no
// failure) both come with a JSON report; 2 is an error with a message on
// stderr. Pure Node (no vscode import).

import { diagnoseFilesArgs, diagnoseStdinArgs, explainArgs } from "./cliArgs";
import { RunError, runFaultline, type RunResult } from "./cliRunner";
import { parseReport, type Report } from "./report";
import { displayText, truncate } from "./text";

export interface Faultline {
  executable: string;
  packs: readonly string[];
}

function failureMessage(what: string, result: RunResult): string {
  const status = result.signal ? `killed by ${result.signal}` : `exit status ${String(result.exitCode)}`;
  const detail = displayText(result.stderr.trim());
  return truncate(`faultline ${what} failed (${status})${detail ? `: ${detail}` : ""}`, 2000);
}

function reportOf(result: RunResult): Report {
  if (result.exitCode !== 0 && result.exitCode !== 1) throw new RunError(failureMessage("diagnose", result));
  return parseReport(result.stdout);
}

/** The report of a text (a selection, a terminal's output). */
export async function diagnoseText(fl: Faultline, text: string, signal?: AbortSignal): Promise<Report> {
  const result = await runFaultline(fl.executable, diagnoseStdinArgs(fl.packs), signal ? { stdin: text, signal } : { stdin: text });
  return reportOf(result);
}

/** The report of files read together (the logs of one job). */
export async function diagnoseFiles(fl: Faultline, files: readonly string[], signal?: AbortSignal): Promise<Report> {
  const result = await runFaultline(fl.executable, diagnoseFilesArgs(fl.packs, files), signal ? { signal } : {});
  return reportOf(result);
}

/** An entry's page as Markdown. */
export async function explainEntry(fl: Faultline, entryId: string): Promise<string> {
  const result = await runFaultline(fl.executable, explainArgs(fl.packs, entryId), { maxStdoutBytes: 4 * 1024 * 1024 });
  if (result.exitCode !== 0) throw new RunError(failureMessage("explain", result));
  return result.stdout;
}
