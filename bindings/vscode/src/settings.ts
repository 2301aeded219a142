// The extension's settings (package.json contributes.configuration).

import * as vscode from "vscode";
import type { Faultline } from "./diagnose";

/** faultline.path and faultline.packs, the executable and the packs every run uses. */
export function readFaultline(): Faultline {
  const config = vscode.workspace.getConfiguration("faultline");
  const executable = config.get<string>("path", "faultline").trim();
  const packs = config.get<unknown>("packs", []);
  return {
    executable: executable === "" ? "faultline" : executable,
    packs: Array.isArray(packs) ? packs.filter((p): p is string => typeof p === "string" && p.trim() !== "") : [],
  };
}

/** Whether a configuration change touches what the language server was started with. */
export function affectsServer(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration("faultline.path") || event.affectsConfiguration("faultline.packs");
}
