// lock.cpp: the futex mutex of lock.hpp and the omp_*_lock API on it. omp_lock_t is 4 bytes
// (the mutex word); omp_nest_lock_t is 16: {mutex word, depth, owner task}. Nest locks are
// owned by the task that set them, as OpenMP specifies. [P-OMP Lock]
#include "lock.hpp"

#include "api.hpp"
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
void* current_owner() noexcept { return self().cur_task; }
std::atomic_ref<void*> owner_of(nest_lock* l) noexcept { return std::atomic_ref<void*>(l->owner); }
}  // namespace
}  // namespace forkjoin::omp

using namespace forkjoin::omp;

static_assert(sizeof(forkjoin::omp::nest_lock) == 16);

FORKJOIN_OMP_EXPORT void omp_init_lock(std::uint32_t* l) { *l = 0; }
FORKJOIN_OMP_EXPORT void omp_init_lock_with_hint(std::uint32_t* l, int) { *l = 0; }
FORKJOIN_OMP_EXPORT void omp_destroy_lock(std::uint32_t*) {}
FORKJOIN_OMP_EXPORT void omp_set_lock(std::uint32_t* l) { mutex_lock(l); }
FORKJOIN_OMP_EXPORT void omp_unset_lock(std::uint32_t* l) { mutex_unlock(l); }
FORKJOIN_OMP_EXPORT int omp_test_lock(std::uint32_t* l) { return mutex_try_lock(l) ? 1 : 0; }

FORKJOIN_OMP_EXPORT void omp_init_nest_lock(nest_lock* l) {
  l->word = 0;
  l->depth = 0;
  l->owner = nullptr;
}
FORKJOIN_OMP_EXPORT void omp_init_nest_lock_with_hint(nest_lock* l, int) { omp_init_nest_lock(l); }
FORKJOIN_OMP_EXPORT void omp_destroy_nest_lock(nest_lock*) {}
FORKJOIN_OMP_EXPORT void omp_set_nest_lock(nest_lock* l) {
  void* me = current_owner();
  // only the owner itself can have stored `me`, so a relaxed read suffices to recognise it
  if (owner_of(l).load(std::memory_order_relaxed) != me) {
    mutex_lock(&l->word);
    owner_of(l).store(me, std::memory_order_relaxed);
  }
  ++l->depth;
}
FORKJOIN_OMP_EXPORT void omp_unset_nest_lock(nest_lock* l) {
  if (--l->depth == 0) {
    owner_of(l).store(nullptr, std::memory_order_relaxed);
    mutex_unlock(&l->word);
  }
}
FORKJOIN_OMP_EXPORT int omp_test_nest_lock(nest_lock* l) {
  void* me = current_owner();
  if (owner_of(l).load(std::memory_order_relaxed) != me) {
    if (!mutex_try_lock(&l->word)) return 0;
    owner_of(l).store(me, std::memory_order_relaxed);
  }
  return ++l->depth;
}
