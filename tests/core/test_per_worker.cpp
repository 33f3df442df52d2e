// per_worker<T>: every local() update lands exactly once in combine(); one slot per worker
// (init once per used slot), in worker order; threads outside the bound pool get slots of
// their own; slots on separate cache lines; exceptions from init; nesting.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;

TEST(PerWorker, CombineSeesEveryUpdateOnceEveryThreadCount) {
  const long n = fj::test::scaled(200000, 20000);
  for (std::size_t T = 1; T <= 8; ++T) {
    fj::pool p(T);
    std::atomic<int> inits{0};
    fj::per_worker<long> count([&] {
      inits++;
      return 0L;
    });
    p.run([&] { fj::parallel_for(0L, n, [&](long i) { count.local() += i; }); });
    EXPECT_EQ(count.combine(std::plus<>()), n * (n - 1) / 2) << "T=" << T;
    int slots = 0;
    long sum = 0;
    count.for_each([&](long& v) {
      ++slots;
      sum += v;
    });
    EXPECT_EQ(sum, n * (n - 1) / 2);
    EXPECT_EQ(slots, inits.load());
    EXPECT_GE(slots, 1);
    EXPECT_LE(slots, static_cast<int>(T));
  }
}

TEST(PerWorker, SlotsAreInWorkerOrderAndOnTheirOwnCacheLines) {
  fj::pool p(4);
  fj::per_worker<std::vector<int>> ids;
  std::atomic<std::size_t> started{0};
  std::vector<std::uintptr_t> addresses(4);
  p.run([&] {
    fj::parallel_for(
        0, 4,
        [&](int) {
          started++;  // every worker takes one block: they all wait for each other
          while (started.load() < 4) std::this_thread::yield();
          auto& mine = ids.local();
          mine.push_back(fj::this_worker_index());
          addresses[static_cast<std::size_t>(fj::this_worker_index())] = reinterpret_cast<std::uintptr_t>(&mine);
        },
        fj::schedule::static_());
  });
  auto all = ids.combine([](std::vector<int> a, const std::vector<int>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  });
  EXPECT_EQ(all, (std::vector<int>{0, 1, 2, 3}));
  for (auto a : addresses) EXPECT_EQ(a % fj::detail::k_cache_line, 0u);
}

// Threads outside every pool and the workers of a second pool each get a slot of their own.
TEST(PerWorker, OutsideThreadsAndOtherPoolsGetTheirOwnSlots) {
  fj::pool a(3), b(2);
  fj::per_worker<long> count;
  const long n = fj::test::scaled(50000, 5000);
  std::vector<std::thread> outside;
  for (int t = 0; t < 3; ++t)
    outside.emplace_back([&] {
      for (long i = 0; i < n; ++i) count.local() += 1;
    });
  std::thread in_b([&] { b.run([&] { fj::parallel_for(0L, n, [&](long) { count.local() += 1; }); }); });
  a.run([&] { fj::parallel_for(0L, n, [&](long) { count.local() += 1; }); });
  for (auto& t : outside) t.join();
  in_b.join();
  for (long i = 0; i < 10; ++i) count.local() += 1;  // this thread, outside every pool now
  EXPECT_EQ(count.combine(std::plus<>()), 5 * n + 10);
}

TEST(PerWorker, EmptyCombineReturnsInitValue) {
  fj::per_worker<int> v([] { return 42; });
  EXPECT_EQ(v.combine(std::plus<>()), 42);
  int visits = 0;
  v.for_each([&](int&) { ++visits; });
  EXPECT_EQ(visits, 0);
}

TEST(PerWorker, InitExceptionPropagatesAndCreatesNoSlot) {
  fj::pool p(2);
  std::atomic<bool> fail{true};
  fj::per_worker<int> v([&] {
    if (fail.load()) throw std::runtime_error("init");
    return 1;
  });
  EXPECT_THROW(p.run([&] { v.local(); }), std::runtime_error);
  EXPECT_THROW(v.local(), std::runtime_error);  // outside: overflow path
  int visits = 0;
  v.for_each([&](int&) { ++visits; });
  EXPECT_EQ(visits, 0);
  fail = false;
  EXPECT_EQ(p.run([&] { return v.local(); }), 1);
}

TEST(PerWorker, HistogramNestedInsideOtherCalls) {
  fj::pool p(4);
  using bins = std::vector<long>;
  fj::per_worker<bins> h([] { return bins(16, 0); });
  p.run([&] {
    fj::parallel_for_2d(0, 64, 0, 64, [&](int i, int j) { h.local()[static_cast<std::size_t>((i ^ j) & 15)]++; });
    fj::task_group g;
    for (int t = 0; t < 8; ++t) g.run([&] { h.local()[0] += 1; });
    g.wait();
  });
  const bins total = h.combine([](bins a, const bins& b) {
    for (std::size_t k = 0; k < a.size(); ++k) a[k] += b[k];
    return a;
  });
  for (std::size_t k = 0; k < 16; ++k) EXPECT_EQ(total[k], 256 + (k == 0 ? 8 : 0)) << k;
}

// One object outliving several pools: a later pool may get a destroyed one's address (and
// more workers than the table has); every update still lands once.
TEST(PerWorker, OutlivesPoolsOfEverySize) {
  fj::per_worker<long> count;
  const long n = fj::test::scaled(20000, 2000);
  for (std::size_t T = 1; T <= 8; ++T) {
    fj::pool p(T);
    p.run([&] { fj::parallel_for(0L, n, [&](long) { count.local() += 1; }); });
  }
  EXPECT_EQ(count.combine(std::plus<>()), 8 * n);
}
