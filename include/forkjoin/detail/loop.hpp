// loop.hpp: the engine under parallel_for and parallel_reduce. A loop is an offset range
// [0, n) in an unsigned type and a chunk function chunk(lo, hi, acc) -> acc; each schedule
// decides who runs which chunk. Results combine left to right, so a combine that is only
// associative stays correct. Exceptions stop new chunks and propagate once through join.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <vector>

#include "forkjoin/detail/budget.hpp"
#include "forkjoin/detail/chunk_ranges.hpp"
#include "forkjoin/detail/trace_hooks.hpp"
#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/join.hpp"
#include "forkjoin/pool.hpp"
#include "forkjoin/schedule.hpp"

namespace forkjoin::detail {

struct no_result {};  // parallel_for's "accumulator"

// [P-LOOP Rate] for the instruction-count gate: when not 0, every auto_ loop takes this as
// its site's rate (iterations per loop_budget::k_slice_ns) and times nothing, so that which
// path a loop takes does not depend on the clock. Read relaxed once per call.
inline std::atomic<std::uint64_t> g_loop_fixed_rate{0};

template <class U, class T, class Chunk, class Combine>
class loop_engine {
 public:
  loop_engine(U n, const T& identity, Chunk& chunk, Combine& combine, const schedule& s, std::size_t team)
      : n_(n), identity_(identity), chunk_(chunk), combine_(combine), sched_(s), team_(team) {}

  T run() {
    switch (sched_.type()) {
      case schedule::kind::auto_:
        return run_auto();
      case schedule::kind::static_:
        if (sched_.chunk() == 0) return run_static();
        return run_chunked();
      case schedule::kind::dynamic:
      case schedule::kind::guided:
        return run_chunked();
      case schedule::kind::num_tasks:
        return run_tasks();
    }
    return identity_;
  }

 private:
  // Guarded chunk: skipped once some chunk threw; a throw sets the stop flag first.
  T guarded(U lo, U hi, T acc) {
    if (stop_.load(std::memory_order_relaxed)) return acc;
    const trace_scope span(tls_worker->trace_, trace_kind::chunk, static_cast<std::uint64_t>(lo),
                           static_cast<std::uint64_t>(hi));
    try {
      return chunk_(lo, hi, std::move(acc));
    } catch (...) {
      stop_.store(true, std::memory_order_relaxed);
      throw;
    }
  }
  T combine(T a, T b) {
    if constexpr (std::is_same_v<T, no_result>)
      return a;
    else {
      try {
        return combine_(std::move(a), std::move(b));
      } catch (...) {
        stop_.store(true, std::memory_order_relaxed);
        throw;
      }
    }
  }
  // Split now? Only when someone could take the other half and nothing this worker
  // published is still there for it (an untaken block leaf, an earlier half): a thief that
  // asked this deque for work ([P-DEQUE X1]: a searching worker, or a worker helping in a
  // join or group wait, which the idle word does not count), or, with nobody searching, a
  // sleeper that the split's publication would wake ([INV-WAKE]). An *asked* bit left from
  // a thief that found work elsewhere costs one split: its publication clears the bit
  // (X2) unless someone is idle.
  static bool demand() noexcept {
    worker* w = tls_worker;
    if (w->deque_.split_requested()) return !w->deque_.has_public_work();
    const idle_count c = idle_count::decode(w->idle_word_->load(std::memory_order_relaxed));
    return c.searching == 0 && c.sleeping != 0 && !w->deque_.has_public_work();
  }

