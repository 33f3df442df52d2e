// lock.cpp: the futex mutex of lock.hpp and the omp_*_lock API on it. omp_lock_t is the mutex
// word (4 bytes of libgomp's 4, libomp's 8); omp_nest_lock_t holds a pointer to a heap record
// {mutex word, depth, owner task} (8 bytes of libgomp's 16, libomp's 8: one implementation
// for every ABI, whichever version a program binds). Nest locks are owned by the task that
// set them, as OpenMP specifies. [P-OMP Lock]
#include "lock.hpp"

#include "internal.hpp"

namespace forkjoin::omp {

void mutex_lock_slow(std::uint32_t* word) noexcept {
  std::atomic_ref<std::uint32_t> w(*word);
  // [P-OMP Wait W0] spin, re-checking after every PAUSE (the holder's critical sections are
  // usually shorter than a burst), then yield: a waiter that parks makes every unlock a
  // system call
  wait_ladder ladder;
  while (ladder.climb()) {
    if (w.load(std::memory_order_relaxed) == 0 && mutex_try_lock(word)) return;
  }
  // mark contended; whoever unlocks from 2 wakes one waiter
  while (w.exchange(2, std::memory_order_acquire) != 0)  // [P-OMP Lock L1] pairs with L2
    futex_wait_u32(word, 2);
}

void mutex_unlock_slow(std::uint32_t* word) noexcept {
  std::atomic_ref<std::uint32_t>(*word).store(0, std::memory_order_release);  // [P-OMP Lock L2]
  futex_wake_u32(word, 1);
}

namespace {
struct nest_lock {
  std::uint32_t word;
  int depth;
  void* owner;
};

void* current_owner() noexcept { return self().cur_task; }
std::atomic_ref<void*> owner_of(nest_lock* l) noexcept { return std::atomic_ref<void*>(l->owner); }

// [P-OMP Lock L3] the user's omp_nest_lock_t holds the record's address. A lock used without
// omp_init_nest_lock (zero-initialised) gets one on first use; racing first users install one
// with a CAS and the loser frees its own.
std::atomic_ref<nest_lock*> slot_of(nest_lock* user) noexcept {
  return std::atomic_ref<nest_lock*>(*reinterpret_cast<nest_lock**>(user));
}
nest_lock* record_of(nest_lock* user) noexcept {
  nest_lock* l = slot_of(user).load(std::memory_order_acquire);  // [P-OMP Lock L3] pairs with the install
  if (l != nullptr) return l;
  auto* fresh = new nest_lock{0, 0, nullptr};
  if (slot_of(user).compare_exchange_strong(l, fresh, std::memory_order_acq_rel,
                                            std::memory_order_acquire))  // [P-OMP Lock L3] pairs with the loads
    return fresh;
  delete fresh;
  return l;
}
}  // namespace
}  // namespace forkjoin::omp

using namespace forkjoin::omp;

static_assert(sizeof(forkjoin::omp::nest_lock*) <= 8, "omp_nest_lock_t is 8 bytes in libomp's omp.h");

FORKJOIN_OMP_EXPORT void omp_init_lock(std::uint32_t* l) { *l = 0; }
FORKJOIN_OMP_EXPORT void omp_init_lock_with_hint(std::uint32_t* l, int) { *l = 0; }
FORKJOIN_OMP_EXPORT void omp_destroy_lock(std::uint32_t*) {}
FORKJOIN_OMP_EXPORT void omp_set_lock(std::uint32_t* l) { mutex_lock(l); }
FORKJOIN_OMP_EXPORT void omp_unset_lock(std::uint32_t* l) { mutex_unlock(l); }
FORKJOIN_OMP_EXPORT int omp_test_lock(std::uint32_t* l) { return mutex_try_lock(l) ? 1 : 0; }

FORKJOIN_OMP_EXPORT void omp_init_nest_lock(nest_lock* user) {
  slot_of(user).store(new nest_lock{0, 0, nullptr}, std::memory_order_release);  // [P-OMP Lock L3]
}
FORKJOIN_OMP_EXPORT void omp_init_nest_lock_with_hint(nest_lock* l, int) { omp_init_nest_lock(l); }
FORKJOIN_OMP_EXPORT void omp_destroy_nest_lock(nest_lock* user) {
  delete slot_of(user).exchange(nullptr, std::memory_order_acq_rel);  // [P-OMP Lock L3] pairs with the install
}
FORKJOIN_OMP_EXPORT void omp_set_nest_lock(nest_lock* user) {
  nest_lock* l = record_of(user);
  void* me = current_owner();
  // only the owner itself can have stored `me`, so a relaxed read suffices to recognise it
  if (owner_of(l).load(std::memory_order_relaxed) != me) {
    mutex_lock(&l->word);
    owner_of(l).store(me, std::memory_order_relaxed);
  }
  ++l->depth;
}
FORKJOIN_OMP_EXPORT void omp_unset_nest_lock(nest_lock* user) {
  nest_lock* l = record_of(user);
  if (--l->depth == 0) {
    owner_of(l).store(nullptr, std::memory_order_relaxed);
    mutex_unlock(&l->word);
  }
}
FORKJOIN_OMP_EXPORT int omp_test_nest_lock(nest_lock* user) {
  nest_lock* l = record_of(user);
  void* me = current_owner();
  if (owner_of(l).load(std::memory_order_relaxed) != me) {
    if (!mutex_try_lock(&l->word)) return 0;
    owner_of(l).store(me, std::memory_order_relaxed);
  }
  return ++l->depth;
}
