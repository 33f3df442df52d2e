// test_tbb_sync.cpp: on libforkjoin-tbb, queuing_rw_mutex and queuing_mutex ([P-TBB QRW]):
// writers exclude everyone, readers share, every thread's updates counted exactly once under
// contention (more threads than CPUs), upgrade and downgrade with their return values,
// try_acquire, the queue's order, and waiters inside TBB tasks.
// Resumable tasks ([P-TBB Suspend]): resumed from the callback, from another thread later,
// from another task, many suspended at once.
// The arena's debug wait, task_arena::debug_wait_until_empty.
// A task object submitted again before its previous submission ran ([P-TBB Task T1]).
// Waits nested through their own deque stop before the stack runs out ([P-TBB Wait Deep]).
// Built against native libtbb too (_native): it checks only what both do.
#define __TBB_EXTRA_DEBUG 1  // task_arena::debug_wait_until_empty
#include <oneapi/tbb/cache_aligned_allocator.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/queuing_mutex.h>
#include <oneapi/tbb/queuing_rw_mutex.h>
#include <oneapi/tbb/task.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using qrw = tbb::queuing_rw_mutex;

constexpr int k_threads = 8;  // more than the CPUs of the test machines: waiters get preempted

// Spins until pred() or the deadline; true when pred() held.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// Who is inside the lock: writers must be alone, readers never meet a writer.
struct occupancy {
  std::atomic<int> readers{0};
  std::atomic<int> writers{0};
  std::atomic<int> violations{0};
  void enter_writer() {
    if (writers.fetch_add(1) != 0 || readers.load() != 0) violations.fetch_add(1);
  }
  void leave_writer() { writers.fetch_sub(1); }
  void enter_reader() {
    readers.fetch_add(1);
    if (writers.load() != 0) violations.fetch_add(1);
  }
  void leave_reader() { readers.fetch_sub(1); }
};

template <class F>
void on_threads(int n, F f) {
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) threads.emplace_back([&f, t] { f(t); });
  for (std::thread& t : threads) t.join();
}

TEST(TbbQueuingRwMutex, WritersExcludeEachOtherAndCountEveryIncrement) {
  qrw m;
  occupancy occ;
  constexpr int k_iters = 2000;                // 8 x 2000 FIFO hand-overs: seconds even beside busy processes
  std::vector<long> per_thread(k_threads, 0);  // plain data: the lock orders every access
  long total = 0;
  on_threads(k_threads, [&](int t) {
    for (int i = 0; i < k_iters; ++i) {
      qrw::scoped_lock lock(m, /*write=*/true);
      occ.enter_writer();
      ++per_thread[t];
      ++total;
      occ.leave_writer();
    }
  });
  EXPECT_EQ(occ.violations.load(), 0);
  EXPECT_EQ(total, long{k_threads} * k_iters);
  for (int t = 0; t < k_threads; ++t) EXPECT_EQ(per_thread[t], k_iters) << "thread " << t;
}

TEST(TbbQueuingRwMutex, ReadersHoldTheLockTogether) {
  qrw m;
  constexpr int k_readers = 4;
  std::atomic<int> inside{0};
  std::atomic<int> met{0};
  on_threads(k_readers, [&](int) {
    qrw::scoped_lock lock(m, /*write=*/false);
    inside.fetch_add(1);
    // Every reader must get in while the others hold the lock.
    if (eventually([&] { return inside.load() == k_readers; })) met.fetch_add(1);
  });
  EXPECT_EQ(met.load(), k_readers);
}

