// chunk_ranges.hpp: a loop's chunk indices in one range per participant (forkjoin/DESIGN.md
// [P-LOOP Steal], model models/range.pml). The owner takes its range's chunks first to last
// (S1); a participant whose range is empty moves half of the fullest other range to itself
// (S2) and installs it (S3). Used by the loop engine's dynamic schedule and by the OpenMP
// layer's nonmonotonic dynamic loops. Each chunk index leaves a range through exactly one
// read-modify-write of its word, S1 or S2, and the words carry no other data: every access
// is relaxed, and whoever starts and ends the participants publishes the words and the
// chunks' results.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "forkjoin/detail/atomic.hpp"

namespace forkjoin::detail {

// One participant's range: its next chunk index << 32 | its end, alone on its cache line.
struct alignas(k_cache_line) chunk_range {
  std::atomic<std::uint64_t> word{0};
};

// S1 may carry the next index one past the end: indices stay below 2^31 so that it never
// reaches bit 64. A loop with more chunks takes them from a shared cursor instead.
inline constexpr std::uint64_t k_max_ranged_chunks = std::uint64_t{1} << 31;
inline constexpr std::uint64_t k_range_low = 0xffffffffu;

constexpr std::uint64_t pack_range(std::uint64_t lo, std::uint64_t hi) noexcept { return lo << 32 | hi; }

// Participant p of t starts with chunks [p*chunks/t, (p+1)*chunks/t) (some empty when
// there are fewer chunks than participants). Before any participant starts.
inline void init_chunk_ranges(chunk_range* ranges, std::size_t t, std::uint64_t chunks) noexcept {
  for (std::size_t p = 0; p < t; ++p)  // relaxed: whoever starts the participants publishes them
    ranges[p].word.store(pack_range(chunks * p / t, chunks * (p + 1) / t), std::memory_order_relaxed);
}

// [P-LOOP Steal S1] the owner's take: lo + 1, which never fails. False when the range was
// empty (its lo has passed its end once, and S3 replaces the word before the next take).
inline bool take_own_chunk(chunk_range& own, std::uint64_t& chunk) noexcept {
  const std::uint64_t v = own.word.fetch_add(std::uint64_t{1} << 32, std::memory_order_relaxed);
  chunk = v >> 32;
  return chunk < (v & k_range_low);
}

// For a participant whose own range is empty: moves half of the fullest other range of
// ranges[0, t) to ranges[me] and sets `first` to the half's first chunk, the caller's to run
// now. False when every other range looked empty (a half still between a thief's S2 and
// S3 is that thief's to run).
inline bool steal_chunks(chunk_range* ranges, std::size_t t, std::size_t me, std::uint64_t& first) noexcept {
  for (;;) {
    std::size_t victim = me;
    std::uint64_t seen = 0, most = 0;
    for (std::size_t q = 0; q < t; ++q) {
      if (q == me) continue;
      const std::uint64_t v = ranges[q].word.load(std::memory_order_relaxed);
      const std::uint64_t lo = v >> 32, hi = v & k_range_low;
      if (lo < hi && hi - lo > most) {
        victim = q;
        seen = v;
        most = hi - lo;
      }
    }
    if (victim == me) return false;
    const std::uint64_t lo = seen >> 32, hi = seen & k_range_low, mid = hi - (hi - lo + 1) / 2;
    // [P-LOOP Steal S2] the upper half, rounded up (the last chunk too): fails if the owner
    // took a chunk or another thief stole meanwhile, and then looks again
    if (!ranges[victim].word.compare_exchange_strong(seen, pack_range(lo, mid), std::memory_order_relaxed)) continue;
    // [P-LOOP Steal S3] this range is empty (lo past hi): no thief's S2 matches it, so a
    // store installs the half but its first chunk, which the thief runs now (every steal
    // runs a chunk: chunks cannot move from thief to thief for ever)
    ranges[me].word.store(pack_range(mid + 1, hi), std::memory_order_relaxed);
    first = mid;
    return true;
  }
}

}  // namespace forkjoin::detail
