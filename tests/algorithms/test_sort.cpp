// test_sort.cpp: parallel_sort and parallel_stable_sort against std::sort and
// std::stable_sort: every size 0..200 and random larger ones, duplicates, sorted and
// reversed input, 1-8 threads, stability, throwing comparators, move-only elements, a
// comparator that is not a strict weak ordering, nested use.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace {

using forkjoin::test::scaled;

// Kinds: 0 random, 1 four distinct values, 2 sorted, 3 reversed, 4 sawtooth, 5 sorted with
// a few far swaps (the bounded insertion sort after a partition that moved nothing gives up).
std::vector<int> make_input(std::size_t n, int kind, std::mt19937& rng) {
  std::vector<int> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (kind == 0) v[i] = static_cast<int>(rng());
    if (kind == 1) v[i] = static_cast<int>(rng() % 4);
    if (kind == 2 || kind == 5) v[i] = static_cast<int>(i);
    if (kind == 3) v[i] = static_cast<int>(n - i);
    if (kind == 4) v[i] = static_cast<int>(i % 17);
  }
  if (kind == 5 && n > 1) {
    for (int k = 0; k < 3; ++k) std::swap(v[rng() % n], v[rng() % n]);
  }
  return v;
}

TEST(ParallelSort, EverySmallSizeAndKind) {
  std::mt19937 rng(1);
  forkjoin::pool p(2);
  for (std::size_t n = 0; n <= 200; ++n) {
    for (int kind = 0; kind < 6; ++kind) {
      auto v = make_input(n, kind, rng);
      auto expect = v;
      std::sort(expect.begin(), expect.end());
      auto stable = v;
      p.run([&] {
        forkjoin::parallel_sort(v.begin(), v.end());
        forkjoin::parallel_stable_sort(stable.begin(), stable.end());
      });
      ASSERT_EQ(v, expect) << "n=" << n << " kind=" << kind;
      ASSERT_EQ(stable, expect) << "n=" << n << " kind=" << kind;
    }
  }
}

TEST(ParallelSort, LargeRandomEveryThreadCount) {
  std::mt19937 rng(2);
  const auto big = static_cast<std::size_t>(scaled(50'000, 24'000));
  for (unsigned t = 1; t <= 8; ++t) {
    forkjoin::pool p(t);
    for (int kind = 0; kind < 6; ++kind) {
      const std::size_t n = big / 2 + rng() % big;
      auto v = make_input(n, kind, rng);
      auto expect = v;
      std::sort(expect.begin(), expect.end(), std::greater<>{});
      p.run([&] { forkjoin::parallel_sort(v.begin(), v.end(), std::greater<>{}); });
      ASSERT_EQ(v, expect) << "threads=" << t << " kind=" << kind;
    }
  }
}

TEST(ParallelSort, FromOutsideEveryPoolAndOnADeque) {
  std::mt19937 rng(3);
  std::deque<int> d;
  for (int i = 0; i < 100'000; ++i) d.push_back(static_cast<int>(rng() % 1000));
  std::vector<int> expect(d.begin(), d.end());
  std::sort(expect.begin(), expect.end());
  forkjoin::parallel_sort(d.begin(), d.end());  // default_pool()
  EXPECT_TRUE(std::equal(d.begin(), d.end(), expect.begin(), expect.end()));
}

// (key, original index): the stable sort must keep the indices of equal keys increasing.
TEST(ParallelStableSort, KeepsOrderOfEqualKeysEveryThreadCount) {
  std::mt19937 rng(4);
  const auto big = static_cast<std::size_t>(scaled(60'000, 24'000));
  for (unsigned t = 1; t <= 8; ++t) {
    forkjoin::pool p(t);
    for (std::uint32_t keys : {2u, 100u, 1u << 30}) {
      const std::size_t n = big / 2 + rng() % big;
      std::vector<std::pair<std::uint32_t, std::uint32_t>> v(n);
      for (std::size_t i = 0; i < n; ++i)
        v[i] = {static_cast<std::uint32_t>(rng() % keys), static_cast<std::uint32_t>(i)};
      auto expect = v;
      auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
      std::stable_sort(expect.begin(), expect.end(), by_key);
      p.run([&] { forkjoin::parallel_stable_sort(v.begin(), v.end(), by_key); });
      ASSERT_EQ(v, expect) << "threads=" << t << " keys=" << keys;
    }
  }
}

TEST(ParallelSort, MoveOnlyElements) {
  std::mt19937 rng(5);
  const auto n = static_cast<std::size_t>(scaled(100'000, 30'000));
  std::vector<std::unique_ptr<int>> a, b;
  std::vector<int> expect;
  for (std::size_t i = 0; i < n; ++i) {
    const int x = static_cast<int>(rng() % 5000);
    a.push_back(std::make_unique<int>(x));
    b.push_back(std::make_unique<int>(x));
    expect.push_back(x);
  }
  std::stable_sort(expect.begin(), expect.end());
  auto less = [](const std::unique_ptr<int>& x, const std::unique_ptr<int>& y) { return *x < *y; };
  forkjoin::pool p(4);
  p.run([&] {
    forkjoin::parallel_sort(a.begin(), a.end(), less);
    forkjoin::parallel_stable_sort(b.begin(), b.end(), less);
  });
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(a[i] && b[i]);
    ASSERT_EQ(*a[i], expect[i]);
    ASSERT_EQ(*b[i], expect[i]);
  }
}

