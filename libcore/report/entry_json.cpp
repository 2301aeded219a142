#include "report/entry_json.h"

#include <cstring>

#include "report/entry_page.h"
#include "report/json_writer.h"
#include "report/report.h"

namespace faultline {

namespace {

using Strings = flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>;

// Pack text as a JSON string, absent fields as "".
void text(JsonWriter &w, const char *key, const flatbuffers::String *x) { w.kv(key, x ? x->c_str() : "", x ? x->size() : 0); }

// Prose and code: trailing newlines and spaces (folded YAML) are dropped, as
// the text and Markdown pages drop them. Names and regexes stay exact.
void prose(JsonWriter &w, const char *key, const flatbuffers::String *x) {
  const char *p = x ? x->c_str() : "";
  size_t n = x ? x->size() : 0;
  while (n && (p[n - 1] == '\n' || p[n - 1] == ' ')) n--;
  w.kv(key, p, n);
}

void strings(JsonWriter &w, const char *key, const Strings *v) {
  w.key(key);
  w.begin_array();
  if (v)
    for (const auto *x : *v) {
      size_t n = x->size();
      while (n && (x->c_str()[n - 1] == '\n' || x->c_str()[n - 1] == ' ')) n--;
      w.string(x->c_str(), n);
    }
  w.end_array();
}

// A command template with its placeholders shown as "{name}", as on the
// pages (the type suffix of "{bytes:size}" is the runtime's business).
bool command(JsonWriter &w, const char *key, const flatbuffers::String *run, Text *scratch) {
  scratch->clear();
  show_placeholders(run ? run->c_str() : "", scratch);
  if (scratch->failed()) return false;
  w.kv(key, scratch->data() ? scratch->data() : "", scratch->size());
  return true;
}

// Related and caused entries: id, title and severity, so a page can link
// them and show how bad each is without looking them up.
// `key`: an array of one object per item of a pack vector (absent = empty),
// each written by `write(item)`.
template <class Items, class Write>
void objects(JsonWriter &w, const char *key, const Items *items, Write write) {
  w.key(key);
  w.begin_array();
  if (items)
    for (const auto *x : *items) {
      w.begin_object();
      write(x);
      w.end_object();
    }
  w.end_array();
}

template <class ForEach>
void links(JsonWriter &w, const char *key, const Library &pack, ForEach for_each) {
  w.key(key);
  w.begin_array();
  for_each([&](uint32_t r) {
    const fb::Entry *e = pack.entry(r);
    w.begin_object();
    text(w, "id", e->id());
    text(w, "title", e->title());
    w.kv("severity", severity_name(e->severity()));
    w.end_object();
  });
  w.end_array();
}

}  // namespace

bool render_entry_json(const Library &pack, uint32_t index, const Allocator &alloc, Text *out) {
  const fb::Entry *e = pack.entry(index);
  const PackView &own = pack.layer(pack.layer_of(index));
  Text scratch(alloc);
  bool ok = true;
  JsonWriter w(out);
  w.begin_object();
  text(w, "id", e->id());
  text(w, "title", e->title());
  text(w, "type", e->type());
  text(w, "category", e->category());
  w.kv("severity", severity_name(e->severity()));
  w.kv("role", role_name(e->role()));
  w.kv("action", action_name(e->action()));
  w.kv_bool("deprecated", e->deprecated());
  strings(w, "tags", e->tags());
  strings(w, "affects", e->affects());

  w.key("pack");  // provenance: which pack of a stack the entry comes from
  w.begin_object();
  w.kv("library", pack.origin(index));
  text(w, "version", own.root->pack_version());
  w.kv_bool("replaces", pack.replaces(index));
  text(w, "source_path", e->source_path());
  w.end_object();

  prose(w, "summary", e->summary());
  objects(w, "answers", e->answers(), [&](const auto *a) {
    w.kv("question", question_text(a->question()));
    prose(w, "text", a->text());
  });
  prose(w, "mechanism", e->mechanism());
  objects(w, "symptoms", e->symptoms(), [&](const auto *x) {
    text(w, "observe", x->observe());
    prose(w, "why", x->why());
  });
  strings(w, "confirm", e->confirm());
  prose(w, "root_cause", e->root_cause());
  strings(w, "fix_steps", e->fix_steps());
  objects(w, "fix_commands", e->fix_commands(), [&](const auto *c) {
    ok = command(w, "run", c->run(), &scratch) && ok;
    prose(w, "explain", c->explain());
  });
  objects(w, "code_examples", e->code_examples(), [&](const auto *c) {
    text(w, "stack", c->stack());
    w.kv("stack_name", code_stack_name(c->stack() ? c->stack()->c_str() : ""));
    text(w, "language", c->language());
    prose(w, "code", c->code());
    prose(w, "why", c->why());
  });
  objects(w, "verify", e->verify(), [&](const auto *v) {
    ok = command(w, "run", v->run(), &scratch) && ok;
    prose(w, "expect", v->expect());
  });
  strings(w, "prevention", e->prevention());
  objects(w, "versions", e->versions(), [&](const auto *v) {
    text(w, "component", v->component());
    text(w, "range", v->range());
    prose(w, "note", v->note());
  });
  prose(w, "fingerprint", e->fingerprint());
  w.key("patterns");  // the searchable error signature: what the log says
  w.begin_array();
  for (uint32_t i = 0; i < e->pattern_count(); i++) {
    const fb::Pattern *p = own.pattern(e->first_pattern() + i);
    w.begin_object();
    text(w, "name", p->name());
    text(w, "regex", p->regex());
    prose(w, "source", p->source());
    w.end_object();
  }
  w.end_array();
  links(w, "related", pack, [&](auto f) { pack.for_each_related(index, f); });
  links(w, "causes", pack, [&](auto f) { pack.for_each_cause(index, f); });
  objects(w, "references", e->references(), [&](const auto *r) {
    text(w, "title", r->title());
    text(w, "url", r->url());
  });
  w.end_object();
  return ok;
}

}  // namespace faultline
