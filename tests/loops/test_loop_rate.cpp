// The loop engine's rate rule (forkjoin/DESIGN.md [P-LOOP Rate]): an auto_ loop worth less
// than a microsecond at its call site's measured speed runs whole on the caller, and a
// remainder too small to be worth a thief's trip is never split. Most tests fix the rate
// (detail::g_loop_fixed_rate) so that the path a loop takes does not depend on the clock;
// the *Timing suite checks that a real site learns its rate.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;
using namespace std::chrono_literals;

namespace {

// Fixes every site's rate for one test (iterations per loop_budget::k_slice_ns, 64 us) and
// restores learning after it.
class fixed_rate {
 public:
  explicit fixed_rate(std::uint64_t per_slice) { fj::detail::g_loop_fixed_rate.store(per_slice); }
  ~fixed_rate() { fj::detail::g_loop_fixed_rate.store(0); }
  fixed_rate(const fixed_rate&) = delete;
  fixed_rate& operator=(const fixed_rate&) = delete;
};
constexpr std::uint64_t per_ns(std::uint64_t k) { return k * fj::detail::loop_budget::k_slice_ns; }

void spin_for(std::chrono::nanoseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

struct record {
  std::vector<std::atomic<int>> hits;
  std::vector<int> owner;
  explicit record(std::size_t n) : hits(n), owner(n, -1) {}
  void note(std::size_t i) {
    hits[i].fetch_add(1, std::memory_order_relaxed);
    owner[i] = fj::this_worker_index();
  }
  bool exactly_once() const {
    for (const auto& h : hits)
      if (h.load() != 1) return false;
    return true;
  }
  std::size_t not_on(int w) const {
    std::size_t k = 0;
    for (int o : owner) k += o != w ? 1 : 0;
    return k;
  }
};

}  // namespace

// 1000 iterations that claim to take 0.1 us run on the caller alone, although each really
// takes 5 us and three idle workers search meanwhile. (That the caller takes the serial path,
// not a one-block loop, shows only in its cost: the gate's for_auto_1000 counts.)
TEST(LoopRate, LoopBelowAMicrosecondRunsOnTheCaller) {
  fj::pool p(4);
  const fixed_rate fast(per_ns(10));
  record r(1000);
  p.run([&] {
    fj::parallel_for(std::size_t{0}, std::size_t{1000}, [&](std::size_t i) {
      r.note(i);
      spin_for(5us);
    });
  });
  EXPECT_TRUE(r.exactly_once());
  EXPECT_EQ(r.not_on(0), 0u) << "iterations ran on other workers";
}

// 1500 iterations that claim to take 1.5 us make three blocks of 0.5 us (not one block per
// 2 us grain): the three idle workers steal them, since each iteration really takes 5 us.
TEST(LoopRate, LoopOfAFewMicrosecondsIsShared) {
  fj::pool p(4);
  const fixed_rate site(per_ns(1));
  // Up to 5 calls: one is enough, but a worker kept off the CPU by a busy machine for a whole
  // call misses it. A loop the engine keeps on the caller is never shared.
  std::size_t shared = 0;
  for (int call = 0; call < 5 && shared == 0; ++call) {
    record r(1500);
    p.run([&] {
      fj::parallel_for(std::size_t{0}, std::size_t{1500}, [&](std::size_t i) {
        r.note(i);
        spin_for(5us);
      });
    });
    EXPECT_TRUE(r.exactly_once());
    shared = r.not_on(0);
  }
  EXPECT_GT(shared, 0u) << "a 7.5 ms loop on 4 workers ran on the caller alone, 5 times";
}

// The same loop at a slow site's rate (one iteration per 64 us) is shared.
TEST(LoopRate, SlowSiteIsShared) {
  fj::pool p(4);
  const fixed_rate slow(1);  // one iteration per 64 us
  // Up to 5 calls: one is enough, but a worker kept off the CPU by a busy machine for a whole
  // call misses it. A loop the engine keeps on the caller is never shared.
  std::size_t shared = 0;
  for (int call = 0; call < 5 && shared == 0; ++call) {
    record r(1000);
    p.run([&] {
      fj::parallel_for(std::size_t{0}, std::size_t{1000}, [&](std::size_t i) {
        r.note(i);
        spin_for(5us);
      });
    });
    EXPECT_TRUE(r.exactly_once());
    shared = r.not_on(0);
  }
  EXPECT_GT(shared, 0u) << "a 5 ms loop on 4 workers ran on the caller alone, 5 times";
}

// The site claims 7 us for 7,000 iterations: blocks of 3.5 us, grains of 2 us, splits only
// of remainders worth 4 us. The caller's block really takes 2.8 ms and worker 1's nothing,
// so worker 1 runs dry at once and asks for work; the caller polls demand after each slice
// of its block, and its remainder, longer than the smallest grain but worth less than 4 us
// at the site's rate, is never split.
TEST(LoopRate, RemainderBelowTheSplitMinimumIsNotSplit) {
  fj::pool p(2);
  const fixed_rate site(per_ns(1));
  const std::size_t n = 7000;
  int shared = 0;
  for (int round = 0; round < 20 && shared < 3; ++round) {
    record r(n);
    const auto splits_before = p.statistics().splits_served;
    p.run([&] {
      fj::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
        r.note(i);
        if (i < n / 2) spin_for(800ns);
      });
    });
    ASSERT_TRUE(r.exactly_once());
    EXPECT_EQ(p.statistics().splits_served, splits_before) << "round " << round;
    shared += r.owner[n - 1] == 1 ? 1 : 0;  // worker 1 took its block: it was idle while the caller worked
  }
  EXPECT_EQ(shared, 3) << "worker 1 never took part: the rule was not exercised";
}