  // auto_: T contiguous blocks, OpenMP's static blocks, each claimed by its own worker
  // first (so a loop called again on the same pool runs each block on the worker that ran
  // it last time, with its data still in that worker's cache); inside a block, lazy
  // splitting: the block runs grain by grain, and between grains it splits its remainder
  // in half when a thief asked for work or a sleeper could take it ([P-LOOP Affine]).
  // Grains start at n/(16T) and halve at every split down to n/(128T) (or the explicit
  // auto_(grain)), so an imbalanced loop's last grains are small enough to share.
  T run_auto() {
    lazy_ = sched_.max_threads() == 0;
    sliced_ = budget_ && sched_.chunk() == 0;  // [P-FAIR Budget] engine-chosen grains only
    if (sched_.chunk() != 0) {
      grain_ = min_grain_ = static_cast<U>(std::min<std::size_t>(sched_.chunk(), n_));
      // No more blocks than grains: an auto_(grain) of the whole range is one chunk.
      const std::size_t grains = static_cast<std::size_t>(n_ / grain_) + (n_ % grain_ != 0 ? 1 : 0);
      return run_blocks(std::min<std::size_t>(team_, grains));
    }
    grain_ = static_cast<U>(std::max<std::size_t>(1, n_ / (team_ * 16)));
    min_grain_ = static_cast<U>(std::max<std::size_t>(1, n_ / (team_ * 128)));
    std::size_t blocks = team_;
    // [P-LOOP Rate] once this site's rate is known: a loop worth less than k_serial_ns runs
    // whole on the caller; blocks, grains and splits are never smaller than sharing is worth.
    const std::uint64_t fixed = g_loop_fixed_rate.load(std::memory_order_relaxed);
    const std::uint64_t rate = fixed != 0 ? fixed : site_estimate_.load(std::memory_order_relaxed);  // hints: relaxed
    sampled_ = fixed == 0 && (rate == 0 || ++site_calls_ % k_sample_period == 0);
    if (rate != 0) {
      // Grains by time, not by count: a slow body's grains of n/(16T) iterations would keep
      // an idle thief waiting for milliseconds before the next chance to split.
      if (n_ < worth(rate, k_serial_ns)) return run_serial();
      grain_ = std::max<U>(1, worth(rate, k_grain_ns));
      min_grain_ = std::max<U>(1, worth(rate, k_grain_ns / 2));
      split_min_ = worth(rate, k_split_ns);
      const U per_block = std::max<U>(1, worth(rate, k_block_ns));
      blocks = std::min<std::size_t>(team_, std::max<std::size_t>(1, static_cast<std::size_t>(n_ / per_block)));
    }
    return run_blocks(blocks);
  }
  // The iterations worth `ns` of work at `rate` iterations per slice (saturating at n_).
  U worth(std::uint64_t rate, std::uint64_t ns) const noexcept {
    const std::uint64_t k = rate >= (std::uint64_t{1} << 40) ? ~std::uint64_t{0} : rate * ns / loop_budget::k_slice_ns;
    return static_cast<U>(std::min<std::uint64_t>(k, static_cast<std::uint64_t>(n_)));
  }
  // [P-LOOP Rate] a loop too small to share: one chunk on the caller, timed on sampled calls.
  T run_serial() {
    const timed_leaf timer(sampled_);
    T acc = guarded(U{0}, n_, identity_);
    timer.done(static_cast<std::uint64_t>(n_));
    if (budget_) poll_outside_work();
    return acc;
  }
  // [P-LOOP Rate] on sampled calls a leaf reads the clock when it starts and when it stops
  // running grains itself, and folds the rate it saw into the site's hint.
  class timed_leaf {
   public:
    explicit timed_leaf(bool on) noexcept : t0_(on ? now_ns() : 0) {}
    void done(std::uint64_t iterations) const noexcept {
      if (t0_ == 0 || iterations == 0) return;
      const std::uint64_t ns = static_cast<std::uint64_t>(std::max<std::int64_t>(now_ns() - t0_, 1));
      const std::uint64_t seen = iterations >= (std::uint64_t{1} << 40)
                                     ? ~std::uint64_t{0} / 2
                                     : std::max<std::uint64_t>(1, iterations * loop_budget::k_slice_ns / ns);
      const std::uint64_t old = site_estimate_.load(std::memory_order_relaxed);
      site_estimate_.store(old == 0 ? seen : old / 2 + seen / 2, std::memory_order_relaxed);  // a hint: relaxed
    }

