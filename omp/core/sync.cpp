// sync.cpp: single and copyprivate, sections, the unnamed critical section and the atomic
// lock. Work shares: [P-OMP WS]; cancellation is in cancel.cpp; the entry points are in
// gomp/sync.cpp.

#include "internal.hpp"
#include "lock.hpp"

namespace forkjoin::omp {

// Sections are a dynamic loop over [0, count) with chunk 1; section numbers are 1-based.
void init_sections_ws(team& t, work_share& w, unsigned count) {
  init_loop_ws(t, w, false, true, 0, count, 1, 1, k_sched_dynamic);
}

unsigned sections_next(thread_state& ts) {
  work_share& w = *ts.cur_ws;
  std::uint64_t lo = w.next.fetch_add(1, std::memory_order_relaxed);  // sections are independent: no ordering
  return lo < w.count ? static_cast<unsigned>(lo + 1) : 0;
}

namespace {
// The two process-wide locks: unnamed critical, and the lock behind atomic_start.
std::uint32_t critical_word = 0;
std::uint32_t atomic_word = 0;
}  // namespace

// ---- single ------------------------------------------------------------------------------

// [P-OMP WS S1] a plain single needs no work share: the thread whose CAS moves the team's
// count of singles from its own count to the next runs the block. Relaxed: the block's
// effects reach the others through the barrier that follows it (or the user's, after nowait).
bool single_start(thread_state& ts) noexcept {
  team& t = *ts.cur_team;
  if (t.nthreads == 1) return true;
  long mine = ts.single_index++;
  return t.singles.compare_exchange_strong(mine, mine + 1, std::memory_order_relaxed);
}

void* single_copy_start() {
  thread_state& ts = self();
  if (ws_enter(ts)) {
    ws_publish(ts);
    return nullptr;  // this thread runs the block, then calls single_copy_end
  }
  work_share& w = *ts.cur_ws;
  ts.cur_team->wakeup.wait_until([&] { return w.copy_ready.load(std::memory_order_acquire) != 0; },  // pairs with CP1
                                 [] { return false; });
  void* data = w.copy_data.load(std::memory_order_relaxed);
  ws_leave(ts);
  return data;
}

void single_copy_end(void* data) {
  thread_state& ts = self();
  work_share& w = *ts.cur_ws;
  w.copy_data.store(data, std::memory_order_relaxed);
  w.copy_ready.store(1, std::memory_order_release);  // [P-OMP WS CP1] publishes copy_data and the block's writes
  ts.cur_team->wakeup.notify();
  ws_leave(ts);
}

// ---- sections ----------------------------------------------------------------------------

unsigned sections_start(unsigned count) {
  thread_state& ts = self();
  if (ws_enter(ts)) {
    init_sections_ws(*ts.cur_team, *ts.cur_ws, count);
    ws_publish(ts);
  }
  return sections_next(ts);
}
// reduction(task, ...) ([P-OMP Reduce R5]) and the team-shared buffer ([P-OMP WS W4])
unsigned sections2_start(unsigned count, std::uintptr_t* reductions, void** mem) {
  thread_state& ts = self();
  const bool creator = ws_enter(ts);
  if (creator) init_sections_ws(*ts.cur_team, *ts.cur_ws, count);
  ws_publish_extras(ts, creator, reductions, mem);
  return sections_next(ts);
}

// ---- critical and atomic -----------------------------------------------------------------

void critical_start() noexcept { mutex_lock(&critical_word); }
void critical_end() noexcept { mutex_unlock(&critical_word); }

void atomic_start() noexcept { mutex_lock(&atomic_word); }
void atomic_end() noexcept { mutex_unlock(&atomic_word); }

}  // namespace forkjoin::omp
