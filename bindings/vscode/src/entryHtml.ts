// An entry's encyclopedia page (faultline explain --markdown) as a webview page. Pure.

import { page } from "./html";
import { renderMarkdown } from "./markdown";

export function renderEntryHtml(entryId: string, markdown: string, opts: { cspSource: string; styleUri: string }): string {
  const heading = /^# +(.*)$/m.exec(markdown);
  return page(heading?.[1] ?? entryId, renderMarkdown(markdown), opts);
}
