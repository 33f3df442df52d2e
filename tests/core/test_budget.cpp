// test_budget.cpp: one CPU budget per process (DESIGN.md [P-BUDGET]). The token protocol on
// its own (capacity, hand-over to waiters, cancellation, a lost-wake-up stress), then pools:
// the threads the kernel reports running while budgeted pools run nested loops, an
// explicitly oversized pool that may use all of its threads, and many small pools in short
// bursts that must all finish.
#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cpu_budget.hpp"
#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;
using fj::detail::cpu_budget;
using namespace std::chrono_literals;

namespace {

bool eventually(const std::function<bool()>& p, std::chrono::milliseconds limit = 10s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!p()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(100us);
  }
  return true;
}

// Threads of this process in state R (running or runnable), among those named with one of
// `prefixes` or whose id is in `tids`. From /proc, so no instrumentation can fool it.
std::size_t running_threads(const std::vector<std::string>& prefixes, const std::vector<long>& tids) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const std::size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 >= stat.size()) continue;
    const std::string comm = stat.substr(open + 1, close - open - 1);
    const long tid = std::stol(stat.substr(0, open));
    const bool ours = std::find(tids.begin(), tids.end(), tid) != tids.end() ||
                      std::any_of(prefixes.begin(), prefixes.end(),
                                  [&](const std::string& p) { return comm.compare(0, p.size(), p) == 0; });
    if (ours && stat[close + 2] == 'R') ++n;
  }
  return n;
}

// A few microseconds of arithmetic the optimiser cannot drop.
std::uint64_t spin_work(std::uint64_t seed) {
  std::uint64_t x = seed | 1;
  for (int k = 0; k < 2000; ++k) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x >> 33;
}

// Background workers of the pools named `prefix*` counted while they run a leaf: the budget
// bounds that count exactly (a worker runs jobs only while it holds a token, [P-BUDGET
// Start/Park]), whatever the scheduler does; preempted inside a leaf still counts.
struct workers_inside {
  const char* prefix = nullptr;
  std::atomic<int> now{0}, most{0};
  std::atomic<std::int64_t> leaves{0};
};

bool thread_named(const char* prefix) {
  char name[16] = {};
  pthread_getname_np(pthread_self(), name, sizeof name);
  return std::string_view(name).starts_with(prefix);
}

std::uint64_t counted_leaf(workers_inside* count, std::uint64_t seed) {
  if (count == nullptr) return spin_work(seed);
  thread_local const bool is_worker = thread_named(count->prefix);  // one prefix per process
  if (!is_worker) return spin_work(seed);
  const int now = count->now.fetch_add(1) + 1;
  int seen = count->most.load();
  while (now > seen && !count->most.compare_exchange_weak(seen, now)) {
  }
  const std::uint64_t r = spin_work(seed);
  count->now.fetch_sub(1);
  count->leaves.fetch_add(1, std::memory_order_relaxed);
  return r;
}

std::uint64_t nested_sum(int n, workers_inside* count = nullptr) {
  return fj::parallel_reduce(
      0, n, std::uint64_t{0},
      [n, count](int i) {
        return fj::parallel_reduce(
            0, n, std::uint64_t{0},
            [i, n, count](int j) { return counted_leaf(count, static_cast<std::uint64_t>(i * n + j)); }, std::plus<>{});
      },
      std::plus<>{});
}

std::uint64_t serial_nested_sum(int n) {
  std::uint64_t s = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) s += spin_work(static_cast<std::uint64_t>(i * n + j));
  return s;
}

}  // namespace

TEST(CpuBudget, TokensUpToCapacity) {
  cpu_budget b(2);
  EXPECT_EQ(b.capacity(), 2u);
  EXPECT_TRUE(b.try_acquire());
  EXPECT_TRUE(b.try_acquire());
  EXPECT_FALSE(b.try_acquire());
  EXPECT_EQ(b.running(), 2u);
  b.release();
  EXPECT_TRUE(b.try_acquire());
  EXPECT_EQ(b.peak(), 2u);
  b.release();
  b.release();
  EXPECT_EQ(b.running(), 0u);
  cpu_budget none(0);  // a budget of one CPU has no worker tokens
  EXPECT_FALSE(none.try_acquire());
  EXPECT_EQ(none.size(), 1u);
}

