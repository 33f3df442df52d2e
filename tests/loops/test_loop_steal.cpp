// The dynamic schedule's ranges (forkjoin/DESIGN.md [P-LOOP Steal]): each participant takes
// the chunks of its own range first to last and then steals half of the fullest other
// range. Checked: chunks stay OpenMP's (multiples of the chunk size, each once), a reduce
// keeps chunk order on any team (the ranges live on the caller's stack up to 8
// participants, on the heap beyond), the chunks behind a chunk that blocks are taken by
// the other participants, and a loop of more than 2^31 chunks still runs on the shared
// cursor.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "forkjoin/forkjoin.hpp"

namespace fj = forkjoin;
using namespace std::chrono_literals;

namespace {
struct body_error {
  std::uint64_t index;
};
}  // namespace

// Every chunk is [k*c, min(n, (k+1)*c)), handed out once, on teams of 2 to 12 participants
// (12 > 8: the heap path), whatever the race between owners and thieves.
TEST(DynamicSteal, ChunksAreOpenMPsAndEachRunsOnce) {
  for (std::size_t threads : {2u, 5u, 12u}) {
    fj::pool p(threads);
    for (long c : {1L, 7L, 64L})
      for (long n : {2L, 11L, 12L, 13L, 1000L, 100003L}) {
        std::mutex m;
        std::vector<std::pair<long, long>> chunks;
        p.run([&] {
          fj::parallel_for(
              0L, n,
              [&](long b, long e) {
                std::lock_guard<std::mutex> l(m);
                chunks.emplace_back(b, e);
              },
              fj::schedule::dynamic(c));
        });
        std::sort(chunks.begin(), chunks.end());
        const long expected = (n + c - 1) / c;
        ASSERT_EQ(static_cast<long>(chunks.size()), expected) << "T=" << threads << " c=" << c << " n=" << n;
        for (long k = 0; k < expected; ++k)
          ASSERT_EQ(chunks[static_cast<std::size_t>(k)], std::make_pair(k * c, std::min(n, (k + 1) * c)))
              << "T=" << threads << " c=" << c << " n=" << n << " chunk " << k;
      }
  }
}

// A reduce folds the chunks' partials in chunk order, whoever ran them: appending each
// chunk's first index gives 0, c, 2c, ... on every team.
TEST(DynamicSteal, ReduceKeepsChunkOrder) {
  for (std::size_t threads : {3u, 12u}) {
    fj::pool p(threads);
    constexpr long n = 20000, c = 3;
    const std::vector<long> got = p.run([&] {
      return fj::parallel_reduce(
          0L, n, std::vector<long>{},
          [](long b, long, std::vector<long> acc) {
            acc.push_back(b);
            return acc;
          },
          [](std::vector<long> a, const std::vector<long>& b) {
            a.insert(a.end(), b.begin(), b.end());
            return a;
          },
          fj::schedule::dynamic(c));
    });
    ASSERT_EQ(static_cast<long>(got.size()), (n + c - 1) / c) << "T=" << threads;
    for (std::size_t k = 0; k < got.size(); ++k) ASSERT_EQ(got[k], static_cast<long>(k) * c) << "T=" << threads;
  }
}

// Chunk 0 waits until every other chunk has run. Chunks 1.. of its participant's range can
// only run if the other participants steal them: without [P-LOOP Steal] S2 they would
// wait behind chunk 0 for ever (the wait gives up after 30 s and the test fails).
TEST(DynamicSteal, ChunksBehindABlockedChunkAreStolen) {
  fj::pool p(4);
  constexpr int n = 64;
  for (int round = 0; round < 20; ++round) {
    std::vector<std::atomic<int>> hits(n);
    std::atomic<int> done{0};
    int done_when_chunk0_ended = -1;
    p.run([&] {
      fj::parallel_for(
          0, n,
          [&](int i) {
            hits[static_cast<std::size_t>(i)].fetch_add(1);
            if (i == 0) {
              const auto give_up = std::chrono::steady_clock::now() + 30s;
              while (done.load() < n - 1 && std::chrono::steady_clock::now() < give_up)
                std::this_thread::sleep_for(100us);
              done_when_chunk0_ended = done.load();
            } else {
              done.fetch_add(1);
            }
          },
          fj::schedule::dynamic(1));
    });
    ASSERT_EQ(done_when_chunk0_ended, n - 1) << "round " << round;
    for (int i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << "index " << i;
  }
}

// More than 2^31 chunks do not fit the ranges' 32-bit halves: such a loop takes its chunks
// from the shared cursor, from 0 up, whoever asks (ranges would start participants 1 and 2
// near n/3 and 2n/3, or steal halves far from 0). The body throws once a second thread has run an iteration (or after 2
// s alone), past the 1000th: rethrown once, the loop stopped early.
TEST(DynamicSteal, BeyondTheRangesLimitUsesTheCursor) {
  fj::pool p(3);
  constexpr std::uint64_t n = std::uint64_t{1} << 33;
  std::atomic<std::uint64_t> ran{0}, highest{0};
  std::atomic<std::thread::id> first{};
  std::atomic<bool> second_thread{false};
  const auto alone_until = std::chrono::steady_clock::now() + 2s;
  try {
    p.run([&] {
      fj::parallel_for(
          std::uint64_t{0}, n,
          [&](std::uint64_t i) {
            std::uint64_t h = highest.load();
            while (i > h && !highest.compare_exchange_weak(h, i)) {
            }
            std::thread::id none{};
            if (!first.compare_exchange_strong(none, std::this_thread::get_id()) && none != std::this_thread::get_id())
              second_thread = true;
            if (ran.fetch_add(1) >= 1000 && (second_thread || std::chrono::steady_clock::now() > alone_until))
              throw body_error{i};
          },
          fj::schedule::dynamic(1));
    });
    ADD_FAILURE() << "nothing thrown";
  } catch (const body_error&) {
  }
  EXPECT_LT(ran.load(), n);
  // The cursor hands out 0, 1, 2, ...: every index run was claimed, and at most one claim per
  // participant went unrun after the throw.
  EXPECT_LE(highest.load(), ran.load() + 2) << "an index far from the cursor's: the loop was split into ranges";
}
