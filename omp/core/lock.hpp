// lock.hpp: a three-state futex mutex (0 free, 1 locked, 2 locked with waiters) on a 32-bit
// word that lives in user memory: omp_lock_t, the first word of a nest lock's record, and the
// slots of named critical sections. [P-OMP Lock]
#pragma once

#include <atomic>
#include <cstdint>

namespace forkjoin::omp {

// A nest lock's record: the mutex word, the depth, and the owner (a task, or for the OpenMP
// 2.5 forms a thread).
struct nest_lock {
  std::uint32_t word;
  int depth;
  void* owner;
};

// The user's omp_nest_lock_t (its first 8 bytes: libgomp's is 16, libomp's and gfortran's
// omp_nest_lock_kind 8): the record's address, or null before the first use. [P-OMP Lock L3]
struct nest_slot {
  nest_lock* record;
};

// [P-OMP Lock L3] the slot's record, made on first use when the slot is null; init stores a
// fresh one, destroy takes it back and frees it.
nest_lock* nest_record(nest_slot* s) noexcept;
void nest_init(nest_slot* s) noexcept;
void nest_destroy(nest_slot* s) noexcept;

// The nest lock protocol on top of the mutex, for an owner that the caller names: the current
// task (omp_*_nest_lock) or the calling thread (the OpenMP 2.5 forms, lock_compat.cpp).
void nest_set(nest_lock* l, void* owner) noexcept;
void nest_unset(nest_lock* l) noexcept;
int nest_test(nest_lock* l, void* owner) noexcept;  // the new depth, 0 when another owner holds it

inline bool mutex_try_lock(std::uint32_t* word) noexcept {
  std::uint32_t expected = 0;
  return std::atomic_ref<std::uint32_t>(*word).compare_exchange_strong(
      expected, 1, std::memory_order_acquire, std::memory_order_relaxed);  // [P-OMP Lock L1] pairs with L2
}
void mutex_lock_slow(std::uint32_t* word) noexcept;
inline void mutex_lock(std::uint32_t* word) noexcept {
  if (!mutex_try_lock(word)) mutex_lock_slow(word);
}
void mutex_unlock_slow(std::uint32_t* word) noexcept;
inline void mutex_unlock(std::uint32_t* word) noexcept {
  if (std::atomic_ref<std::uint32_t>(*word).fetch_sub(1, std::memory_order_release) != 1)  // [P-OMP Lock L2]
    mutex_unlock_slow(word);
}

// The two process-wide locks (sync.cpp): the unnamed critical section, and the lock of
// atomic updates the compiler cannot make lock-free (gcc's and clang's alike).
void critical_start() noexcept;
void critical_end() noexcept;
void atomic_start() noexcept;
void atomic_end() noexcept;

}  // namespace forkjoin::omp
