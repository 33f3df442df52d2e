// Waiting without deadlock, blocking without stalling, fair sharing with outside work:
// forkjoin::isolate, forkjoin::blocking (spare threads), forkjoin::yield_now and the loop
// engine's budget, and pool_options::flush_denormals. DESIGN.md [P-ISO], [P-BLOCK], [P-FAIR].
#include <dirent.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

namespace {

using forkjoin::test::count_threads;
using forkjoin::test::threads_back_to;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// Spins until `flag` or the deadline; false on the deadline.
template <class Step>
bool spin_until(const std::atomic<bool>& flag, std::chrono::milliseconds limit, Step step) {
  const auto end = clock_type::now() + limit;
  while (!flag.load()) {
    if (clock_type::now() > end) return false;
    step();
  }
  return true;
}

}  // namespace

// The deadlock of docs/behaviour.md: a task holds a lock across a parallel loop while other
// queued tasks take the same lock. The lock takers block inside blocking(), so spare threads
// keep stealing the loops' pieces and the holders' waits keep meeting queued lock takers.
// Without isolate() this deadlocks within a few thousand rounds (a thief of a piece, or the
// holder itself, runs a lock taker inside its wait); a watchdog turns a hang into a failure.
// A lock taker that finds itself on the holder's thread counts itself instead of deadlocking.
TEST(Isolate, MutexHeldAcrossIsolatedLoopNeverDeadlocks) {
  const std::int64_t rounds = fj::test::scaled(10000, 300);
  std::atomic<bool> finished{false};
  std::thread watchdog([&] {
    const auto end = clock_type::now() + 90s;
    while (!finished.load() && clock_type::now() < end) std::this_thread::sleep_for(10ms);
    if (!finished.load()) {
      std::fprintf(stderr, "deadlock: the isolated rounds did not finish in 90 s\n");
      std::_Exit(1);
    }
  });
  fj::test::scope_exit stop_watchdog([&] {
    finished.store(true);
    watchdog.join();
  });
  fj::pool p(4);
  std::mutex m;
  std::atomic<std::thread::id> holder{};
  std::atomic<std::int64_t> lockers{0}, reentries{0}, loop_sum{0};
  p.run([&] {
    fj::task_group g;
    for (std::int64_t r = 0; r < rounds; ++r) {
      g.run([&] {
        if (holder.load() == std::this_thread::get_id()) {
          reentries.fetch_add(1);  // a wait of the holder ran us: m.lock() would never return
          return;
        }
        fj::blocking([&] { m.lock(); });
        lockers.fetch_add(1);
        m.unlock();
      });
      g.run([&] {
        std::lock_guard<std::mutex> lock(m);
        holder.store(std::this_thread::get_id());
        fj::isolate([&] {
          fj::parallel_for(
              0, 64,
              [&](int i) {
                for (int k = 0; k < 1000; ++k) asm volatile("");  // pieces worth stealing (~1 us)
                loop_sum.fetch_add(i, std::memory_order_relaxed);
              },
              fj::schedule::auto_(1));
        });
        holder.store(std::thread::id{});
      });
    }
    g.wait();
  });
  EXPECT_EQ(reentries.load(), 0);
  EXPECT_EQ(lockers.load(), rounds);
  EXPECT_EQ(loop_sum.load(), rounds * (63 * 64 / 2));
}

namespace {
// The scenario of docs/behaviour.md's deadlock row made deterministic: worker 0 is inside
// a critical section and waits for a child that worker 1 runs; meanwhile a job submitted
// from outside waits in the pool. Returns whether that job ran on worker 0 inside the
// critical section (it would have deadlocked on a lock held there).
bool outside_job_ran_inside_wait(bool isolated) {
  fj::pool p(fj::test::one_outside_thread(2));
  std::atomic<bool> child_started{false}, release_child{false}, submitter_ready{false}, outside_ran{false};
  std::atomic<bool> ran_inside{false};
  std::atomic<std::thread::id> critical{};
  std::thread submitter;
  p.run([&] {
    auto body = [&] {
      critical.store(std::this_thread::get_id());
      fj::task_group inner;
      inner.run([&] {
        child_started.store(true);
        spin_until(release_child, 10s, [] { std::this_thread::sleep_for(1ms); });
      });
      while (!child_started.load()) std::this_thread::yield();  // worker 1 runs the child
      submitter = std::thread([&] {
        submitter_ready.store(true);
        p.run([&] {  // slot 0 is busy: injected, and this thread blocks until it ran
          if (critical.load() == std::this_thread::get_id()) ran_inside.store(true);
          outside_ran.store(true);
        });
      });
      while (!submitter_ready.load()) std::this_thread::yield();
      std::this_thread::sleep_for(20ms);  // the submission reaches the injection queue
      std::thread releaser([&] {
        std::this_thread::sleep_for(50ms);  // worker 0 waits in inner.wait() meanwhile
        release_child.store(true);
      });
      inner.wait();
      releaser.join();
      critical.store(std::thread::id{});
    };
    if (isolated)
      fj::isolate(body);
    else
      body();
  });
  submitter.join();
  EXPECT_TRUE(outside_ran.load());
  return ran_inside.load();
}
}  // namespace