   private:
    static std::int64_t now_ns() noexcept {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
    }
    const std::int64_t t0_;
  };
  // Out of line: the split keeps its join frame away from the grain loop's registers.
  FORKJOIN_NOINLINE T split_in_half(U lo, U hi, U grain) {
    const U mid = static_cast<U>(lo + (hi - lo) / 2);
    const U half = std::max(min_grain_, static_cast<U>(grain / 2));
    note_split_served(*tls_worker, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi));
    auto [a, b] = join_published([&] { return lazy_block(lo, mid, half); }, [&] { return lazy_block(mid, hi, half); });
    return combine(std::move(a), std::move(b));
  }
  T lazy_block(U lo, U hi, U grain) {
    T acc = identity_;
    loop_budget budget(site_estimate_, sliced_, static_cast<std::uint64_t>(hi - lo));
    const timed_leaf timer(sampled_);
    const U first = lo;
    for (;;) {
      // A grain, or less when the budget's slice ends first: demand is polled at least once a
      // slice, so a grain of a slow body does not keep an idle thief waiting for its end.
      const U want = std::min<U>(static_cast<U>(hi - lo), grain);
      const U step = sliced_ ? static_cast<U>(budget.next(static_cast<std::uint64_t>(want))) : want;
      acc = run_piece(lo, static_cast<U>(lo + step), std::move(acc), budget);
      lo = static_cast<U>(lo + step);
      if (lo == hi || stop_.load(std::memory_order_relaxed)) break;  // relaxed: a flag, no data
      // [P-LOOP Rate] a remainder below split_min_ is not worth a thief's trip
      // [P-LOOP Affine] and not while a block is unclaimed: the thief that asked gets it.
      if (lazy_ && hi - lo > min_grain_ && hi - lo >= split_min_ && demand() && blocks_all_claimed()) {
        timer.done(static_cast<std::uint64_t>(lo - first));
        return combine(std::move(acc), split_in_half(lo, hi, grain));
      }
    }
    timer.done(static_cast<std::uint64_t>(hi - first));
    return acc;
  }
  // [P-FAIR Budget] a grain the engine chose runs in slices of ~64 us, serving outside work
  // at each slice's end; a grain or block the caller sized runs whole, and serves after it.
  T run_piece(U lo, U hi, T acc, loop_budget& budget) {
    acc = guarded(lo, hi, std::move(acc));
    if (sliced_)
      budget.spent(static_cast<std::uint64_t>(hi - lo));
    else if (budget_)
      poll_outside_work();
    return acc;
  }

