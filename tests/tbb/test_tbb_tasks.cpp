// test_tbb_tasks.cpp: oneTBB's task algorithms on libforkjoin-tbb ([P-TBB Task], [P-TBB
// Wait], [P-TBB Cancel]): every index exactly once, reductions against serial sums, task
// groups nested, exceptions (the thrown type and message come back; nothing hangs),
// cancellation. Built twice: against libforkjoin-tbb and against native libtbb (_native).
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/blocked_range2d.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_for_each.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_scan.h>
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/task_group.h>
#include <oneapi/tbb/version.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t k_n = 100000;

template <class Partitioner>
void check_each_index_once(Partitioner&& part, std::size_t grain) {
  std::vector<std::atomic<int>> hits(k_n);
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, k_n, grain),
      [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) hits[i].fetch_add(1, std::memory_order_relaxed);
      },
      part);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < k_n; ++i) bad += hits[i].load() != 1;
  EXPECT_EQ(bad, 0u);
}

TEST(TbbRuntime, IsTheOneLinked) {
  const std::string version = TBB_runtime_version();
#if FORKJOIN_TBB_NATIVE
  EXPECT_EQ(version.find("libforkjoin-tbb"), std::string::npos) << version;
#else
  EXPECT_NE(version.find("libforkjoin-tbb"), std::string::npos) << version;
#endif
  EXPECT_EQ(TBB_runtime_interface_version(), TBB_INTERFACE_VERSION);
}

TEST(TbbParallelFor, EveryIndexOnceForEachPartitioner) {
  check_each_index_once(tbb::auto_partitioner(), 1);
  check_each_index_once(tbb::simple_partitioner(), 7);
  check_each_index_once(tbb::static_partitioner(), 1);
  tbb::affinity_partitioner ap;
  for (int round = 0; round < 3; ++round) check_each_index_once(ap, 1);
}

