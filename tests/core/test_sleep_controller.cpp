// The sleep controller on its own (forkjoin/sleep.hpp, DESIGN.md [P-SLEEP], [P-POST]):
// plain std::threads stand in for workers and an atomic counter for the pool's queues, so
// every property is checked without a pool. A broken wake-up fails within seconds (the
// threads are then released with wake_all) instead of hanging.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "crowding.hpp"
#include "sleep.hpp"
#include "support.hpp"

namespace fj = forkjoin;
using fj::detail::sleep_controller;
using namespace std::chrono_literals;

namespace {

// The "pool" as the controller sees it: a count of posted jobs and a shutdown flag.
class fake_queues final : public fj::detail::work_monitor {
 public:
  bool work_or_shutdown_visible() const noexcept override {
    return jobs.load(std::memory_order_relaxed) != 0 || shutdown.load(std::memory_order_acquire);
  }
  bool try_take() noexcept {
    std::int64_t n = jobs.load(std::memory_order_relaxed);
    while (n > 0)
      if (jobs.compare_exchange_weak(n, n - 1, std::memory_order_acq_rel, std::memory_order_relaxed)) return true;
    return false;
  }
  std::atomic<std::int64_t> jobs{0};
  std::atomic<bool> shutdown{false};
};

// Polls pred until the deadline; yields rather than sleeps, so a waiter reacts at once.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds deadline = 5000ms) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
  return true;
}

// A thread that falls asleep once and records that fall_asleep returned.
struct napper {
  sleep_controller::sleeper s;
  std::atomic<bool> returned{false};
  std::thread t;

  void start(sleep_controller& c) {
    t = std::thread([this, &c] {
      c.fall_asleep(s, nullptr, nullptr);
      returned.store(true, std::memory_order_release);
    });
  }
};

// Releases every napper still asleep (after a failed expectation) and joins them.
void finish(sleep_controller& c, std::vector<std::unique_ptr<napper>>& ns) {
  for (auto& n : ns) {
    while (!n->returned.load(std::memory_order_acquire)) {
      c.wake_all();
      std::this_thread::sleep_for(1ms);
    }
    n->t.join();
  }
}

std::vector<std::unique_ptr<napper>> start_nappers(sleep_controller& c, std::size_t count) {
  std::vector<std::unique_ptr<napper>> ns;
  for (std::size_t i = 0; i < count; ++i) {
    ns.push_back(std::make_unique<napper>());
    ns.back()->start(c);
  }
  return ns;
}

}  // namespace

TEST(SleepController, SearcherCapIsHalfTheThreads) {
  fake_queues q;
  sleep_controller c(4, q);
  sleep_controller::sleeper a, b, d;
  EXPECT_TRUE(c.try_start_searching(a));
  EXPECT_TRUE(c.try_start_searching(b));
  EXPECT_FALSE(c.try_start_searching(d));  // [INV-SEARCH] max(1, 4/2) searchers
  EXPECT_FALSE(d.searching());
  EXPECT_EQ(c.counts().searching, 2u);
  c.stop_searching(a);
  c.stop_searching(b);
  EXPECT_EQ(c.counts().searching, 0u);
  EXPECT_EQ(c.counts().sleeping, 0u);
}

TEST(SleepController, WakeOneWakesASleeper) {
  fake_queues q;
  sleep_controller c(2, q);
  auto ns = start_nappers(c, 1);
  ASSERT_TRUE(eventually([&] { return c.num_parked() == 1; })) << "the napper never parked";
  EXPECT_EQ(c.counts().sleeping, 1u);
  EXPECT_EQ(c.counts().searching, 0u);
  c.wake_one();
  EXPECT_TRUE(eventually([&] { return ns[0]->returned.load(std::memory_order_acquire); })) << "wake_one woke nobody";
  finish(c, ns);
  // [INV-COUNT] the woken thread resumes as a searcher; its search ends, counts return to zero.
  EXPECT_TRUE(ns[0]->s.searching());
  EXPECT_EQ(c.counts().searching, 1u);
  EXPECT_EQ(c.counts().sleeping, 0u);
  EXPECT_EQ(ns[0]->s.parks(), 1u);
  c.stop_searching(ns[0]->s);
  EXPECT_EQ(c.counts().searching, 0u);
  EXPECT_EQ(c.num_parked(), 0u);
}

