// find.hpp: the search under parallel_find_if. [0, n) is cut into chunks of a fixed size;
// participants claim chunk indices in increasing order from a shared counter and keep the
// lowest match found so far in `best`. [P-FIND Start] before starting a chunk a participant
// reads `best` and stops if the chunk starts at or after it, so once a match at k is
// recorded no chunk that starts after k is started (at most one chunk per participant
// whose check came before the record is still running). [P-FIND Record] a match lowers
// `best` by a CAS loop (fetch-min), and the participant stops: every chunk it could claim
// next starts after its match. The answer is `best` after all participants have joined.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/join.hpp"

namespace forkjoin::detail {

struct no_find_hook {
  void operator()(std::size_t) const noexcept {}
};

// check(lo, hi) returns the first match in [lo, hi), or hi when there is none. `recorded`
// is called with k after a match at k is recorded (tests observe the rule through it).
template <class Check, class Recorded = no_find_hook>
class first_match_search {
 public:
  first_match_search(std::size_t n, std::size_t chunk, Check& check, Recorded recorded = {})
      : n_(n), chunk_(chunk), chunks_((n - 1) / chunk + 1), check_(check), recorded_(recorded), best_(n) {}

  // Worker threads only; returns the first match, or n.
  std::size_t run(std::size_t team) {
    participants(std::min(team, chunks_));
    // relaxed: join ordered every participant's record before this load
    return best_.load(std::memory_order_relaxed);
  }

 private:
  void participants(std::size_t count) {
    if (count == 1) return participate();
    const std::size_t half = count / 2;
    join_published([&] { participants(count - half); }, [&] { participants(half); });
  }
  void participate() {
    for (;;) {
      // relaxed: the counter only hands out chunk indices; no data flows through it
      const std::size_t c = next_.fetch_add(1, std::memory_order_relaxed);
      if (c >= chunks_) return;
      const std::size_t lo = c * chunk_;
      // [P-FIND Start] relaxed: coherence alone orders this after any record this thread
      // has seen happen; a chunk at or after the best match is never started
      if (lo >= best_.load(std::memory_order_relaxed)) return;
      const std::size_t hi = n_ - lo <= chunk_ ? n_ : lo + chunk_;
      std::size_t k = hi;
      try {
        k = check_(lo, hi);
      } catch (...) {
        best_.store(0, std::memory_order_relaxed);  // stops every participant at its next chunk
        throw;
      }
      if (k != hi) {
        record(k);
        return;
      }
    }
  }
  void record(std::size_t k) {
    // [P-FIND Record] relaxed fetch-min: the answer is read after the joins
    std::size_t cur = best_.load(std::memory_order_relaxed);
    while (k < cur && !best_.compare_exchange_weak(cur, k, std::memory_order_relaxed)) {
    }
    recorded_(k);
  }

  const std::size_t n_, chunk_, chunks_;
  Check& check_;
  Recorded recorded_;
  alignas(k_cache_line) std::atomic<std::size_t> next_{0};
  alignas(k_cache_line) std::atomic<std::size_t> best_;
};

// Chunks of about n / (64 T) elements, between 1 and 16384: small enough that the search
// stops soon after a match, large enough that the shared counter is touched rarely.
inline std::size_t find_chunk_size(std::size_t n, std::size_t team) {
  return std::clamp<std::size_t>(n / (64 * team), 1, 16384);
}

}  // namespace forkjoin::detail
