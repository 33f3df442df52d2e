// task_group: many children, trees, exceptions, cancel, destructor without wait, misuse.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;

TEST(TaskGroup, HundredThousandChildrenEachRunOnce) {
  fj::pool p(4);
  constexpr int n = 100000;
  std::vector<std::atomic<int>> hits(n);
  p.run([&] {
    fj::task_group g;
    for (int i = 0; i < n; ++i) g.run([&hits, i] { hits[static_cast<std::size_t>(i)].fetch_add(1); });
    g.wait();
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(TaskGroup, FromOutsideAnyPool) {
  std::atomic<int> sum{0};
  fj::task_group g;
  for (int i = 1; i <= 1000; ++i) g.run([&sum, i] { sum += i; });
  g.wait();
  EXPECT_EQ(sum.load(), 500500);
}

namespace {
long tree(int depth) {
  if (depth == 0) return 1;
  std::atomic<long> total{0};
  fj::task_group g;
  for (int i = 0; i < 4; ++i) g.run([&] { total += tree(depth - 1); });
  g.wait();
  return total.load();
}
}  // namespace

TEST(TaskGroup, NestedTrees) {
  for (std::size_t threads : {1, 2, 3, 8}) {
    fj::pool p(threads);
    EXPECT_EQ(p.run([] { return tree(7); }), 16384);
  }
}

namespace {
struct child_error {
  int index;
};
}  // namespace

// Children 0..3 throw distinct payloads. The first thrower is the one that wins a CAS on
// `first`; it throws once another thrower has started (or after 1 s), and the others throw
// only after the group is canceling, i.e. after it captured an exception. So the group
// sees the first thrower's exception first, and must rethrow exactly that one, once,
// however many more follow. Every child runs at most once.
TEST(TaskGroup, FirstExceptionRethrownOnceAndGroupReusable) {
  fj::pool p(4);
  constexpr int n = 10000, k_throwers = 4;
  std::vector<std::atomic<int>> hits(n);
  std::atomic<int> first{-1}, throwers_started{0}, thrown{0};
  p.run([&] {
    fj::task_group g;
    for (int i = 0; i < n; ++i)
      g.run([&, i] {
        hits[static_cast<std::size_t>(i)].fetch_add(1);
        if (i >= k_throwers) return;
        throwers_started.fetch_add(1);
        int none = -1;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        if (first.compare_exchange_strong(none, i)) {
          while (throwers_started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        } else {
          while (!g.is_canceling() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        }
        thrown.fetch_add(1);
        throw child_error{i};
      });
    try {
      g.wait();
      ADD_FAILURE() << "wait() did not rethrow";
    } catch (const child_error& e) {
      EXPECT_EQ(e.index, first.load()) << thrown.load() << " children threw";
    }
    // Reusable after wait: no stale exception, no stale cancellation.
    std::atomic<int> again{0};
    for (int i = 0; i < 100; ++i) g.run([&] { again.fetch_add(1); });
    EXPECT_NO_THROW(g.wait());
    EXPECT_EQ(again.load(), 100);
  });
  EXPECT_GE(thrown.load(), 1);
  for (std::size_t i = 0; i < hits.size(); ++i) ASSERT_LE(hits[i].load(), 1) << "child " << i;
  ASSERT_GE(first.load(), 0);
  EXPECT_EQ(hits[static_cast<std::size_t>(first.load())].load(), 1);
  std::printf("FirstExceptionRethrownOnce: %d of %d throwers threw\n", thrown.load(), k_throwers);
}

TEST(TaskGroup, NonStdExceptionRethrownExactly) {
  fj::task_group g;
  g.run([] { throw 42; });
  try {
    g.wait();
    FAIL();
  } catch (int v) {
    EXPECT_EQ(v, 42);
  }
}

TEST(TaskGroup, CancelSkipsUnstartedChildren) {
  fj::pool p(2);
  std::atomic<int> executed{0};
  p.run([&] {
    fj::task_group g;
    g.cancel();
    for (int i = 0; i < 1000; ++i) g.run([&] { executed.fetch_add(1); });
    g.wait();
  });
  EXPECT_EQ(executed.load(), 0);
}

TEST(TaskGroup, DestructorWaitsWithoutWaitCall) {
  fj::pool p(4);
  std::atomic<int> executed{0};
  p.run([&] {
    fj::task_group g;
    for (int i = 0; i < 1000; ++i)
      g.run([&] {
        std::this_thread::yield();
        executed.fetch_add(1);
      });
  });
  EXPECT_EQ(executed.load(), 1000);
}

// A child's exception that no wait() collected is never dropped in silence: the destructor
// waits, prints it and terminates (oneTBB reports a missing wait too). Also when every
// child had finished before the group went out of scope.
TEST(TaskGroup, DestroyedWithUncollectedExceptionTerminates) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child re-executes: no inherited threads
  EXPECT_DEATH(
      {
        fj::pool p(2);
        p.run([] {
          fj::task_group g;
          g.run([] { throw std::runtime_error("lost child"); });
        });
      },
      "destroyed without wait\\(\\) after a child threw \\(lost child\\)");
  EXPECT_DEATH(
      {
        fj::task_group g;
        g.run([] { throw 42; });
        while (!g.is_canceling()) std::this_thread::yield();  // the child threw: nothing runs any more
      },
      "without wait\\(\\) after a child threw \\(an exception not derived from std::exception\\)");
}

// Collected by wait(), the exception is the caller's and the destructor has nothing to say;
// while another exception unwinds the scope, that one propagates and the child's is dropped.
TEST(TaskGroup, DestructorAfterWaitOrDuringUnwindingIsQuiet) {
  EXPECT_THROW(
      {
        fj::task_group g;
        g.run([] { throw std::runtime_error("child"); });
        g.wait();
      },
      std::runtime_error);
  std::atomic<bool> thrown{false};
  EXPECT_THROW(
      {
        fj::task_group g;
        g.run([&] {
          thrown = true;
          throw std::runtime_error("child");
        });
        while (!thrown) std::this_thread::yield();
        throw std::logic_error("outer");
      },
      std::logic_error);
}

TEST(TaskGroup, WaitFromOwnChildIsAnError) {
  fj::task_group g;
  std::atomic<bool> caught{false};
  g.run([&] {
    try {
      g.wait();
    } catch (const std::logic_error&) {
      caught = true;
    }
  });
  g.wait();
  EXPECT_TRUE(caught.load());
}

TEST(TaskGroup, ThrowingCopyConstructorSpawnsNothing) {
  struct bomb {
    bool armed = false;
    bomb() = default;
    bomb(const bomb& o) : armed(o.armed) {
      if (armed) throw std::runtime_error("copy");
    }
    void operator()() const {}
  };
  fj::task_group g;
  bomb b;
  b.armed = true;
  EXPECT_THROW(g.run(b), std::runtime_error);
  // wait() returns at once when nothing was counted; a counted spawn that never runs would
  // hang it, so a watchdog turns that into a clear failure instead of a ctest timeout.
  std::atomic<bool> returned{false};
  std::thread watchdog([&] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!returned.load()) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr, "ThrowingCopyConstructorSpawnsNothing: wait() hung: the failed spawn was counted\n");
        std::abort();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  g.wait();
  returned.store(true);
  watchdog.join();
}

TEST(TaskGroup, MillionChildrenFromOneThread) {
  fj::pool p(2);
  const auto n = fj::test::scaled(1000000, 100000);
  std::atomic<std::int64_t> count{0};
  p.run([&] {
    fj::task_group g;
    for (std::int64_t i = 0; i < n; ++i) g.run([&] { count.fetch_add(1, std::memory_order_relaxed); });
    g.wait();
  });
  EXPECT_EQ(count.load(), n);
}