TEST(CpuBudget, ReleaseHandsTheTokenToTheFirstWaiter) {
  cpu_budget b(1);
  ASSERT_TRUE(b.try_acquire());
  std::atomic<int> order{0};
  int first = 0, second = 0;
  cpu_budget::waiter w1, w2;
  std::thread t1([&] {
    EXPECT_TRUE(b.acquire(w1, nullptr));
    first = ++order;
    b.release();
  });
  ASSERT_TRUE(eventually([&] { return b.waiting() == 1; }));
  std::thread t2([&] {
    EXPECT_TRUE(b.acquire(w2, nullptr));
    second = ++order;
    b.release();
  });
  ASSERT_TRUE(eventually([&] { return b.waiting() == 2; }));
  EXPECT_EQ(order.load(), 0);  // nobody runs past the budget
  b.release();
  t1.join();
  t2.join();
  EXPECT_EQ(first, 1);  // first come, first served
  EXPECT_EQ(second, 2);
  EXPECT_EQ(b.running(), 0u);
  EXPECT_EQ(b.peak(), 1u);
}

TEST(CpuBudget, CancelWakesOnlyItsWaitersWithoutAToken) {
  cpu_budget b(1);
  ASSERT_TRUE(b.try_acquire());
  std::atomic<bool> cancel_a{false}, cancel_b{false};
  cpu_budget::waiter wa, wb;
  std::atomic<int> a_result{-1}, b_result{-1};
  std::thread ta([&] { a_result = b.acquire(wa, &cancel_a) ? 1 : 0; });
  std::thread tb([&] { b_result = b.acquire(wb, &cancel_b) ? 1 : 0; });
  ASSERT_TRUE(eventually([&] { return b.waiting() == 2; }));
  cancel_a.store(true, std::memory_order_seq_cst);
  b.cancel_waiters(&cancel_a);
  ta.join();
  EXPECT_EQ(a_result.load(), 0);
  EXPECT_EQ(b_result.load(), -1);  // still waiting: another owner
  EXPECT_EQ(b.running(), 1u);
  b.release();  // to tb
  tb.join();
  EXPECT_EQ(b_result.load(), 1);
  b.release();
  cpu_budget::waiter late;  // the flag already set: no wait at all
  ASSERT_TRUE(b.try_acquire());
  EXPECT_FALSE(b.acquire(late, &cancel_a));
  b.release();
}