// Readers and writers mixed, with upgrades and downgrades: exclusion holds, readers see a
// consistent pair, every thread's writes are counted once.
TEST(TbbQueuingRwMutex, MixedContentionKeepsExclusionAndCounts) {
  qrw m;
  occupancy occ;
  constexpr int k_iters = 8000;
  std::vector<long> per_thread(k_threads, 0);
  long a = 0;
  long b = 0;  // a == b outside writers
  std::atomic<int> torn{0};
  std::atomic<int> upgrades_kept{0};
  on_threads(k_threads, [&](int t) {
    std::uint32_t r = 12345u + static_cast<std::uint32_t>(t);
    for (int i = 0; i < k_iters; ++i) {
      r = r * 1103515245u + 12345u;
      const unsigned pick = (r >> 16) % 8;
      if (pick < 5) {  // reader
        qrw::scoped_lock lock(m, false);
        occ.enter_reader();
        if (a != b) torn.fetch_add(1);
        occ.leave_reader();
      } else if (pick < 7) {  // writer, half of them downgrading
        qrw::scoped_lock lock(m, true);
        occ.enter_writer();
        ++a;
        ++per_thread[t];
        ++b;
        occ.leave_writer();
        if (pick == 6) {
          EXPECT_TRUE(lock.downgrade_to_reader());
          EXPECT_FALSE(lock.is_writer());
          occ.enter_reader();
          if (a != b) torn.fetch_add(1);
          occ.leave_reader();
        }
      } else {  // reader that upgrades
        qrw::scoped_lock lock(m, false);
        occ.enter_reader();
        const long seen = a;
        occ.leave_reader();
        const bool kept = lock.upgrade_to_writer();
        EXPECT_TRUE(lock.is_writer());
        occ.enter_writer();
        if (kept) {
          upgrades_kept.fetch_add(1);
          if (a != seen) torn.fetch_add(1);  // kept: no writer came in between
        }
        ++a;
        ++per_thread[t];
        ++b;
        occ.leave_writer();
      }
    }
  });
  EXPECT_EQ(occ.violations.load(), 0);
  EXPECT_EQ(torn.load(), 0);
  long sum = 0;
  for (long v : per_thread) sum += v;
  EXPECT_EQ(a, sum);
  EXPECT_EQ(b, sum);
}

TEST(TbbQueuingRwMutex, UpgradeAndDowngradeAlone) {
  qrw m;
  qrw::scoped_lock lock(m, /*write=*/false);
  EXPECT_FALSE(lock.is_writer());
  EXPECT_TRUE(lock.upgrade_to_writer());  // nobody else: upgraded in place
  EXPECT_TRUE(lock.is_writer());
  EXPECT_TRUE(lock.upgrade_to_writer());  // already a writer
  EXPECT_TRUE(lock.downgrade_to_reader());
  EXPECT_FALSE(lock.is_writer());
  EXPECT_TRUE(lock.downgrade_to_reader());  // already a reader
  lock.release();
  qrw::scoped_lock again;
  EXPECT_TRUE(again.try_acquire(m, true));  // released: free again
}

// A reader behind another reader that upgrades keeps its place: it waits for the reader
// ahead to leave and returns true, and nobody writes in between.
TEST(TbbQueuingRwMutex, UpgradeAtTheTailWaitsForTheReadersAhead) {
  qrw m;
  std::atomic<int> step{0};
  std::thread ahead([&] {
    qrw::scoped_lock lock(m, false);
    step.store(1);
    ASSERT_TRUE(eventually([&] { return step.load() == 2; }));
    std::this_thread::sleep_for(50ms);  // the upgrader must still wait
    step.store(3);
  });
  ASSERT_TRUE(eventually([&] { return step.load() == 1; }));
  {
    qrw::scoped_lock lock(m, false);
    step.store(2);
    EXPECT_TRUE(lock.upgrade_to_writer());
    EXPECT_EQ(step.load(), 3);  // only after the reader ahead left
  }
  ahead.join();
}

