// C API: status texts, versions, packs.
#include <cstring>
#include <new>

#include "api/handles.h"
#include "api/options.h"
#include "common/hash.h"
#include "flatbuffers/flatbuffers.h"
#include "report/entry_page.h"

using namespace faultline;

// The default pack, embedded by default_pack.S at build time.
extern "C" const uint8_t fl__default_pack_start[];
extern "C" const uint8_t fl__default_pack_end[];

namespace {

fl_status to_public(Status s) {
  switch (s) {
    case Status::kOk:
      return FL_OK;
    case Status::kInvalidArg:
      return FL_E_INVALID_ARG;
    case Status::kNoMem:
      return FL_E_NOMEM;
    case Status::kIo:
      return FL_E_IO;
    case Status::kNotAPack:
      return FL_E_NOT_A_PACK;
    case Status::kPackVersion:
      return FL_E_PACK_VERSION;
    case Status::kPackCorrupt:
      return FL_E_PACK_CORRUPT;
  }
  return FL_E_INVALID_ARG;
}

void copy_error(const char *text, char *errbuf, size_t size) {
  if (!errbuf || size == 0) return;
  std::strncpy(errbuf, text, size - 1);
  errbuf[size - 1] = '\0';
}

fl_status open_view(const uint8_t *bytes, size_t size, const fl_pack_options *opts, MappedFile map, fl_pack **out, char *errbuf,
                    size_t errbuf_size) {
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  ErrorText err;
  if (!read_options(opts, &o)) {
    unmap_file(&map);
    copy_error("invalid fl_pack_options (struct_size, or a reserved field not zero)", errbuf, errbuf_size);
    return FL_E_INVALID_ARG;
  }
  PackView view;
  Status st = open_pack_view(bytes, size, &view, &err);
  if (st != Status::kOk) {
    unmap_file(&map);
    copy_error(err.text, errbuf, errbuf_size);
    return to_public(st);
  }
  Allocator alloc = Allocator::from(o.allocator);
  void *mem = alloc.allocate(sizeof(fl_pack));
  if (!mem) {
    unmap_file(&map);
    copy_error("out of memory", errbuf, errbuf_size);
    return FL_E_NOMEM;
  }
  fl_pack *p = new (mem) fl_pack;
  p->view = view;
  p->lib.init_single(&p->view);
  p->alloc = alloc;
  p->map = map;
  *out = p;
  copy_error("", errbuf, errbuf_size);
  return FL_OK;
}

const fb::Entry *entry_at(const fl_pack *pack, uint32_t index) {
  if (!pack || index >= pack->lib.entry_count()) return nullptr;
  return pack->lib.entry(index);
}

const char *c_str(const flatbuffers::String *s) { return s ? s->c_str() : ""; }

}  // namespace

namespace faultline {

void pack_retain(const fl_pack *pack) { pack->refs.fetch_add(1, std::memory_order_relaxed); }

void pack_release(const fl_pack *pack) {
  if (!pack || pack->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  auto *p = const_cast<fl_pack *>(pack);  // the last reference: nothing else can see it
  unmap_file(&p->map);
  Allocator alloc = p->alloc;
  p->lib.release(alloc);
  for (uint32_t k = 0; k < p->layer_count; k++) pack_release(p->layers[k]);
  p->~fl_pack();
  alloc.release(p);
}

}  // namespace faultline

extern "C" {

const char *fl_status_str(fl_status status) {
  switch (status) {
    case FL_OK:
      return "ok";
    case FL_E_INVALID_ARG:
      return "invalid argument";
    case FL_E_NOMEM:
      return "out of memory";
    case FL_E_IO:
      return "input/output error";
    case FL_E_NOT_A_PACK:
      return "not a faultline pack";
    case FL_E_PACK_VERSION:
      return "unsupported pack format version";
    case FL_E_PACK_CORRUPT:
      return "pack is corrupt";
    case FL_E_SCANNER_IN_USE:
      return "scanner is already in use";
    case FL_E_STOPPED:
      return "stopped by the callback";
    default:
      return "unknown status";
  }
}

fl_status fl_pack_options_init(fl_pack_options *opts, size_t size) {
  return init_options(opts, size, fl_pack_options FL_PACK_OPTIONS_INIT);
}

fl_status fl_pack_open_memory(const void *bytes, size_t size, const fl_pack_options *opts, fl_pack **out, char *errbuf,
                              size_t errbuf_size) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  if (!bytes) {
    copy_error("pack bytes are NULL", errbuf, errbuf_size);
    return FL_E_INVALID_ARG;
  }
  return open_view(static_cast<const uint8_t *>(bytes), size, opts, MappedFile{}, out, errbuf, errbuf_size);
}

fl_status fl_pack_open_file(const char *path, const fl_pack_options *opts, fl_pack **out, char *errbuf, size_t errbuf_size) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  if (!path) {
    copy_error("path is NULL", errbuf, errbuf_size);
    return FL_E_INVALID_ARG;
  }
  MappedFile map;
  ErrorText err;
  Status st = map_file(path, &map, &err);
  if (st != Status::kOk) {
    copy_error(err.text, errbuf, errbuf_size);
    return to_public(st);
  }
  return open_view(static_cast<const uint8_t *>(map.data), map.size, opts, map, out, errbuf, errbuf_size);
}

