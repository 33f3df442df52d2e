// task_group: many children, trees, exceptions, cancel, destructor without wait, misuse.
#include <gtest/gtest.h>

#include <atomic>
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

TEST(TaskGroup, FirstExceptionRethrownOnceAndGroupReusable) {
  fj::pool p(4);
  std::atomic<int> executed{0};
  p.run([&] {
    fj::task_group g;
    for (int i = 0; i < 10000; ++i)
      g.run([&executed, i] {
        executed.fetch_add(1);
        if (i % 997 == 13) throw std::runtime_error("child");
      });
    EXPECT_THROW(g.wait(), std::runtime_error);
    EXPECT_GE(executed.load(), 1);
    EXPECT_LE(executed.load(), 10000);
    // Reusable after wait: no stale exception, no stale cancellation.
    std::atomic<int> again{0};
    for (int i = 0; i < 100; ++i) g.run([&] { again.fetch_add(1); });
    g.wait();
    EXPECT_EQ(again.load(), 100);
  });
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

TEST(TaskGroup, DestructorSwallowsChildException) {
  EXPECT_NO_THROW({
    fj::task_group g;
    g.run([] { throw std::runtime_error("ignored"); });
  });
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
  g.wait();  // returns: nothing was counted
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
