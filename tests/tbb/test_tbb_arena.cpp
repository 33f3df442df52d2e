// test_tbb_arena.cpp: task_arena (execute, enqueue, isolate, attach, max_concurrency),
// global_control, the scheduler handle, and what containers and queues ask of the runtime
// (cache-aligned memory, bounded-queue monitors, thread-specific storage), on
// libforkjoin-tbb ([P-TBB Arena], [P-TBB Block]). Built against native libtbb too (_native).
#define TBB_PREVIEW_ISOLATED_TASK_GROUP 1  // IsolatedTaskGroupOnOneThread
#include <oneapi/tbb/combinable.h>
#include <oneapi/tbb/concurrent_hash_map.h>
#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/concurrent_vector.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/spin_mutex.h>
#include <oneapi/tbb/spin_rw_mutex.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <gtest/gtest.h>

#include <pthread.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;

// Distinct threads that ran iterations of a loop long enough for every worker to join.
template <class Run>
std::size_t threads_used(Run run) {
  std::mutex m;
  std::set<std::thread::id> ids;
  run([&] {
    std::this_thread::sleep_for(200us);
    const std::lock_guard<std::mutex> lock(m);
    ids.insert(std::this_thread::get_id());
  });
  return ids.size();
}

TEST(TbbArena, ExecuteReturnsTheValueAndRunsInside) {
  tbb::task_arena arena(2);
  EXPECT_EQ(arena.max_concurrency(), 2);
  const int v = arena.execute([] {
    EXPECT_EQ(tbb::this_task_arena::max_concurrency(), 2);
    const int slot = tbb::this_task_arena::current_thread_index();
    EXPECT_GE(slot, 0);
    EXPECT_LT(slot, 2);
    return 41 + 1;
  });
  EXPECT_EQ(v, 42);
}

TEST(TbbArena, ExecutePropagatesExceptions) {
  tbb::task_arena arena(2);
  EXPECT_THROW(arena.execute([] { throw std::runtime_error("inside"); }), std::runtime_error);
}

TEST(TbbArena, ArenaOfOneRunsEverythingOnTheCaller) {
  tbb::task_arena arena(1);
  const std::thread::id me = std::this_thread::get_id();
  std::atomic<int> foreign{0};
  arena.execute([&] {
    tbb::parallel_for(0, 200, [&](int) {
      if (std::this_thread::get_id() != me) foreign++;
    });
  });
  EXPECT_EQ(foreign.load(), 0);
}

