// test_tbb_threads.cpp: one pool per process. oneTBB work started inside forkjoin's pool runs
// on that pool's workers (and the reverse), so nested loops of either kind never make the
// process hold more threads than the pool's size (counted in /proc/self/task), and a
// forkjoin query inside a TBB task sees the worker it runs on ([P-TBB Link], [P-TBB Arena A1]).
#include <dirent.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

#include "forkjoin/parallel_for.hpp"
#include "forkjoin/pool.hpp"
#include "threads_held.hpp"

namespace {

// The process's main thread and every thread forkjoin started (named "forkjoin*": workers,
// spares, other pools'), from /proc/self/task. Threads of a sanitizer's runtime are left out.
TEST(TbbOnePool, TbbTasksRunOnForkjoinWorkers) {
  std::atomic<int> outside{0}, mismatched{0};
  tbb::parallel_for(0, 1000, [&](int) {
    const int fj = forkjoin::this_worker_index();
    if (fj < 0) outside++;
    if (fj != tbb::this_task_arena::current_thread_index()) mismatched++;
  });
  EXPECT_EQ(outside.load(), 0);
  EXPECT_EQ(mismatched.load(), 0);
  EXPECT_EQ(static_cast<std::size_t>(tbb::this_task_arena::max_concurrency()), forkjoin::default_pool().num_threads());
}

TEST(TbbOnePool, TbbInsideForkjoinAddsNoThreads) {
  const std::size_t pool_size = forkjoin::default_pool().num_threads();
  std::atomic<std::size_t> max_seen{process_threads()};
  constexpr int k_outer = 32, k_inner = 2000;
  std::vector<std::atomic<int>> hits(k_outer * k_inner);
  forkjoin::parallel_for(0, k_outer, [&](int i) {
    tbb::parallel_for(0, k_inner, [&](int j) {
      hits[static_cast<std::size_t>(i * k_inner + j)]++;
      if (j % 256 == 0) note_max(max_seen);
    });
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  EXPECT_LE(max_seen.load(), pool_size) << "threads in the process, pool of " << pool_size;
}

TEST(TbbOnePool, ForkjoinInsideTbbAddsNoThreads) {
  const std::size_t pool_size = forkjoin::default_pool().num_threads();
  std::atomic<std::size_t> max_seen{process_threads()};
  constexpr int k_outer = 32, k_inner = 2000;
  std::vector<std::atomic<int>> hits(k_outer * k_inner);
  tbb::task_group g;
  for (int i = 0; i < k_outer; ++i)
    g.run([&, i] {
      forkjoin::parallel_for(0, k_inner, [&](int j) {
        hits[static_cast<std::size_t>(i * k_inner + j)]++;
        if (j % 256 == 0) note_max(max_seen);
      });
    });
  g.wait();
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  EXPECT_LE(max_seen.load(), pool_size) << "threads in the process, pool of " << pool_size;
}

// [P-TBB Arena A7] arenas that ask for the implicit arena's concurrency or more (OpenCV's
// setNumThreads(8), RcppParallel's arena per call) borrow its pool: 200 of them, each used
// for a loop, add no thread, and every loop still covers each index once.
TEST(TbbOnePool, ArenasOfTheImplicitSizeOrMoreAddNoThreads) {
  const std::size_t pool_size = forkjoin::default_pool().num_threads();
  const int n = static_cast<int>(pool_size);
  std::atomic<std::size_t> max_seen{process_threads()};
  constexpr int k_iterations = 4000;
  for (int round = 0; round < 200; ++round) {
    tbb::task_arena arena(round % 2 == 0 ? n : 4 * n);
    EXPECT_EQ(arena.max_concurrency(), round % 2 == 0 ? n : 4 * n);
    std::vector<std::atomic<int>> hits(k_iterations);
    arena.execute([&] {
      EXPECT_EQ(tbb::this_task_arena::max_concurrency(), arena.max_concurrency());
      tbb::parallel_for(0, k_iterations, [&](int i) {
        hits[static_cast<std::size_t>(i)]++;
        if (i % 1024 == 0) note_max(max_seen);
      });
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  }
  EXPECT_LE(max_seen.load(), pool_size) << "threads in the process, pool of " << pool_size;
}

// [P-TBB Arena A16] smaller arenas, and arenas that reserve more slots, own no threads
// either: the implicit arena's threads are lent to them while they have work. 200 of them,
// each used for a loop, add no thread; every loop covers each index once, inside at most the
// arena's concurrency of slot indices.
TEST(TbbOnePool, SmallerArenasAddNoThreads) {
  const std::size_t pool_size = forkjoin::default_pool().num_threads();
  const int n = static_cast<int>(pool_size);
  std::atomic<std::size_t> max_seen{process_threads()};
  constexpr int k_iterations = 4000;
  for (int round = 0; round < 200; ++round) {
    const int concurrency = 1 + round % std::max(1, n);  // 1..n
    const int reserved = round % 3 == 0 ? concurrency : round % 3 == 1 ? 0 : 1;
    tbb::task_arena arena(concurrency, static_cast<unsigned>(std::min(reserved, concurrency)));
    std::vector<std::atomic<int>> hits(k_iterations);
    std::atomic<int> bad_index{0};
    arena.execute([&] {
      EXPECT_EQ(tbb::this_task_arena::max_concurrency(), arena.max_concurrency());
      tbb::parallel_for(0, k_iterations, [&](int i) {
        hits[static_cast<std::size_t>(i)]++;
        const int slot = tbb::this_task_arena::current_thread_index();
        if (slot < 0 || slot >= std::max(2, concurrency)) bad_index++;
        if (i % 1024 == 0) note_max(max_seen);
      });
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
    EXPECT_EQ(bad_index.load(), 0) << "arena(" << concurrency << ", " << reserved << ")";
  }
  EXPECT_LE(max_seen.load(), pool_size) << "threads in the process, pool of " << pool_size;
}

}  // namespace