fl_status fl_pack_open_default(const fl_pack_options *opts, fl_pack **out, char *errbuf, size_t errbuf_size) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  size_t size = static_cast<size_t>(fl__default_pack_end - fl__default_pack_start);
  return open_view(fl__default_pack_start, size, opts, MappedFile{}, out, errbuf, errbuf_size);
}

void fl_pack_free(fl_pack *pack) { pack_release(pack); }

fl_status fl_pack_info_get(const void *bytes, size_t size, fl_pack_info *info) {
  if (!bytes || !info || info->struct_size < sizeof(fl_pack_info)) return FL_E_INVALID_ARG;
  uint32_t caller_size = info->struct_size;
  std::memset(info, 0, sizeof *info);
  info->struct_size = caller_size;
  PackHeader h;
  ErrorText err;
  Status st = read_header(static_cast<const uint8_t *>(bytes), size, &h, &err);
  if (st != Status::kOk) return to_public(st);
  info->format_major = h.format_major;
  info->format_minor = h.format_minor;
  info->total_bytes = h.total_bytes;
  info->content_hash = h.content_hash;
  info->entry_count = h.entry_count;
  info->pattern_count = h.pattern_count;
  info->dfa_count = h.dfa_count;
  // The blob may be unaligned: verify an aligned copy only if we can afford
  // not to allocate. Without a copy, verify only the hash.
  const uint8_t *content = static_cast<const uint8_t *>(bytes) + h.header_bytes;
  if (xxh64(content, size - h.header_bytes) != h.content_hash) return FL_E_PACK_CORRUPT;
  if (reinterpret_cast<uintptr_t>(bytes) % 8 == 0) {
    PackView view;
    if (open_pack_view(static_cast<const uint8_t *>(bytes), size, &view, &err) != Status::kOk) return FL_E_PACK_CORRUPT;
    info->content_valid = 1;
    std::strncpy(info->pack_version, c_str(view.root->pack_version()), sizeof info->pack_version - 1);
    std::strncpy(info->compiler_version, c_str(view.root->compiler_version()), sizeof info->compiler_version - 1);
  }
  return FL_OK;
}

fl_status fl_pack_stack(const fl_pack *const *packs, size_t count, const fl_pack_options *opts, fl_pack **out, char *errbuf,
                        size_t errbuf_size) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  if (!packs || count == 0 || count > Library::kMaxLayers || !read_options(opts, &o)) {
    copy_error("a stack needs 1 to 16 packs and valid fl_pack_options", errbuf, errbuf_size);
    return FL_E_INVALID_ARG;
  }
  // A stack of stacks is flattened: its layers are packs read in place.
  const PackView *views[Library::kMaxLayers];
  const fl_pack *owners[Library::kMaxLayers];
  uint32_t n = 0;
  for (size_t i = 0; i < count; i++) {
    if (!packs[i]) {
      copy_error("a pack of the stack is NULL", errbuf, errbuf_size);
      return FL_E_INVALID_ARG;
    }
    const uint32_t inner = packs[i]->layer_count ? packs[i]->layer_count : 1;
    if (n + inner > Library::kMaxLayers) {
      copy_error("a stack holds at most 16 packs", errbuf, errbuf_size);
      return FL_E_INVALID_ARG;
    }
    for (uint32_t k = 0; k < inner; k++) {
      owners[n] = packs[i]->layer_count ? packs[i]->layers[k] : packs[i];
      views[n] = &owners[n]->view;
      n++;
    }
  }
  // A site pack stands over the library it names: one of the packs below.
  for (uint32_t k = 0; k < n; k++) {
    const fb::Base *base = views[k]->root->base();
    if (!base) continue;
    bool found = false, unnamed_below = false;
    for (uint32_t j = 0; j < k && !found; j++) {
      const auto *name = views[j]->root->library_name();
      found = name && base->name() && std::strcmp(name->c_str(), base->name()->c_str()) == 0;
      unnamed_below = unnamed_below || !name;
    }
    if (!found) {
      copy_error(unnamed_below ? "a site pack of the stack stands over a library that no pack below it is (packs of format < 1.4 "
                                 "name no library)"
                               : "a site pack of the stack stands over a library that no pack below it is",
                 errbuf, errbuf_size);
      return FL_E_INVALID_ARG;
    }
  }
  Allocator alloc = Allocator::from(o.allocator);
  void *mem = alloc.allocate(sizeof(fl_pack));
  if (!mem) {
    copy_error("out of memory", errbuf, errbuf_size);
    return FL_E_NOMEM;
  }
  fl_pack *p = new (mem) fl_pack;
  p->alloc = alloc;
  ErrorText err;
  const Status st = p->lib.init_stack(views, n, alloc, &err);
  if (st != Status::kOk) {
    p->~fl_pack();
    alloc.release(p);
    copy_error(err.text, errbuf, errbuf_size);
    return to_public(st);
  }
  for (uint32_t k = 0; k < n; k++) {
    pack_retain(owners[k]);
    p->layers[k] = owners[k];
  }
  p->layer_count = n;
  *out = p;
  copy_error("", errbuf, errbuf_size);
  return FL_OK;
}

