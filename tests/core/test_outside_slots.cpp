// [P-SLOT X1-X3] threads from outside a pool that work in it at once, each in a slot of its
// own (a spare slot) while another holds slot 0; pool_options::max_outside_threads bounds
// them, and beyond the bound [P-SLOT] D1-D5 hand the callable over as before.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;
using namespace std::chrono_literals;

namespace {
// Spins (never helping the pool) until `flag` is set or 10 s pass; false on the timeout, so
// that a missing slot fails the test instead of hanging it.
bool spin_until(const std::atomic<bool>& flag) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}
}  // namespace

// A pool of one thread has no worker. While A holds slot 0 and spins without helping, B's
// callable runs at once, on B's own thread, in a slot whose index is not A's. With only one
// outside thread allowed, nobody could run it until A leaves (A then gives up at its
// deadline and the test fails).
TEST(OutsideSlots, SecondOutsideThreadWorksBesideTheFirst) {
  for (int round = 0; round < 20; ++round) {
    fj::pool p(1);
    std::atomic<bool> a_in{false}, b_ran{false};
    bool a_saw_b = false;
    int a_index = -1;
    std::thread a([&] {
      p.run([&] {
        a_index = fj::this_worker_index();
        a_in = true;
        a_saw_b = spin_until(b_ran);
      });
    });
    while (!a_in) std::this_thread::yield();
    const std::thread::id b_id = std::this_thread::get_id();
    const int b_index = p.run([&] {
      EXPECT_EQ(std::this_thread::get_id(), b_id);
      b_ran = true;
      return fj::this_worker_index();
    });
    a.join();
    ASSERT_TRUE(a_saw_b) << "round " << round;
    EXPECT_EQ(a_index, 0);
    EXPECT_GE(b_index, 1);  // a spare slot: num_threads() + k
  }
}

// Each outside thread's spawns go to its own slot: the workers steal them and its wait
// helps; every task runs exactly once and each caller gets its own sum. Eight callers on a
// pool of three threads, each with nested joins and a task_group.
TEST(OutsideSlots, ManyOutsideThreadsEachRunTheirWorkExactlyOnce) {
  fj::pool p(3);
  constexpr int k_callers = 8;
  constexpr int k_tasks = 2000;
  std::vector<std::vector<std::atomic<int>>> runs(k_callers);
  for (auto& r : runs) r = std::vector<std::atomic<int>>(k_tasks);
  std::vector<std::int64_t> sums(k_callers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < k_callers; ++c)
    callers.emplace_back([&, c] {
      for (int rep = 0; rep < 5; ++rep) {
        sums[c] = p.run([&] {
          fj::task_group g;
          for (int i = 0; i < k_tasks / 2; ++i) g.run([&, i] { runs[c][i]++; });
          const std::int64_t s = fj::parallel_reduce(
              std::int64_t{k_tasks / 2}, std::int64_t{k_tasks}, std::int64_t{0},
              [&](std::int64_t i) {
                runs[c][static_cast<std::size_t>(i)]++;
                return i;
              },
              [](std::int64_t x, std::int64_t y) { return x + y; });
          g.wait();
          return s;
        });
      }
    });
  for (auto& t : callers) t.join();
  std::int64_t want = 0;
  for (int i = k_tasks / 2; i < k_tasks; ++i) want += i;
  for (int c = 0; c < k_callers; ++c) {
    EXPECT_EQ(sums[c], want) << "caller " << c;
    for (int i = 0; i < k_tasks; ++i) ASSERT_EQ(runs[c][i].load(), 5) << "caller " << c << " task " << i;
  }
}

// No two threads inside a pool hold one index at once, outside threads included.
TEST(OutsideSlots, IndicesOfThreadsInsideAtOnceAreDistinct) {
  fj::pool p(2);
  constexpr int k_callers = 6;
  std::atomic<int> inside{0};
  std::atomic<bool> all_in{false};
  std::vector<int> index(k_callers, -1);
  std::vector<std::thread> callers;
  for (int c = 0; c < k_callers; ++c)
    callers.emplace_back([&, c] {
      p.run([&] {
        index[c] = fj::this_worker_index();
        if (++inside == k_callers) all_in = true;
        EXPECT_TRUE(spin_until(all_in));  // all six inside at once, each on its own thread
      });
    });
  for (auto& t : callers) t.join();
  const std::set<int> distinct(index.begin(), index.end());
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(k_callers));
  for (int i : index) {
    EXPECT_GE(i, 0);
    EXPECT_TRUE(i == 0 || i >= 2) << i;  // slot 0, or a spare slot (the worker holds 1)
  }
}

// max_outside_threads = 1: the second caller takes no slot of its own; its callable runs
// on the worker (A holds slot 0 and spins), not on the caller's thread.
TEST(OutsideSlots, OneOutsideThreadAtATimeHandsTheCallableOver) {
  fj::pool_options o;
  o.num_threads = 2;
  o.max_outside_threads = 1;
  fj::pool p(o);
  std::atomic<bool> a_in{false}, b_ran{false};
  bool a_saw_b = false;
  std::thread a([&] {
    p.run([&] {
      a_in = true;
      a_saw_b = spin_until(b_ran);
    });
  });
  while (!a_in) std::this_thread::yield();
  const std::thread::id b_id = std::this_thread::get_id();
  const bool on_b = p.run([&] {
    b_ran = true;
    return std::this_thread::get_id() == b_id;
  });
  a.join();
  EXPECT_TRUE(a_saw_b);
  EXPECT_FALSE(on_b);
  EXPECT_EQ(p.run([] { return fj::this_worker_index(); }), 0);
}

// At most max_outside_threads callers work inside at once: with a bound of two on a pool of
// one thread (no worker), a third caller waits until slot 0 frees ([P-SLOT] D2) and never
// works beside the two.
TEST(OutsideSlots, TheBoundHolds) {
  fj::pool_options o;
  o.num_threads = 1;
  o.max_outside_threads = 2;
  fj::pool p(o);
  std::atomic<int> inside{0}, peak{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 6; ++c)
    callers.emplace_back([&] {
      for (int rep = 0; rep < 50; ++rep)
        p.run([&] {
          const int now = ++inside;
          int seen = peak.load();
          while (now > seen && !peak.compare_exchange_weak(seen, now)) {
          }
          std::this_thread::sleep_for(50us);
          --inside;
        });
    });
  for (auto& t : callers) t.join();
  EXPECT_LE(peak.load(), 2);
  EXPECT_GE(peak.load(), 1);
}

TEST(OutsideSlots, NegativeBoundIsNamed) {
  fj::pool_options o;
  o.max_outside_threads = static_cast<std::size_t>(-2);
  const std::string m = fj::test::invalid_argument_message([&] { fj::pool p(o); });
  EXPECT_NE(m.find("max_outside_threads"), std::string::npos) << m;
}
