import * as assert from "node:assert/strict";
import { test } from "node:test";
import { renderEntryHtml } from "../src/entryHtml";
import { renderInline, renderMarkdown } from "../src/markdown";
import { markupProblems } from "./fixtures";

test("the page's structure: headings, lists with continuation lines, code with a copy link", () => {
  const md = [
    "# CUDA out of memory",
    "",
    "`cuda-out-of-memory` · type `cuda_oom`",
    "",
    "## What you see",
    "- `torch.OutOfMemoryError: CUDA out of memory`",
    "  The allocator's own message",
    "- **Bold?** yes",
    "",
    "## Fix",
    "1. Halve the batch",
    "2. Checkpoint activations",
    "```sh",
    "nvidia-smi -i {gpu}",
    "```",
    "See [CUDA semantics](https://pytorch.org/docs/stable/notes/cuda.html).",
  ].join("\n");
  const html = renderMarkdown(md);
  assert.ok(html.includes("<h1>CUDA out of memory</h1>"));
  assert.ok(html.includes("<ul><li><code>torch.OutOfMemoryError: CUDA out of memory</code><div class=\"more\">The allocator&#39;s own message</div></li><li><strong>Bold?</strong> yes</li></ul>"));
  assert.ok(html.includes("<ol><li>Halve the batch</li><li>Checkpoint activations</li></ol>"));
  assert.ok(html.includes("<pre><code>nvidia-smi -i {gpu}</code></pre>"));
  assert.ok(html.includes('<a href="https://pytorch.org/docs/stable/notes/cuda.html">CUDA semantics</a>'));
  assert.ok(html.includes("command:faultline.copyText?" + encodeURIComponent(JSON.stringify(["nvidia-smi -i {gpu}"]))));
});

test("markup in the page is text", () => {
  const md = "# <script>x</script>\n- <img src=x onerror=alert(1)>\n```\n</pre><script>y</script>\n```\n`<b>`";
  const page = renderEntryHtml("x", md, { cspSource: "vscode-resource:", styleUri: "vscode-resource:/report.css" });
  assert.deepEqual(markupProblems(page, "vscode-resource:/report.css"), []);
  assert.ok(page.includes("&lt;/pre&gt;&lt;script&gt;y&lt;/script&gt;"));
});

test("only http(s) links are links", () => {
  assert.equal(renderInline("[x](javascript:alert(1))"), "[x](javascript:alert(1))");
  assert.equal(renderInline('[t](https://a.example/"onmouseover=x)'), '<a href="https://a.example/&quot;onmouseover=x">t</a>');
});