// [INV-WAKE] wake_one does nothing while someone searches; [P-SLEEP LastSearcher] the last
// searcher to stop wakes a replacement.
TEST(SleepController, WakeOneIsANoOpWhileSomeoneSearches) {
  fake_queues q;
  sleep_controller c(4, q);
  auto ns = start_nappers(c, 1);
  ASSERT_TRUE(eventually([&] { return c.num_parked() == 1; })) << "the napper never parked";
  sleep_controller::sleeper searcher;
  ASSERT_TRUE(c.try_start_searching(searcher));
  c.wake_one();
  c.notify_external_work();
  c.notify_internal_work();
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(ns[0]->returned.load(std::memory_order_acquire)) << "woken although a searcher was awake";
  EXPECT_EQ(c.counts().sleeping, 1u);
  c.stop_searching(searcher);  // the last searcher stops: it wakes the sleeper
  EXPECT_TRUE(eventually([&] { return ns[0]->returned.load(std::memory_order_acquire); }))
      << "the last searcher did not wake a replacement";
  finish(c, ns);
  c.stop_searching(ns[0]->s);
  EXPECT_EQ(c.counts().searching, 0u);
  EXPECT_EQ(c.counts().sleeping, 0u);
}

TEST(SleepController, WakeSpecificWakesOnlyThatSleeper) {
  fake_queues q;
  sleep_controller c(3, q);
  auto ns = start_nappers(c, 2);
  ASSERT_TRUE(eventually([&] { return c.num_parked() == 2; })) << "the nappers never parked";
  c.wake_specific(ns[1]->s);
  EXPECT_TRUE(eventually([&] { return ns[1]->returned.load(std::memory_order_acquire); }))
      << "wake_specific did not wake its target";
  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(ns[0]->returned.load(std::memory_order_acquire)) << "wake_specific woke another sleeper";
  c.wake_specific(ns[1]->s);  // not listed any more: nothing happens
  EXPECT_EQ(c.counts().sleeping, 1u);
  c.wake_all();
  finish(c, ns);
  for (auto& n : ns) c.stop_searching(n->s);
  EXPECT_EQ(c.counts().searching, 0u);
  EXPECT_EQ(c.counts().sleeping, 0u);
}

TEST(SleepController, WakeAllWakesEveryone) {
  constexpr std::size_t k_threads = 4;
  fake_queues q;
  sleep_controller c(k_threads, q);
  auto ns = start_nappers(c, k_threads);
  ASSERT_TRUE(eventually([&] { return c.num_parked() == k_threads; })) << "the nappers never parked";
  EXPECT_EQ(c.counts().sleeping, k_threads);
  c.wake_all();
  for (auto& n : ns)
    EXPECT_TRUE(eventually([&] { return n->returned.load(std::memory_order_acquire); })) << "wake_all missed one";
  finish(c, ns);
  EXPECT_EQ(c.counts().searching, k_threads);
  EXPECT_EQ(c.counts().sleeping, 0u);
  for (auto& n : ns) c.stop_searching(n->s);
  EXPECT_EQ(c.counts().searching, 0u);
  EXPECT_EQ(c.num_parked(), 0u);
}

// [P-SLEEP ReadJob] the caller's own condition is re-checked after the announcement: a latch
// already set cancels the sleep, which returns at once with the thread searching.
TEST(SleepController, UnwantedSleepIsCancelled) {
  fake_queues q;
  sleep_controller c(2, q);
  sleep_controller::sleeper s;
  c.fall_asleep(
      s, [](const void*) { return false; }, nullptr);
  EXPECT_TRUE(s.searching());
  EXPECT_EQ(s.parks(), 0u);
  EXPECT_EQ(c.counts().searching, 1u);
  EXPECT_EQ(c.counts().sleeping, 0u);
  c.stop_searching(s);
  q.jobs.store(1, std::memory_order_relaxed);  // visible work cancels it too
  c.fall_asleep(s, nullptr, nullptr);
  EXPECT_EQ(s.parks(), 0u);
  c.stop_searching(s);
  EXPECT_EQ(c.counts().searching, 0u);
  EXPECT_EQ(c.counts().sleeping, 0u);
}