// Waits are not isolated by default (DESIGN.md [P-ISO Default]): the wait ran the outside job.
TEST(Isolate, DefaultWaitHelpsWithOutsideWork) { EXPECT_TRUE(outside_job_ran_inside_wait(false)); }

TEST(Isolate, IsolatedWaitLeavesOutsideWork) { EXPECT_FALSE(outside_job_ran_inside_wait(true)); }

// Many isolated regions at once, each a reduce whose pieces other workers steal and run
// in the region (their nested waits isolated too): every result exact.
TEST(Isolate, ConcurrentRegionsComputeExactResults) {
  fj::pool p(4);
  constexpr int k_tasks = 64;
  std::vector<std::int64_t> sums(k_tasks, -1);
  p.run([&] {
    fj::task_group g;
    for (int t = 0; t < k_tasks; ++t)
      g.run([&, t] {
        sums[static_cast<std::size_t>(t)] = fj::isolate([&] {
          return fj::parallel_reduce(
              0, 20000 + t, std::int64_t{0},
              [](int lo, int hi, std::int64_t acc) {
                for (int i = lo; i < hi; ++i) acc += i;
                return acc;
              },
              std::plus<>{}, fj::schedule::auto_(64));
        });
      });
    g.wait();
  });
  for (int t = 0; t < k_tasks; ++t) {
    const std::int64_t n = 20000 + t;
    EXPECT_EQ(sums[static_cast<std::size_t>(t)], n * (n - 1) / 2) << t;
  }
}

TEST(Isolate, NestsReturnsValuesAndRethrows) {
  fj::pool p(3);
  const long v = p.run([] {
    return fj::isolate([] {
      auto [a, b] = fj::join([] { return fj::isolate([] { return 20L; }); }, [] { return 22L; });
      return a + b;
    });
  });
  EXPECT_EQ(v, 42);
  EXPECT_THROW(p.run([] { fj::isolate([] { fj::join([] { throw std::runtime_error("f"); }, [] {}); }); }),
               std::runtime_error);
  int x = 0;
  int& r = p.run([&x]() -> int& { return fj::isolate([&x]() -> int& { return x; }); });
  EXPECT_EQ(&r, &x);
  EXPECT_EQ(fj::isolate([] { return fj::this_worker_index() >= 0; }), true);  // outside: default_pool()
}

// 64 tasks that each sleep 20 ms on a 2-thread pool: 640 ms without blocking(); with it,
// spare threads run them at once. Afterwards the spares retire within a second.
TEST(BlockingTiming, SixtyFourSleepersDoNotStallTwoWorkers) {
  constexpr int k_tasks = 64;
  constexpr auto k_sleep = 20ms;
  fj::pool p(2);
  p.run([] {});  // workers started
  const int baseline = count_threads();
  auto run_all = [&](bool use_blocking) {
    std::atomic<int> done{0};
    const auto t0 = clock_type::now();
    p.run([&] {
      fj::task_group g;
      for (int i = 0; i < k_tasks; ++i)
        g.run([&] {
          if (use_blocking)
            fj::blocking([&] { std::this_thread::sleep_for(k_sleep); });
          else
            std::this_thread::sleep_for(k_sleep);
          done.fetch_add(1);
        });
      g.wait();
    });
    EXPECT_EQ(done.load(), k_tasks);
    return ms_since(t0);
  };
  const double with = run_all(true);
  const double serial_bound = k_tasks * 20.0 / 2;  // two threads, one sleep each at a time
  std::printf("64 x 20 ms sleeps on 2 workers: %.1f ms with blocking()\n", with);
  EXPECT_LT(with, serial_bound / 4);
  const auto t_retire = clock_type::now();
  while (count_threads() > baseline && ms_since(t_retire) < 1000) std::this_thread::sleep_for(5ms);
  std::printf("threads back to %d (baseline %d) after %.1f ms\n", count_threads(), baseline, ms_since(t_retire));
  EXPECT_LE(count_threads(), baseline);
  const double without = run_all(false);
  std::printf("without blocking(): %.1f ms\n", without);
  EXPECT_GE(without, serial_bound * 0.9);
}