TEST(CpuBudget, NoLostWakeUpsUnderContention) {
  // Threads far beyond the capacity all ask at once, then meet at a barrier: no release
  // comes after a round's last one, so a waiter whose wake-up was lost waits forever (the
  // ctest timeout); the counts must also come out exact.
  for (const auto& [capacity, threads] : {std::pair<std::size_t, int>{1, 2}, {1, 8}, {2, 8}, {3, 8}}) {
    cpu_budget b(capacity);
    const int rounds = static_cast<int>(fj::test::scaled(3000, 500));
    std::barrier<> meet(threads);
    std::atomic<std::int64_t> done{0};
    std::atomic<int> inside{0}, most_inside{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
      ts.emplace_back([&, t] {
        cpu_budget::waiter w;
        for (int r = 0; r < rounds; ++r) {
          meet.arrive_and_wait();
          const bool ok = (r + t) % 3 == 0 ? b.try_acquire() || b.acquire(w, nullptr) : b.acquire(w, nullptr);
          EXPECT_TRUE(ok);
          const int now = inside.fetch_add(1) + 1;
          int seen = most_inside.load();
          while (now > seen && !most_inside.compare_exchange_weak(seen, now)) {
          }
          if (r % 7 == 0) std::this_thread::yield();
          inside.fetch_sub(1);
          b.release();  // with two threads, often inside the other's A1-A2 window
          done.fetch_add(1, std::memory_order_relaxed);
        }
      });
    for (auto& t : ts) t.join();
    EXPECT_EQ(done.load(), std::int64_t{threads} * rounds);
    EXPECT_LE(most_inside.load(), static_cast<int>(capacity));
    EXPECT_EQ(b.running(), 0u);
    EXPECT_EQ(b.waiting(), 0u);
    EXPECT_LE(b.peak(), capacity);
  }
}

TEST(Budget, PoolsWithNestedLoopsKeepToTheBudget) {
  cpu_budget& budget = cpu_budget::process();
  const std::size_t size = budget.size(), tokens = budget.capacity();
  // Three pools of the budget's size (so they share it), each driven by one thread: without
  // the budget 3 * (size - 1) workers run, with it size - 1 (the drivers are the
  // application's threads, for which the budget keeps one CPU).
  std::vector<std::unique_ptr<fj::pool>> pools;
  for (const char* name : {"fjbudA", "fjbudB", "fjbudC"}) {
    fj::pool_options o;
    o.num_threads = size;
    o.thread_name_prefix = name;
    pools.push_back(std::make_unique<fj::pool>(o));
  }
  const int n = 24;
  const std::uint64_t expected = serial_nested_sum(n);
  workers_inside inside;
  inside.prefix = "fjbud";
  std::atomic<bool> stop{false};
  std::atomic<int> rounds{0}, wrong{0};
  std::vector<std::thread> drivers;
  for (auto& p : pools)
    drivers.emplace_back([&, pool = p.get()] {
      while (!stop.load()) {
        if (pool->run([&] { return nested_sum(n, &inside); }) != expected) wrong.fetch_add(1);
        rounds.fetch_add(1);
      }
    });
  ASSERT_TRUE(eventually([&] { return rounds >= 3; }));
  budget.reset_peak();
  std::size_t samples = 0, over = 0, total = 0;
  const auto end = std::chrono::steady_clock::now() + 400ms;
  while (std::chrono::steady_clock::now() < end) {
    const std::size_t r = running_threads({"fjbudA", "fjbudB", "fjbudC"}, {});
    ++samples;
    total += r;
    if (r > tokens) ++over;
    std::this_thread::sleep_for(200us);
  }
  stop = true;
  for (auto& t : drivers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  // The exact check: background workers inside a leaf at once, preempted ones included (3 on
  // two CPUs with the pools taken off the budget). Workers ran leaves at all, so that the
  // bound is not met by starving them.
  EXPECT_LE(inside.most.load(), static_cast<int>(tokens));
  EXPECT_GT(inside.leaves.load(), 0);
  EXPECT_LE(budget.peak(), tokens);  // the instrumented count agrees
  // What the scheduler shows, for the log only: a worker woken for new work shows R until it
  // finds no token and parks again, for as long as the run queue keeps it waiting. Measured
  // on 2 CPUs, 1.2-1.8 with the budget and 1.9-2.2 without it: too close for a bound.
  const double mean = static_cast<double>(total) / static_cast<double>(samples);
  std::printf(
      "workers in state R: mean %.2f over %zu samples, %zu above %zu tokens; at most %d inside a leaf, "
      "%lld leaves\n",
      mean, samples, over, tokens, inside.most.load(), static_cast<long long>(inside.leaves.load()));
}

TEST(Budget, ExplicitlyOversizedPoolUsesAllItsThreads) {
  // cap + 1 tasks that can only finish together: with the budget applied to this pool they
  // would wait forever for one another.
  const std::size_t size = cpu_budget::process().size() + 1;
  fj::pool p(size);
  std::atomic<std::size_t> arrived{0};
  std::atomic<bool> timed_out{false};
  p.run([&] {
    fj::parallel_for(
        std::size_t{0}, size,
        [&](std::size_t) {
          arrived.fetch_add(1);
          const auto end = std::chrono::steady_clock::now() + 20s;
          while (arrived.load() < size) {
            if (std::chrono::steady_clock::now() > end) {
              timed_out = true;
              return;
            }
            std::this_thread::yield();
          }
        },
        fj::schedule::static_(1));
  });
  EXPECT_FALSE(timed_out.load());
  EXPECT_EQ(arrived.load(), size);
}

TEST(Budget, ManyPoolsShortBurstsAllFinish) {
  // Budgeted pools (two threads each, or the budget's size if smaller), each driven by two
  // threads, so that injected jobs need workers, i.e. tokens; their tasks also call into two
  // leaf pools (a caller blocked there gives its token back). Every burst must finish with
  // the right sum within the ctest timeout.
  const std::size_t size = std::min<std::size_t>(2, cpu_budget::process().size());
  const int pools = 4, leaves = 2;
  std::vector<std::unique_ptr<fj::pool>> ps, leaf;
  for (int i = 0; i < pools; ++i) ps.push_back(std::make_unique<fj::pool>(fj::test::one_outside_thread(size)));
  for (int i = 0; i < leaves; ++i) leaf.push_back(std::make_unique<fj::pool>(size));
  const int bursts = static_cast<int>(fj::test::scaled(150, 30));
  const std::uint64_t expected = fj::test::serial_fib(12) + serial_nested_sum(4);
  std::atomic<int> wrong{0}, finished{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 2 * pools; ++t)
    ts.emplace_back([&, t] {
      fj::pool& mine = *ps[static_cast<std::size_t>(t % pools)];
      fj::pool& next = *leaf[static_cast<std::size_t>(t % leaves)];
      for (int r = 0; r < bursts; ++r) {
        const std::uint64_t got = mine.run([&] {
          auto [x, y] =
              fj::join([&] { return next.run([] { return fj::test::serial_fib(12); }); }, [] { return nested_sum(4); });
          return x + y;
        });
        if (got != expected) wrong.fetch_add(1);
        finished.fetch_add(1);
        if (r % 16 == 0) std::this_thread::sleep_for(100us);  // let workers park between bursts
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(finished.load(), 2 * pools * bursts);
  ps.clear();
  leaf.clear();
  EXPECT_EQ(cpu_budget::process().waiting(), 0u);
}