  // static_(0): OpenMP's blocks. Block b starts at b*q + min(b, r) and has q + (b < r)
  // iterations (q = n / T, r = n % T), as libgomp computes them. T leaves are spawned; each
  // claims one block, its own worker index's block when that is still free (so block t
  // runs on worker t whenever worker t takes part, as OpenMP maps it), else the next free.
  // A reduce keeps one partial per block and folds them in block order.
  // A block is one grain that never splits: lazy_block runs it as a single chunk.
  T run_static() {
    grain_ = n_;
    lazy_ = false;
    return run_blocks(std::min<std::size_t>(team_, n_));
  }
  // t blocks, one leaf each; partials, for a reduce, folded in block order.
  T run_blocks(std::size_t t) {
    static_blocks_ = t;
    if constexpr (!std::is_same_v<T, no_result>) partials_.resize(t);
    block_leaves(0, t);
    return fold_partials();
  }
  void block_leaves(std::size_t b0, std::size_t b1) {
    if (b1 - b0 == 1) {
      const std::size_t t = static_blocks_;
      const U q = static_cast<U>(n_ / t), r = static_cast<U>(n_ % t), b = static_cast<U>(claim_block(t));
      const U begin = static_cast<U>(b * q + std::min(b, r));
      const U end = static_cast<U>(begin + q + (b < r ? 1 : 0));
      keep_partial(lazy_block(begin, end, grain_), static_cast<std::size_t>(b));
      return;
    }
    const std::size_t mid = b0 + (b1 - b0) / 2;
    join_published([&] { block_leaves(b0, mid); }, [&] { block_leaves(mid, b1); });
  }
  // One free block of t, preferring this worker's own; exactly one per leaf, and there are
  // t leaves, so every block is claimed once.
  std::size_t claim_block(std::size_t t) noexcept {
    const std::size_t own = tls_worker->index_;
    for (std::size_t i = 0;; ++i) {
      const std::size_t b = (own + i) % t;
      const std::uint64_t bit = std::uint64_t{1} << (b % 64);
      // relaxed: the mask only decides who runs a block; no data flows through it
      if ((claimed_[b / 64].fetch_or(bit, std::memory_order_relaxed) & bit) == 0) return b;
      FORKJOIN_DEBUG_ASSERT(i < t, "loop: no free static block");
    }
  }
  // Every block has its leaf's worker: until then a split would hand a thief part of a
  // block instead of the block leaf on its way to it, moving iterations off the worker that
  // ran them last call.
  bool blocks_all_claimed() const noexcept {
    const std::size_t t = static_blocks_;
    for (std::size_t word = 0; word * 64 < t; ++word) {
      const std::size_t bits = std::min<std::size_t>(64, t - word * 64);
      const std::uint64_t full = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
      // relaxed: as in claim_block, the mask decides who runs what, no data flows through it
      if (claimed_[word].load(std::memory_order_relaxed) != full) return false;
    }
    return true;
  }
  // static_(c), dynamic, guided: `team` participants claim chunks. static_(c) deals chunk k
  // to participant k mod T; the others take them from a shared cursor (dynamic by
  // fetch_add where the cursor cannot wrap; guided, and dynamic at the type's limit, by
  // CAS). A reduce keeps one partial per chunk, indexed by offset / chunk, and folds them
  // left to right at the end.
  T run_chunked() {
    chunk_size_ = static_cast<U>(std::min<std::size_t>(std::max<std::size_t>(sched_.chunk(), 1), n_));
    if constexpr (!std::is_same_v<T, no_result>) partials_.resize(chunk_count());
    const std::size_t t = std::min<std::size_t>(team_, chunk_count());
    if (sched_.type() == schedule::kind::dynamic && t > 1 && chunk_count() <= k_max_ranged_chunks) return run_ranged(t);
    participants(0, t);
    return fold_partials();
  }
  // [P-LOOP Steal] dynamic: participant p starts with chunks [p*C/t, (p+1)*C/t) in its own
  // range (chunk_ranges.hpp), takes them first to last, then steals half of the fullest
  // other range, until every range is empty (or a chunk threw).
  T run_ranged(std::size_t t) {
    // Up to k_inline_ranges ranges on the caller's stack, only the t in use constructed (the
    // whole array's 1 KiB of cache lines cost a small loop more than its chunks).
    union inline_storage {
      inline_storage() noexcept {}
      chunk_range ranges[k_inline_ranges];
    } local;
    std::unique_ptr<chunk_range[]> heap_ranges;
    if (t > k_inline_ranges) {
      heap_ranges = std::make_unique<chunk_range[]>(t);
      ranges_ = heap_ranges.get();
    } else {
      for (std::size_t p = 0; p < t; ++p) ::new (static_cast<void*>(&local.ranges[p])) chunk_range;
      ranges_ = local.ranges;
    }
    range_count_ = t;
    init_chunk_ranges(ranges_, t, chunk_count());
    participants(0, t);
    ranges_ = nullptr;
    return fold_partials();
  }
  void take_ranged(std::size_t me) {
    std::uint64_t k = 0;
    while (!stop_.load(std::memory_order_relaxed)) {
      if (!take_own_chunk(ranges_[me], k) && !steal_chunks(ranges_, range_count_, me, k)) return;
      const U lo = static_cast<U>(k * chunk_size_);
      run_one(lo, n_ - lo <= chunk_size_ ? n_ : static_cast<U>(lo + chunk_size_), static_cast<std::size_t>(k));
    }
  }
  // num_tasks(k): min(k, n) tasks, task j being OpenMP's static block j of that many
  // (taskloop's split); `team` participants take task indices from the shared cursor.
  // A reduce keeps one partial per task and folds them in task order.
  T run_tasks() {
    tasks_ = static_cast<U>(std::min<std::size_t>(sched_.chunk(), n_));
    if constexpr (!std::is_same_v<T, no_result>) partials_.resize(tasks_);
    participants(0, std::min<std::size_t>(team_, tasks_));
    return fold_partials();
  }
  void take_tasks() {
    const U q = static_cast<U>(n_ / tasks_), r = static_cast<U>(n_ % tasks_);
    U k = cursor_.load(std::memory_order_relaxed);
    while (!stop_.load(std::memory_order_relaxed) && k < tasks_) {
      if (!cursor_.compare_exchange_weak(k, static_cast<U>(k + 1), std::memory_order_relaxed))
        continue;  // relaxed: tasks share no data through the cursor
      const U begin = static_cast<U>(k * q + std::min(k, r));
      run_one(begin, static_cast<U>(begin + q + (k < r ? 1 : 0)), static_cast<std::size_t>(k));
      k = cursor_.load(std::memory_order_relaxed);
    }
  }
  T fold_partials() {
    T acc = identity_;
    if constexpr (!std::is_same_v<T, no_result>)
      for (auto& p : partials_)
        if (p) acc = combine(std::move(acc), std::move(*p));
    return acc;
  }
  // ceil(n / chunk) without computing n + chunk - 1, which can wrap at the type's limit.
  std::size_t chunk_count() const noexcept {
    return static_cast<std::size_t>(n_ / chunk_size_) + (n_ % chunk_size_ != 0 ? 1 : 0);
  }
  void participants(std::size_t p0, std::size_t p1) {
    FORKJOIN_DEBUG_ASSERT(p1 > p0, "loop: empty participant range");
    if (p1 - p0 == 1) {
      if (sched_.type() == schedule::kind::num_tasks)
        take_tasks();
      else
        participate(p0);
      return;
    }
    const std::size_t mid = p0 + (p1 - p0) / 2;
    join_published([&] { participants(p0, mid); }, [&] { participants(mid, p1); });
  }
  void run_one(U lo, U hi, std::size_t slot) {
    keep_partial(guarded(lo, hi, identity_), slot);
    if (budget_) poll_outside_work();  // [P-FAIR Budget] between the caller's chunks
  }
  void keep_partial(T r, std::size_t slot) {
    if constexpr (std::is_same_v<T, no_result>) {
      (void)r;
      (void)slot;
    } else {
      if (!stop_.load(std::memory_order_relaxed)) partials_[slot].emplace(std::move(r));
    }
  }
  void participate(std::size_t me) {
    const U c = chunk_size_;
    if (sched_.type() == schedule::kind::static_) {
      const std::size_t t = std::min<std::size_t>(team_, chunk_count());
      if (static_cast<std::size_t>(n_ / c) < me) return;
      for (U lo = static_cast<U>(me * c); lo < n_ && !stop_.load(std::memory_order_relaxed);) {
        const U hi = n_ - lo <= c ? n_ : static_cast<U>(lo + c);
        run_one(lo, hi, static_cast<std::size_t>(lo / c));
        // Next start lo + t*c exists iff t*c <= n - 1 - lo; tested by division so that
        // nothing wraps at the type's limit.
        if (static_cast<std::size_t>((n_ - 1 - lo) / c) < t) break;
        lo = static_cast<U>(lo + t * c);
      }
      return;
    }
    if (ranges_ != nullptr) {
      take_ranged(me);
      return;
    }
    const bool guided = sched_.type() == schedule::kind::guided;
    // dynamic beyond k_max_ranged_chunks chunks: one fetch_add per chunk (a CAS loop
    // retries under contention, and two threads taking short chunks contend on every one),
    // when the cursor cannot wrap: each participant overshoots n by at most one chunk.
    if (!guided && (std::numeric_limits<U>::max() - n_) / team_ >= c) {
      while (!stop_.load(std::memory_order_relaxed)) {
        const U lo = cursor_.fetch_add(c, std::memory_order_relaxed);  // relaxed: chunks share no data through it
        if (lo >= n_) return;
        run_one(lo, n_ - lo <= c ? n_ : static_cast<U>(lo + c), static_cast<std::size_t>(lo / c));
      }
      return;
    }
    U lo = cursor_.load(std::memory_order_relaxed);
    while (!stop_.load(std::memory_order_relaxed)) {
      if (lo >= n_) return;
      U size = c;
      if (guided) {  // libgomp: ceil(remaining / T), at least the minimum chunk
        const U remaining = n_ - lo;
        const U q = static_cast<U>(remaining / team_ + (remaining % team_ != 0));
        size = std::max(q, c);
      }
      const U hi = n_ - lo <= size ? n_ : static_cast<U>(lo + size);
      if (!cursor_.compare_exchange_weak(lo, hi, std::memory_order_relaxed))
        continue;  // relaxed: chunks share no data through the cursor
      run_one(lo, hi, static_cast<std::size_t>(lo / c));
      lo = cursor_.load(std::memory_order_relaxed);
    }
  }

