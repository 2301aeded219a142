// C API: the pack slot of long-running hosts (hot reload). A get and a set
// only copy a pointer and count a reference, so a spin lock is enough: no
// thread waits for more than a few instructions.
#include <atomic>
#include <new>

#include "api/handles.h"

using namespace faultline;

struct fl_pack_slot {
  Allocator alloc;
  std::atomic_flag busy = ATOMIC_FLAG_INIT;
  const fl_pack *pack = nullptr;

  void lock() {
    while (busy.test_and_set(std::memory_order_acquire)) {
    }
  }
  void unlock() { busy.clear(std::memory_order_release); }
};

extern "C" {

fl_status fl_pack_slot_create(const fl_pack *pack, const fl_allocator *allocator, fl_pack_slot **out) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  if (!pack) return FL_E_INVALID_ARG;
  Allocator alloc = Allocator::from(allocator);
  void *mem = alloc.allocate(sizeof(fl_pack_slot));
  if (!mem) return FL_E_NOMEM;
  fl_pack_slot *slot = new (mem) fl_pack_slot;
  slot->alloc = alloc;
  pack_retain(pack);
  slot->pack = pack;
  *out = slot;
  return FL_OK;
}

fl_pack *fl_pack_slot_get(fl_pack_slot *slot) {
  if (!slot) return nullptr;
  slot->lock();
  const fl_pack *p = slot->pack;
  pack_retain(p);  // under the lock: a set cannot release it first
  slot->unlock();
  return const_cast<fl_pack *>(p);
}

fl_status fl_pack_slot_set(fl_pack_slot *slot, const fl_pack *pack) {
  if (!slot || !pack) return FL_E_INVALID_ARG;
  pack_retain(pack);
  slot->lock();
  const fl_pack *old = slot->pack;
  slot->pack = pack;
  slot->unlock();
  pack_release(old);  // scanners and diagnosers made from it keep it alive
  return FL_OK;
}

void fl_pack_slot_free(fl_pack_slot *slot) {
  if (!slot) return;
  const fl_pack *p = slot->pack;
  Allocator alloc = slot->alloc;
  slot->~fl_pack_slot();
  alloc.release(slot);
  pack_release(p);
}

}  // extern "C"
