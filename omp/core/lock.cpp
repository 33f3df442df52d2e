// lock.cpp: the futex mutex of lock.hpp and the nest locks on it; the omp_*_lock routines are
// api/lock.cpp's. omp_lock_t is the mutex word (4 bytes of libgomp's 4, libomp's 8);
// omp_nest_lock_t holds a pointer to a heap record {mutex word, depth, owner task} (8 bytes
// of libgomp's 16, libomp's 8: one implementation for every ABI, whichever version a program
// binds). Nest locks are owned by the task that set them, as OpenMP specifies. [P-OMP Lock]
#include "lock.hpp"

#include <type_traits>

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
std::atomic_ref<void*> owner_of(nest_lock* l) noexcept { return std::atomic_ref<void*>(l->owner); }
std::atomic_ref<nest_lock*> record_of(nest_slot* s) noexcept { return std::atomic_ref<nest_lock*>(s->record); }
}  // namespace

// [P-OMP Lock L3] a lock used without omp_init_nest_lock (zero-initialised) gets its record on
// first use; racing first users install one with a CAS and the loser frees its own.
nest_lock* nest_record(nest_slot* s) noexcept {
  nest_lock* l = record_of(s).load(std::memory_order_acquire);  // [P-OMP Lock L3] pairs with the install
  if (l != nullptr) return l;
  auto* fresh = new nest_lock{0, 0, nullptr};
  if (record_of(s).compare_exchange_strong(l, fresh, std::memory_order_acq_rel,
                                           std::memory_order_acquire))  // [P-OMP Lock L3] pairs with the loads
    return fresh;
  delete fresh;
  return l;
}
void nest_init(nest_slot* s) noexcept {
  record_of(s).store(new nest_lock{0, 0, nullptr}, std::memory_order_release);  // [P-OMP Lock L3] the install
}
void nest_destroy(nest_slot* s) noexcept {
  delete record_of(s).exchange(nullptr, std::memory_order_acq_rel);  // [P-OMP Lock L3] pairs with the install
}
void nest_set(nest_lock* l, void* me) noexcept {
  // only the owner itself can have stored `me`, so a relaxed read suffices to recognise it
  if (owner_of(l).load(std::memory_order_relaxed) != me) {
    mutex_lock(&l->word);
    owner_of(l).store(me, std::memory_order_relaxed);
  }
  ++l->depth;
}
void nest_unset(nest_lock* l) noexcept {
  if (--l->depth == 0) {
    owner_of(l).store(nullptr, std::memory_order_relaxed);
    mutex_unlock(&l->word);
  }
}
int nest_test(nest_lock* l, void* me) noexcept {
  if (owner_of(l).load(std::memory_order_relaxed) != me) {
    if (!mutex_try_lock(&l->word)) return 0;
    owner_of(l).store(me, std::memory_order_relaxed);
  }
  return ++l->depth;
}
}  // namespace forkjoin::omp
