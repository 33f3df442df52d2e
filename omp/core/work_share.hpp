// work_share.hpp: a team's work shares ([P-OMP WS]): loops, sections and singles, the
// ordered turn ([P-OMP Ordered]), reduction(task, ...) on worksharing constructs
// ([P-OMP Reduce R5]) and doacross loops ([P-OMP Doacross]).
#pragma once

#include <atomic>
#include <cstdint>

#include <memory>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/chunk_ranges.hpp"
#include "icv.hpp"

namespace forkjoin::omp {

struct thread_state;
struct team;
struct ws_reduction;  // reduction.cpp
struct doacross;      // doacross.cpp

// ---- work shares ([P-OMP WS]) ------------------------------------------------------------

inline constexpr unsigned k_ws_ring = 8;

struct alignas(forkjoin::detail::k_cache_line) work_share {
  std::atomic<long> index{-1};              // which encounter this slot holds, published last
  std::atomic<std::uint32_t> remaining{0};  // team threads that have not ended it
  // loop description, in the iteration space [0, count)
  int kind = k_sched_static;
  bool is_ull = false;
  bool ordered = false;
  bool fetch_add_ok = false;  // next + nthreads * chunk cannot overflow
  bool ranged = false;        // [P-LOOP Steal] dynamic chunks from ranges, one per team thread, not from next
  std::uint64_t count = 0;
  std::uint64_t chunk = 0;
  std::uint64_t multiple = 1;  // guided chunks but the last are multiples of it (KMPC's simd schedules)
  std::uint64_t start = 0;     // as the caller's type, bit-cast to 64 bits
  std::uint64_t end = 0;
  std::uint64_t incr = 0;
  alignas(forkjoin::detail::k_cache_line) std::atomic<std::uint64_t> next{0};
  alignas(forkjoin::detail::k_cache_line) std::atomic<std::uint64_t> ordered_next{0};
  std::atomic<void*> copy_data{nullptr};
  std::atomic<std::uint32_t> copy_ready{0};
  // what some encounters add, set by the creator before W2 ([P-OMP WS W4]); mem and dx are
  // freed by the last of extra_users to leave
  void* mem = nullptr;               // GOMP_loop_start's team-shared buffer (scan, lastprivate(conditional:))
  doacross* dx = nullptr;            // a doacross loop's posted iterations ([P-OMP Doacross])
  ws_reduction* task_red = nullptr;  // reduction(task, ...): the copies ([P-OMP Reduce R5])
  std::atomic<std::uint32_t> extra_users{0};
  // [P-LOOP Steal] the ranges of a ranged loop, one per team thread, set by the creator
  // before W2; kept for the slot's later loops (W1 orders the next creator's writes after
  // every user's last access)
  std::unique_ptr<forkjoin::detail::chunk_range[]> ranges;
};

// ---- work shares (loop.cpp) --------------------------------------------------------------

// Enters the next work share of the team. Returns true to the one thread that must
// initialise it and then call ws_publish.
bool ws_enter(thread_state& ts) noexcept;
void ws_publish(thread_state& ts) noexcept;
void ws_leave(thread_state& ts) noexcept;                      // this thread is done with the current work share
void ws_leave_slot(thread_state& ts, work_share& w) noexcept;  // ... with w, entered earlier
// After ws_enter, the creator having described the work share (and set dx): sets up the
// team-shared buffer of *mem bytes (mem non-null) and the task reductions of `reductions`
// (non-null: a workshare taskgroup starts), publishes the work share if `creator`, then
// stores the buffer in *mem and attaches this thread to the reductions ([P-OMP WS W4]).
void ws_publish_extras(thread_state& ts, bool creator, std::uintptr_t* reductions, void** mem);

// Describes a loop of `count` iterations in w (the creator, before W2): schedule kind and
// chunk as GOMP_loop_*_start take them; the caller maps iteration numbers to its own values.
void init_loop_space(work_share& w, unsigned nthreads, std::uint64_t count, std::uint64_t chunk, int kind,
                     bool ordered) noexcept;
// The creator of a dynamic loop whose chunks may run in any order (nonmonotonic, not
// ordered), after init_loop_space and before ws_publish: its team threads take the chunks
// from per-thread ranges ([P-LOOP Steal]) instead of the shared cursor.
void allow_any_order(work_share& w, unsigned nthreads);
void runtime_schedule(thread_state& ts, int& kind, std::uint64_t& chunk) noexcept;  // run-sched-var
// The calling thread's next chunk [lo, hi) of iteration numbers of its current loop (handing
// on the ordered turn, [P-OMP Ordered]), or false.
bool loop_next(thread_state& ts, std::uint64_t& lo, std::uint64_t& hi) noexcept;
void end_loop(thread_state& ts) noexcept;       // hands on the ordered turn, leaves the work share
void ordered_start(thread_state& ts) noexcept;  // waits for the ordered turn ([P-OMP Ordered] O2)

// ---- loop starts, as the front-ends call them (loop.cpp; long and unsigned long long) -----

// What GOMP_loop_start and the doacross forms add to a loop: task reductions, the
// team-shared buffer, the doacross dimensions (counts[0] is the loop's iteration count).
template <class T>
struct loop_extras {
  std::uintptr_t* reductions = nullptr;
  void** mem = nullptr;
  unsigned ncounts = 0;
  const T* counts = nullptr;
};

// The calling thread's next chunk [*istart, *iend) in the caller's values, or false.
template <class T>
bool loop_next_as(thread_state& ts, T* istart, T* iend);
// Enters the next work share as a loop (the first thread to reach it sets it up; `runtime`:
// the schedule is run-sched-var) and takes the first chunk.
template <class T>
bool loop_start(bool up, T start, T end, T incr, T chunk, int kind, bool ordered, bool runtime, T* istart, T* iend);
// The same with GOMP_loop_start's sched (0 runtime, 1 static, 2 dynamic, 3 guided, 4 runtime
// nonmonotonic, the monotonic bit on top) and extras ([P-OMP Reduce R5], [P-OMP WS W4],
// [P-OMP Doacross]); istart == nullptr sets the work share up without taking a chunk.
template <class T>
bool loop_start_sched(bool up, T start, T end, T incr, long sched, T chunk, T* istart, T* iend, bool ordered,
                      const loop_extras<T>& x);
// A doacross loop over [0, counts[0]) of its first dimension.
template <class T>
bool doacross_loop_start(unsigned ncounts, T* counts, long sched, T chunk, T* istart, T* iend,
                         std::uintptr_t* reductions, void** mem);
// Sets w up as the loop of a combined parallel loop (before the team starts).
void init_loop_ws(team& t, work_share& w, bool is_ull, bool up, std::uint64_t start, std::uint64_t end,
                  std::uint64_t incr, std::uint64_t chunk, int kind);
// [P-OMP WS S1] true for the one thread of the team that runs the next plain single.
bool single_start(thread_state& ts) noexcept;

// ---- reduction(task, ...) on worksharing constructs (reduction.cpp, [P-OMP Reduce R5]) ----

// Starts this thread's workshare taskgroup and registers `data` (the creator: allocates the
// copies and records them in w.task_red, before W2; the others: after W2, views of them).
void ws_reductions_enter(thread_state& ts, work_share& w, std::uintptr_t* data, bool creator);

// ---- doacross loops (doacross.cpp, [P-OMP Doacross]) ------------------------------------

// The creator of a doacross loop's work share: the posted-iteration table for ncounts
// dimensions of counts[d] iterations each, over the loop w describes (schedule, chunk).
doacross* doacross_create(int kind, std::uint64_t chunk, std::uint64_t count, unsigned nthreads, unsigned ncounts,
                          const std::uint64_t* counts);
// A table of one bit per iteration of the whole space, whatever the schedule and however the
// loops are collapsed (the KMPC front-end's doacross loops: [P-OMP Doacross] X4).
doacross* doacross_create_bits(unsigned nthreads, unsigned ncounts, const std::uint64_t* counts);
void doacross_free(doacross* dx) noexcept;
// Post and wait for the iteration vector v (ncounts values, each numbered from 0).
void doacross_post(doacross& dx, const std::uint64_t* v) noexcept;
void doacross_wait(doacross& dx, const std::uint64_t* v) noexcept;
// Iteration vectors have at most this many dimensions (a vector lives on the stack).
inline constexpr unsigned k_doacross_max_dims = 64;
// The doacross table of the calling thread's current loop; null outside a doacross loop and
// in a team of one, which has none (its waits are all for iterations that already ran).
doacross* current_doacross() noexcept;
unsigned doacross_dims(const doacross& dx) noexcept;  // ncounts

// single with copyprivate ([P-OMP WS CP1]) and sections (sync.cpp); sections_next: the next
// section number (1-based), 0 when none is left.
unsigned sections_next(thread_state& ts);
void init_sections_ws(team& t, work_share& w, unsigned count);
void* single_copy_start();
void single_copy_end(void* data);
unsigned sections_start(unsigned count);
unsigned sections2_start(unsigned count, std::uintptr_t* reductions, void** mem);

}  // namespace forkjoin::omp
