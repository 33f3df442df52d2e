// loop.cpp: work shares ([P-OMP WS]), loops on them (every schedule, ordered) and the
// loop starts the front-ends call (work_share.hpp).
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

#include "internal.hpp"

namespace forkjoin::omp {

// ---- work-share slots ([P-OMP WS]) -------------------------------------------------------

bool ws_enter(thread_state& ts) noexcept {
  team& t = *ts.cur_team;
  const long i = ts.ws_index++;
  work_share& w = t.ws[static_cast<unsigned long>(i) % k_ws_ring];
  ts.cur_ws = &w;
  ts.static_trip = 0;
  ts.have_chunk = false;
  long expected = i;
  if (t.ws_started.compare_exchange_strong(expected, i + 1, std::memory_order_relaxed)) {
    // [P-OMP WS W1] the creator reuses the slot once every thread has left its previous
    // occupant (encounter i - k_ws_ring)
    t.wakeup.wait_until([&] { return w.remaining.load(std::memory_order_acquire) == 0; },  // pairs with W3
                        [] { return false; });
    w.task_red = nullptr;  // mem and dx are null again since the last user of the previous occupant left (W4)
    return true;
  }
  t.wakeup.wait_until([&] { return w.index.load(std::memory_order_acquire) == i; },  // [P-OMP WS W2] pairs with W2
                      [] { return false; });
  return false;
}

void ws_publish(thread_state& ts) noexcept {
  team& t = *ts.cur_team;
  work_share& w = *ts.cur_ws;
  w.copy_data.store(nullptr, std::memory_order_relaxed);
  w.copy_ready.store(0, std::memory_order_relaxed);
  w.remaining.store(t.nthreads, std::memory_order_relaxed);
  w.index.store(ts.ws_index - 1, std::memory_order_release);  // [P-OMP WS W2] publishes the description
  t.wakeup.notify();
}

void ws_leave(thread_state& ts) noexcept {
  work_share* w = ts.cur_ws;
  ts.cur_ws = nullptr;
  ws_leave_slot(ts, *w);
}

void ws_leave_slot(thread_state& ts, work_share& slot) noexcept {
  team& t = *ts.cur_team;
  work_share* w = &slot;
  // [P-OMP WS W4] the last user frees the buffer and the doacross table; every other user's
  // last access to them happened before its decrement, and the slot's next creator (W1)
  // comes after the W3 decrement that follows
  if (w->mem != nullptr || w->dx != nullptr) {
    if (w->extra_users.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // [P-OMP WS W4] pairs with the others' W4
      std::free(w->mem);
      doacross_free(w->dx);
      w->mem = nullptr;
      w->dx = nullptr;
    }
  }
  if (w->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1)  // [P-OMP WS W3] pairs with W1
    t.wakeup.notify();
}

void ws_publish_extras(thread_state& ts, bool creator, std::uintptr_t* reductions, void** mem) {
  work_share& w = *ts.cur_ws;
  if (creator) {
    if (mem != nullptr) {  // zeroed, aligned for any type gcc keeps there
      const std::size_t line = forkjoin::detail::k_cache_line;
      const std::size_t size = reinterpret_cast<std::uintptr_t>(*mem);
      const std::size_t rounded = size == 0 ? line : (size + line - 1) / line * line;
      if (rounded < size) fatal("out of memory allocating a work share's buffer");
      w.mem = std::aligned_alloc(line, rounded);
      if (w.mem == nullptr) fatal("out of memory allocating a work share's buffer");
      std::memset(w.mem, 0, rounded);
    }
    if (w.mem != nullptr || w.dx != nullptr)
      w.extra_users.store(ts.cur_team->nthreads, std::memory_order_relaxed);  // published by W2
    if (reductions != nullptr) ws_reductions_enter(ts, w, reductions, true);
    ws_publish(ts);
  } else if (reductions != nullptr) {
    ws_reductions_enter(ts, w, reductions, false);
  }
  if (mem != nullptr) *mem = w.mem;
}

// ---- the iteration space -----------------------------------------------------------------

void init_loop_space(work_share& w, unsigned nthreads, std::uint64_t count, std::uint64_t chunk, int kind,
                     bool ordered) noexcept {
  w.ordered = ordered;
  w.count = count;
  if (kind == k_sched_auto) kind = k_sched_static;
  if (kind != k_sched_static && chunk == 0) chunk = 1;
  if (count != 0 && chunk > count) chunk = count;
  w.kind = kind;
  w.chunk = chunk;
  w.multiple = 1;
  w.fetch_add_ok = chunk <= (std::numeric_limits<std::uint64_t>::max() - count) / (std::uint64_t{nthreads} + 1);
  w.ranged = false;
  w.next.store(0, std::memory_order_relaxed);
  w.ordered_next.store(0, std::memory_order_relaxed);
}

void allow_any_order(work_share& w, unsigned nthreads) {
  if (w.kind != k_sched_dynamic || w.ordered || nthreads < 2 || w.count == 0) return;
  const std::uint64_t chunks = w.count / w.chunk + (w.count % w.chunk != 0 ? 1 : 0);
  if (chunks < 2 || chunks > forkjoin::detail::k_max_ranged_chunks) return;  // the shared cursor
  if (w.ranges == nullptr) {  // a team's size is fixed (team::nthreads): one array per slot serves every loop
    w.ranges.reset(new (std::nothrow) forkjoin::detail::chunk_range[nthreads]);
    if (w.ranges == nullptr) fatal("out of memory allocating a loop's chunk ranges");
  }
  // [P-OMP WS LP2] every chunk but the last, which w.next (0: not taken) hands out
  forkjoin::detail::init_chunk_ranges(w.ranges.get(), nthreads, chunks - 1);  // published by W2
  w.ranged = true;
}

namespace {

// Sets up w for the loop `for (v = start; v < end (up) or v > end; v += incr)`, in the
// space of iteration numbers [0, count). incr is the caller's increment bit-cast to 64 bits
// (a two's-complement negative for down loops, also in the ull API).
void init_loop(work_share& w, unsigned nthreads, bool is_ull, bool up, std::uint64_t start, std::uint64_t end,
               std::uint64_t incr, std::uint64_t chunk, int kind, bool ordered) {
  w.is_ull = is_ull;
  w.start = start;
  w.end = end;
  w.incr = incr;
  bool empty;
  if (is_ull) {
    empty = up ? start >= end : start <= end;
  } else {
    auto s = static_cast<long>(start), e = static_cast<long>(end);
    up = static_cast<long>(incr) > 0;
    empty = up ? s >= e : s <= e;
  }
  std::uint64_t count = 0;
  if (!empty) {
    std::uint64_t diff = up ? end - start : start - end;
    std::uint64_t step = up ? incr : std::uint64_t{0} - incr;
    count = diff / step + (diff % step != 0 ? 1 : 0);
  }
  init_loop_space(w, nthreads, count, chunk, kind, ordered);
}

// The next chunk [lo, hi) of iteration numbers for this thread, or false.
bool next_chunk(thread_state& ts, work_share& w, std::uint64_t& lo, std::uint64_t& hi) {
  const std::uint64_t count = w.count;
  const std::uint64_t n = ts.cur_team->nthreads;
  switch (w.kind) {
    case k_sched_static: {
      if (w.chunk == 0) {  // one block per thread: q or q + 1 iterations
        if (ts.static_trip++ != 0) return false;
        std::uint64_t q = count / n, r = count % n, id = ts.id;
        lo = id * q + (id < r ? id : r);
        hi = lo + q + (id < r ? 1 : 0);
        return lo < hi;
      }
      std::uint64_t chunks = count / w.chunk + (count % w.chunk != 0 ? 1 : 0);
      std::uint64_t c = ts.static_trip * n + ts.id;  // round robin: chunk c goes to thread c % n
      if (ts.static_trip >= chunks || c >= chunks) return false;
      ++ts.static_trip;
      lo = c * w.chunk;
      hi = count - lo < w.chunk ? count : lo + w.chunk;
      return true;
    }
    case k_sched_dynamic: {
      if (w.ranged) {  // [P-LOOP Steal] this thread's range first, then half of the fullest
        // [P-OMP WS LP1] gcc and clang copy lastprivate variables out of the thread whose
        // final chunk was the loop's last: the thread that takes the last chunk takes
        // nothing after it
        if (ts.static_trip != 0) return false;
        std::uint64_t k = 0;
        if (!forkjoin::detail::take_own_chunk(w.ranges[ts.id], k) &&
            !forkjoin::detail::steal_chunks(w.ranges.get(), n, ts.id, k)) {
          // [P-OMP WS LP2] no range holds the last chunk: the first thread to find every range
          // empty takes it (every chunk left is then a thief's between S2 and S3, which that
          // thief runs, so stopping here strands nothing)
          if (w.next.exchange(1, std::memory_order_relaxed) != 0) return false;  // a flag: no data
          k = (count - 1) / w.chunk;
          ts.static_trip = 1;
        }
        lo = k * w.chunk;
        hi = count - lo < w.chunk ? count : lo + w.chunk;
        return true;
      }
      if (w.fetch_add_ok) {
        lo = w.next.fetch_add(w.chunk, std::memory_order_relaxed);  // iterations are independent: no ordering
        if (lo >= count) return false;
      } else {
        lo = w.next.load(std::memory_order_relaxed);
        do {
          if (lo >= count) return false;
        } while (
            !w.next.compare_exchange_weak(lo, count - lo < w.chunk ? count : lo + w.chunk, std::memory_order_relaxed));
      }
      hi = count - lo < w.chunk ? count : lo + w.chunk;
      return true;
    }
    default: {  // guided: ceil(remaining / n), at least chunk
      lo = w.next.load(std::memory_order_relaxed);
      std::uint64_t q;
      do {
        if (lo >= count) return false;
        std::uint64_t rem = count - lo;
        q = rem / n + (rem % n != 0 ? 1 : 0);
        if (q < w.chunk) q = w.chunk;
        if (w.multiple > 1) [[unlikely]]
          q = (q + w.multiple - 1) / w.multiple * w.multiple;
        if (q > rem) q = rem;
      } while (!w.next.compare_exchange_weak(lo, lo + q, std::memory_order_relaxed));
      hi = lo + q;
      return true;
    }
  }
}

// [P-OMP Ordered] the turn to run ordered regions belongs to the chunk whose first
// iteration equals ordered_next; a thread hands it on when it finishes its chunk.
void wait_ordered_turn(thread_state& ts, work_share& w) {
  ts.cur_team->wakeup.wait_until(
      [&] {
        return w.ordered_next.load(std::memory_order_acquire) == ts.chunk_lo;
      },  // [P-OMP Ordered O2] pairs with O1
      [] { return false; });
}

void pass_ordered_turn(thread_state& ts, work_share& w) {
  wait_ordered_turn(ts, w);
  w.ordered_next.store(ts.chunk_hi, std::memory_order_release);  // [P-OMP Ordered O1]
  ts.have_chunk = false;
  ts.cur_team->wakeup.notify();
}

}  // namespace

void runtime_schedule(thread_state& ts, int& kind, std::uint64_t& chunk) noexcept {
  const icv& v = ts.cur_task->icvs;
  kind = v.run_sched;
  chunk = static_cast<std::uint64_t>(v.run_chunk);
}

bool loop_next(thread_state& ts, std::uint64_t& lo, std::uint64_t& hi) noexcept {
  work_share& w = *ts.cur_ws;
  if (w.ordered && ts.have_chunk) pass_ordered_turn(ts, w);
  if (!next_chunk(ts, w, lo, hi)) return false;
  ts.chunk_lo = lo;
  ts.chunk_hi = hi;
  ts.have_chunk = true;
  return true;
}

void end_loop(thread_state& ts) noexcept {
  work_share& w = *ts.cur_ws;
  if (w.ordered && ts.have_chunk) pass_ordered_turn(ts, w);
  ws_leave(ts);
}

void ordered_start(thread_state& ts) noexcept {
  work_share* w = ts.cur_ws;
  if (w == nullptr || !w->ordered || !ts.have_chunk) return;  // outside an ordered loop: nothing to order
  wait_ordered_turn(ts, *w);
}

// ---- the front-ends' loop starts (work_share.hpp) -----------------------------------------

namespace {

// The first thread to reach the loop sets its work share up; the others find it set.
// kind may carry k_sched_any_order (a nonmonotonic dynamic loop, not a doacross one).
template <class T>
thread_state& enter_loop(bool up, T start, T end, T incr, T chunk, int kind, bool ordered, bool runtime,
                         const loop_extras<T>* x = nullptr) {
  thread_state& ts = self();
  const bool creator = ws_enter(ts);
  if (creator) {
    const bool any_order = (kind & k_sched_any_order) != 0;
    kind &= ~k_sched_any_order;
    std::uint64_t ch = static_cast<std::uint64_t>(chunk);
    if (runtime) runtime_schedule(ts, kind, ch);
    work_share& w = *ts.cur_ws;
    init_loop(w, ts.cur_team->nthreads, std::is_same_v<T, ull>, up, static_cast<std::uint64_t>(start),
              static_cast<std::uint64_t>(end), static_cast<std::uint64_t>(incr), ch, kind, ordered);
    if (x != nullptr && x->ncounts != 0 && ts.cur_team->nthreads > 1) {  // a team of one needs no table
      std::vector<std::uint64_t> counts(x->counts, x->counts + x->ncounts);
      w.dx = doacross_create(w.kind, w.chunk, w.count, ts.cur_team->nthreads, x->ncounts, counts.data());
    } else if (any_order) {
      allow_any_order(w, ts.cur_team->nthreads);
    }
  }
  if (x != nullptr)
    ws_publish_extras(ts, creator, x->reductions, x->mem);
  else if (creator)
    ws_publish(ts);
  return ts;
}

}  // namespace

// Chunk bounds in the caller's space; the last chunk ends exactly at `end` (which need not
// be start + count * incr, and whose computation could overflow).
template <class T>
bool loop_next_as(thread_state& ts, T* istart, T* iend) {
  std::uint64_t lo, hi;
  if (!loop_next(ts, lo, hi)) return false;
  work_share& w = *ts.cur_ws;
  *istart = static_cast<T>(w.start + lo * w.incr);
  *iend = static_cast<T>(hi == w.count ? w.end : w.start + hi * w.incr);
  return true;
}

template <class T>
bool loop_start(bool up, T start, T end, T incr, T chunk, int kind, bool ordered, bool runtime, T* istart, T* iend) {
  return loop_next_as(enter_loop<T>(up, start, end, incr, chunk, kind, ordered, runtime), istart, iend);
}

template <class T>
bool loop_start_sched(bool up, T start, T end, T incr, long sched, T chunk, T* istart, T* iend, bool ordered,
                      const loop_extras<T>& x) {
  const bool monotonic = (static_cast<unsigned long>(sched) & k_sched_monotonic) != 0;
  int kind = static_cast<int>(static_cast<unsigned long>(sched) & ~static_cast<unsigned long>(k_sched_monotonic));
  bool runtime = kind == 0 || kind == 4;
  // gcc marks schedule(monotonic: dynamic) with the bit; dynamic without it is nonmonotonic
  if (kind == k_sched_dynamic && !monotonic && !ordered && x.ncounts == 0) kind |= k_sched_any_order;
  const loop_extras<T>* px = x.reductions != nullptr || x.mem != nullptr || x.ncounts != 0 ? &x : nullptr;
  thread_state& ts = enter_loop<T>(up, start, end, incr, chunk, kind, ordered, runtime, px);
  if (istart == nullptr) return true;  // set up only: a statically scheduled loop that needs the work share
  return loop_next_as(ts, istart, iend);
}

// A doacross loop runs over the iteration numbers of its first dimension, [0, counts[0]).
template <class T>
bool doacross_loop_start(unsigned ncounts, T* counts, long sched, T chunk, T* istart, T* iend,
                         std::uintptr_t* reductions, void** mem) {
  loop_extras<T> x{reductions, mem, ncounts, counts};
  return loop_start_sched<T>(true, 0, counts[0], 1, sched, chunk, istart, iend, false, x);
}

// The two index types of the loop entry points.
#define FJ_LOOP_STARTS(T)                                                                         \
  template bool loop_next_as<T>(thread_state&, T*, T*);                                           \
  template bool loop_start<T>(bool, T, T, T, T, int, bool, bool, T*, T*);                         \
  template bool loop_start_sched<T>(bool, T, T, T, long, T, T*, T*, bool, const loop_extras<T>&); \
  template bool doacross_loop_start<T>(unsigned, T*, long, T, T*, T*, std::uintptr_t*, void**);
FJ_LOOP_STARTS(long)
FJ_LOOP_STARTS(ull)
#undef FJ_LOOP_STARTS

void init_loop_ws(team& t, work_share& w, bool is_ull, bool up, std::uint64_t start, std::uint64_t end,
                  std::uint64_t incr, std::uint64_t chunk, int kind) {
  init_loop(w, t.nthreads, is_ull, up, start, end, incr, chunk, kind, false);
}

}  // namespace forkjoin::omp