  const U n_;
  const T& identity_;
  Chunk& chunk_;
  Combine& combine_;
  const schedule sched_;
  const std::size_t team_;
  std::atomic<bool> stop_{false};
  U grain_ = 1;
  U min_grain_ = 1;
  U split_min_ = 0;       // [P-LOOP Rate] the smallest remainder a split shares
  bool sampled_ = false;  // [P-LOOP Rate] this call's leaves time themselves
  bool lazy_ = true;
  const bool budget_ = loop_budget_enabled();
  bool sliced_ = false;
  U chunk_size_ = 1;
  U tasks_ = 1;
  alignas(k_cache_line) std::atomic<U> cursor_{0};
  static constexpr std::size_t k_inline_ranges = 8;  // [P-LOOP Steal] on the caller's stack up to this team
  chunk_range* ranges_ = nullptr;
  std::size_t range_count_ = 0;
  std::vector<std::optional<T>> partials_;
  std::size_t static_blocks_ = 0;
  // [P-FAIR Budget] iterations per slice at this call site (one per instantiation, so per
  // loop body type), a relaxed hint shared by every leaf of every call.
  // [P-LOOP Rate] reads it too, as the site's speed, and refreshes it from sampled calls.
  alignas(k_cache_line) static inline std::atomic<std::uint64_t> site_estimate_{0};
  // [P-LOOP Rate] calls of this site made by this thread: every k_sample_period-th is timed.
  static inline thread_local std::uint32_t site_calls_ = 0;
  static constexpr std::uint32_t k_sample_period = 16;
  static constexpr std::uint64_t k_serial_ns = 1000;  // below: not worth a second thread
  static constexpr std::uint64_t k_block_ns = 500;    // blocks at least this long
  static constexpr std::uint64_t k_grain_ns = 2000;   // grains at least this long (demand polls between them)
  static constexpr std::uint64_t k_split_ns = 4000;   // a split shares at least half of this
  std::atomic<std::uint64_t> claimed_[(pool_options::k_max_threads + 63) / 64] = {};
};

// Runs the engine in the current pool (default_pool() from outside), serially when the
// schedule says so or the range is a single grain.
template <class U, class T, class Chunk, class Combine>
T run_loop(U n, const T& identity, Chunk& chunk, Combine& combine, const schedule& s) {
  if (n == 0) return identity;
  if (!s.parallel() || n == 1) return chunk(U{0}, n, T(identity));
  auto body = [&]() -> T {
    std::size_t team = tls_worker->pool_size_;
    if (s.max_threads() != 0) team = std::min(team, s.max_threads());
    if (team <= 1) return chunk(U{0}, n, T(identity));
    loop_engine<U, T, Chunk, Combine> engine(n, identity, chunk, combine, s, team);
    return engine.run();
  };
  if (tls_worker == nullptr) return default_pool().run(body);
  return body();
}

}  // namespace forkjoin::detail
