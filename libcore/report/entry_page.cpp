#include "report/entry_page.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "report/report.h"

namespace faultline {

namespace {

using Strings = flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>;

const char *s(const flatbuffers::String *x) { return x ? x->c_str() : ""; }

// One line of pack text (ids, titles): a pack is not trusted to hold no
// control bytes, so they become '?' as in every other field of the page.
void add_field(Text *out, const flatbuffers::String *x) { add_safe(out, s(x), x ? x->size() : 0); }

}  // namespace

// Display names of code_examples[].stack (flc's closed list); a pack from
// elsewhere may name another: shown as it is, escaped.
const char *code_stack_name(const char *key) {
  static const char *const names[][2] = {
      {"pytorch", "PyTorch"},
      {"hf-trainer", "Hugging Face Trainer"},
      {"accelerate", "Accelerate"},
      {"deepspeed", "DeepSpeed"},
      {"megatron", "Megatron-LM"},
      {"nemo", "NeMo"},
      {"lightning", "Lightning"},
      {"fsdp", "FSDP"},
      {"vllm", "vLLM"},
      {"sglang", "SGLang"},
      {"jax", "JAX"},
      {"ray", "Ray"},
      {"tensorflow", "TensorFlow"},
  };
  for (const auto &n : names)
    if (!std::strcmp(n[0], key)) return n[1];
  return key;
}

const char *question_text(fb::Question q) {
  switch (q) {
    case fb::Question::HardwareOrSoftware:
      return "Hardware or software?";
    case fb::Question::FixTime:
      return "How long does the fix take?";
    case fb::Question::AffectsInference:
      return "Does it affect inference?";
    case fb::Question::CheapestConfirm:
      return "Cheapest way to confirm:";
  }
  return "Question";
}

namespace {

struct Page {
  Text *out;
  bool md;
  void heading(const char *h) {
    out->add(md ? "\n## " : "\n");
    out->add(h);
    if (!md) {
      out->addc('\n');
      for (size_t i = 0; i < std::strlen(h); i++) out->addc('-');
    }
    out->addc('\n');
  }
  void para(const char *text) {
    // Folded YAML text may end in a newline: print as one paragraph.
    size_t n = std::strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' ')) n--;
    add_safe_text(out, text, n);
    out->addc('\n');
  }
  void bullets(const Strings *v, bool numbered = false) {
    if (!v) return;
    int i = 1;
    for (const auto *x : *v) {
      if (numbered)
        out->addf("%d. ", i++);
      else
        out->add(md ? "- " : "  - ");
      para(x->c_str());
    }
  }
  // A block of code: fenced in Markdown (a fence longer than any backtick
  // run inside), indented in text. The pack is untrusted: control bytes are escaped.
  void code_block(const char *language, const char *code) {
    size_t n = std::strlen(code);
    while (n && (code[n - 1] == '\n' || code[n - 1] == ' ')) n--;
    if (md) {
      size_t run = 0, longest = 0;
      for (size_t i = 0; i < n; i++) longest = std::max(longest, run = code[i] == '`' ? run + 1 : 0);
      const int fence = static_cast<int>(std::max<size_t>(3, longest + 1));
      out->addf("%.*s", fence, "````````````````````````````````");
      for (const char *l = language; *l; l++)
        if (std::isalnum(static_cast<unsigned char>(*l))) out->addc(*l);
      out->addc('\n');
      add_safe_text(out, code, n);
      out->addf("\n%.*s\n", fence, "````````````````````````````````");
      return;
    }
    out->add("      ");
    for (size_t i = 0; i < n; i++) {
      add_safe_text(out, code + i, 1);
      if (code[i] == '\n') out->add("      ");
    }
    out->addc('\n');
  }
  void code(const char *cmd) {
    if (md) {
      out->add("```sh\n");
      show_placeholders(cmd, out);
      out->add("\n```\n");
    } else {
      out->add("    $ ");
      show_placeholders(cmd, out);
      out->addc('\n');
    }
  }
};

}  // namespace

