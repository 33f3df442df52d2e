// test_tbb_nested.cpp: threads that go from one arena into another while every thread of the
// first is busy: a task enqueued inside a nested arena runs in that arena's wait, threads
// waiting for another arena's slot do not take their own arena's threads with them, and
// the helpers of a collaborative_call_once run the winner's work ([P-TBB Arena]). Built
// against native libtbb too (_native).
#include <oneapi/tbb/collaborative_call_once.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <thread>

namespace {

// Every one of n threads waits here until all n have arrived (spinning, helping nobody), so
// a loop of n iterations that meets here has its iterations on n distinct threads at once.
class spin_barrier {
 public:
  explicit spin_barrier(std::size_t n) : n_(n) {}
  void wait() {
    const std::size_t round = round_.load(std::memory_order_acquire);  // pairs with the last arrival's release
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {  // orders each arrival before the release
      arrived_.store(0, std::memory_order_relaxed);                    // relaxed: the release below publishes it
      round_.fetch_add(1, std::memory_order_release);                  // pairs with the waiters' acquire loads
      return;
    }
    while (round_.load(std::memory_order_acquire) == round) std::this_thread::yield();  // pairs with the release
  }

 private:
  const std::size_t n_;
  std::atomic<std::size_t> arrived_{0};
  std::atomic<std::size_t> round_{0};
};

std::size_t implicit_threads() { return static_cast<std::size_t>(tbb::this_task_arena::max_concurrency()); }

// Every thread of the implicit arena, inside a task, enters an arena of its own and waits there
// for a task it enqueued into it. oneTBB's wait in an arena it entered runs that arena's
// enqueued tasks; with every thread waiting so, nobody else is left to run them.
TEST(TbbNested, EnqueuedInsideANestedArenaRunsInItsWait) {
  const std::size_t n = implicit_threads();
  spin_barrier barrier(n);
  std::atomic<std::size_t> ran{0};
  tbb::parallel_for(
      std::size_t{0}, n,
      [&](std::size_t) {
        barrier.wait();
        tbb::task_arena nested;
        nested.execute([&] {
          tbb::detail::d1::wait_context done{1};
          tbb::task_group_context ctx;
          tbb::this_task_arena::enqueue([&] {
            ran.fetch_add(1, std::memory_order_relaxed);  // relaxed: the wait's release orders it
            done.release();
          });
          tbb::detail::d1::wait(done, ctx);
        });
      },
      tbb::simple_partitioner{});
  EXPECT_EQ(ran.load(), n);
}

// Every thread of the implicit arena, inside a task, waits to enter a one-slot arena, whose
// slot another thread holds while it, in turn, runs a functor in an arena of the implicit
// arena's size. Nobody of the implicit arena is left to run that functor unless the threads
// that wait for the slot are replaced while they wait.
TEST(TbbNested, WaitingForAnArenaSlotLeavesTheArenaItsThreads) {
  const std::size_t n = implicit_threads();
  tbb::task_arena single(1, 1);
  tbb::task_arena wide;  // the implicit arena's concurrency
  single.initialize();
  wide.initialize();
  std::atomic<bool> holder_in{false}, loop_full{false}, functor_ran{false};
  std::thread holder([&] {
    single.execute([&] {
      holder_in.store(true, std::memory_order_release);                              // pairs with the loop's acquire
      while (!loop_full.load(std::memory_order_acquire)) std::this_thread::yield();  // pairs with the release
      wide.execute([&] { functor_ran.store(true, std::memory_order_relaxed); });     // relaxed: join orders it
    });
  });
  spin_barrier barrier(n);
  std::atomic<std::size_t> arrived{0}, entered{0};
  tbb::parallel_for(
      std::size_t{0}, n,
      [&](std::size_t) {
        barrier.wait();
        while (!holder_in.load(std::memory_order_acquire)) std::this_thread::yield();  // pairs with the release
        if (arrived.fetch_add(1, std::memory_order_relaxed) + 1 == n)              // relaxed: only the count matters
          loop_full.store(true, std::memory_order_release);                        // pairs with the holder's acquire
        single.execute([&] { entered.fetch_add(1, std::memory_order_relaxed); });  // relaxed: the loop's end orders it
      },
      tbb::simple_partitioner{});
  holder.join();
  EXPECT_TRUE(functor_ran.load());
  EXPECT_EQ(entered.load(), n);
}

// oneTBB's multiple-help case: every thread of the implicit arena calls the same
// collaborative_call_once; the winner's function runs a loop whose iterations meet at a
// barrier of every thread, so the helpers waiting for the call must run its iterations,
// and the helpers, parked before the loop starts, must be woken by its spawns.
TEST(TbbNested, CollaborativeCallOnceHelpersRunTheWinnersLoop) {
  const std::size_t n = implicit_threads();
  for (int round = 0; round < 20; ++round) {
    spin_barrier barrier(n);
    tbb::collaborative_once_flag flag;
    std::atomic<std::size_t> calls{0}, iterations{0};
    tbb::parallel_for(
        std::size_t{0}, n,
        [&](std::size_t) {
          barrier.wait();
          tbb::collaborative_call_once(flag, [&] {
            calls.fetch_add(1, std::memory_order_relaxed);  // relaxed: the loop's end orders it
            // the helpers have found nothing to run and parked by now: the loop's spawns wake them
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            tbb::parallel_for(
                std::size_t{0}, n,
                [&](std::size_t) {
                  barrier.wait();
                  iterations.fetch_add(1, std::memory_order_relaxed);  // relaxed: the loop's end orders it
                },
                tbb::simple_partitioner{});
          });
        },
        tbb::simple_partitioner{});
    ASSERT_EQ(calls.load(), 1u);
    ASSERT_EQ(iterations.load(), n);
  }
}

}  // namespace