// A stable sort of move-only (key, index) pairs checks that the buffer's objects are moved,
// not copied, and keep their order.
TEST(ParallelStableSort, MoveOnlyKeepsOrder) {
  std::mt19937 rng(6);
  const auto n = static_cast<std::size_t>(scaled(100'000, 30'000));
  std::vector<std::pair<int, std::unique_ptr<std::size_t>>> v;
  for (std::size_t i = 0; i < n; ++i) v.emplace_back(static_cast<int>(rng() % 50), std::make_unique<std::size_t>(i));
  forkjoin::pool p(3);
  p.run([&] {
    forkjoin::parallel_stable_sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  });
  for (std::size_t i = 1; i < n; ++i) {
    ASSERT_LE(v[i - 1].first, v[i].first);
    if (v[i - 1].first == v[i].first) {
      ASSERT_LT(*v[i - 1].second, *v[i].second);
    }
  }
}

struct comparator_error : std::runtime_error {
  comparator_error() : std::runtime_error("comparator") {}
};

TEST(ParallelSort, ThrowingComparatorRethrowsAndKeepsAPermutation) {
  std::mt19937 rng(7);
  const auto n = static_cast<std::size_t>(scaled(100'000, 50'000));
  forkjoin::pool p(4);
  for (int round = 0; round < 4; ++round) {
    auto v = make_input(n, 0, rng);
    auto sorted_input = v;
    std::sort(sorted_input.begin(), sorted_input.end());
    std::atomic<long> calls{0};
    const long limit = static_cast<long>(rng() % (n * 10));
    auto comp = [&](int a, int b) {
      if (calls.fetch_add(1, std::memory_order_relaxed) == limit) throw comparator_error();
      return a < b;
    };
    EXPECT_THROW(p.run([&] { forkjoin::parallel_sort(v.begin(), v.end(), comp); }), comparator_error);
    std::sort(v.begin(), v.end());
    EXPECT_EQ(v, sorted_input) << "not a permutation after the exception";
    auto w = make_input(n, 0, rng);
    calls = 0;
    EXPECT_THROW(p.run([&] { forkjoin::parallel_stable_sort(w.begin(), w.end(), comp); }), comparator_error);
  }
}

// Every answer of this comparator is random: no order, but no access out of bounds either
// (ASan checks that in its build; here the elements must still be a permutation).
TEST(ParallelSort, NotAStrictWeakOrderingStaysInBounds) {
  std::mt19937 rng(8);
  const auto n = static_cast<std::size_t>(scaled(100'000, 20'000));
  forkjoin::pool p(2);
  for (int answer = 0; answer < 3; ++answer) {
    auto v = make_input(n, 0, rng);
    auto ms = v;
    std::sort(ms.begin(), ms.end());
    std::atomic<std::uint32_t> state{12345};
    auto comp = [&](int, int) {
      if (answer == 0) return true;
      if (answer == 1) return false;
      return (state.fetch_add(0x9e3779b9u, std::memory_order_relaxed) >> 31) != 0;
    };
    auto w = v;
    p.run([&] {
      forkjoin::parallel_sort(v.begin(), v.end(), comp);
      forkjoin::parallel_stable_sort(w.begin(), w.end(), comp);
    });
    std::sort(v.begin(), v.end());
    EXPECT_EQ(v, ms) << "answer kind " << answer;
    std::sort(w.begin(), w.end());
    EXPECT_EQ(w, ms) << "stable, answer kind " << answer;
  }
}

TEST(ParallelSort, NestedInsideParallelFor) {
  std::mt19937 rng(9);
  std::vector<std::vector<int>> rows(16);
  for (auto& r : rows) r = make_input(static_cast<std::size_t>(scaled(40'000, 10'000)), 0, rng);
  auto expect = rows;
  for (auto& r : expect) std::sort(r.begin(), r.end());
  forkjoin::pool p(4);
  p.run([&] {
    forkjoin::parallel_for(std::size_t{0}, rows.size(), [&](std::size_t i) {
      if (i % 2 == 0) {
        forkjoin::parallel_sort(rows[i].begin(), rows[i].end());
      } else {
        forkjoin::parallel_stable_sort(rows[i].begin(), rows[i].end());
      }
    });
  });
  EXPECT_EQ(rows, expect);
}

// Many equal keys: the partition that drops the run equal to the left pivot keeps this
// O(n log distinct); a quadratic sort would not finish within the test's timeout.
TEST(ParallelSort, AllEqualAndOrganPipe) {
  const auto n = static_cast<std::size_t>(scaled(100'000, 50'000));
  std::vector<int> v(n, 7);
  forkjoin::pool p(2);
  p.run([&] { forkjoin::parallel_sort(v.begin(), v.end()); });
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](int x) { return x == 7; }));
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<int>(i < n / 2 ? i : n - i);
  auto expect = v;
  std::sort(expect.begin(), expect.end());
  p.run([&] { forkjoin::parallel_sort(v.begin(), v.end()); });
  EXPECT_EQ(v, expect);
}

}  // namespace