TEST(TbbArena, LoopsInsideAnArenaCoverEveryIndex) {
  tbb::task_arena arena(3);
  std::vector<std::atomic<int>> hits(50000);
  arena.execute([&] { tbb::parallel_for(0, 50000, [&](int i) { hits[static_cast<std::size_t>(i)]++; }); });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(TbbArena, EnqueueRunsTheFunctor) {
  tbb::task_arena arena(2);
  std::atomic<int> ran{0};
  for (int i = 0; i < 100; ++i) arena.enqueue([&] { ran++; });
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (ran.load() < 100 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(ran.load(), 100);
}

TEST(TbbArena, TaskGroupInsideAnArena) {
  tbb::task_arena arena(2);
  tbb::task_group g;
  std::atomic<int> ran{0};
  arena.execute([&] {
    for (int i = 0; i < 1000; ++i) g.run([&] { ran++; });
  });
  arena.execute([&] { g.wait(); });
  EXPECT_EQ(ran.load(), 1000);
}

// A task run inside execute by a thread from outside the arena stays in the arena when
// execute returns: with no worker thread (max_allowed_parallelism 1) it runs only when
// another thread waits for it there ([P-TBB Arena A4]).
TEST(TbbArena, TaskLeftByExecuteWaitsInTheArena) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
  tbb::task_arena arena;
  tbb::task_group g;
  std::atomic<int> ran{0};
  arena.execute([&] { g.run([&] { ran++; }); });
  EXPECT_EQ(ran.load(), 0);
  std::thread waiter([&] { arena.execute([&] { g.wait(); }); });
  waiter.join();
  EXPECT_EQ(ran.load(), 1);
}

TEST(TbbArena, AttachInsideATaskSeesTheSameArena) {
  tbb::task_arena arena(2);
  arena.execute([] {
    tbb::task_arena attached(tbb::task_arena::attach{});
    EXPECT_TRUE(attached.is_active());
    EXPECT_EQ(attached.max_concurrency(), 2);
    EXPECT_EQ(attached.execute([] { return 7; }), 7);
  });
}

// A task that enters another arena while it holds a lock must not, while it waits there,
// run another of the outer loop's tasks (which would take the lock again on the same
// thread): arenas keep their work apart, here also when the inner arena asks for every
// thread (a borrowing arena, [P-TBB Arena A7]).
TEST(TbbArena, WaitInsideAnotherArenaRunsNoOuterTask) {
  const int n = tbb::this_task_arena::max_concurrency();
  for (const int inner_size : {n, 2 * n}) {
    tbb::task_arena inner(inner_size);
    std::atomic<int> reentered{0}, inner_runs{0};
    thread_local int depth = 0;
    for (int round = 0; round < 10; ++round) {
      tbb::parallel_for(
          0, 64,
          [&](int) {
            if (++depth > 1) reentered++;
            inner.execute([&] {
              tbb::parallel_for(
                  0, 16,
                  [&](int) {
                    std::this_thread::yield();
                    inner_runs++;
                  },
                  tbb::simple_partitioner());
            });
            --depth;
          },
          tbb::simple_partitioner());
    }
    EXPECT_EQ(reentered.load(), 0) << "inner arena of " << inner_size;
    EXPECT_EQ(inner_runs.load(), 10 * 64 * 16);
  }
}

// Nested execute of the same arena, and attach inside it, see that arena.
TEST(TbbArena, NestedExecuteAndAttachSeeTheArena) {
  const int n = tbb::this_task_arena::max_concurrency();
  tbb::task_arena arena(3 * n);
  arena.execute([&] {
    EXPECT_EQ(tbb::this_task_arena::max_concurrency(), 3 * n);
    arena.execute([&] { EXPECT_EQ(tbb::this_task_arena::max_concurrency(), 3 * n); });
    tbb::task_arena attached(tbb::task_arena::attach{});
    EXPECT_TRUE(attached.is_active());
    EXPECT_EQ(attached.max_concurrency(), 3 * n);
  });
  EXPECT_EQ(tbb::this_task_arena::max_concurrency(), n);
}

// A thread inside an arena of one slot goes into another arena and, from there, executes in
// the first again (a flow graph built in the first arena and waited for from the second does
// this): it holds the first arena's only slot further up its stack, so it runs there itself.
// Hangs when the re-entry waits for the slot ([P-SLOT E1]).
TEST(TbbArena, ReenteringAnArenaThroughAnotherRunsOnTheCaller) {
  tbb::task_arena one(1);
  tbb::task_arena two(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id inner;
  int runs = 0;
  one.execute([&] {
    two.execute([&] {
      one.execute([&] {
        inner = std::this_thread::get_id();
        tbb::task_group g;
        for (int i = 0; i < 8; ++i) g.run([&] { ++runs; });  // one slot: all on this thread
        g.wait();
      });
    });
  });
  EXPECT_EQ(inner, caller);
  EXPECT_EQ(runs, 8);
}

TEST(TbbArena, InitializeAndTerminateRepeatedly) {
  for (int i = 0; i < 20; ++i) {
    tbb::task_arena arena;
    arena.initialize(2);
    EXPECT_TRUE(arena.is_active());
    std::atomic<int> n{0};
    arena.execute([&] { tbb::parallel_for(0, 100, [&](int) { n++; }); });
    EXPECT_EQ(n.load(), 100);
    arena.terminate();
    EXPECT_FALSE(arena.is_active());
  }
}

TEST(TbbIsolate, ReturnsTheValueAndRunsTheNestedLoop) {
  std::atomic<int> n{0};
  const int v = tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(0, 1000, [&](int) { n++; });
    return 5;
  });
  EXPECT_EQ(v, 5);
  EXPECT_EQ(n.load(), 1000);
}

