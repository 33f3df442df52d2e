// Sleep and wake: no lost wake-ups when every worker is parked, one job wakes no herd,
// idle workers park, and an idle pool burns (almost) no CPU. Suites named *Timing assert
// time bounds and run alone (label "timing", RUN_SERIAL: tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;
using namespace std::chrono_literals;

namespace {
// True once every background worker is blocked on its futex (slot 0 belongs to external
// callers and never parks); false if that did not happen within `deadline`.
bool wait_until_all_parked(const fj::pool& p, std::chrono::milliseconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (p.num_parked() < p.num_threads() - 1) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
  return true;
}

void spin_for(std::chrono::nanoseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}
}  // namespace

// One job injected from outside while every background worker is parked (even rounds), or
// while they are on their way to park (odd rounds: after a random 0-50 us, so the job can
// land just before a worker announces sleep and only its post-announce re-check
// [P-SLEEP ReadJob] finds it). The job must run without the submitter's help, every time.
// The submitter is a helper thread: a lost wake-up shows as a 5 s timeout with the round
// number, not as a hang. At most 10^5 rounds and about 30 s; the rounds run are printed.
TEST(Sleep, NoLostWakeUpWhenAllParked) {
  fj::pool_options o;
  o.num_threads = 3;
  o.spin_time = 5us;  // park quickly so the test reaches the all-parked state often
  o.max_spin_time = 5us;
  o.yield_rounds = 2;
  o.max_outside_threads = 1;  // a second caller's job is injected ([P-SLOT] D1)
  auto owned_pool = std::make_unique<fj::pool>(o);
  fj::pool& p = *owned_pool;
  const auto max_rounds = fj::test::scaled(100000, 100000);
  const auto time_budget = 30s;
  // Keep the external slot busy so that every submitted job is injected.
  auto holder = std::make_unique<fj::test::slot_holder>(p);
  std::atomic<std::int64_t> requested{0}, completed{0};
  std::atomic<bool> quit{false};
  std::thread submitter([&] {
    for (std::int64_t next = 1;; ++next) {
      while (requested.load() < next) {
        if (quit.load()) return;
        std::this_thread::yield();
      }
      p.run([] {});  // slot busy and workers exist: injected, this thread blocks
      completed.store(next);
    }
  });
  // Also frees a submitter stuck on a lost wake-up: releasing the slot and destroying the
  // pool runs the queued job ([P-TERM] drains), then the submitter sees `quit`.
  fj::test::scope_exit teardown([&] {
    quit.store(true);
    holder.reset();
    owned_pool.reset();
    submitter.join();
  });
  std::mt19937 rng(20240611);
  const auto start = std::chrono::steady_clock::now();
  std::int64_t round = 0;
  for (; round < max_rounds && std::chrono::steady_clock::now() - start < time_budget; ++round) {
    if (round % 2 == 0)
      ASSERT_TRUE(wait_until_all_parked(p, 5s)) << "workers never parked, round " << round;
    else
      spin_for(std::chrono::microseconds(rng() % 51));
    requested.store(round + 1);
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (completed.load() < round + 1) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << "injected job not run within 5 s (lost wake-up), round " << round << ", "
          << (round % 2 == 0 ? "all parked" : "racing the park") << ", " << p.num_parked() << " parked";
      std::this_thread::yield();
    }
  }
  std::printf("NoLostWakeUpWhenAllParked: %lld rounds in %.1f s\n", static_cast<long long>(round),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  RecordProperty("rounds", static_cast<int>(round));
  EXPECT_GE(round, std::min<std::int64_t>(max_rounds, 1000)) << "too few rounds to mean anything";
}

// [INV-WAKE] One job injected into a pool whose 7 background workers are all parked wakes
// one of them; by [P-SLEEP LastSearcher] that one, on finding the job, may wake one
// replacement. So at most 2 workers leave the futex (each parks again: statistics().parks
// grows by the number woken), never the herd of 7.
TEST(Sleep, OneInjectedJobWakesNoHerd) {
  fj::pool p(fj::test::one_outside_thread(8));
  fj::test::slot_holder holder(p);
  for (int round = 0; round < 20; ++round) {
    ASSERT_TRUE(wait_until_all_parked(p, 5s)) << "round " << round;
    const auto parks_before = p.statistics().parks;
    std::atomic<bool> ran{false};
    p.run([&] { ran.store(true); });  // injected: the slot is held
    ASSERT_TRUE(ran.load());
    ASSERT_TRUE(wait_until_all_parked(p, 5s)) << "round " << round;
    const auto woken = p.statistics().parks - parks_before;
    EXPECT_GE(woken, 1u) << "round " << round << ": nobody woke, yet the job ran";
    EXPECT_LE(woken, 2u) << "round " << round << ": one job woke " << woken << " parked workers";
  }
}

