// test_tbb_outside.cpp: tasks spawned by threads outside every arena (task_group::run from
// main or from threads of the program's own): the spawning thread's wait runs its newest task
// first, the workers may still take the older ones, and every task runs exactly once, also
// when several outside threads spawn at once, when a spawning thread ends without waiting,
// and when the spawner then enters an isolated region. Built twice: against libforkjoin-tbb
// and against native libtbb (_native).
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using std::chrono::steady_clock;

// A pool of one thread: no worker takes anything, so the order is the waiting thread's own.
TEST(OutsideSpawn, WaitRunsNewestFirst) {
  const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  constexpr int k_tasks = 8;
  std::mutex m;
  std::vector<int> order;
  tbb::task_group tg;
  for (int i = 0; i < k_tasks; ++i)
    tg.run([&, i] {
      const std::lock_guard<std::mutex> lock(m);
      order.push_back(i);
    });
  tg.wait();
  ASSERT_EQ(order.size(), static_cast<std::size_t>(k_tasks));
  for (int i = 0; i < k_tasks; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], k_tasks - 1 - i) << "position " << i;
}

// A long loop in the older task, whose bodies wait for the newer task to start: the waiting
// thread must run the newer one rather than join the loop. Each body waits at most until a
// shared deadline, so a wrong order fails instead of hanging.
TEST(OutsideSpawn, NewerTaskRunsBesideLongLoop) {
  const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
  for (int round = 0; round < 20; ++round) {
    std::atomic<bool> ready{false};
    std::atomic<bool> timed_out{false};
    constexpr std::size_t k_n = 256;
    std::vector<std::atomic<int>> hits(k_n);
    const auto deadline = steady_clock::now() + std::chrono::seconds(5);
    tbb::task_group tg;
    tg.run([&] {
      tbb::parallel_for(std::size_t{0}, k_n, [&](std::size_t i) {
        hits[i].fetch_add(1, std::memory_order_relaxed);
        while (!ready.load(std::memory_order_acquire) && !timed_out.load(std::memory_order_relaxed)) {
          if (steady_clock::now() > deadline) timed_out.store(true, std::memory_order_relaxed);
          std::this_thread::yield();
        }
      });
    });
    tg.run([&] { ready.store(true, std::memory_order_release); });
    tg.wait();
    ASSERT_FALSE(timed_out.load()) << "round " << round << ": the newer task did not start beside the loop";
    for (std::size_t i = 0; i < k_n; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i;
  }
}

// Several outside threads spawn into one group at once and end without waiting; the group's
// owner waits for all of them.
void spawn_from_threads_and_leave(int parallelism) {
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(parallelism));
  constexpr int k_threads = 4;
  constexpr int k_per_thread = 2000;
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(k_threads * k_per_thread));
  tbb::task_group tg;
  {
    std::vector<std::thread> spawners;
    for (int t = 0; t < k_threads; ++t)
      spawners.emplace_back([&, t] {
        for (int i = 0; i < k_per_thread; ++i)
          tg.run([&hits, k = t * k_per_thread + i] { hits[static_cast<std::size_t>(k)].fetch_add(1); });
      });
    for (std::thread& s : spawners) s.join();
  }
  tg.wait();
  for (std::size_t k = 0; k < hits.size(); ++k) ASSERT_EQ(hits[k].load(), 1) << "task " << k;
}

TEST(OutsideSpawn, ThreadsSpawnAndLeave) { spawn_from_threads_and_leave(2); }

// Several outside threads, each with a group of its own, spawn and wait at once.
TEST(OutsideSpawn, ThreadsSpawnAndWaitAtOnce) {
  constexpr int k_threads = 4;
  constexpr int k_per_thread = 500;
  for (int round = 0; round < 10; ++round) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(k_threads * k_per_thread));
    std::vector<std::thread> threads;
    for (int t = 0; t < k_threads; ++t)
      threads.emplace_back([&, t] {
        tbb::task_group tg;
        for (int i = 0; i < k_per_thread; ++i)
          tg.run([&hits, k = t * k_per_thread + i] { hits[static_cast<std::size_t>(k)].fetch_add(1); });
        tg.wait();
        for (int i = 0; i < k_per_thread; ++i)
          EXPECT_EQ(hits[static_cast<std::size_t>(t * k_per_thread + i)].load(), 1);
      });
    for (std::thread& t : threads) t.join();
  }
}

// A task spawned before an isolated region is not run inside it (one thread: no worker may
// take it meanwhile); the wait after the region runs it.
TEST(OutsideSpawn, IsolatedRegionLeavesEarlierSpawn) {
  const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  std::atomic<bool> outer_ran{false};
  bool seen_inside = true;
  tbb::task_group tg;
  tg.run([&] { outer_ran.store(true); });
  tbb::this_task_arena::isolate([&] {
    tbb::task_group inner;
    inner.run([&] { seen_inside = outer_ran.load(); });
    inner.wait();
  });
  EXPECT_FALSE(seen_inside);
  tg.wait();
  EXPECT_TRUE(outer_ran.load());
}

}  // namespace

// Two outside threads wait at once, with one thread allowed (no worker anywhere): each one's
// task runs on that thread, at slot index 0 (oneTBB gives each outside thread an implicit
// arena of its own; here each works in a slot of its own, [P-SLOT X1]). While A's task
// spins without helping, B's task must still run, on B.
TEST(OutsideThreads, TwoWaitersWorkAtOnceOnTheirOwnThreads) {
  const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  for (int round = 0; round < 10; ++round) {
    std::atomic<bool> a_spinning{false}, b_ran{false};
    bool a_saw_b = false;
    int a_index = -1, b_index = -1;
    std::thread::id b_runner;
    std::thread a([&] {
      tbb::task_group tg;
      tg.run([&] {
        a_index = tbb::this_task_arena::current_thread_index();
        a_spinning = true;
        const auto deadline = steady_clock::now() + std::chrono::seconds(10);
        while (!b_ran && steady_clock::now() < deadline) std::this_thread::yield();
        a_saw_b = b_ran;
      });
      tg.wait();
    });
    while (!a_spinning) std::this_thread::yield();
    tbb::task_group tg;
    tg.run([&] {
      b_index = tbb::this_task_arena::current_thread_index();
      b_runner = std::this_thread::get_id();
      b_ran = true;
    });
    tg.wait();
    a.join();
    ASSERT_TRUE(a_saw_b) << "round " << round;
    EXPECT_EQ(b_runner, std::this_thread::get_id());
    EXPECT_EQ(a_index, 0);
    EXPECT_EQ(b_index, 0);
  }
}