// The classic isolation hazard: a thread holding a per-thread flag waits inside an outer
// task; without isolation it could pick up another outer iteration and see its own flag set.
TEST(TbbIsolate, AWaitInsideDoesNotRunOuterTasks) {
  tbb::enumerable_thread_specific<int> busy(0);
  std::atomic<int> reentered{0};
  tbb::parallel_for(0, 64, [&](int) {
    int& mine = busy.local();
    if (mine != 0) reentered++;
    mine = 1;
    tbb::this_task_arena::isolate([] { tbb::parallel_for(0, 64, [](int) { std::this_thread::yield(); }); });
    mine = 0;
  });
  EXPECT_EQ(reentered.load(), 0);
}

TEST(TbbGlobalControl, MaxAllowedParallelismOfOneRunsOnOneThread) {
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    EXPECT_EQ(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism), 1u);
    EXPECT_EQ(threads_used([](auto body) { tbb::parallel_for(0, 64, [&](int) { body(); }); }), 1u);
  }
  EXPECT_GE(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism), 1u);
}

// [P-TBB Arena A5] a keyed region's work, run and waited for in two calls on one thread, with
// a single thread in all (Embree builds its scenes so).
TEST(TbbGlobalControl, IsolatedTaskGroupOnOneThread) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
  tbb::isolated_task_group g;
  std::atomic<int> ran{0};
  for (int i = 0; i < 10; ++i) g.run([&] { ran++; });
  g.wait();
  EXPECT_EQ(ran.load(), 10);
}

TEST(TbbGlobalControl, TheSmallestActiveLimitWins) {
  tbb::global_control a(tbb::global_control::max_allowed_parallelism, 3);
  {
    tbb::global_control b(tbb::global_control::max_allowed_parallelism, 1);
    EXPECT_EQ(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism), 1u);
  }
  EXPECT_EQ(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism), 3u);
}

TEST(TbbGlobalControl, StackSizeIsAccepted) {
  tbb::global_control s(tbb::global_control::thread_stack_size, 16u << 20);
  EXPECT_EQ(tbb::global_control::active_value(tbb::global_control::thread_stack_size), 16u << 20);
  tbb::task_arena arena(2);
  EXPECT_EQ(arena.execute([] { return 3; }), 3);
}

// The library's own errors (here parallel_for's non-positive step) throw, and end the
// program while terminate_on_exception is active ([P-TBB Cancel E1]).
TEST(TbbGlobalControlDeathTest, TerminateOnExceptionEndsTheProgram) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_THROW(tbb::parallel_for(0, 1, -1, [](int) {}), std::invalid_argument);
  EXPECT_DEATH(
      {
        tbb::global_control terminate(tbb::global_control::terminate_on_exception, 1);
        tbb::parallel_for(0, 1, -1, [](int) {});
      },
      "");
  EXPECT_THROW(tbb::parallel_for(0, 1, -1, [](int) {}), std::invalid_argument);
}

TEST(TbbSchedulerHandle, FinalizeSucceedsWithNoWorkInFlight) {
  tbb::task_scheduler_handle handle{tbb::attach{}};
  tbb::parallel_for(0, 100, [](int) {});
  EXPECT_TRUE(tbb::finalize(handle, std::nothrow));
}