// No lost wake-up: consumers take jobs and fall asleep when they see none; a submitter posts
// one job per round through notify_external_work and waits for it to be taken. A job posted
// between a consumer's empty check and its park must cancel the park ([P-SLEEP ReadJob]
// after SleepFence) or be followed by a wake-up ([P-POST ReadSleepers]). Every job is taken
// exactly once, and a lost one fails its round within seconds.
void check_no_lost_wake_up(std::size_t num_consumers) {
  const std::int64_t rounds = fj::test::scaled(20000, 2000);
  fake_queues q;
  sleep_controller c(num_consumers + 1, q);
  std::atomic<std::int64_t> taken{0};
  std::atomic<std::size_t> finished{0};
  std::vector<std::unique_ptr<sleep_controller::sleeper>> sleepers;
  std::vector<std::thread> consumers;
  for (std::size_t k = 0; k < num_consumers; ++k) {
    sleepers.push_back(std::make_unique<sleep_controller::sleeper>());
    consumers.emplace_back([&c, &q, &taken, &finished, &s = *sleepers.back()] {
      std::uint32_t sweep = 0;
      while (!q.shutdown.load(std::memory_order_acquire)) {
        if (q.try_take()) {
          c.stop_searching(s);  // searching -> working, like a worker that found a job
          taken.fetch_add(1, std::memory_order_relaxed);
          continue;
        }
        // A worker's sweep takes a while between its last empty look and its announcement,
        // and it may yield there ([P-SLEEP Ladder]): a window of varying width in which the
        // next job gets posted, even when the submitter shares this thread's CPU.
        if (++sweep % 2 == 0) std::this_thread::yield();
        for (std::uint32_t i = 0; i < sweep % 512; ++i) fj::detail::cpu_relax();
        c.fall_asleep(s, nullptr, nullptr);
      }
      c.stop_searching(s);
      finished.fetch_add(1, std::memory_order_release);
    });
  }
  std::int64_t lost_round = -1;
  for (std::int64_t r = 0; r < rounds && lost_round < 0; ++r) {
    // Post at a different distance from the consumers' last take each round.
    for (std::int64_t i = 0; i < r % 128; ++i) fj::detail::cpu_relax();
    q.jobs.fetch_add(1, std::memory_order_relaxed);  // [P-POST PushJob]
    c.notify_external_work();
    if (!eventually([&] { return taken.load(std::memory_order_relaxed) == r + 1; })) lost_round = r;
  }
  q.shutdown.store(true, std::memory_order_release);
  while (finished.load(std::memory_order_acquire) < num_consumers) {
    c.wake_all();
    std::this_thread::sleep_for(1ms);
  }
  for (auto& t : consumers) t.join();
  EXPECT_EQ(lost_round, -1) << "the job of round " << lost_round << " of " << rounds << " was never taken";
  EXPECT_EQ(taken.load(), lost_round < 0 ? rounds : lost_round);
  EXPECT_EQ(q.jobs.load(), lost_round < 0 ? 0 : 1);
  EXPECT_EQ(c.counts().searching, 0u);
  EXPECT_EQ(c.counts().sleeping, 0u);
  EXPECT_EQ(c.num_parked(), 0u);
}

// One consumer: nobody else can rescue a lost job, so a hole in the protocol shows at once.
TEST(SleepController, NoLostWakeUpWithOneConsumer) { check_no_lost_wake_up(1); }

// Three consumers: wake_one picks among sleepers, and the last searcher wakes a replacement.
TEST(SleepController, NoLostWakeUpWithThreeConsumers) { check_no_lost_wake_up(3); }

