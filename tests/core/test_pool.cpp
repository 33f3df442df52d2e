// pool: sizing, environment, worker indices, external and cross-pool callers, lifecycle.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;

TEST(Pool, ZeroThreadsIsInvalid) { EXPECT_THROW(fj::pool p(0), std::invalid_argument); }

// A negative count is named as written (the size_t constructor would have made it 1024
// threads); a negative number already converted to size_t is recognised as one.
TEST(Pool, NegativeThreadCountIsNamed) {
  std::string m = fj::test::invalid_argument_message([] { fj::pool p(-1); });
  EXPECT_NE(m.find("num_threads = -1:"), std::string::npos) << m;
  m = fj::test::invalid_argument_message([] { fj::pool p(std::size_t{0} - 1); });
  EXPECT_NE(m.find("(-1 converted to an unsigned type)"), std::string::npos) << m;
  m = fj::test::invalid_argument_message([] {
    fj::pool_options o;
    o.num_threads = static_cast<std::size_t>(-4);
    fj::pool p(o);
  });
  EXPECT_NE(m.find("pool_options: num_threads = 18446744073709551612 (-4 converted"), std::string::npos) << m;
  fj::pool two(2L);
  EXPECT_EQ(two.num_threads(), 2u);
}

TEST(Pool, SizesOneToSixteenRunWork) {
  for (std::size_t n = 1; n <= 16; ++n) {
    fj::pool p(n);
    EXPECT_EQ(p.num_threads(), n);
    std::atomic<int> sum{0};
    p.run([&] {
      fj::task_group g;
      for (int i = 0; i < 200; ++i) g.run([&] { sum.fetch_add(1); });
    });
    EXPECT_EQ(sum.load(), 200);
  }
}

TEST(Pool, ClampsHugeSizes) {
  fj::pool_options o;
  o.num_threads = 100000;
  fj::pool p(o);
  EXPECT_EQ(p.num_threads(), fj::pool_options::k_max_threads);
  EXPECT_EQ(p.run([] { return 3; }), 3);
}

TEST(Pool, WorkerIndexInRange) {
  EXPECT_EQ(fj::this_worker_index(), -1);
  fj::pool p(4);
  std::mutex m;
  std::set<int> seen;
  int children = 0;
  p.run([&] {
    EXPECT_EQ(fj::this_worker_index(), 0);  // the caller works in the external slot
    fj::task_group g;
    for (int i = 0; i < 2000; ++i)
      g.run([&] {
        int w = fj::this_worker_index();
        std::lock_guard<std::mutex> l(m);
        seen.insert(w);
        ++children;
      });
  });
  EXPECT_EQ(children, 2000);
  EXPECT_FALSE(seen.empty());
  for (int w : seen) {
    EXPECT_GE(w, 0);
    EXPECT_LT(w, 4);
  }
  EXPECT_EQ(fj::this_worker_index(), -1);
}

TEST(Pool, RunReturnsResultAndRethrows) {
  fj::pool p(2);
  EXPECT_EQ(p.run([] { return 41 + 1; }), 42);
  EXPECT_THROW(p.run([]() -> int { throw std::out_of_range("x"); }), std::out_of_range);
}

TEST(Pool, EightExternalThreadsAtOnce) {
  for (std::size_t n : {1, 2, 4}) {
    fj::pool p(n);
    std::vector<std::thread> callers;
    std::atomic<int> correct{0};  // every run of every caller counts, not only the last one
    for (int t = 0; t < 8; ++t)
      callers.emplace_back([&] {
        for (int rep = 0; rep < 20; ++rep) {
          const std::uint64_t r = p.run([] {
            auto rec = [](auto& self, int k) -> std::uint64_t {
              if (k < 2) return static_cast<std::uint64_t>(k);
              auto [a, b] = fj::join([&] { return self(self, k - 1); }, [&] { return self(self, k - 2); });
              return a + b;
            };
            return rec(rec, 18);
          });
          if (r == 2584u) correct.fetch_add(1);
        }
      });
    for (auto& c : callers) c.join();
    EXPECT_EQ(correct.load(), 8 * 20) << n << " threads";
  }
}

