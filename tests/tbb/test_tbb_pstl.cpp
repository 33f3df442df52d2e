// test_tbb_pstl.cpp: C++17 parallel algorithms with std::execution::par, which libstdc++ 12
// runs on oneTBB, checked against their serial results, on libforkjoin-tbb (and on native
// libtbb as a control, _native). Compiled as C++17.
#include <gtest/gtest.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <execution>
#include <numeric>
#include <random>
#include <vector>

namespace {

std::vector<std::int64_t> random_values(std::size_t n, unsigned seed) {
  std::vector<std::int64_t> v(n);
  std::mt19937_64 rng(seed);
  for (auto& x : v) x = static_cast<std::int64_t>(rng() % 1000003) - 500000;
  return v;
}

TEST(TbbPstl, ForEachVisitsEveryElementOnce) {
  std::vector<std::atomic<int>> hits(300000);
  std::vector<std::size_t> index(hits.size());
  std::iota(index.begin(), index.end(), std::size_t{0});
  std::atomic<int> outside_tbb{0};
  std::for_each(std::execution::par, index.begin(), index.end(), [&](std::size_t i) {
    hits[i]++;
    // libstdc++'s TBB backend runs the element function inside a task arena: the proof that
    // par did not fall back to a serial loop.
    if (tbb::this_task_arena::current_thread_index() < 0) outside_tbb++;
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  EXPECT_EQ(outside_tbb.load(), 0);
}

TEST(TbbPstl, ReduceMatchesSerial) {
  const auto v = random_values(1000000, 1);
  const std::int64_t serial = std::accumulate(v.begin(), v.end(), std::int64_t{0});
  EXPECT_EQ(std::reduce(std::execution::par, v.begin(), v.end(), std::int64_t{0}), serial);
  EXPECT_EQ(std::transform_reduce(std::execution::par, v.begin(), v.end(), std::int64_t{0}, std::plus<>(),
                                  [](std::int64_t x) { return x * 2; }),
            2 * serial);
}

TEST(TbbPstl, SortMatchesSerial) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{500000}}) {
    auto v = random_values(n, static_cast<unsigned>(n));
    auto expected = v;
    std::sort(expected.begin(), expected.end());
    std::sort(std::execution::par, v.begin(), v.end());
    EXPECT_EQ(v, expected) << "n = " << n;
  }
}

TEST(TbbPstl, StableSortKeepsEqualKeysInOrder) {
  std::vector<std::pair<int, int>> v(200000);
  std::mt19937 rng(5);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = {static_cast<int>(rng() % 100), static_cast<int>(i)};
  auto expected = v;
  auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::stable_sort(expected.begin(), expected.end(), by_key);
  std::stable_sort(std::execution::par, v.begin(), v.end(), by_key);
  EXPECT_EQ(v, expected);
}

TEST(TbbPstl, TransformAndInclusiveScan) {
  const auto v = random_values(200000, 9);
  std::vector<std::int64_t> out(v.size()), expected(v.size());
  std::transform(std::execution::par, v.begin(), v.end(), out.begin(), [](std::int64_t x) { return x + 1; });
  std::transform(v.begin(), v.end(), expected.begin(), [](std::int64_t x) { return x + 1; });
  EXPECT_EQ(out, expected);
  std::inclusive_scan(std::execution::par, v.begin(), v.end(), out.begin());
  std::inclusive_scan(v.begin(), v.end(), expected.begin());
  EXPECT_EQ(out, expected);
}

}  // namespace