// [P-SLEEP Crowd] two observations within k_crowd_hold mark the CPUs crowded for k_crowd_hold,
// a lone one does not (an interrupt or a hypervisor exit on an idle machine), and the mark
// lapses by itself (the waits spin and yield again on a machine that quieted down). Each test
// runs in a process of its own, so the process-wide mark starts clear.
TEST(SleepCrowding, TwoObservationsMarkThenTheMarkLapses) {
  namespace fd = forkjoin::detail;
  const std::int64_t hold = std::chrono::nanoseconds(fd::k_crowd_hold).count();
  const std::int64_t t = fd::crowd_clock_ns() + 10 * hold;  // after anything this process saw
  EXPECT_FALSE(fd::crowded(t));
  const std::uint64_t seen = fd::crowd_observations();
  fd::note_crowded(t);
  EXPECT_EQ(fd::crowd_observations(), seen + 1);
  EXPECT_FALSE(fd::crowded(t)) << "a lone observation marked the CPUs crowded";
  fd::note_crowded(t + 3 * hold);  // too far from the first: alone again
  EXPECT_FALSE(fd::crowded(t + 3 * hold));
  const std::int64_t u = t + 3 * hold + hold / 2;
  fd::note_crowded(u);  // within k_crowd_hold of the last one: the mark
  EXPECT_EQ(fd::crowd_observations(), seen + 3);
  EXPECT_TRUE(fd::crowded(u));
  EXPECT_TRUE(fd::crowded(u + hold - 1));
  EXPECT_FALSE(fd::crowded(u + hold));
  fd::note_crowded(u - hold / 4);  // an older observation does not shorten the mark
  EXPECT_TRUE(fd::crowded(u + hold - 1));
}

// While the mark stands, a wait does not yield at all: yield_if_uncrowded returns false at
// once and notes nothing.
TEST(SleepCrowding, NoYieldWhileCrowded) {
  namespace fd = forkjoin::detail;
  const std::int64_t now = fd::crowd_clock_ns();
  fd::note_crowded(now);
  fd::note_crowded(now);
  ASSERT_TRUE(fd::crowded(fd::crowd_clock_ns()));
  const std::uint64_t seen = fd::crowd_observations();
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(fd::yield_if_uncrowded());
  EXPECT_EQ(fd::crowd_observations(), seen);
}

// A yield behind a busy thread on the same CPU hands it over for that thread's time slice:
// some yields of a bounded number take longer than k_crowd_yield_gap, each returning false,
// and the second marks the CPUs crowded. Timing: it relies on the scheduler's slice, so it runs with the timing preset.
TEST(SleepCrowdingTiming, YieldBehindABusyThreadMarksCrowded) {
  namespace fd = forkjoin::detail;
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  int cpu = 0;
  while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &mine)) ++cpu;
  ASSERT_LT(cpu, CPU_SETSIZE);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  std::atomic<bool> stop{false}, spinning{false};
  std::thread busy([&] {
    sched_setaffinity(0, sizeof one, &one);
    spinning.store(true);
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  // a mark left by an earlier test of this process (run as one binary) lapses first
  for (int i = 0; i < 400 && fd::crowded(fd::crowd_clock_ns()); ++i) std::this_thread::sleep_for(5ms);
  ASSERT_FALSE(fd::crowded(fd::crowd_clock_ns()));
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  while (!spinning.load()) std::this_thread::yield();
  const std::uint64_t seen = fd::crowd_observations();
  int yields = 0, slow = 0;
  while (yields < 10000 && slow < 2) {
    ++yields;
    if (!fd::yield_if_uncrowded()) ++slow;
  }
  const bool marked = fd::crowded(fd::crowd_clock_ns());
  stop.store(true);
  busy.join();
  sched_setaffinity(0, sizeof mine, &mine);
  EXPECT_TRUE(marked) << yields << " yields behind a busy thread, none lost the CPU for long";
  EXPECT_EQ(fd::crowd_observations(), seen + 2);
}