uint32_t fl_pack_layer_count(const fl_pack *pack) { return pack ? pack->lib.layer_count() : 0; }

const fl_pack *fl_pack_layer(const fl_pack *pack, uint32_t k) {
  if (!pack || k >= pack->lib.layer_count()) return nullptr;
  return pack->layer_count ? pack->layers[k] : pack;
}

const char *fl_pack_library_name(const fl_pack *pack) {
  if (!pack) return "";
  const auto *name = pack->lib.top().root->library_name();
  return name ? name->c_str() : "";
}

uint64_t fl_pack_build_time(const fl_pack *pack) { return pack ? pack->lib.top().root->build_time() : 0; }

uint64_t fl_pack_content_hash(const fl_pack *pack) { return pack ? pack->lib.top().header.content_hash : 0; }

const char *fl_pack_compiler_version(const fl_pack *pack) { return pack ? c_str(pack->lib.top().root->compiler_version()) : ""; }

const char *fl_pack_base_name(const fl_pack *pack) {
  const fb::Base *base = pack ? pack->lib.top().root->base() : nullptr;
  return base ? c_str(base->name()) : "";
}

const char *fl_pack_base_versions(const fl_pack *pack) {
  const fb::Base *base = pack ? pack->lib.top().root->base() : nullptr;
  return base ? c_str(base->versions()) : "";
}

const char *fl_pack_entry_origin(const fl_pack *pack, uint32_t index) {
  if (!entry_at(pack, index)) return nullptr;
  return pack->lib.origin(index);
}

int fl_pack_entry_replaces(const fl_pack *pack, uint32_t index) {
  return entry_at(pack, index) && pack->lib.replaces(index) ? 1 : 0;
}

uint32_t fl_pack_entry_count(const fl_pack *pack) { return pack ? pack->lib.entry_count() : 0; }

const char *fl_pack_entry_id(const fl_pack *pack, uint32_t index) {
  const fb::Entry *e = entry_at(pack, index);
  return e ? c_str(e->id()) : nullptr;
}

const char *fl_pack_entry_title(const fl_pack *pack, uint32_t index) {
  const fb::Entry *e = entry_at(pack, index);
  return e ? c_str(e->title()) : nullptr;
}

const char *fl_pack_entry_type(const fl_pack *pack, uint32_t index) {
  const fb::Entry *e = entry_at(pack, index);
  return e ? c_str(e->type()) : nullptr;
}

const char *fl_pack_entry_category(const fl_pack *pack, uint32_t index) {
  const fb::Entry *e = entry_at(pack, index);
  return e ? c_str(e->category()) : nullptr;
}

uint32_t fl_pack_find_entry(const fl_pack *pack, const char *id) {
  if (!pack || !id) return UINT32_MAX;
  return pack->lib.find(id);
}

size_t fl_pack_entry_page(const fl_pack *pack, uint32_t index, int format, char *buf, size_t size) {
  if (!entry_at(pack, index) || (format != FL_PAGE_TEXT && format != FL_PAGE_MARKDOWN)) return 0;
  Text page(pack->alloc);
  render_entry_page(pack->lib, index, format == FL_PAGE_MARKDOWN, &page);
  if (page.failed()) return 0;
  if (buf && size) {
    size_t n = page.size() < size - 1 ? page.size() : size - 1;
    std::memcpy(buf, page.data(), n);
    buf[n] = '\0';
  }
  return page.size();
}

const char *fl_pack_version(const fl_pack *pack) { return pack ? c_str(pack->lib.top().root->pack_version()) : ""; }

}  // extern "C"
