// test_tbb_mandatory.cpp: an arena without workers (task_arena(1), task_arena(1, 1)) runs
// enqueued tasks although no thread waits in it: the library lends it a thread ([P-TBB
// Arena] A12). Built against native libtbb too (_native).
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;

// Spins until pred holds or 20 s pass; false on the deadline (a hang becomes a failure).
template <class Pred>
bool eventually(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(TbbMandatory, EnqueuedTasksRunInAnArenaWithoutWorkers) {
  for (const unsigned reserved : {0u, 1u}) {
    tbb::task_arena a(1, reserved);
    a.initialize();
    constexpr int k_tasks = 100;
    std::atomic<int> ran{0};
    std::atomic<int> concurrency_seen{0};
    std::atomic<int> inside{0};
    std::atomic<bool> overlapped{false};
    for (int i = 0; i < k_tasks; ++i)
      a.enqueue([&] {
        if (inside.fetch_add(1) != 0) overlapped = true;  // the arena has one slot for them
        concurrency_seen = tbb::this_task_arena::max_concurrency();
        inside.fetch_sub(1);
        ran.fetch_add(1);
      });
    ASSERT_TRUE(eventually([&] { return ran.load() == k_tasks; }))
        << "reserved " << reserved << ": " << ran.load() << " of " << k_tasks << " ran";
    EXPECT_FALSE(overlapped.load());
    // oneTBB's answers: the worker fills the one slot, or is a worker beside the reserved one
    EXPECT_EQ(concurrency_seen.load(), reserved == 0 ? 1 : 2);
    std::this_thread::sleep_for(10ms);
    EXPECT_EQ(ran.load(), k_tasks);  // each exactly once
    a.terminate();
  }
}

// Enqueues from several threads, spread out so that some arrive while the lent thread is
// about to leave: every task runs exactly once. The gaps are short spins of varying length,
// not yields: beside busy processes each yield may cost a whole time slice.
TEST(TbbMandatory, EnqueuesFromManyThreadsAllRun) {
  tbb::task_arena a(1, 1);
  a.initialize();
  constexpr int k_threads = 4, k_per_thread = 2000;
  std::atomic<int> ran{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t)
    threads.emplace_back([&a, &ran, t] {
      std::atomic<unsigned> gap{0};
      for (int i = 0; i < k_per_thread; ++i) {
        a.enqueue([&ran] { ran.fetch_add(1); });
        for (int spin = ((i * 7 + t) % 64) * 64; spin > 0; --spin) gap.fetch_add(1, std::memory_order_relaxed);
      }
    });
  for (std::thread& th : threads) th.join();
  ASSERT_TRUE(eventually([&] { return ran.load() == k_threads * k_per_thread; })) << ran.load() << " ran";
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(ran.load(), k_threads * k_per_thread);
}

// The arena's own thread may be inside execute meanwhile: the task runs once it leaves.
TEST(TbbMandatory, EnqueueBeforeExecuteRunsOnce) {
  tbb::task_arena a(1, 1);
  a.initialize();
  std::atomic<int> ran{0};
  a.enqueue([&] { ran.fetch_add(1); });
  a.execute([] { std::this_thread::sleep_for(1ms); });
  ASSERT_TRUE(eventually([&] { return ran.load() == 1; }));
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(ran.load(), 1);
}

// The arena's only thread waits inside execute for a task it enqueued there: the lent thread
// runs it beside that thread, as oneTBB's mandatory worker does in the arena's second slot.
// Inside the task the arena counts that thread (max_concurrency() 2), and the arena's
// observers see a worker leave once the work is done. Before the lent thread worked beside
// the one inside, it waited for that thread to leave: a hang.
TEST(TbbMandatory, EnqueuedTaskRunsWhileTheOnlyThreadWaitsInExecute) {
  struct exit_counter : tbb::task_scheduler_observer {
    std::atomic<int> worker_exits{0};
    explicit exit_counter(tbb::task_arena& arena) : tbb::task_scheduler_observer(arena) { observe(true); }
    ~exit_counter() override { observe(false); }
    void on_scheduler_exit(bool worker) override {
      if (worker) worker_exits.fetch_add(1);
    }
  };
  tbb::task_arena a(1);
  a.initialize();
  exit_counter exits(a);
  for (int round = 0; round < 5; ++round) {
    std::atomic<bool> ran{false};
    int seen = 0, arena_seen = 0;
    bool ok = false;
    a.execute([&] {
      a.enqueue([&] {
        seen = tbb::this_task_arena::max_concurrency();
        arena_seen = a.max_concurrency();
        ran = true;
      });
      ok = eventually([&] { return ran.load(); });
    });
    ASSERT_TRUE(ok) << "round " << round << ": the enqueued task never ran";
    EXPECT_EQ(seen, 2);
    EXPECT_EQ(arena_seen, 2);
    EXPECT_TRUE(eventually([&] { return exits.worker_exits.load() >= round + 1; })) << "round " << round;
  }
}

}  // namespace
