// [P-LENT] W0-W4: a lent pool: its worker slots have no threads of their own and are served,
// while it has work, by threads of another pool that a summon sends. Loops and injected
// jobs run exactly once, on the lender's threads and the caller alone, and the pool's
// destructor joins nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;
namespace fd = forkjoin::detail;
using namespace std::chrono_literals;

namespace {

// The lender: each summons becomes a job of `from` that serves the slot; `live` counts the
// jobs sent and not finished, so that the test destroys the lent pool only once none serves it.
struct lender_state {
  fj::pool* from = nullptr;
  std::atomic<int> live{0};
  std::atomic<int> summons{0};
  std::atomic<int> left{0};  // `leaving` calls, made from inside the slot
  std::atomic<int> left_outside_slot{0};
  std::mutex mutex;
  std::set<std::thread::id> servers;  // threads that ran a serve job, under mutex
};

struct serve_job : fd::job_header {
  serve_job(lender_state& s, fd::pool_impl& p, std::size_t index) noexcept
      : job_header(&run), state(&s), pool(&p), slot(index) {}
  lender_state* state;
  fd::pool_impl* pool;
  std::size_t slot;
  static void run(fd::job_header* h) noexcept {
    std::unique_ptr<serve_job> self(static_cast<serve_job*>(h));
    {
      const std::lock_guard<std::mutex> lock(self->state->mutex);
      self->state->servers.insert(std::this_thread::get_id());
    }
    fd::serve_lent_slot(*self->pool, self->slot);
    self->state->live.fetch_sub(1);
  }
};

void summon(void* ctx, fd::pool_impl& p, std::size_t slot) noexcept {
  auto* s = static_cast<lender_state*>(ctx);
  s->summons.fetch_add(1);
  s->live.fetch_add(1);
  fd::inject_job(fd::impl_of(*s->from), new serve_job(*s, p, slot));
}

void leaving(void* ctx, fd::pool_impl& p) noexcept {
  auto* s = static_cast<lender_state*>(ctx);
  s->left.fetch_add(1);
  const fd::worker* w = fd::tls_worker;
  if (w == nullptr || w->pool_ != &p || w->index_ == 0) s->left_outside_slot.fetch_add(1);
}

std::unique_ptr<fj::pool> lent_pool(lender_state& s, std::size_t slots) {
  fj::pool_options o;
  o.num_threads = slots;
  return fd::make_lent_pool(o, fd::thread_lender{&summon, &leaving, &s});
}

bool wait_until_zero(const std::atomic<int>& n) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (n.load() != 0) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(100us);
  }
  return true;
}

}  // namespace

// Loops started by an outside thread in the lent pool cover every index once, and the
// threads that ran them are the caller and the lender's own threads (none is created).
TEST(LentPool, LoopsRunOnTheCallerAndTheLendersThreads) {
  fj::pool lender(4);
  lender_state s;
  s.from = &lender;
  auto p = lent_pool(s, 4);
  const auto caller = std::this_thread::get_id();
  std::set<std::thread::id> seen;
  std::mutex m;
  for (int round = 0; round < 50; ++round) {
    constexpr int k_n = 20000;
    std::vector<std::atomic<int>> hits(k_n);
    p->run([&] {
      fj::parallel_for(0, k_n, [&](int i) {
        hits[static_cast<std::size_t>(i)]++;
        if (i % 512 == 0) {
          const std::lock_guard<std::mutex> lock(m);
          seen.insert(std::this_thread::get_id());
        }
      });
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  }
  ASSERT_TRUE(wait_until_zero(s.live)) << "a lent thread never left its slot";
  const std::lock_guard<std::mutex> lock(s.mutex);
  for (const auto& id : seen)
    EXPECT_TRUE(id == caller || s.servers.count(id) == 1) << "a loop ran on a thread that no summons sent";
  EXPECT_LE(s.servers.size(), 3u) << "only the lender pool's 3 workers run its jobs";
  EXPECT_GT(s.summons.load(), 0);
  EXPECT_EQ(s.left_outside_slot.load(), 0) << "leaving is called from inside the slot";
  EXPECT_GT(s.left.load(), 0);
  EXPECT_LE(s.left.load(), s.summons.load()) << "a thread leaves once per summons it served";
  p.reset();  // joins nothing: nothing serves it
}

// Jobs injected from outside while no thread is in the pool (the slots are away) each run
// exactly once: the injection's wake-up summons a thread [P-LENT W2].
TEST(LentPool, InjectedJobsRunOnceWithNobodyInside) {
  fj::pool lender(3);
  lender_state s;
  s.from = &lender;
  auto p = lent_pool(s, 3);
  constexpr int k_jobs = 2000;
  std::vector<std::atomic<int>> runs(k_jobs);
  struct counted : fd::job_header {
    explicit counted(std::atomic<int>& r) noexcept : job_header(&run), runs(&r) {}
    std::atomic<int>* runs;
    static void run(fd::job_header* h) noexcept {
      std::unique_ptr<counted> self(static_cast<counted*>(h));
      self->runs->fetch_add(1);
    }
  };
  for (int i = 0; i < k_jobs; ++i) {
    fd::inject_job(fd::impl_of(*p), new counted(runs[static_cast<std::size_t>(i)]));
    if (i % 200 == 0) std::this_thread::sleep_for(1ms);  // let the slots go away between bursts
  }
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  auto all_ran = [&] {
    for (auto& r : runs)
      if (r.load() == 0) return false;
    return true;
  };
  while (!all_ran() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  for (auto& r : runs) ASSERT_EQ(r.load(), 1);
  ASSERT_TRUE(wait_until_zero(s.live)) << "a lent thread never left its slot";
  EXPECT_GT(s.summons.load(), 0);
  p.reset();
}

// make_lent_pool refuses a lender without a summon function.
TEST(LentPool, NeedsASummonFunction) {
  fj::pool_options o;
  o.num_threads = 2;
  EXPECT_THROW(fd::make_lent_pool(o, fd::thread_lender{}), std::invalid_argument);
}