// [P-TBB Arena A9] finalize fails where oneTBB's does: inside a parallel region, while another
// handle is alive, while another thread that used the scheduler is still running.
TEST(TbbSchedulerHandle, FinalizeFailsInsideAParallelRegion) {
  tbb::task_scheduler_handle outer{tbb::attach{}};
  std::atomic<int> refused{0}, thrown{0};
  tbb::parallel_for(0, 1, [&](int) {  // a task: inside the parallel region
    tbb::task_scheduler_handle inner{tbb::attach{}};
    if (!tbb::finalize(inner, std::nothrow)) refused++;
    tbb::task_scheduler_handle again{tbb::attach{}};
    try {
      tbb::finalize(again);
    } catch (const tbb::unsafe_wait&) {
      thrown++;
    }
  });
  EXPECT_EQ(refused.load(), 1);
  EXPECT_EQ(thrown.load(), 1);
  EXPECT_TRUE(tbb::finalize(outer, std::nothrow));
}

TEST(TbbSchedulerHandle, FinalizeFailsWhileAnotherHandleOrUserRemains) {
  {
    tbb::task_scheduler_handle first{tbb::attach{}};
    tbb::task_scheduler_handle second{tbb::attach{}};
    tbb::parallel_for(0, 100, [](int) {});
    EXPECT_FALSE(tbb::finalize(first, std::nothrow));  // second is alive
    EXPECT_TRUE(tbb::finalize(second, std::nothrow));
  }
  tbb::task_scheduler_handle handle{tbb::attach{}};
  std::atomic<bool> used{false}, leave{false};
  std::thread user([&] {
    tbb::parallel_for(0, 100, [](int) {});
    used = true;
    while (!leave) std::this_thread::yield();
  });
  while (!used) std::this_thread::yield();
  tbb::task_scheduler_handle probe{tbb::attach{}};
  EXPECT_FALSE(tbb::finalize(probe, std::nothrow));  // the user thread still runs, and handle lives
  leave = true;
  user.join();
  EXPECT_TRUE(tbb::finalize(handle, std::nothrow));  // the user thread has ended
}

TEST(TbbContainers, EnumerableThreadSpecificSums) {
  tbb::enumerable_thread_specific<long> local(0);
  tbb::parallel_for(0, 100000, [&](int i) { local.local() += i; });
  EXPECT_EQ(local.combine(std::plus<>()), 99999L * 100000L / 2);
  tbb::combinable<long> c([] { return 0L; });
  tbb::parallel_for(0, 1000, [&](int) { c.local() += 2; });
  EXPECT_EQ(c.combine(std::plus<>()), 2000L);
}

TEST(TbbContainers, ConcurrentVectorAndHashMap) {
  tbb::concurrent_vector<int> v;
  tbb::concurrent_hash_map<int, int> m;
  tbb::parallel_for(0, 20000, [&](int i) {
    v.push_back(i);
    tbb::concurrent_hash_map<int, int>::accessor a;
    m.insert(a, i % 100);
    a->second += 1;
  });
  std::vector<int> sorted(v.begin(), v.end());
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 20000; ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i);
  EXPECT_EQ(m.size(), 100u);
  for (auto& kv : m) EXPECT_EQ(kv.second, 200);
}

TEST(TbbQueues, BoundedQueueBlocksAndDeliversEverything) {
  tbb::concurrent_bounded_queue<int> q;
  q.set_capacity(4);
  constexpr int k_items = 20000;
  long long received = 0;
  std::thread consumer([&] {
    for (int i = 0; i < k_items; ++i) {
      int x = 0;
      q.pop(x);  // blocks while empty
      received += x;
    }
  });
  for (int i = 1; i <= k_items; ++i) q.push(i);  // blocks while full
  consumer.join();
  EXPECT_EQ(received, static_cast<long long>(k_items) * (k_items + 1) / 2);
  EXPECT_EQ(q.size(), 0);
}

TEST(TbbQueues, AbortWakesABlockedPop) {
  tbb::concurrent_bounded_queue<int> q;
  std::atomic<bool> aborted{false};
  std::thread consumer([&] {
    int x = 0;
    try {
      q.pop(x);
    } catch (const tbb::user_abort&) {
      aborted = true;
    }
  });
  std::this_thread::sleep_for(50ms);
  q.abort();
  consumer.join();
  EXPECT_TRUE(aborted.load());
}

