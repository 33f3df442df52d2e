// test_tbb_observer.cpp: task_scheduler_observer on libforkjoin-tbb ([P-TBB Observe]): the
// entry and exit notifications per thread, is_worker, and observe(false) waiting for a
// running callback. Built against native libtbb too (_native): it checks only what both do.
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace {

using namespace std::chrono_literals;

struct counts {
  int entries = 0;
  int exits = 0;
  int as_worker = 0;  // callbacks with is_worker true
};

// Counts each thread's notifications.
class counting_observer : public tbb::task_scheduler_observer {
 public:
  counting_observer() = default;
  explicit counting_observer(tbb::task_arena& a) : tbb::task_scheduler_observer(a) {}
  ~counting_observer() override { observe(false); }
  void on_scheduler_entry(bool is_worker) override {
    const std::lock_guard<std::mutex> lock(m_);
    counts& c = by_thread_[std::this_thread::get_id()];
    ++c.entries;
    c.as_worker += is_worker ? 1 : 0;
  }
  void on_scheduler_exit(bool is_worker) override {
    const std::lock_guard<std::mutex> lock(m_);
    counts& c = by_thread_[std::this_thread::get_id()];
    ++c.exits;
    c.as_worker += is_worker ? 1 : 0;
  }
  std::map<std::thread::id, counts> snapshot() {
    const std::lock_guard<std::mutex> lock(m_);
    return by_thread_;
  }

 private:
  std::mutex m_;
  std::map<std::thread::id, counts> by_thread_;
};

// The threads that ran iterations of a loop long enough for every worker to join.
std::set<std::thread::id> run_loop() {
  std::mutex m;
  std::set<std::thread::id> ids;
  tbb::parallel_for(0, 64, [&](int) {
    std::this_thread::sleep_for(1ms);
    const std::lock_guard<std::mutex> lock(m);
    ids.insert(std::this_thread::get_id());
  });
  return ids;
}

TEST(TbbObserver, ArenaObserverSeesEachThreadEnterAndLeave) {
  tbb::task_arena arena(2);
  counting_observer obs(arena);
  obs.observe(true);
  EXPECT_TRUE(obs.is_observing());
  const std::thread::id self = std::this_thread::get_id();
  std::set<std::thread::id> ran;
  arena.execute([&] { ran = run_loop(); });
  ASSERT_GE(ran.size(), 1U);
  {
    const auto seen = obs.snapshot();
    // The calling thread entered and left once, as an external thread.
    ASSERT_EQ(seen.count(self), 1U);
    EXPECT_EQ(seen.at(self).entries, 1);
    EXPECT_EQ(seen.at(self).exits, 1);
    EXPECT_EQ(seen.at(self).as_worker, 0);
    // Every thread that ran a task entered first; a worker is in at most once at a time.
    for (const std::thread::id id : ran) {
      ASSERT_EQ(seen.count(id), 1U);
      EXPECT_GE(seen.at(id).entries, 1);
    }
    for (const auto& [id, c] : seen) {
      if (id == self) continue;
      EXPECT_GE(c.entries, c.exits);
      EXPECT_LE(c.entries - c.exits, 1);
      EXPECT_EQ(c.as_worker, c.entries + c.exits);  // the arena's own threads are workers
    }
  }
  // Once the arena is gone its workers have left (forkjoin: when their thread ends; oneTBB:
  // when they run out of work, asynchronously).
  arena.terminate();
  bool all_left = false;
  for (int i = 0; i < 500 && !all_left; ++i) {
    all_left = true;
    for (const auto& [id, c] : obs.snapshot()) all_left = all_left && c.entries == c.exits;
    if (!all_left) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(all_left);
  obs.observe(false);
  EXPECT_FALSE(obs.is_observing());
}

TEST(TbbObserver, NoCallbacksAfterObserveFalse) {
  tbb::task_arena arena(2);
  counting_observer obs(arena);
  obs.observe(true);
  arena.execute([] { run_loop(); });
  obs.observe(false);
  const auto before = obs.snapshot();
  arena.execute([] { run_loop(); });
  arena.terminate();
  const auto after = obs.snapshot();
  ASSERT_EQ(before.size(), after.size());
  for (const auto& [id, c] : before) {
    EXPECT_EQ(after.at(id).entries, c.entries);
    EXPECT_EQ(after.at(id).exits, c.exits);
  }
}

TEST(TbbObserver, ImplicitArenaObserverEntersTheCallerAndTheWorkers) {
  counting_observer obs;
  obs.observe(true);
  const std::thread::id self = std::this_thread::get_id();
  {
    // oneTBB: the calling thread, in the implicit arena, enters inside observe(true).
    const auto seen = obs.snapshot();
    ASSERT_EQ(seen.count(self), 1U);
    EXPECT_EQ(seen.at(self).entries, 1);
    EXPECT_EQ(seen.at(self).as_worker, 0);
  }
  const std::set<std::thread::id> ran = run_loop();
  const auto seen = obs.snapshot();
  EXPECT_EQ(seen.at(self).entries, 1);  // not again: it never left
  for (const std::thread::id id : ran) {
    ASSERT_EQ(seen.count(id), 1U);
    EXPECT_GE(seen.at(id).entries, 1);
    if (id != self) {
      EXPECT_EQ(seen.at(id).as_worker, seen.at(id).entries + seen.at(id).exits);
    }
  }
  obs.observe(false);
}

// An entry callback that takes a while: observe(false) must not return while it runs.
class slow_observer : public tbb::task_scheduler_observer {
 public:
  explicit slow_observer(tbb::task_arena& a) : tbb::task_scheduler_observer(a) {}
  ~slow_observer() override { observe(false); }
  void on_scheduler_entry(bool) override {
    inside.store(true);
    std::this_thread::sleep_for(300ms);
    finished.store(true);
  }
  std::atomic<bool> inside{false};
  std::atomic<bool> finished{false};
};

TEST(TbbObserver, ObserveFalseWaitsForARunningCallback) {
  tbb::task_arena arena(2);
  slow_observer obs(arena);
  obs.observe(true);
  std::thread other([&] { arena.execute([] {}); });
  while (!obs.inside.load()) std::this_thread::yield();
  obs.observe(false);
  EXPECT_TRUE(obs.finished.load());
  other.join();
}

#if !defined(FORKJOIN_TBB_NATIVE)
// libforkjoin-tbb: a thread outside every arena that ran work in the implicit arena stays
// in it, and leaves (exit, as an external thread) when it ends.
TEST(TbbObserver, AnExternalThreadLeavesWhenItEnds) {
  counting_observer obs;
  obs.observe(true);
  std::thread::id id;
  std::thread t([&] {
    id = std::this_thread::get_id();
    run_loop();
  });
  t.join();
  const auto seen = obs.snapshot();
  ASSERT_EQ(seen.count(id), 1U);
  EXPECT_EQ(seen.at(id).entries, 1);
  EXPECT_EQ(seen.at(id).exits, 1);
  EXPECT_EQ(seen.at(id).as_worker, 0);
  obs.observe(false);
}
#endif

}  // namespace