// Spares never exceed max_spare_threads: at most N + max_spare_threads tasks block at once.
TEST(Blocking, SpareThreadsBoundedByOption) {
  for (std::size_t max_spares : {std::size_t{0}, std::size_t{2}}) {
    fj::pool_options o;
    o.num_threads = 2;
    o.max_spare_threads = max_spares;
    fj::pool p(o);
    std::atomic<int> inside{0}, peak{0}, done{0};
    p.run([&] {
      fj::task_group g;
      for (int i = 0; i < 24; ++i)
        g.run([&] {
          fj::blocking([&] {
            const int now = inside.fetch_add(1) + 1;
            int seen = peak.load();
            while (now > seen && !peak.compare_exchange_weak(seen, now)) {
            }
            std::this_thread::sleep_for(5ms);
            inside.fetch_sub(1);
          });
          done.fetch_add(1);
        });
      g.wait();
    });
    EXPECT_EQ(done.load(), 24);
    EXPECT_LE(peak.load(), static_cast<int>(2 + max_spares)) << max_spares;
    if (max_spares > 0) {
      EXPECT_GT(peak.load(), 2) << "no spare thread ever ran";
    }
  }
}

TEST(Blocking, OutsidePoolRunsInlineAndNests) {
  EXPECT_EQ(fj::blocking([] { return fj::this_worker_index(); }), -1);
  fj::pool p(2);
  const long r = p.run([] {
    return fj::blocking([] {
      return fj::blocking([] {
        auto [a, b] = fj::join([] { return 1L; }, [] { return 2L; });
        return a + b;
      });
    });
  });
  EXPECT_EQ(r, 3);
  EXPECT_THROW(p.run([] { fj::blocking([] { throw std::runtime_error("x"); }); }), std::runtime_error);
}

// A spare thread with nothing left to do retires after its idle period even while the worker
// it stands in for still blocks, and it runs on a stack of the pool's stack size. A pool of
// one: while its only thread blocks, only a spare can run the queued child.
TEST(Blocking, IdleSpareRetiresWhileItsWorkerStillBlocks) {
  fj::pool_options o;
  o.num_threads = 1;
  // 1 MiB: glibc may give a new thread a cached stack of up to 4 times the size asked for,
  // and the process's exited threads left 8 MiB stacks in its cache
  o.stack_size = std::size_t{1} << 20;
  fj::pool p(o);
  std::thread([] {}).join();  // ThreadSanitizer starts a thread of its own at the first creation
  const int baseline = count_threads();
  std::atomic<int> ran{0}, where{-2};
  std::atomic<std::size_t> stack{0};
  std::atomic<bool> child_done{false};
  bool retired = false;
  p.run([&] {
    fj::task_group g;
    g.run([&] {
      where.store(fj::this_worker_index());
      pthread_attr_t attr;
      std::size_t size = 0;
      if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstacksize(&attr, &size);
        pthread_attr_destroy(&attr);
      }
      stack.store(size);
      ran.fetch_add(1);
      child_done.store(true);
    });
    fj::blocking([&] {
      if (spin_until(child_done, 20s, [] { std::this_thread::sleep_for(1ms); })) retired = threads_back_to(baseline);
    });
    g.wait();
  });
  EXPECT_EQ(ran.load(), 1);
  EXPECT_GE(where.load(), 1) << "the child did not run on a spare";
  EXPECT_TRUE(retired) << "the idle spare did not retire while its worker blocked";
  EXPECT_GE(stack.load(), o.stack_size);
  if (!fj::test::under_sanitizer()) {  // the sanitizers give every thread 8 MiB at least
    EXPECT_LT(stack.load(), 2 * o.stack_size);
  }
}

