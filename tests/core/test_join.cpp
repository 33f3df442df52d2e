// join and parallel_invoke: results, recursion, deep chains, exceptions.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;

namespace {
std::uint64_t fib(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto [a, b] = fj::join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}
int chain(int depth) {
  if (depth == 0) return 0;
  auto [a, b] = fj::join([depth] { return chain(depth - 1); }, [] { return 1; });
  return a + b;
}
}  // namespace

TEST(Join, ReturnsBothResults) {
  fj::pool p(4);
  auto r = p.run([] { return fj::join([] { return 1; }, [] { return std::string("two"); }); });
  EXPECT_EQ(r.first, 1);
  EXPECT_EQ(r.second, "two");
}

TEST(Join, VoidResultsBecomeMonostateOrVoid) {
  int a = 0, b = 0;
  fj::join([&] { a = 1; }, [&] { b = 2; });  // both void: returns void, from outside any pool
  EXPECT_EQ(a + b, 3);
  auto r = fj::join([] {}, [] { return 5; });
  static_assert(std::is_same_v<decltype(r), std::pair<std::monostate, int>>);
  EXPECT_EQ(r.second, 5);
}

TEST(Join, ReferenceResultsStayReferences) {
  int x = 1, y = 2;
  auto r = fj::join([&]() -> int& { return x; }, [&]() -> int& { return y; });
  r.first = 10;
  EXPECT_EQ(x, 10);
}

class JoinFib : public ::testing::TestWithParam<std::size_t> {};
TEST_P(JoinFib, FibByJoinMatchesSerial) {
  fj::pool p(GetParam());
  const int n = fj::test::under_sanitizer() ? 20 : 27;
  EXPECT_EQ(p.run([n] { return fib(n); }), fj::test::serial_fib(n));
}
INSTANTIATE_TEST_SUITE_P(Threads, JoinFib, ::testing::Values(1, 2, 3, 4, 8, 16));

TEST(Join, TenThousandDeepChain) {
  fj::pool_options o;
  o.num_threads = 4;
  o.stack_size = std::size_t{256} << 20;  // thieves nest stolen links on their stacks too
  fj::pool p(o);
  int result = 0;
  fj::test::run_on_big_stack([&] { result = p.run([] { return chain(10000); }); }, std::size_t{256} << 20);
  EXPECT_EQ(result, 10000);
}

TEST(Join, ExceptionInLeftStillRunsRight) {
  fj::pool p(4);
  for (int rep = 0; rep < 1000; ++rep) {
    std::atomic<bool> right_ran{false};
    EXPECT_THROW(p.run([&] { fj::join([] { throw std::runtime_error("f"); }, [&] { right_ran = true; }); }),
                 std::runtime_error);
    ASSERT_TRUE(right_ran.load());
  }
}

TEST(Join, ExceptionInRightStillRunsLeft) {
  fj::pool p(3);
  for (int rep = 0; rep < 1000; ++rep) {
    std::atomic<bool> left_ran{false};
    try {
      p.run([&] { fj::join([&] { left_ran = true; }, [] { throw std::logic_error("g"); }); });
      FAIL() << "no exception";
    } catch (const std::logic_error& e) {
      EXPECT_STREQ(e.what(), "g");
    }
    ASSERT_TRUE(left_ran.load());
  }
}

TEST(Join, BothThrowLeftWins) {
  for (std::size_t threads : {1, 2, 4}) {
    fj::pool p(threads);
    for (int rep = 0; rep < 1000; ++rep) {
      try {
        p.run([] { fj::join([] { throw 1; }, [] { throw 2; }); });
        FAIL();
      } catch (int v) {
        ASSERT_EQ(v, 1);  // a non-std exception comes back exactly
      }
    }
  }
}

TEST(Join, ExceptionsDeepInsideRecursion) {
  fj::pool p(4);
  std::atomic<int> leaves{0};
  auto rec = [&](auto& self, int depth) -> void {
    if (depth == 0) {
      if (leaves.fetch_add(1) == 300) throw std::runtime_error("leaf");
      return;
    }
    fj::join([&] { self(self, depth - 1); }, [&] { self(self, depth - 1); });
  };
  EXPECT_THROW(p.run([&] { rec(rec, 10); }), std::runtime_error);
  EXPECT_EQ(leaves.load(), 1024);  // every branch still ran
}