void render_entry_page(const Library &pack, uint32_t index, bool markdown, Text *out) {
  const fb::Entry *e = pack.entry(index);
  const PackView &own = pack.layer(pack.layer_of(index));
  Page p{out, markdown};
  out->add(markdown ? "# " : "");
  add_field(out, e->title());
  out->add(markdown ? "\n\n`" : "\n\n");
  add_field(out, e->id());
  out->add(markdown ? "` · type `" : "  (type ");
  add_field(out, e->type());
  out->add(markdown ? "` · category `" : ", category ");
  add_field(out, e->category());
  out->addf(markdown ? "` · severity %s · role %s · action %s\n" : ", severity %s, role %s, action %s)\n",
            severity_name(e->severity()), role_name(e->role()), action_name(e->action()));
  if (pack.layer_count() > 1) {
    out->add(markdown ? "\nFrom the pack `" : "From the pack ");
    add_safe(out, pack.origin(index), std::strlen(pack.origin(index)));
    out->add(pack.replaces(index) ? (markdown ? "`, in place of the entry of the same id below it.\n"
                                              : ", in place of the entry of the same id below it.\n")
                                  : (markdown ? "`.\n" : ".\n"));
  }
  if (e->deprecated()) out->add("DEPRECATED: kept so the id stays reserved; not reported as a diagnosis.\n");
  p.heading("Summary");
  p.para(s(e->summary()));
  if (e->answers() && e->answers()->size()) {
    p.heading("At a glance");
    for (const auto *a : *e->answers()) {
      out->addf(markdown ? "- **%s** " : "  - %s ", question_text(a->question()));
      p.para(s(a->text()));
    }
  }
  p.heading("Mechanism");
  p.para(s(e->mechanism()));
  if (e->symptoms() && e->symptoms()->size()) {
    p.heading("What you see");
    for (const auto *x : *e->symptoms()) {
      out->add(markdown ? "- `" : "  - ");
      add_field(out, x->observe());
      out->add(markdown ? "`\n  " : "\n    ");
      p.para(s(x->why()));
    }
  }
  p.heading("Confirm");
  p.bullets(e->confirm());
  p.heading("Root cause");
  p.para(s(e->root_cause()));
  p.heading("Fix");
  p.bullets(e->fix_steps(), true);
  if (e->fix_commands())
    for (const auto *c : *e->fix_commands()) {
      p.code(s(c->run()));
      out->add(markdown ? "" : "      ");
      p.para(s(c->explain()));
    }
  if (e->code_examples() && e->code_examples()->size()) {
    p.heading("Fix in code, by stack");
    for (const auto *c : *e->code_examples()) {
      const char *name = code_stack_name(s(c->stack()));
      if (markdown) {
        out->add("\n### ");
        add_safe(out, name, std::strlen(name));
        out->add("\n\n");
      } else {
        out->add("  ");
        add_safe(out, name, std::strlen(name));
        out->add(":\n");
      }
      p.code_block(s(c->language()), s(c->code()));
      out->add(markdown ? "Why: " : "    why: ");
      p.para(s(c->why()));
    }
  }
  if (e->verify() && e->verify()->size()) {
    p.heading("Verify");
    for (const auto *v : *e->verify()) {
      p.code(s(v->run()));
      out->add(markdown ? "Expect: " : "      expect: ");
      p.para(s(v->expect()));
    }
  }
  p.heading("Prevention");
  p.bullets(e->prevention());
  if (e->versions() && e->versions()->size()) {
    p.heading("Versions");
    for (const auto *v : *e->versions()) {
      out->add(markdown ? "- " : "  - ");
      add_field(out, v->component());
      out->addc(' ');
      add_field(out, v->range());
      out->add(": ");
      p.para(s(v->note()));
    }
  }
  p.heading("Alert on");
  p.para(s(e->fingerprint()));
  p.heading("Matched by");
  for (uint32_t i = 0; i < e->pattern_count(); i++) {
    const fb::Pattern *pat = own.pattern(e->first_pattern() + i);
    out->add(markdown ? "- `" : "  - ");
    add_field(out, pat->name());
    out->add(markdown ? "`: `" : ": ");
    add_field(out, pat->regex());
    out->add(markdown ? "`\n  Source: " : "\n    source: ");
    p.para(s(pat->source()));
  }
  bool first = true;
  pack.for_each_related(index, [&](uint32_t r) {
    if (first) p.heading("Related");
    first = false;
    out->add(markdown ? "- `" : "  - ");
    add_field(out, pack.entry(r)->id());
    out->addf(markdown ? "` (%s): " : " (%s): ", severity_name(pack.entry(r)->severity()));
    add_field(out, pack.entry(r)->title());
    out->addc('\n');
  });
  first = true;
  pack.for_each_cause(index, [&](uint32_t r) {
    if (first) p.heading("Often followed by");
    first = false;
    out->add(markdown ? "- `" : "  - ");
    add_field(out, pack.entry(r)->id());
    out->add(markdown ? "`\n" : "\n");
  });
  p.heading("References");
  if (e->references())
    for (const auto *r : *e->references()) {
      out->add(markdown ? "- [" : "  - ");
      add_field(out, r->title());
      out->add(markdown ? "](" : "\n    ");
      add_field(out, r->url());
      out->add(markdown ? ")\n" : "\n");
    }
  if (e->source_path()) {
    out->add(markdown ? "\n_Source: `signatures/" : "\n(signatures/");
    add_field(out, e->source_path());
    out->add(markdown ? "`_\n" : ")\n");
  }
}

}  // namespace faultline