// A pool destroyed right after a blocking call: its destructor waits for the spare thread,
// which may still be idling, to leave.
TEST(Blocking, DestructorWaitsForIdleSpares) {
  std::thread([] {}).join();  // ThreadSanitizer starts a thread of its own at the first creation
  const int before = count_threads();
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> ran{0};
    std::atomic<bool> child_done{false};
    {
      fj::pool p(1);
      p.run([&] {
        fj::task_group g;
        g.run([&] {
          ran.fetch_add(1);
          child_done.store(true);
        });
        fj::blocking([&] { spin_until(child_done, 20s, [] { std::this_thread::sleep_for(1ms); }); });
        g.wait();
      });
    }
    EXPECT_EQ(ran.load(), 1);
  }
  EXPECT_TRUE(threads_back_to(before));
}

// Both workers are busy for good; a job submitted from outside runs only because they call
// yield_now().
TEST(Yield, OutsideJobRunsWhileEveryWorkerYields) {
  fj::pool p(2);
  std::atomic<bool> flag{false}, stop{false};
  std::thread submitter;
  const bool ok = p.run([&] {
    fj::task_group g;
    g.run([&] { spin_until(stop, 20s, [] { fj::yield_now(); }); });
    submitter = std::thread([&] { p.run([&] { flag.store(true); }); });
    const bool seen = spin_until(flag, 20s, [] { fj::yield_now(); });
    stop.store(true);
    g.wait();
    return seen;
  });
  submitter.join();
  EXPECT_TRUE(ok);
}

// Inside isolate(), yield_now() serves no outside work.
TEST(Yield, IsolatedRegionServesNoOutsideWork) {
  fj::pool p(fj::test::one_outside_thread(2));
  std::atomic<bool> ran{false}, stop{false}, busy{false};
  std::thread submitter;
  p.run([&] {
    fj::task_group g;
    g.run([&] {
      busy.store(true);
      spin_until(stop, 20s, [] {});
    });
    while (!busy.load()) std::this_thread::yield();
    submitter = std::thread([&] { p.run([&] { ran.store(true); }); });
    fj::isolate([&] {
      const auto end = clock_type::now() + 100ms;
      while (clock_type::now() < end) fj::yield_now();
    });
    EXPECT_FALSE(ran.load());
    stop.store(true);
    g.wait();
  });
  submitter.join();
  EXPECT_TRUE(ran.load());
}

// A loop that occupies every worker (and would run for many seconds) serves a job submitted
// from outside between slices: the job's flag stops the loop.
TEST(Yield, LongLoopServesOutsideWork) {
  fj::pool p(2);
  struct stopped {};
  std::atomic<bool> flag{false};
  std::atomic<bool> started{false};
  std::thread submitter([&] {
    while (!started.load()) std::this_thread::yield();
    std::this_thread::sleep_for(10ms);
    p.run([&] { flag.store(true); });
  });
  const auto t0 = clock_type::now();
  bool threw = false;
  try {
    p.run([&] {
      fj::parallel_for(std::int64_t{0}, std::int64_t{1} << 40, [&](std::int64_t i) {
        started.store(true, std::memory_order_relaxed);
        if (flag.load(std::memory_order_relaxed)) throw stopped{};
        if ((i & 0xffff) == 0 && ms_since(t0) > 20000) throw std::runtime_error("outside job never ran");
      });
    });
  } catch (const stopped&) {
    threw = true;
  }
  submitter.join();
  EXPECT_TRUE(threw);
  std::printf("loop stopped by the outside job after %.1f ms\n", ms_since(t0));
}

namespace {
bool flushed_here() {
  volatile double tiny = DBL_MIN;
  volatile double quarter = 0.25;
  return tiny * quarter == 0.0;  // a denormal result, 0 under FTZ
}
}  // namespace

TEST(FlushDenormals, WorkersFlushCallersKeepTheirMode) {
  ASSERT_FALSE(flushed_here());
  fj::pool_options o;
  o.num_threads = 2;
  o.flush_denormals = true;
  o.max_outside_threads = 1;  // a second caller's job is injected ([P-SLOT] D1)
  fj::pool p(o);
  EXPECT_FALSE(p.run([] { return flushed_here(); }));  // the caller works as worker 0
  {
    fj::test::slot_holder hold(p);  // now p.run is injected and runs on worker 1
    EXPECT_TRUE(p.run([] { return fj::this_worker_index() == 1 && flushed_here(); }));
  }
  EXPECT_FALSE(flushed_here());
  fj::pool plain(fj::test::one_outside_thread(2));
  fj::test::slot_holder hold(plain);
  EXPECT_FALSE(plain.run([] { return flushed_here(); }));
}