// [P-SLOT D2, D3] a caller that found the slot held takes it when it frees, even while no
// worker can take its job: here the pool's one worker spins in a task until that job ran.
TEST(Pool, BlockedCallerTakesTheFreedSlot) {
  fj::pool_options o;
  o.num_threads = 2;
  o.max_outside_threads = 1;  // B takes no slot of its own ([P-SLOT X1])
  for (int round = 0; round < 20; ++round) {
    fj::pool p(o);
    fj::task_group g;
    std::atomic<bool> child_started{false}, b_calling{false}, b_ran{false};
    std::thread a([&] {
      p.run([&] {
        g.run([&] {
          child_started = true;
          while (!b_ran) std::this_thread::yield();  // the worker is busy until B's job ran
        });
        while (!child_started || !b_calling) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // B finds the slot held
      });
    });
    std::thread b([&] {
      while (!child_started) std::this_thread::yield();
      b_calling = true;
      EXPECT_EQ(p.run([&] {
        b_ran = true;
        return 7;
      }),
                7);
    });
    a.join();
    b.join();
    p.run([&] { g.wait(); });
    EXPECT_TRUE(b_ran.load());
  }
}

// [P-SLOT D4] a pool of one thread has no worker: the slot's holder, while it waits in the
// pool (yield_now takes injected work), runs the job of the caller that found the slot held.
TEST(Pool, HolderThatWaitsRunsTheDelegatedJob) {
  fj::pool_options o;
  o.num_threads = 1;
  o.max_outside_threads = 1;  // the caller takes no slot of its own ([P-SLOT X1])
  for (int round = 0; round < 20; ++round) {
    fj::pool p(o);
    std::atomic<bool> a_in{false}, b_ran{false};
    std::atomic<int> runs{0};
    std::thread a([&] {
      p.run([&] {
        a_in = true;
        while (!b_ran) fj::yield_now();  // only B's job sets it
      });
    });
    while (!a_in) std::this_thread::yield();
    EXPECT_EQ(p.run([&] {
      runs++;
      b_ran = true;
      return 5;
    }),
              5);
    a.join();
    EXPECT_EQ(runs.load(), 1);
  }
}

TEST(Pool, CrossPoolCallsDoNotDeadlock) {
  fj::pool a(2), b(3);
  auto r = a.run([&] {
    auto [x, y] = fj::join(
        [&] {
          return b.run([&] {
            // an index of b, wherever b runs it: a worker's, or a spare's while a worker
            // of b blocks in a.run
            const int w = fj::this_worker_index();
            EXPECT_GE(w, 0);
            EXPECT_LT(w, static_cast<int>(b.num_threads() + fj::pool_options{}.max_spare_threads));
            return 1;
          });
        },
        [&] { return b.run([&] { return a.run([] { return 2; }); }); });
    return x + y;
  });
  EXPECT_EQ(r, 3);
}

TEST(Pool, ThousandCreateDestroyCycles) {
  for (int i = 0; i < 1000; ++i) {
    fj::pool p(static_cast<std::size_t>(1 + i % 4));
    if (i % 2 == 0) {
      EXPECT_EQ(p.run([] { return fj::join([] { return 1; }, [] { return 2; }).second; }), 2);
    }
  }
}

TEST(Pool, EnvironmentSetsDefaultSize) {
  // The variables set the default (default_concurrency(): as given, also above the CPUs).
  ::unsetenv("FORKJOIN_NUM_THREADS");
  ::unsetenv("OMP_NUM_THREADS");
  const std::size_t cpus = fj::default_concurrency();
  ::setenv("FORKJOIN_NUM_THREADS", "1", 1);
  {
    fj::pool p;
    EXPECT_EQ(p.num_threads(), 1u);
  }
  ::unsetenv("FORKJOIN_NUM_THREADS");
  ::setenv("OMP_NUM_THREADS", "1,2", 1);
  {
    fj::pool p;
    EXPECT_EQ(p.num_threads(), 1u);
  }
  ::setenv("OMP_NUM_THREADS", "1000", 1);
  ::setenv("FORKJOIN_NUM_THREADS", "2", 1);  // forkjoin's own variable wins
  {
    fj::pool p;
    EXPECT_EQ(p.num_threads(), 2u);
  }
  ::unsetenv("FORKJOIN_NUM_THREADS");
  ::setenv("OMP_NUM_THREADS", std::to_string(cpus + 2).c_str(), 1);  // more than the CPUs
  {
    fj::pool p;
    EXPECT_EQ(p.num_threads(), cpus + 2);
  }
  ::setenv("FORKJOIN_NUM_THREADS", "lots", 1);  // reported on stderr and ignored, never thrown
  ::setenv("OMP_NUM_THREADS", "1", 1);
  {
    fj::pool p;
    EXPECT_EQ(p.num_threads(), 1u);
  }
  ::unsetenv("OMP_NUM_THREADS");
  ::setenv("FORKJOIN_NUM_THREADS", "0", 1);
  {
    fj::pool p;
    EXPECT_EQ(p.num_threads(), cpus);
  }
  ::unsetenv("FORKJOIN_NUM_THREADS");
}