// The caller's path reports exceptions and results as the parallel one does.
TEST(LoopRate, CallerPathKeepsResultsAndExceptions) {
  fj::pool p(3);
  const fixed_rate fast(per_ns(10));
  const long sum = p.run([] {
    return fj::parallel_reduce(
        0, 500, 0L, [](int i) { return static_cast<long>(i); }, std::plus<>());
  });
  EXPECT_EQ(sum, 499L * 500L / 2);
  std::atomic<int> ran{0};
  EXPECT_THROW(p.run([&] {
    fj::parallel_for(0, 100, [&](int i) {
      ran.fetch_add(1);
      if (i == 10) throw std::runtime_error("ten");
    });
  }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 11) << "the caller's one chunk stops at the throw";
}

// A real site learns its rate. 65 calls of 4 cheap iterations teach it (a site's first call
// is timed, then every 16th call of a thread: the 17th, 33rd, 49th and 65th); then 15 calls,
// none of them timed, whose iterations really take 200 us: they run on the caller alone, as
// the learned rate says (well under a microsecond, even in a Debug build), while three idle
// workers search for work. A site that learns nothing publishes its blocks, and the workers
// take those 0.8 ms calls' blocks at once.
TEST(LoopRateTiming, SiteLearnsItsRate) {
  // A sanitizer makes 4 iterations and the call's own timing cost over a microsecond now and
  // then (ThreadSanitizer always; AddressSanitizer in 1 of 3 CI runs: 30 iterations off the
  // caller); the dev suite checks the rule natively.
  if (fj::test::under_sanitizer()) GTEST_SKIP() << "a sanitizer stretches the cheap calls beyond the serial threshold";
  fj::pool p(4);
  std::vector<int> owner(4, -1);
  bool slow = false;
  auto call = [&] {
    fj::parallel_for(std::size_t{0}, owner.size(), [&](std::size_t i) {
      owner[i] = fj::this_worker_index();
      if (slow) spin_for(200us);
    });
  };
  std::size_t elsewhere = 0;
  p.run([&] {
    for (int k = 0; k < 1 + 4 * 16; ++k) call();
    slow = true;
    for (int k = 0; k < 15; ++k) {
      std::fill(owner.begin(), owner.end(), -1);
      call();
      for (int o : owner) elsewhere += o != 0 ? 1 : 0;
    }
  });
  EXPECT_EQ(elsewhere, 0u) << "iterations ran off the caller: the site did not learn it is fast";
}