TEST(TbbQueues, UnboundedQueueAcrossTasks) {
  tbb::concurrent_queue<int> q;
  tbb::parallel_for(0, 10000, [&](int i) { q.push(i); });
  long long sum = 0;
  int x = 0;
  while (q.try_pop(x)) sum += x;
  EXPECT_EQ(sum, 9999LL * 10000 / 2);
}

TEST(TbbMutexes, SpeculativeMutexesExclude) {
  tbb::speculative_spin_mutex m;
  tbb::speculative_spin_rw_mutex rw;
  long counter = 0, rw_counter = 0;
  tbb::parallel_for(0, 20000, [&](int i) {
    {
      tbb::speculative_spin_mutex::scoped_lock lock(m);
      ++counter;
    }
    tbb::speculative_spin_rw_mutex::scoped_lock lock(rw, i % 4 == 0);
    if (i % 4 == 0) ++rw_counter;
  });
  EXPECT_EQ(counter, 20000);
  EXPECT_EQ(rw_counter, 5000);
}

}  // namespace

#if defined(__x86_64__)
// An arena captures the floating-point settings of the thread that initializes it, and
// execute's functor runs under them, on whichever thread calls execute; the caller's own
// settings are back once execute returns ([P-TBB Arena A13]).
TEST(TbbArena, ExecuteRunsUnderTheSettingsCapturedAtInitialize) {
  const unsigned saved = _MM_GET_ROUNDING_MODE();
  _MM_SET_ROUNDING_MODE(_MM_ROUND_UP);
  tbb::task_arena a;
  a.initialize();
  _MM_SET_ROUNDING_MODE(_MM_ROUND_NEAREST);
  unsigned inside = 0;
  a.execute([&] { inside = _MM_GET_ROUNDING_MODE(); });
  EXPECT_EQ(inside, static_cast<unsigned>(_MM_ROUND_UP));
  EXPECT_EQ(_MM_GET_ROUNDING_MODE(), static_cast<unsigned>(_MM_ROUND_NEAREST));
  std::thread other([&] {
    _MM_SET_ROUNDING_MODE(_MM_ROUND_TOWARD_ZERO);
    unsigned seen = 0;
    a.execute([&] { seen = _MM_GET_ROUNDING_MODE(); });
    EXPECT_EQ(seen, static_cast<unsigned>(_MM_ROUND_UP));
    EXPECT_EQ(_MM_GET_ROUNDING_MODE(), static_cast<unsigned>(_MM_ROUND_TOWARD_ZERO));
  });
  other.join();
  _MM_SET_ROUNDING_MODE(saved);
}
#endif

// A thread outside every arena is in none until it first uses the scheduler; from then on it
// is in the implicit arena, at slot 0: attach finds that arena, and its execute runs at the
// same index ([P-TBB Arena A15]).
TEST(TbbArena, OutsideThreadStaysInTheImplicitArenaAfterItsFirstParallelCall) {
  std::thread t([] {
    tbb::task_arena before{tbb::task_arena::attach()};
    EXPECT_FALSE(before.is_active());
    const int not_in_any = tbb::task_arena::not_initialized;
    EXPECT_EQ(tbb::this_task_arena::current_thread_index(), not_in_any);
    std::atomic<int> sum{0};
    tbb::parallel_for(0, 100, [&](int i) { sum += i; });
    EXPECT_EQ(sum.load(), 4950);
    EXPECT_EQ(tbb::this_task_arena::current_thread_index(), 0);
    tbb::task_arena after{tbb::task_arena::attach()};
    ASSERT_TRUE(after.is_active());
    EXPECT_EQ(after.max_concurrency(), tbb::this_task_arena::max_concurrency());
    int inside = -1;
    after.execute([&] { inside = tbb::this_task_arena::current_thread_index(); });
    EXPECT_EQ(inside, 0);
  });
  t.join();
}