// A reader with a reader queued behind it: once the upgrade returns, the reader behind has
// left (libforkjoin-tbb releases and queues as a writer, returning false).
TEST(TbbQueuingRwMutex, UpgradeWithAReaderBehindReacquires) {
  qrw m;
  std::atomic<int> step{0};
  std::atomic<bool> behind_inside{false};
  qrw::scoped_lock lock(m, false);
  std::thread behind([&] {
    qrw::scoped_lock l(m, false);
    behind_inside.store(true);
    ASSERT_TRUE(eventually([&] { return step.load() == 1; }));
    std::this_thread::sleep_for(20ms);
    behind_inside.store(false);
  });
  ASSERT_TRUE(eventually([&] { return behind_inside.load(); }));
  step.store(1);
  const bool kept = lock.upgrade_to_writer();
#if !FORKJOIN_TBB_NATIVE
  EXPECT_FALSE(kept);  // libforkjoin-tbb: a node behind me may be an admitted reader
#else
  static_cast<void>(kept);
#endif
  EXPECT_TRUE(lock.is_writer());
  EXPECT_FALSE(behind_inside.load());
  lock.release();
  behind.join();
}

// A downgrade lets the readers queued behind the writer in while it still reads.
TEST(TbbQueuingRwMutex, DowngradeAdmitsTheWaitingReaders) {
  qrw m;
  qrw::scoped_lock lock(m, true);
  std::atomic<int> inside{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> readers;
  for (int i = 0; i < 3; ++i) {
    readers.emplace_back([&] {
      qrw::scoped_lock l(m, false);
      inside.fetch_add(1);
      EXPECT_TRUE(eventually([&] { return done.load(); }));
    });
  }
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(inside.load(), 0);  // the writer holds them off
  EXPECT_TRUE(lock.downgrade_to_reader());
  EXPECT_TRUE(eventually([&] { return inside.load() == 3; }));  // in while the downgraded lock is held
  done.store(true);
  lock.release();
  for (std::thread& t : readers) t.join();
}

TEST(TbbQueuingRwMutex, TryAcquireNeverBlocks) {
  qrw m;
  {
    qrw::scoped_lock lock;
    EXPECT_TRUE(lock.try_acquire(m, true));
    EXPECT_TRUE(lock.is_writer());
    std::thread other([&] {
      qrw::scoped_lock l;
      const auto start = std::chrono::steady_clock::now();
      EXPECT_FALSE(l.try_acquire(m, true));
      EXPECT_FALSE(l.try_acquire(m, false));
      EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
    });
    other.join();
  }
  qrw::scoped_lock lock;
  EXPECT_TRUE(lock.try_acquire(m, false));
  EXPECT_FALSE(lock.is_writer());
  lock.release();
  EXPECT_TRUE(lock.try_acquire(m, true));
}

// First come, first served: with a writer holding the lock, a reader, a writer and a reader
// queue in that order; the second reader does not overtake the waiting writer.
TEST(TbbQueuingRwMutex, WaitersEnterInQueueOrder) {
  qrw m;
  std::mutex order_mutex;
  std::vector<int> order;
  auto record = [&](int who) {
    const std::lock_guard<std::mutex> g(order_mutex);
    order.push_back(who);
  };
  std::vector<std::thread> threads;
  std::atomic<int> arriving{0};
  {
    qrw::scoped_lock holder(m, true);
    const bool writes[] = {false, true, false};
    for (int i = 0; i < 3; ++i) {
      threads.emplace_back([&, i] {
        arriving.store(i + 1);
        qrw::scoped_lock l(m, writes[i]);
        record(i);
        std::this_thread::sleep_for(20ms);
      });
      ASSERT_TRUE(eventually([&] { return arriving.load() == i + 1; }));
      std::this_thread::sleep_for(100ms);  // let it queue before the next one comes
    }
  }
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], 0);
  EXPECT_EQ(order[1], 1);
  EXPECT_EQ(order[2], 2);
}