// f leaves task_group children above g on the deque (their group outlives f): the join
// runs them, then takes g back from beneath them ([P-DEQUE Reclaim]), or waits for its thief.
TEST(Join, LeftLeavesGroupChildrenAboveRight) {
  for (std::size_t threads : {1, 2, 4}) {
    fj::pool p(threads);
    for (int rep = 0; rep < 300; ++rep) {
      std::atomic<int> children{0}, right{0};
      const std::string r = p.run([&] {
        fj::task_group tg;
        auto [a, b] = fj::join(
            [&] {
              for (int i = 0; i < 5; ++i) tg.run([&] { children.fetch_add(1); });
              return 7;
            },
            [&] {
              right.fetch_add(1);
              return std::string("g");
            });
        tg.wait();
        return std::to_string(a) + b;
      });
      ASSERT_EQ(r, "7g");
      ASSERT_EQ(children.load(), 5);
      ASSERT_EQ(right.load(), 1);
    }
  }
}

// The same when f throws: g still runs once, the children too, f's exception comes back.
TEST(Join, LeftThrowsAfterLeavingGroupChildren) {
  for (std::size_t threads : {1, 2, 4}) {
    fj::pool p(threads);
    for (int rep = 0; rep < 300; ++rep) {
      std::atomic<int> children{0}, right{0};
      try {
        p.run([&] {
          fj::task_group tg;
          try {
            fj::join(
                [&] {
                  for (int i = 0; i < 3; ++i) tg.run([&] { children.fetch_add(1); });
                  throw 1;
                },
                [&] {
                  right.fetch_add(1);
                  throw 2;
                });
          } catch (...) {
            tg.wait();
            throw;
          }
        });
        FAIL() << "no exception";
      } catch (int v) {
        ASSERT_EQ(v, 1);
      }
      ASSERT_EQ(children.load(), 3);
      ASSERT_EQ(right.load(), 1);
    }
  }
}

// A wait inside f (for a group made before the join) pops g, the newest job and never
// published, and runs it as a job ([P-JOIN Share]); the join then finds its latch set. One
// worker: nobody else can take anything, so the wait must pop g.
TEST(Join, WaitInsideLeftRunsRightAsAJob) {
  fj::pool p(1);
  for (const bool right_throws : {false, true}) {
    p.run([&] {
      for (int rep = 0; rep < 100; ++rep) {
        fj::task_group tg;
        std::atomic<int> child{0}, right{0};
        tg.run([&] { child.fetch_add(1); });
        try {
          auto [a, b] = fj::join(
              [&] {
                tg.wait();
                return child.load();
              },
              [&] {
                right.fetch_add(1);
                if (right_throws) throw std::runtime_error("g");
                return std::string(40, 'x');  // not trivial: stored in the frame, moved out
              });
          EXPECT_FALSE(right_throws);
          EXPECT_EQ(a, 1);
          EXPECT_EQ(b, std::string(40, 'x'));
        } catch (const std::runtime_error& e) {
          EXPECT_TRUE(right_throws);
          EXPECT_STREQ(e.what(), "g");
        }
        EXPECT_EQ(right.load(), 1);
      }
    });
  }
}

// A callable passed as an lvalue is called itself, never a copy: its state changes stay
// visible to the caller.
TEST(Join, LvalueCallablesAreNotCopied) {
  struct counter {
    int calls = 0;
    int operator()() { return ++calls; }
  };
  for (std::size_t threads : {1, 2}) {
    fj::pool p(threads);
    counter f, g;
    for (int rep = 0; rep < 100; ++rep) p.run([&] { fj::join(f, g); });
    EXPECT_EQ(f.calls, 100);
    EXPECT_EQ(g.calls, 100);
  }
}

TEST(ParallelInvoke, RunsEveryCallableOnce) {
  fj::pool p(4);
  std::vector<std::atomic<int>> hits(5);
  p.run([&] {
    fj::parallel_invoke([&] { ++hits[0]; }, [&] { ++hits[1]; }, [&] { ++hits[2]; }, [&] { ++hits[3]; },
                        [&] { ++hits[4]; });
  });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  fj::parallel_invoke();  // compile check: the empty pack is accepted and does nothing
  int solo = 0;
  fj::parallel_invoke([&] { ++solo; });
  EXPECT_EQ(solo, 1);
}

TEST(ParallelInvoke, LeftmostExceptionWins) {
  std::atomic<int> ran{0};
  try {
    fj::parallel_invoke([&] { ++ran; },
                        [&] {
                          ++ran;
                          throw 2;
                        },
                        [&] {
                          ++ran;
                          throw 3;
                        });
    FAIL();
  } catch (int v) {
    EXPECT_EQ(v, 2);
  }
  EXPECT_EQ(ran.load(), 3);
}
