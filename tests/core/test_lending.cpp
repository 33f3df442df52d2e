// Lending a pool's workers by name (forkjoin/mailbox.hpp, DESIGN.md [P-LEND]), the
// runtime's side of OpenMP team starts, tested without the OpenMP layer: posts, withdrawals
// and reservations against a real pool, each job checked to run exactly once and every wait
// bounded (a lost post fails the test instead of hanging it).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "mailbox.hpp"
#include "pool_impl.hpp"
#include "support.hpp"

namespace fj = forkjoin;
namespace fjd = forkjoin::detail;
using namespace std::chrono_literals;

namespace {

// A job handed over by name: counts its runs and records the worker that ran it.
struct counting_job : fjd::job_header {
  counting_job() noexcept : job_header(&run) {}
  static void run(fjd::job_header* j) noexcept {
    auto* c = static_cast<counting_job*>(j);
    c->ran_on.store(fj::this_worker_index(), std::memory_order_relaxed);
    c->runs.fetch_add(1, std::memory_order_release);  // pairs with the acquire in wait_runs
  }
  std::atomic<int> runs{0};
  std::atomic<int> ran_on{-2};
};

template <class Pred>
bool wait_until(Pred pred, std::chrono::milliseconds limit = 10000ms) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::yield();
  }
  return true;
}

bool ran_once(const counting_job& j) {
  return wait_until([&] { return j.runs.load(std::memory_order_acquire) >= 1; }) &&
         j.runs.load(std::memory_order_acquire) == 1;
}

// What start_members does with a post's answer: a prompt post runs; a late one is polled
// for `grace` and withdrawn if the worker has neither taken it nor become idle. True when
// the job will run (exactly once), false when it never will.
bool settle(fj::pool& p, std::size_t w, counting_job& j, fjd::post_result r, std::chrono::milliseconds grace = 1ms) {
  if (r == fjd::post_result::refused) return false;
  if (r == fjd::post_result::prompt) return true;
  if (wait_until([&] { return fjd::worker_took_or_idle(p, w, &j); }, grace)) return true;
  return !fjd::withdraw_from_worker(p, w, &j);
}

// A background worker reaches its idle loop soon after the pool starts or after its last
// job; only there can it be reserved.
bool reserve_when_idle(fj::pool& p, std::size_t index) {
  return wait_until([&] { return fjd::reserve_worker(p, index); });
}

}  // namespace

// [P-LEND R3] the regression behind omp_mixed's ASan hang: a reserved worker used to steal
// what it saw, then wait for its post at "busy"; the post, late, was withdrawn after the
// grace period (here: at once), and the worker waited for it forever (this test then hangs
// at the pool's end, caught by the ctest timeout). Now a reserved worker steals nothing
// (its steal count stays put while stealable work waits 30 ms), and a reserved post it saw
// first may read "late" and be withdrawn without stranding it: it idles on and can be
// reserved again.
TEST(Lending, ReservedWorkerStealsNothingAndAWithdrawnPostStrandsNothing) {
  fj::pool p(2);
  counting_job mail;
  std::uint64_t steals_before = 0, steals_after = 0;
  fjd::post_result r = fjd::post_result::refused;
  bool withdrawn = false;
  p.run([&] {
    // parked first: a worker that read "idle" just before the reservation may still steal
    ASSERT_TRUE(wait_until([&] { return p.num_parked() == 1; }));
    ASSERT_TRUE(fjd::reserve_worker(p, 1));
    steals_before = p.statistics().workers[1].steals;
    fj::join(
        [&] {
          std::this_thread::sleep_for(30ms);  // the second branch waits, stealable
          steals_after = p.statistics().workers[1].steals;
          r = fjd::post_to_worker(p, 1, &mail, true);
          if (r == fjd::post_result::late) withdrawn = fjd::withdraw_from_worker(p, 1, &mail);
        },
        [] {});
  });
  EXPECT_EQ(steals_after, steals_before) << "the reserved worker stole";
  EXPECT_NE(r, fjd::post_result::refused);
  if (!withdrawn) {
    EXPECT_TRUE(ran_once(mail));
    EXPECT_EQ(mail.ran_on.load(), 1);
  }
  ASSERT_TRUE(reserve_when_idle(p, 1)) << "worker 1 stranded (withdrawn: " << withdrawn << ")";
  counting_job last;
  EXPECT_TRUE(settle(p, 1, last, fjd::post_to_worker(p, 1, &last, true), 10000ms));
  EXPECT_TRUE(ran_once(last));
  if (withdrawn) {
    EXPECT_EQ(mail.runs.load(), 0);
  }
}