// Waiters inside TBB tasks, many more than the pool's threads, while a writer holds the
// lock for a while: every task gets in once.
TEST(TbbQueuingRwMutex, WaitersInsideTasks) {
  qrw m;
  occupancy occ;
  long total = 0;
  std::atomic<bool> go{false};
  std::thread holder([&] {
    qrw::scoped_lock lock(m, true);
    go.store(true);
    std::this_thread::sleep_for(50ms);
  });
  ASSERT_TRUE(eventually([&] { return go.load(); }));
  constexpr int k_tasks = 2000;
  tbb::parallel_for(0, k_tasks, [&](int i) {
    qrw::scoped_lock lock(m, i % 4 == 0);
    if (lock.is_writer()) {
      occ.enter_writer();
      ++total;
      occ.leave_writer();
    } else {
      occ.enter_reader();
      occ.leave_reader();
    }
  });
  holder.join();
  EXPECT_EQ(occ.violations.load(), 0);
  EXPECT_EQ(total, k_tasks / 4);
}

TEST(TbbQueuingMutex, ExcludesAndCountsEveryIncrement) {
  tbb::queuing_mutex m;
  constexpr int k_iters = 2000;  // 8 x 2000 FIFO hand-overs: seconds even beside busy processes
  std::vector<long> per_thread(k_threads, 0);
  long total = 0;
  std::atomic<int> inside{0};
  std::atomic<int> violations{0};
  on_threads(k_threads, [&](int t) {
    for (int i = 0; i < k_iters; ++i) {
      tbb::queuing_mutex::scoped_lock lock(m);
      if (inside.fetch_add(1) != 0) violations.fetch_add(1);
      ++per_thread[t];
      ++total;
      inside.fetch_sub(1);
    }
  });
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(total, long{k_threads} * k_iters);
  for (int t = 0; t < k_threads; ++t) EXPECT_EQ(per_thread[t], k_iters);
}

TEST(TbbSuspend, ResumedFromTheCallback) {
  const std::thread::id me = std::this_thread::get_id();
  bool called = false;
  tbb::task::suspend([&](tbb::task::suspend_point sp) {
    called = true;
    tbb::task::resume(sp);  // before the suspend has even begun to wait
  });
  EXPECT_TRUE(called);
  EXPECT_EQ(std::this_thread::get_id(), me);
}

TEST(TbbSuspend, ResumedFromAnotherThreadLater) {
  std::atomic<bool> resumed{false};
  std::thread resumer;
  tbb::task::suspend([&](tbb::task::suspend_point sp) {
    resumer = std::thread([sp, &resumed] {
      std::this_thread::sleep_for(30ms);  // the suspended thread is asleep by now
      resumed.store(true);
      tbb::task::resume(sp);
    });
  });
  EXPECT_TRUE(resumed.load());  // not before the resume
  resumer.join();
}

// Each task suspends and hands its resume to a new task of the same group.
TEST(TbbSuspend, ResumedFromAnotherTask) {
  constexpr int k_tasks = 100;
  std::atomic<int> suspended{0};
  std::atomic<int> resumed{0};
  std::atomic<int> finished{0};
  tbb::task_group tg;
  for (int i = 0; i < k_tasks; ++i) {
    tg.run([&] {
      tbb::task::suspend([&](tbb::task::suspend_point sp) {
        suspended.fetch_add(1);
        tg.run([sp, &resumed] {
          resumed.fetch_add(1);
          tbb::task::resume(sp);
        });
      });
      finished.fetch_add(1);
    });
  }
  tg.wait();
  EXPECT_EQ(suspended.load(), k_tasks);
  EXPECT_EQ(resumed.load(), k_tasks);
  EXPECT_EQ(finished.load(), k_tasks);
}

