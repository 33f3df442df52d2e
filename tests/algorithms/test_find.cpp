// parallel_find_if / parallel_find: exactly std::find_if's answer for every size 0..200 and
// random larger ones on pools of 1..8 threads; the early-exit rule (no chunk that starts
// after a recorded match is started); exceptions; nesting.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <stdexcept>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;

TEST(ParallelFind, MatchesStdEverySize0To200) {
  std::mt19937 rng(4);
  for (std::size_t T = 1; T <= 8; ++T) {
    fj::pool p(T);
    for (std::size_t n = 0; n <= 200; ++n)
      for (unsigned density : {0u, 1u, 20u, 100u}) {  // per mille of matches (0: none)
        std::vector<int> v(n);
        for (auto& x : v) x = rng() % 1000 < density ? 1 : 0;
        auto pred = [](int x) { return x == 1; };
        const auto got = p.run([&] { return fj::parallel_find_if(v.begin(), v.end(), pred); });
        ASSERT_EQ(got - v.begin(), std::find_if(v.begin(), v.end(), pred) - v.begin()) << "n=" << n << " T=" << T;
        ASSERT_EQ(p.run([&] { return fj::parallel_find(v.begin(), v.end(), 1); }) - v.begin(), got - v.begin());
      }
  }
}

TEST(ParallelFind, MatchesStdRandomLargerSizes) {
  std::mt19937 rng(5);
  for (std::size_t T : {2u, 3u, 8u}) {
    fj::pool p(T);
    for (int round = 0; round < 20; ++round) {
      const std::size_t n = 1000 + rng() % static_cast<std::size_t>(fj::test::scaled(300000, 30000));
      std::vector<unsigned> v(n);
      for (auto& x : v) x = static_cast<unsigned>(rng());
      const unsigned needle = round % 4 == 0 ? 7u : v[rng() % n];  // 7: most likely absent
      const auto got = p.run([&] { return fj::parallel_find(v.begin(), v.end(), needle); });
      ASSERT_EQ(got, std::find(v.begin(), v.end(), needle));
    }
  }
  // From outside every pool.
  std::vector<int> v(100000, 0);
  v[70000] = v[90000] = 3;
  EXPECT_EQ(fj::parallel_find(v.begin(), v.end(), 3) - v.begin(), 70000);
}

// The rule: once a match at k is recorded, each participant starts at most the one chunk
// whose check preceded the record; none after it. The hook runs right after the record,
// so chunks that start after k once the flag is up are bounded by the participants.
TEST(ParallelFind, NoChunkAfterTheMatchStartsOnceRecorded) {
  for (std::size_t T : {2u, 4u, 8u}) {
    fj::pool p(T);
    const std::size_t n = 1 << 16, chunk = 16, match = n / 10;
    std::atomic<bool> recorded{false};
    std::atomic<int> late_chunks{0};
    std::vector<std::atomic<int>> started((n - 1) / chunk + 1);
    auto check = [&](std::size_t lo, std::size_t hi) -> std::size_t {
      started[lo / chunk]++;
      if (lo > match && recorded.load()) late_chunks++;
      return lo <= match && match < hi ? match : hi;
    };
    auto hook = [&](std::size_t) { recorded.store(true); };
    const std::size_t got = p.run([&] {
      fj::detail::first_match_search<decltype(check), decltype(hook)> search(n, chunk, check, hook);
      return search.run(T);
    });
    EXPECT_EQ(got, match);
    EXPECT_LE(late_chunks.load(), static_cast<int>(T) - 1) << "T=" << T;
    for (std::size_t c = 0; c <= match / chunk; ++c)
      EXPECT_EQ(started[c].load(), 1) << "chunk " << c;  // all before k ran
    for (std::size_t c = 0; c < started.size(); ++c) EXPECT_LE(started[c].load(), 1);
  }
}

TEST(ParallelFind, PredicateExceptionRethrownOnce) {
  fj::pool p(4);
  std::vector<int> v(200000, 0);
  std::atomic<int> thrown{0};
  EXPECT_THROW(p.run([&] {
    fj::parallel_find_if(v.begin(), v.end(), [&](const int& x) {
      if (&x - v.data() == 123456) {
        thrown++;
        throw std::runtime_error("pred");
      }
      return false;
    });
  }),
               std::runtime_error);
  EXPECT_EQ(thrown.load(), 1);
}

TEST(ParallelFind, NestedInsideParallelFor) {
  fj::pool p(4);
  std::vector<std::vector<int>> rows(32, std::vector<int>(5000, 0));
  for (std::size_t r = 0; r < rows.size(); ++r) rows[r][r * 100] = 1;
  std::vector<long> pos(rows.size());
  p.run([&] {
    fj::parallel_for(std::size_t{0}, rows.size(), [&](std::size_t r) {
      pos[r] = fj::parallel_find(rows[r].begin(), rows[r].end(), 1) - rows[r].begin();
    });
  });
  for (std::size_t r = 0; r < rows.size(); ++r) EXPECT_EQ(pos[r], static_cast<long>(r * 100));
}