TEST(Sleep, IdleWorkersPark) {
  fj::pool p(4);
  std::atomic<int> ran{0};
  p.run([&] {
    fj::task_group g;
    for (int i = 0; i < 10000; ++i) g.run([&] { ran.fetch_add(1, std::memory_order_relaxed); });
  });
  EXPECT_EQ(ran.load(), 10000);
  EXPECT_TRUE(wait_until_all_parked(p, 2s)) << p.num_parked() << " of 3 parked";
}

TEST(SleepTiming, IdlePoolBurnsAlmostNoCpu) {
  fj::pool p(4);
  std::atomic<long> sink{0};
  p.run([&] {
    fj::task_group g;
    for (int i = 0; i < 100000; ++i) g.run([&] { sink.fetch_add(1, std::memory_order_relaxed); });
  });
  ASSERT_TRUE(wait_until_all_parked(p, 2s));
  double before = fj::test::process_cpu_seconds();
  std::this_thread::sleep_for(500ms);
  double burned = fj::test::process_cpu_seconds() - before;
  // A spinning worker would burn ~0.5 s here; parked ones burn nothing. 1% of a core:
  EXPECT_LT(burned, 0.005) << "idle pool burned " << burned * 1000 << " ms of CPU in 500 ms";
  EXPECT_EQ(sink.load(), 100000);
}

// After a long idle, a join still gets a second worker: the two branches meet (each waits
// for the other to start), which only happens when the parked worker woke and stole g.
// If nobody woke, the caller would run both branches itself one after the other.
TEST(Sleep, WakesAfterLongIdle) {
  fj::pool p(2);
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(20ms);
    ASSERT_TRUE(wait_until_all_parked(p, 5s)) << "round " << i;
    std::atomic<int> started{0};
    auto branch = [&started] {
      started.fetch_add(1);
      const auto deadline = std::chrono::steady_clock::now() + 5s;
      while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
      return std::pair<int, bool>(fj::this_worker_index(), started.load() == 2);
    };
    auto [a, b] = p.run([&] { return fj::join(branch, branch); });
    EXPECT_TRUE(a.second && b.second) << "the branches never ran at the same time, round " << i;
    EXPECT_NE(a.first, b.first) << "round " << i;
    EXPECT_EQ(a.first, 0) << "f runs inline on the caller, round " << i;
    EXPECT_EQ(b.first, 1) << "g was stolen by the woken worker, round " << i;
  }
}

// [P-SLEEP Window] back-to-back loops whose blocks are uneven: worker 1 finishes its block
// ~20 us before the caller, every call. Its window learns that gap and spins through it, so
// it is awake for the next call, and few calls have to wake it. With the window held at
// spin_time (5 us) it parks and is woken at nearly every call it takes part in. Compared in
// one run, so that a loaded machine (which deschedules worker 1 now and then, and so wakes
// it more often in both) does not decide the outcome.
namespace {
double wakes_per_back_to_back_call(std::chrono::nanoseconds max_spin) {
  fj::pool_options o;
  o.num_threads = 2;
  o.max_spin_time = max_spin;
  fj::pool p(o);
  const int calls = 500;
  std::vector<int> hits(200, 0);
  auto call = [&] {
    fj::parallel_for(
        0, 200,
        [&](int i) {
          ++hits[static_cast<std::size_t>(i)];
          if (i < 100) spin_for(200ns);
        },
        fj::schedule::static_());
  };
  p.run([&] {
    for (int k = 0; k < 50; ++k) call();  // the window learns
  });
  const auto before = p.statistics();
  p.run([&] {
    for (int k = 0; k < calls; ++k) call();
  });
  const auto after = p.statistics();
  for (int h : hits) EXPECT_EQ(h, 50 + calls);
  return static_cast<double>(after.wakes - before.wakes) / calls;
}
}  // namespace

TEST(SleepTiming, BackToBackLoopsKeepTheWorkerAwake) {
  if (fj::test::under_sanitizer()) GTEST_SKIP() << "a sanitizer stretches the gap beyond the window";
  const double fixed = wakes_per_back_to_back_call(5us);
  const double learned = wakes_per_back_to_back_call(100us);
  EXPECT_GT(fixed, 0.3) << "with a 5 us window worker 1 should park between calls: the check means nothing";
  EXPECT_LT(learned, 0.5 * fixed + 0.05) << "sleepers woken per call: learned window " << learned << ", fixed "
                                         << fixed;
}