TEST(Pool, DefaultPoolIsShared) {
  EXPECT_EQ(&fj::default_pool(), &fj::default_pool());
  EXPECT_GE(fj::default_pool().num_threads(), 1u);
}

TEST(Pool, DestroyFromOwnWorkerIsFatal) {
  EXPECT_DEATH(
      {
        auto* p = new fj::pool(2);
        p->run([p] { delete p; });
      },
      "destroyed from one of its own tasks");
}

TEST(Pool, OversubscribedStress) {
  // 16 workers on this 2-core machine: many preemptions inside the protocols.
  fj::pool p(16);
  for (int rep = 0; rep < 20; ++rep) {
    std::atomic<long> leaves{0};
    auto rec = [&](auto& self, int d) -> void {
      if (d == 0) {
        leaves.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      if (d % 3 == 0) {
        fj::task_group g;
        for (int i = 0; i < 3; ++i) g.run([&] { self(self, d - 1); });
        g.wait();
      } else {
        fj::join([&] { self(self, d - 1); }, [&] { self(self, d - 1); });
      }
    };
    p.run([&] { rec(rec, 9); });
    ASSERT_EQ(leaves.load(), 3 * 3 * 3 * 2 * 2 * 2 * 2 * 2 * 2);
  }
}

// pool_options::steal_half moves several stolen jobs to the thief's deque: results and
// exactly-once delivery must not change.
TEST(Pool, StealHalfKeepsResultsExact) {
  fj::pool_options o;
  o.num_threads = 4;
  o.steal_half = true;
  fj::pool p(o);
  for (int r = 0; r < 20; ++r) {
    std::function<std::uint64_t(int)> fib = [&](int n) -> std::uint64_t {
      if (n < 2) return static_cast<std::uint64_t>(n);
      auto [a, b] = fj::join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
      return a + b;
    };
    ASSERT_EQ(p.run([&] { return fib(20); }), fj::test::serial_fib(20));
    std::vector<std::atomic<int>> hits(5000);
    p.run([&] {
      fj::task_group g;
      for (std::size_t i = 0; i < hits.size(); ++i) g.run([&hits, i] { hits[i].fetch_add(1); });
      g.wait();
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  }
  // The steal-half path only runs after a successful steal: make sure there were some.
  EXPECT_GT(p.statistics().steals, 0u) << "nothing was stolen: steal_half never ran";
}

// pool_options::pin_threads: background worker i runs on exactly the (i mod k)-th CPU of
// the process's affinity mask (k CPUs). All workers meet in a rendezvous, so each reports
// its own mask.
TEST(Pool, PinThreadsPinsWorkerIToCpuI) {
  cpu_set_t process_mask;
  ASSERT_EQ(sched_getaffinity(0, sizeof process_mask, &process_mask), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &process_mask)) cpus.push_back(c);
  fj::pool_options o;
  o.num_threads = 3;
  o.pin_threads = true;
  fj::pool p(o);
  std::vector<std::vector<int>> cpus_of(3);  // per worker index, written by that worker only
  std::atomic<int> started{0};
  std::atomic<bool> all_met{true};
  p.run([&] {
    fj::task_group g;
    for (int i = 0; i < 3; ++i)
      g.run([&] {
        started.fetch_add(1);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (started.load() < 3) {
          if (std::chrono::steady_clock::now() > deadline) {
            all_met.store(false);
            return;
          }
          std::this_thread::yield();
        }
        cpu_set_t mine;
        if (pthread_getaffinity_np(pthread_self(), sizeof mine, &mine) != 0) return;
        auto& out = cpus_of[static_cast<std::size_t>(fj::this_worker_index())];
        for (int c = 0; c < CPU_SETSIZE; ++c)
          if (CPU_ISSET(c, &mine)) out.push_back(c);
      });
  });
  ASSERT_TRUE(all_met.load()) << "the three workers never ran at the same time";
  for (std::size_t w = 1; w < 3; ++w) EXPECT_EQ(cpus_of[w], std::vector<int>{cpus[w % cpus.size()]}) << "worker " << w;
}