TEST(TbbParallelFor, IndexFormAndEmptyRange) {
  std::vector<std::atomic<int>> hits(1000);
  tbb::parallel_for(0, 1000, [&](int i) { hits[static_cast<std::size_t>(i)].fetch_add(1); });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  int calls = 0;
  tbb::parallel_for(5, 5, [&](int) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(TbbParallelFor, TwoDimensional) {
  constexpr int k_rows = 300, k_cols = 200;
  std::vector<std::atomic<int>> hits(k_rows * k_cols);
  tbb::parallel_for(tbb::blocked_range2d<int>(0, k_rows, 0, k_cols), [&](const tbb::blocked_range2d<int>& r) {
    for (int i = r.rows().begin(); i != r.rows().end(); ++i)
      for (int j = r.cols().begin(); j != r.cols().end(); ++j) hits[static_cast<std::size_t>(i * k_cols + j)]++;
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(TbbParallelFor, NestedLoopsCoverTheProduct) {
  constexpr int k_outer = 64, k_inner = 500;
  std::vector<std::atomic<int>> hits(k_outer * k_inner);
  tbb::parallel_for(0, k_outer, [&](int i) {
    tbb::parallel_for(0, k_inner, [&](int j) { hits[static_cast<std::size_t>(i * k_inner + j)]++; });
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(TbbParallelReduce, SumMatchesSerial) {
  std::vector<std::uint64_t> v(k_n);
  std::iota(v.begin(), v.end(), 1);
  const std::uint64_t serial = std::accumulate(v.begin(), v.end(), std::uint64_t{0});
  const std::uint64_t sum = tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, v.size()), std::uint64_t{0},
      [&](const tbb::blocked_range<std::size_t>& r, std::uint64_t acc) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) acc += v[i];
        return acc;
      },
      std::plus<>());
  EXPECT_EQ(sum, serial);
}

TEST(TbbParallelReduce, DeterministicFloatSumIsRepeatable) {
  std::vector<double> v(k_n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (double& x : v) x = d(rng);
  auto run = [&] {
    return tbb::parallel_deterministic_reduce(
        tbb::blocked_range<std::size_t>(0, v.size(), 1000), 0.0,
        [&](const tbb::blocked_range<std::size_t>& r, double acc) {
          for (std::size_t i = r.begin(); i != r.end(); ++i) acc += v[i];
          return acc;
        },
        std::plus<>());
  };
  const double first = run();
  for (int i = 0; i < 5; ++i) {
    const double again = run();
    EXPECT_EQ(std::memcmp(&first, &again, sizeof(double)), 0);
  }
  EXPECT_NEAR(first, std::accumulate(v.begin(), v.end(), 0.0), 1e-9);
}

// The imperative form (Body with splitting constructor and join).
struct sum_body {
  const std::vector<int>* v;
  long long sum = 0;
  explicit sum_body(const std::vector<int>& x) : v(&x) {}
  sum_body(sum_body& other, tbb::split) : v(other.v) {}
  void operator()(const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) sum += (*v)[i];
  }
  void join(const sum_body& rhs) { sum += rhs.sum; }
};

TEST(TbbParallelReduce, BodyFormWithJoin) {
  std::vector<int> v(k_n, 3);
  sum_body body(v);
  tbb::parallel_reduce(tbb::blocked_range<std::size_t>(0, v.size()), body);
  EXPECT_EQ(body.sum, 3LL * static_cast<long long>(k_n));
}

TEST(TbbParallelInvoke, RunsEveryFunction) {
  std::atomic<int> mask{0};
  tbb::parallel_invoke([&] { mask |= 1; }, [&] { mask |= 2; });
  tbb::parallel_invoke([&] { mask |= 4; }, [&] { mask |= 8; }, [&] { mask |= 16; }, [&] { mask |= 32; },
                       [&] { mask |= 64; });
  EXPECT_EQ(mask.load(), 127);
}

long long fib(int n) {
  if (n < 2) return n;
  long long a = 0, b = 0;
  tbb::task_group g;
  g.run([&] { a = fib(n - 1); });
  g.run([&] { b = fib(n - 2); });
  g.wait();
  return a + b;
}

TEST(TbbTaskGroup, NestedRunAndWait) { EXPECT_EQ(fib(22), 17711); }

TEST(TbbTaskGroup, ManyChildrenAndReuse) {
  tbb::task_group g;
  for (int round = 0; round < 3; ++round) {
    std::atomic<int> count{0};
    for (int i = 0; i < 10000; ++i) g.run([&] { count.fetch_add(1, std::memory_order_relaxed); });
    EXPECT_EQ(g.wait(), tbb::task_group_status::complete);
    EXPECT_EQ(count.load(), 10000);
  }
}

TEST(TbbTaskGroup, RunAndWait) {
  tbb::task_group g;
  int x = 0;
  EXPECT_EQ(g.run_and_wait([&] { x = 42; }), tbb::task_group_status::complete);
  EXPECT_EQ(x, 42);
}

struct custom_error {
  int code;
};

TEST(TbbExceptions, TaskGroupRethrowsTheExceptionOfItsChild) {
  tbb::task_group g;
  std::atomic<int> ran{0};
  for (int i = 0; i < 100; ++i) g.run([&] { ran++; });
  g.run([] { throw std::runtime_error("child failed"); });
  try {
    g.wait();
    FAIL() << "wait() returned normally";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "child failed");
  }
  // The group is reusable after the exception.
  std::atomic<int> after{0};
  g.run([&] { after++; });
  EXPECT_EQ(g.wait(), tbb::task_group_status::complete);
  EXPECT_EQ(after.load(), 1);
}

TEST(TbbExceptions, NonStandardExceptionTypeSurvives) {
  tbb::task_group g;
  g.run([] { throw custom_error{17}; });
  try {
    g.wait();
    FAIL() << "wait() returned normally";
  } catch (const custom_error& e) {
    EXPECT_EQ(e.code, 17);
  }
}

TEST(TbbExceptions, ParallelForBodyThrowsOneOfTheExceptions) {
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> thrown{0};
    try {
      tbb::parallel_for(0, 10000, [&](int i) {
        if (i % 1000 == 999) {
          thrown++;
          throw std::out_of_range("index " + std::to_string(i));
        }
      });
      FAIL() << "parallel_for returned normally";
    } catch (const std::out_of_range& e) {
      EXPECT_EQ(std::string(e.what()).rfind("index ", 0), 0u) << e.what();
      EXPECT_GE(thrown.load(), 1);
    }
  }
}

TEST(TbbExceptions, NestedAlgorithmExceptionReachesTheOuterCaller) {
  try {
    tbb::parallel_for(0, 16, [](int i) {
      tbb::parallel_reduce(
          tbb::blocked_range<int>(0, 1000), 0,
          [i](const tbb::blocked_range<int>& r, int acc) {
            if (i == 5 && r.begin() <= 500 && 500 < r.end()) throw std::logic_error("inner");
            return acc + static_cast<int>(r.size());
          },
          std::plus<>());
    });
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "inner");
  }
}

TEST(TbbExceptions, ParallelInvokeBranchThrows) {
  std::atomic<int> others{0};
  EXPECT_THROW(tbb::parallel_invoke([&] { others++; }, [] { throw std::domain_error("b"); }, [&] { others++; }),
               std::domain_error);
  EXPECT_LE(others.load(), 2);
}

TEST(TbbCancellation, CancelledGroupSkipsUnstartedChildren) {
  tbb::task_group g;
  std::atomic<int> ran{0};
  std::atomic<bool> go{false};
  g.run([&] {
    while (!go.load()) std::this_thread::yield();
  });
  g.cancel();
  for (int i = 0; i < 1000; ++i) g.run([&] { ran++; });
  go.store(true);
  EXPECT_EQ(g.wait(), tbb::task_group_status::canceled);
  EXPECT_LT(ran.load(), 1000);
}

TEST(TbbCancellation, BodyCancelsItsOwnLoop) {
  std::atomic<long> done{0};
  tbb::task_group_context ctx;
  tbb::parallel_for(
      tbb::blocked_range<int>(0, 1 << 20, 16),
      [&](const tbb::blocked_range<int>& r) {
        done += static_cast<long>(r.size());
        if (r.begin() == 0) ctx.cancel_group_execution();
      },
      tbb::simple_partitioner(), ctx);
  EXPECT_TRUE(ctx.is_group_execution_cancelled());
  EXPECT_LT(done.load(), 1L << 20);
}

TEST(TbbCancellation, CancellingAnOuterContextStopsABoundInnerLoop) {
  std::atomic<long> inner_iterations{0};
  tbb::task_group_context outer;
  tbb::parallel_for(
      0, 4,
      [&](int i) {
        if (i == 0) outer.cancel_group_execution();
        tbb::parallel_for(tbb::blocked_range<int>(0, 100000, 10),
                          [&](const tbb::blocked_range<int>& r) { inner_iterations += static_cast<long>(r.size()); });
      },
      tbb::simple_partitioner(), outer);
  EXPECT_TRUE(outer.is_group_execution_cancelled());
  EXPECT_LT(inner_iterations.load(), 4L * 100000);
}

TEST(TbbCancellation, IsolatedContextIgnoresTheOuterCancellation) {
  std::atomic<long> inner{0};
  tbb::task_group_context outer;
  tbb::parallel_for(
      0, 1,
      [&](int) {
        outer.cancel_group_execution();
        tbb::task_group_context own(tbb::task_group_context::isolated);
        tbb::parallel_for(
            tbb::blocked_range<int>(0, 1000),
            [&](const tbb::blocked_range<int>& r) { inner += static_cast<long>(r.size()); }, tbb::auto_partitioner(),
            own);
      },
      tbb::simple_partitioner(), outer);
  EXPECT_EQ(inner.load(), 1000);
}

TEST(TbbAlgorithms, ParallelSortMatchesStdSort) {
  std::vector<int> v(200000);
  std::mt19937 rng(3);
  for (int& x : v) x = static_cast<int>(rng());
  std::vector<int> expected = v;
  std::sort(expected.begin(), expected.end());
  tbb::parallel_sort(v.begin(), v.end());
  EXPECT_EQ(v, expected);
}

TEST(TbbAlgorithms, ParallelScanPrefixSums) {
  std::vector<long> in(50000, 2), out(in.size());
  tbb::parallel_scan(
      tbb::blocked_range<std::size_t>(0, in.size()), 0L,
      [&](const tbb::blocked_range<std::size_t>& r, long sum, bool final) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          sum += in[i];
          if (final) out[i] = sum;
        }
        return sum;
      },
      std::plus<>());
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], 2L * static_cast<long>(i + 1));
}

TEST(TbbAlgorithms, ParallelForEachWithFeeder) {
  std::vector<int> roots{1, 2, 3};
  std::atomic<int> visited{0};
  tbb::parallel_for_each(roots.begin(), roots.end(), [&](int x, tbb::feeder<int>& feeder) {
    visited++;
    if (x < 200) feeder.add(x * 2 + 10);
  });
  int expected = 0;
  for (int r : roots)
    for (int x = r;; x = x * 2 + 10) {
      ++expected;
      if (x >= 200) break;
    }
  EXPECT_EQ(visited.load(), expected);
}

}  // namespace