// More tasks suspended at the same time than the pool has threads: all of them suspend
// before any is resumed, and all finish.
TEST(TbbSuspend, ManySuspendedAtOnce) {
  const int n = 4 * tbb::this_task_arena::max_concurrency() + 4;
  std::mutex m;
  std::vector<tbb::task::suspend_point> points;
  std::atomic<int> finished{0};
  tbb::task_group tg;
  for (int i = 0; i < n; ++i) {
    tg.run([&] {
      tbb::task::suspend([&](tbb::task::suspend_point sp) {
        const std::lock_guard<std::mutex> g(m);
        points.push_back(sp);
      });
      finished.fetch_add(1);
    });
  }
  const bool all_suspended = eventually([&] {
    const std::lock_guard<std::mutex> g(m);
    return static_cast<int>(points.size()) == n;
  });
  EXPECT_TRUE(all_suspended);
  EXPECT_EQ(finished.load(), 0);
  {
    const std::lock_guard<std::mutex> g(m);
    for (tbb::task::suspend_point sp : points) tbb::task::resume(sp);
  }
  if (!all_suspended) {  // resume the late ones too, so that the wait ends
    ASSERT_TRUE(eventually([&] {
      const std::lock_guard<std::mutex> g(m);
      return static_cast<int>(points.size()) == n;
    }));
    const std::lock_guard<std::mutex> g(m);
    for (tbb::task::suspend_point sp : points) tbb::task::resume(sp);
  }
  tg.wait();
  EXPECT_EQ(finished.load(), n);
}

// The suspend point handed to the callback is the task's current one, and thread-specific
// storage keyed by it (ets_suspend_aware) is the same after the resume.
TEST(TbbSuspend, CurrentSuspendPointIsTheOneHandedOut) {
  tbb::enumerable_thread_specific<int, tbb::cache_aligned_allocator<int>, tbb::ets_suspend_aware> local;
  std::atomic<int> checked{0};
  tbb::parallel_for(0, 8, [&](int i) {
    local.local() = i;
    const tbb::task::suspend_point before = tbb::detail::r1::current_suspend_point();
    EXPECT_NE(before, nullptr);
    std::thread resumer;
    tbb::task::suspend([&](tbb::task::suspend_point sp) {
      EXPECT_EQ(sp, before);
      resumer = std::thread([sp] {
        std::this_thread::sleep_for(5ms);
        tbb::task::resume(sp);
      });
    });
    resumer.join();
    EXPECT_EQ(local.local(), i);
    checked.fetch_add(1);
  });
  EXPECT_EQ(checked.load(), 8);
}

// Enqueued tasks, and the tasks they spawn, have all run when the wait returns. (Native
// oneTBB's wait leaves an arena of one, which has no worker, with its enqueued tasks.)
TEST(TbbArenaDebugWait, WaitsForEnqueuedWorkAndItsChildren) {
#if FORKJOIN_TBB_NATIVE
  const std::vector<int> concurrencies{2, 4};
#else
  const std::vector<int> concurrencies{1, 2, 4};
#endif
  for (int concurrency : concurrencies) {
    tbb::task_arena arena(concurrency);
    std::atomic<int> done{0};
    constexpr int k_tasks = 20;
    for (int i = 0; i < k_tasks; ++i) {
      arena.enqueue([&] {
        std::this_thread::sleep_for(1ms);
        tbb::parallel_for(0, 10, [&](int) { done.fetch_add(1); });
      });
    }
    arena.debug_wait_until_empty();
    EXPECT_EQ(done.load(), k_tasks * 10) << "concurrency " << concurrency;
  }
}

