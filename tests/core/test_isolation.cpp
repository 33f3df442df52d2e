// Isolated regions as the protocol defines them, step by step: the own-deque mark and a
// stolen job's adoption of its region. DESIGN.md [P-ISO] (Mark, Wait, Steal, Adopt).
// tests/core/test_waiting.cpp covers what isolate() is for (locks held across waits).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "forkjoin/forkjoin.hpp"

namespace fj = forkjoin;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

namespace {

// Yields until `flag` or the deadline; false on the deadline.
bool wait_for(const std::atomic<bool>& flag, std::chrono::milliseconds limit) {
  const auto end = clock_type::now() + limit;
  while (!flag.load()) {
    if (clock_type::now() > end) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace

// [P-ISO Mark] a region's waits pop their own deque only above the mark: a job the thread
// queued before the region (X, a child of a group created outside it) is outside work, even
// on its own deque. The region waits for X's group; worker 1 is busy at first, so the only
// thread that could run X early is the waiter itself, which must leave it to worker 1.
TEST(IsolateSteps, WaitLeavesJobsQueuedBeforeTheRegionOnItsOwnDeque) {
  fj::pool p(2);
  std::atomic<bool> blocker_started{false}, release_blocker{false}, x_ran{false}, x_ran_inside{false};
  std::atomic<std::thread::id> inside{};  // the thread inside the region
  p.run([&] {
    fj::task_group busy;
    busy.run([&] {
      blocker_started.store(true);
      wait_for(release_blocker, 10s);
    });
    ASSERT_TRUE(wait_for(blocker_started, 10s));  // worker 1 runs the blocker
    fj::task_group g;
    g.run([&] {  // X: on this worker's deque, below the region's mark
      if (inside.load() == std::this_thread::get_id()) x_ran_inside.store(true);
      x_ran.store(true);
    });
    std::thread releaser([&] {
      std::this_thread::sleep_for(50ms);  // the region's wait looks for work meanwhile
      release_blocker.store(true);
    });
    fj::isolate([&] {
      inside.store(std::this_thread::get_id());
      g.wait();
      inside.store(std::thread::id{});
    });
    releaser.join();
    busy.wait();
  });
  EXPECT_TRUE(x_ran.load());
  EXPECT_FALSE(x_ran_inside.load()) << "the isolated wait ran a job queued before its region";
}

// [P-ISO Adopt] a thief runs a stolen job under the job's region: J, stolen from the region
// by worker 1, spawns K there with the region's tag, so the region's isolated waiter (worker
// 0) may take K ([P-ISO Steal] takes only its own tag), and J's own wait is isolated: it
// leaves alone a job submitted from outside meanwhile.
TEST(IsolateSteps, StolenJobRunsInTheRegionItCameFrom) {
  fj::pool_options o;
  o.num_threads = 2;
  // the region's waiter keeps sweeping (an isolated waiter that parks sleeps on its latch
  // only and would not see K)
  o.spin_time = 300ms;
  o.max_outside_threads = 1;  // O is injected ([P-SLOT] D1), not run on its caller's thread
  fj::pool p(o);
  std::atomic<bool> j_started{false}, k_started{false}, release_k{false}, outside_ran{false};
  std::atomic<bool> outside_ran_in_j{false};
  std::atomic<std::thread::id> region_thread{}, k_thread{}, j_waiting{};
  std::thread submitter([&] {
    if (!wait_for(k_started, 10s)) return;
    std::thread releaser([&] {
      std::this_thread::sleep_for(50ms);  // J waits for K meanwhile, with O in the injector
      release_k.store(true);
    });
    p.run([&] {  // slot 0 is busy: O is injected and this thread blocks until it ran
      if (j_waiting.load() == std::this_thread::get_id()) outside_ran_in_j.store(true);
      outside_ran.store(true);
    });
    releaser.join();
  });
  p.run([&] {
    fj::isolate([&] {
      region_thread.store(std::this_thread::get_id());
      fj::task_group r;
      r.run([&] {  // J
        j_started.store(true);
        fj::task_group inner;
        inner.run([&] {  // K
          k_thread.store(std::this_thread::get_id());
          k_started.store(true);
          wait_for(release_k, 10s);
        });
        wait_for(k_started, 2s);  // the region's waiter takes K; else J runs it itself
        j_waiting.store(std::this_thread::get_id());
        inner.wait();
        j_waiting.store(std::thread::id{});
      });
      ASSERT_TRUE(wait_for(j_started, 10s));  // worker 1 took J
      r.wait();
    });
  });
  release_k.store(true);
  submitter.join();
  EXPECT_EQ(k_thread.load(), region_thread.load()) << "K did not carry J's region: its waiter could not take it";
  EXPECT_TRUE(outside_ran.load());
  EXPECT_FALSE(outside_ran_in_j.load()) << "J's wait on its thief helped with outside work";
}
