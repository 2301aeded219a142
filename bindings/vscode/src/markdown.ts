// The subset of Markdown that `faultline explain --markdown` prints (headings,
// paragraphs, "-" and "1." lists with indented continuation lines, fenced code,
// inline code, **bold**, [title](http...) links) turned into HTML. Every piece
// of text is escaped; nothing in the input can produce a tag of its own. Pure.

import { commandUri, escapeHtml } from "./html";
import { displayText } from "./text";

const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g;

/** One line of text with its inline code, bold and links. */
export function renderInline(text: string): string {
  let html = "";
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    html += escapeHtml(text.slice(last, m.index));
    const [, code, bold, title, url] = m;
    if (code !== undefined) html += `<code>${escapeHtml(code)}</code>`;
    else if (bold !== undefined) html += `<strong>${escapeHtml(bold)}</strong>`;
    else if (title !== undefined && url !== undefined) html += `<a href="${escapeHtml(url)}">${escapeHtml(title)}</a>`;
    last = m.index + m[0].length;
  }
  return html + escapeHtml(text.slice(last));
}

interface ListState {
  tag: "ul" | "ol";
  items: string[];
}

/** The page as HTML; fenced code blocks get a copy link (the webview allows faultline.copyText). */
export function renderMarkdown(markdown: string): string {
  const out: string[] = [];
  let paragraph: string[] = [];
  let list: ListState | null = null;
  let fence: { lines: string[] } | null = null;

  const flushParagraph = (): void => {
    if (paragraph.length > 0) out.push(`<p>${paragraph.map(renderInline).join("<br>")}</p>`);
    paragraph = [];
  };
  const flushList = (): void => {
    if (list) out.push(`<${list.tag}>${list.items.map((i) => `<li>${i}</li>`).join("")}</${list.tag}>`);
    list = null;
  };

  for (const line of markdown.replace(/\r\n/g, "\n").split("\n")) {
    if (fence) {
      if (/^```\s*$/.test(line)) {
        const code = displayText(fence.lines.join("\n"));
        const copy = `<a class="copy" href="${escapeHtml(commandUri("faultline.copyText", [code]))}">copy</a>`;
        out.push(`<div class="command"><pre><code>${escapeHtml(code)}</code></pre><p>${copy}</p></div>`);
        fence = null;
      } else {
        fence.lines.push(line);
      }
      continue;
    }
    const opening = /^```\S*\s*$/.test(line);
    const heading = /^(#{1,4}) +(.*)$/.exec(line);
    const bullet = /^- +(.*)$/.exec(line);
    const numbered = /^\d+\. +(.*)$/.exec(line);
    if (opening) {
      flushParagraph();
      flushList();
      fence = { lines: [] };
    } else if (heading) {
      flushParagraph();
      flushList();
      const level = String(heading[1]?.length ?? 1);
      out.push(`<h${level}>${renderInline(heading[2] ?? "")}</h${level}>`);
    } else if (bullet || numbered) {
      flushParagraph();
      const tag = bullet ? "ul" : "ol";
      const current: ListState = list && list.tag === tag ? list : { tag, items: [] };
      if (current !== list) flushList();
      current.items.push(renderInline((bullet ?? numbered)?.[1] ?? ""));
      list = current;
    } else if (list && /^ {2,}\S/.test(line)) {
      const items = list.items;
      const last = items.length - 1;
      items[last] = `${items[last] ?? ""}<div class="more">${renderInline(line.trim())}</div>`;
    } else if (line.trim() === "") {
      flushParagraph();
      flushList();
    } else {
      flushList();
      paragraph.push(line);
    }
  }
  // A fence left open: its lines are still shown.
  if (fence) out.push(`<pre><code>${escapeHtml(fence.lines.join("\n"))}</code></pre>`);
  flushParagraph();
  flushList();
  return out.join("\n");
}