TEST(TbbArenaDebugWait, ReturnsAtOnceOnAnIdleArena) {
  tbb::task_arena arena(2);
  const auto start = std::chrono::steady_clock::now();
  arena.debug_wait_until_empty();  // initializes the arena, which has nothing to do
  arena.debug_wait_until_empty();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

namespace d1 = tbb::detail::d1;

// A task object that is never freed: counts its runs and releases the wait each time.
class counting_task : public d1::task {
 public:
  counting_task(std::atomic<int>& runs, d1::wait_context& wait) : runs_(runs), wait_(wait) {}
  d1::task* execute(d1::execution_data&) override {
    runs_.fetch_add(1);
    wait_.release();
    return nullptr;
  }
  d1::task* cancel(d1::execution_data&) override {
    ADD_FAILURE() << "cancelled";
    wait_.release();
    return nullptr;
  }

 private:
  std::atomic<int>& runs_;
  d1::wait_context& wait_;
};

// One task object spawned many times in a row, every submission queued before any runs:
// from outside every pool (the injection queue) and from inside a task (the deque).
TEST(TbbTaskResubmission, EverySubmissionRuns) {
  constexpr int k_times = 1000;
  for (bool inside : {false, true}) {
    std::atomic<int> runs{0};
    d1::wait_context wait(k_times);
    tbb::task_group_context ctx;
    counting_task task(runs, wait);
    auto spawn_all = [&] {
      for (int i = 0; i < k_times; ++i) d1::spawn(task, ctx);
      d1::wait(wait, ctx);
    };
    if (inside) {
      tbb::task_arena arena(2);
      arena.execute(spawn_all);
    } else {
      spawn_all();
    }
    EXPECT_EQ(runs.load(), k_times) << (inside ? "inside a task" : "outside");
  }
}

// The same task object submitted from several threads at once.
TEST(TbbTaskResubmission, ConcurrentSubmissionsAllRun) {
  constexpr int k_threads_submitting = 4;
  constexpr int k_times = 2000;
  std::atomic<int> runs{0};
  d1::wait_context wait(k_threads_submitting * k_times);
  tbb::task_group_context ctx;
  counting_task task(runs, wait);
  tbb::task_arena arena(2);
  arena.initialize();
  on_threads(k_threads_submitting, [&](int) {
    for (int i = 0; i < k_times; ++i) submit(task, arena, ctx, /*as_critical=*/false);
  });
  arena.execute([&] { d1::wait(wait, ctx); });
  EXPECT_EQ(runs.load(), k_threads_submitting * k_times);
}

#if !FORKJOIN_TBB_NATIVE
// Waits nested through the waiter's own deque: each task takes a kilobyte of stack and
// waits for `hold`, so a wait that ran every queued task inside the one before would need
// 20000 levels (some 40 MiB). The waits stop nesting when half of the stack is used; the
// tasks left run once `hold` is released. (Native oneTBB runs a wait's own tasks at any
// depth: this overflows its stack, so the native twin leaves it out.)
class deep_task : public d1::task {
 public:
  deep_task(std::atomic<int>& executed, d1::wait_context& hold, d1::wait_context& all, tbb::task_group_context& ctx)
      : executed_(executed), hold_(hold), all_(all), ctx_(ctx) {}
  d1::task* execute(d1::execution_data&) override {
    volatile char consume_stack[1024] = {};
    executed_.fetch_add(1);
    d1::wait(hold_, ctx_);
    all_.release();
    static_cast<void>(consume_stack[0]);
    return nullptr;
  }
  d1::task* cancel(d1::execution_data&) override {
    all_.release();
    return nullptr;
  }

 private:
  std::atomic<int>& executed_;
  d1::wait_context& hold_;
  d1::wait_context& all_;
  tbb::task_group_context& ctx_;
};

TEST(TbbWaitDepth, NestedWaitsStopBeforeTheStackRunsOut) {
  constexpr int k_tasks = 20000;
  std::atomic<int> executed{0};
  d1::wait_context hold(1);
  d1::wait_context all(k_tasks);
  tbb::task_group_context ctx;
  std::vector<deep_task> tasks;
  tasks.reserve(k_tasks);
  for (int i = 0; i < k_tasks; ++i) tasks.emplace_back(executed, hold, all, ctx);
  int executed_while_held = 0;
  std::thread releaser([&] {
    int seen = -1;
    while (executed.load() == 0 || executed.load() != seen) {  // until the nesting stopped
      seen = executed.load();
      std::this_thread::sleep_for(300ms);
    }
    executed_while_held = seen;
    hold.release();
  });
  tbb::task_arena arena(2);
  arena.execute([&] {
    for (deep_task& t : tasks) d1::spawn(t, ctx);
    d1::wait(hold, ctx);
    d1::wait(all, ctx);
  });
  releaser.join();
  EXPECT_LT(executed_while_held, k_tasks);
  EXPECT_GT(executed_while_held, 0);
  EXPECT_EQ(executed.load(), k_tasks);
}
#endif

}  // namespace
