// blocking()'s spare threads: when they leave. DESIGN.md [P-BLOCK] (Spare, Retire).
// tests/core/test_waiting.cpp covers what blocking() is for (sleeping tasks that do not stall
// the pool, the option's bound).
#include <dirent.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

namespace {

using forkjoin::test::count_threads;

double ms_between(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

// [P-BLOCK Retire] a spare leaves as soon as it finds no job of its own while spares exceed
// the blocked workers, even though stealable work keeps coming: worker 1 blocks for 100 ms
// (one spare starts), while worker 0 spawns small children for 900 ms that the spare and,
// afterwards, worker 1 run. The spare is never idle, so only that rule can end it before
// the children stop (its other exit, 100 ms idle, would come 100 ms after them).
TEST(BlockingTiming, SpareLeavesOnceNoWorkerBlocksWhileWorkRemains) {
  fj::pool p(2);
  p.run([] {});  // workers started
  const int baseline = count_threads();
  std::atomic<bool> blocked_started{false};
  std::atomic<clock_type::rep> unblocked_at{0};
  clock_type::time_point production_end, back_at{};
  int most = baseline;
  std::atomic<long> children_run{0};
  long spawned = 0;
  p.run([&] {
    fj::task_group g;
    g.run([&] {  // B: worker 1 steals it (worker 0 never pops while it spawns)
      blocked_started.store(true);
      fj::blocking([] { std::this_thread::sleep_for(100ms); });
      unblocked_at.store(clock_type::now().time_since_epoch().count());
    });
    while (!blocked_started.load()) std::this_thread::yield();
    const auto start = clock_type::now();
    production_end = start + 900ms;
    auto next_look = start;
    while (clock_type::now() < production_end) {
      g.run([&] {  // a child of about 20 us
        const auto until = clock_type::now() + 20us;
        while (clock_type::now() < until) {
        }
        children_run.fetch_add(1, std::memory_order_relaxed);
      });
      ++spawned;
      const auto until = clock_type::now() + 20us;
      while (clock_type::now() < until) {
      }
      if (clock_type::now() >= next_look) {  // the thread count, every 2 ms
        next_look += 2ms;
        const int n = count_threads();
        if (n > most) most = n;
        if (unblocked_at.load() != 0 && back_at == clock_type::time_point{} && n <= baseline)
          back_at = clock_type::now();
      }
    }
    g.wait();
  });
  EXPECT_EQ(children_run.load(), spawned);
  ASSERT_GT(most, baseline) << "no spare thread started";
  ASSERT_NE(unblocked_at.load(), 0);
  const clock_type::time_point unblocked{clock_type::duration(unblocked_at.load())};
  if (back_at == clock_type::time_point{}) {
    ADD_FAILURE() << "the spare stayed while children kept coming (" << spawned << " spawned over 900 ms)";
    return;
  }
  std::printf("spare gone %.1f ms after the blocking call returned; children stopped %.1f ms later\n",
              ms_between(unblocked, back_at), ms_between(back_at, production_end));
  EXPECT_LT(back_at, production_end - 300ms) << "the spare left only when the work ran out";
}