// [P-LEND L6] a post withdrawn just after the worker saw it in its mailbox: the worker finds
// its mailbox empty and goes back to its idle loop (it once took the empty hand for the
// pool's shutdown and ended its thread). Checked by lending the same worker again.
TEST(Lending, WithdrawnPostLeavesTheWorkerInItsIdleLoop) {
  fj::pool p(2);
  const int rounds = fj::test::under_sanitizer() ? 300 : 3000;
  int withdrawn = 0;
  for (int round = 0; round < rounds; ++round) {
    counting_job j;
    const fjd::post_result r = fjd::post_to_worker(p, 1, &j, false);
    if (r != fjd::post_result::refused && fjd::withdraw_from_worker(p, 1, &j)) {
      ++withdrawn;
      continue;
    }
    if (r != fjd::post_result::refused) {
      ASSERT_TRUE(ran_once(j)) << "round " << round;
    }
  }
  counting_job last;
  ASSERT_TRUE(reserve_when_idle(p, 1)) << "worker 1 never came back to its idle loop";
  EXPECT_TRUE(settle(p, 1, last, fjd::post_to_worker(p, 1, &last, true), 10000ms));
  EXPECT_TRUE(ran_once(last));
  EXPECT_GT(withdrawn, 0);
}

// [P-LEND R1, R2] a worker is reserved once; an unreserved post to it is withdrawn and
// refused, the reserver's own post then goes through, and only its job runs.
TEST(Lending, UnreservedPostToReservedWorkerIsRefused) {
  fj::pool p(3);
  counting_job intruder, mine;
  ASSERT_TRUE(wait_until([&] { return p.num_parked() == 2; }));
  ASSERT_TRUE(reserve_when_idle(p, 2));
  EXPECT_FALSE(fjd::reserve_worker(p, 2)) << "a worker was reserved twice";
  EXPECT_EQ(fjd::post_to_worker(p, 2, &intruder, false), fjd::post_result::refused);
  EXPECT_TRUE(settle(p, 2, mine, fjd::post_to_worker(p, 2, &mine, true), 10000ms));
  EXPECT_TRUE(ran_once(mine));
  EXPECT_EQ(mine.ran_on.load(), 2);
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(intruder.runs.load(), 0);
}

namespace {
// A handed-over job that keeps its worker busy until released (bounded).
struct blocking_job : fjd::job_header {
  blocking_job() noexcept : job_header(&run) {}
  static void run(fjd::job_header* j) noexcept {
    auto* b = static_cast<blocking_job*>(j);
    b->started.store(true, std::memory_order_release);
    wait_until([&] { return b->release.load(std::memory_order_acquire); });
    b->finished.store(true, std::memory_order_release);
  }
  std::atomic<bool> started{false}, release{false}, finished{false};
};
}  // namespace

// [P-LEND L2, L6] a post to a busy worker is late; the poster withdraws it before the worker
// is back (it never runs), or leaves it there and the worker runs it once it is idle again.
TEST(Lending, LatePostIsWithdrawnOrRunsOnceWorkerIsIdle) {
  fj::pool p(2);
  for (const bool withdraw : {true, false}) {
    blocking_job blocker;
    ASSERT_TRUE(reserve_when_idle(p, 1));
    ASSERT_NE(fjd::post_to_worker(p, 1, &blocker, true), fjd::post_result::refused);
    ASSERT_TRUE(wait_until([&] { return blocker.started.load(std::memory_order_acquire); }));
    counting_job j;
    ASSERT_EQ(fjd::post_to_worker(p, 1, &j, false), fjd::post_result::late);
    EXPECT_FALSE(fjd::worker_took_or_idle(p, 1, &j));
    if (withdraw) {
      EXPECT_TRUE(fjd::withdraw_from_worker(p, 1, &j));
    }
    blocker.release.store(true, std::memory_order_release);
    ASSERT_TRUE(wait_until([&] { return blocker.finished.load(std::memory_order_acquire); }));
    if (withdraw) {
      std::this_thread::sleep_for(10ms);
      EXPECT_EQ(j.runs.load(), 0);
    } else {
      EXPECT_TRUE(ran_once(j));
      EXPECT_EQ(j.ran_on.load(), 1);
      EXPECT_FALSE(fjd::withdraw_from_worker(p, 1, &j)) << "withdrawn after the worker took it";
    }
  }
}

