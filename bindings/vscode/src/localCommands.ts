// Commands the extension runs itself even when the language server offers
// them: `faultline lsp` lists faultline.showEntry in executeCommandProvider,
// and the language client would register it as a VS Code command that asks
// the server, clashing with the extension's own (which shows the page in a
// webview, and also works with no server). Before the client's features see
// the server's capabilities, these commands are taken out of the list.

import type { FeatureState, ServerCapabilities, StaticFeature } from "vscode-languageclient/node";

export class KeepCommandsLocal implements StaticFeature {
  constructor(private readonly commands: readonly string[]) {}

  fillClientCapabilities(): void {
    // Nothing to announce: the server is not told which commands the client keeps.
  }

  /** Runs for every feature before any is initialized, so ExecuteCommandFeature sees the shortened list. */
  preInitialize(capabilities: ServerCapabilities): void {
    const provider = capabilities.executeCommandProvider;
    if (!provider) return;
    const remaining = provider.commands.filter((c) => !this.commands.includes(c));
    if (remaining.length > 0) capabilities.executeCommandProvider = { ...provider, commands: remaining };
    else delete capabilities.executeCommandProvider;
  }

  initialize(): void {
    // Everything happened in preInitialize.
  }

  getState(): FeatureState {
    return { kind: "static" };
  }

  clear(): void {
    // No state.
  }
}