// Many rounds of the OpenMP team start's pattern on an oversubscribed pool: reserve what is
// idle, post to the reserved workers while the caller's forkjoin work is stealable, post
// unreserved to the others (withdrawing late posts), and check that every posted job ran
// exactly once, on its worker, and that no withdrawn or refused job ran.
TEST(Lending, ReservationStressExactlyOnce) {
  constexpr std::size_t k_workers = 6;
  fj::pool p(k_workers);
  const int rounds = fj::test::under_sanitizer() ? 300 : 2000;
  std::vector<counting_job> jobs(k_workers);
  int posted_total = 0;
  for (int round = 0; round < rounds; ++round) {
    for (auto& j : jobs) {
      j.runs.store(0);
      j.ran_on.store(-2);
    }
    std::vector<bool> expect_run(k_workers, false);
    std::vector<std::size_t> expect_on(k_workers, 0);
    p.run([&] {
      std::vector<bool> reserved(k_workers, false);
      for (std::size_t w = 1; w < k_workers; ++w) reserved[w] = fjd::reserve_worker(p, w);
      std::atomic<long> sum{0};
      fj::join(
          [&] {
            for (std::size_t w = 1; w < k_workers; ++w) {
              const fjd::post_result r = fjd::post_to_worker(p, w, &jobs[w], reserved[w]);
              if (reserved[w]) {
                EXPECT_NE(r, fjd::post_result::refused);
              }
              // a reserved worker takes its post: a long grace, so that only a lost post fails
              const bool runs = settle(p, w, jobs[w], r, reserved[w] ? 10000ms : 1ms);
              if (reserved[w]) {
                EXPECT_TRUE(runs) << "round " << round << ": reserved worker " << w << " never took its post";
              }
              expect_run[w] = runs;
              expect_on[w] = w;
            }
          },
          [&] { fj::parallel_for(0, 64, [&](int i) { sum.fetch_add(i, std::memory_order_relaxed); }); });
      EXPECT_EQ(sum.load(), 64 * 63 / 2);
    });
    for (std::size_t w = 1; w < k_workers; ++w) {
      if (expect_run[w]) {
        ++posted_total;
        ASSERT_TRUE(ran_once(jobs[w])) << "round " << round << " worker " << w;
        EXPECT_EQ(jobs[w].ran_on.load(), static_cast<int>(expect_on[w]));
      }
    }
    // the unposted ones never run (checked after every posted one finished)
    for (std::size_t w = 1; w < k_workers; ++w)
      if (!expect_run[w]) {
        EXPECT_EQ(jobs[w].runs.load(), 0) << "round " << round << " worker " << w;
      }
  }
  EXPECT_GT(posted_total, 0);
}

namespace {
// The tail of an OpenMP member turn: a handed-over job that announces its worker idle and
// then runs whatever that worker's idle loop finds.
struct turn_then_idle_job : fjd::job_header {
  turn_then_idle_job() noexcept : job_header(&run) {}
  static void run(fjd::job_header* j) noexcept {
    auto* t = static_cast<turn_then_idle_job*>(j);
    t->started.store(true, std::memory_order_release);
    fjd::announce_idle();
    if (fjd::job_header* found = fjd::find_idle_work()) fjd::run_found_work(found);
  }
  std::atomic<bool> started{false};
};
}  // namespace

// [P-ISO Adopt] a job that a worker's idle loop finds after a handed-over job (a member
// turn's tail) runs in the isolated region it was stolen from, as in the top-level loop.
TEST(Lending, WorkFoundAfterAHandedOverJobRunsInItsRegion) {
  fj::pool p(2);
  turn_then_idle_job turn;
  std::atomic<int> g_on{-2};
  std::atomic<std::uint32_t> g_tag{0};
  p.run([&] {
    ASSERT_TRUE(reserve_when_idle(p, 1));
    ASSERT_NE(fjd::post_to_worker(p, 1, &turn, true), fjd::post_result::refused);
    ASSERT_TRUE(wait_until([&] { return turn.started.load(std::memory_order_acquire); }));
    fj::isolate([&] {
      fj::join([&] { wait_until([&] { return g_on.load() != -2; }); },
               [&] {
                 g_tag.store(fjd::slot_of(*fjd::tls_worker).deque_.tag());
                 g_on.store(fj::this_worker_index());
               });
    });
  });
  ASSERT_EQ(g_on.load(), 1) << "worker 1 did not steal the isolated branch within 10 s";
  EXPECT_NE(g_tag.load(), 0u) << "the stolen branch ran outside its isolated region";
}
