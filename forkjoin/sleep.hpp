// sleep.hpp: the sleep/wake subsystem of a pool: the idle word, the sleeper list, the wake
// policy and the parked counter (DESIGN.md [P-POST], [P-SLEEP], [INV-WAKE], [INV-COUNT]).
// It knows nothing of deques, jobs or pools: its one question to the outside is a
// work_monitor, so it can be driven by plain threads (tests/core/test_sleep_controller.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/worker_api.hpp"

namespace forkjoin::detail {

// What a thread about to park re-checks besides its own latch ([P-SLEEP ReadJob]): the
// controller's owner says whether any job is visible to thieves or it is shutting down.
class work_monitor {
 public:
  virtual bool work_or_shutdown_visible() const noexcept = 0;
  // [P-LENT W2] a sleeper with no thread behind it (away) was woken: find it one. `index`
  // is what start_away recorded. Only an owner that sends sleepers away is called.
  virtual void summon(std::uint32_t index) noexcept { static_cast<void>(index); }

 protected:
  ~work_monitor() = default;
};

class sleep_controller {
 public:
  // One thread's place in the protocol: its searching mark, the futex word it parks on and
  // its position in the sleeper list. Must outlive the controller's last wake-up.
  class sleeper {
   public:
    bool searching() const noexcept { return searching_; }
    std::uint64_t parks() const noexcept { return parks_.load(std::memory_order_relaxed); }

   private:
    friend class sleep_controller;
    bool searching_ = false;  // owner thread only: counted in the idle word's searching half
    alignas(k_cache_line) std::atomic<std::uint32_t> wake_flag_{0};  // futex word, set under mutex_
    std::size_t pos_ = 0;                                            // guarded by mutex_
    bool listed_ = false;                                            // guarded by mutex_: in sleepers_
    bool away_ = false;                    // guarded by mutex_: listed with no thread behind it [P-LENT W1]
    std::uint32_t away_index_ = 0;         // what summon() is told; set by start_away
    std::atomic<std::uint64_t> parks_{0};  // statistics, written by the owner only
  };

  // `num_threads` bounds the sleeper list and sets the searcher cap [INV-SEARCH];
  // `extra_sleepers` makes room in the list for spare threads that wait ([P-BLOCK Spare]).
  sleep_controller(std::size_t num_threads, work_monitor& monitor, std::size_t extra_sleepers = 0);
  sleep_controller(const sleep_controller&) = delete;
  sleep_controller& operator=(const sleep_controller&) = delete;

  // The edges of a thread's state (DESIGN.md, "Thread states"). Each takes the calling
  // thread's own sleeper, except wake_specific.
  //
  // A thread about to start counts as searching, as if just woken [INV-COUNT];
  // cancel_launch undoes that if it could not start.
  void start_searching_at_launch(sleeper& s) noexcept;
  void cancel_launch(sleeper& s) noexcept;
  // idle -> searching; false past the cap of max(1, N/2) searchers [INV-SEARCH].
  bool try_start_searching(sleeper& s) noexcept;
  // searching -> working; the last searcher wakes a replacement [P-SLEEP LastSearcher].
  void stop_searching(sleeper& s) noexcept;
  // -> sleeping -> searching: announce, re-check (`wanted(ctx)`, if given, then the monitor)
  // and park until woken, or cancel if the re-check found a reason to stay awake.
  void fall_asleep(sleeper& s, bool (*wanted)(const void*), const void* ctx) noexcept;
  // [P-LENT W0] a slot whose thread is lent when wanted: listed as sleeping, with no thread
  // behind it (away); waking it summons one (work_monitor::summon(index)).
  void start_away(sleeper& s, std::uint32_t index) noexcept;
  // [P-LENT W1] fall_asleep for a lent thread at the top of its loop: announce and re-check
  // as fall_asleep does, then, instead of parking, leave s listed and away: true when the
  // thread left (the slot is no longer its), false when it stays searching.
  bool fall_asleep_or_leave(sleeper& s, bool (*wanted)(const void*), const void* ctx) noexcept;
  // Wake at most one sleeper, and only if nobody searches [INV-WAKE].
  void wake_one() noexcept;
  // Wake s if it is in the sleeper list (a latch it waits on was set).
  void wake_specific(sleeper& s) noexcept;
  // Wake every sleeper ([P-TERM Wake]).
  void wake_all() noexcept;
  // After a job was posted from outside: [P-POST] PushFence, ReadSleepers, wake if needed.
  void notify_external_work() noexcept;
  // After a worker published jobs: [P-POST Internal], no fence: a missed wake-up costs
  // parallelism only, because the posting worker is awake and runs the job itself
  // [INV-NOLOSS]. Inline: the publishing path pays one relaxed load and a compare.
  void notify_internal_work() noexcept {
    if (counts().wants_wake()) wake_one();
  }

  // The word the hot path reads (worker::idle_word_).
  const std::atomic<std::uint64_t>& word() const noexcept { return idle_; }
  // Diagnostics: relaxed snapshots.
  idle_count counts() const noexcept { return idle_count::decode(idle_.load(std::memory_order_relaxed)); }
  std::size_t num_parked() const noexcept { return parked_.load(std::memory_order_relaxed); }
  // Statistics: futex wake-ups issued to sleepers so far (a sleeper woken counts once).
  std::uint64_t wakes() const noexcept { return wakes_.load(std::memory_order_relaxed); }

 private:
  static constexpr std::uint64_t k_one_searching = idle_count{1, 0}.encode();
  static constexpr std::uint64_t k_one_sleeping = idle_count{0, 1}.encode();

  void remove_locked(sleeper& s) noexcept;
  // Sets s's wake flag; true when s is away [P-LENT W2]: the caller summons a thread for it
  // (after unlocking) instead of a futex wake.
  bool wake_locked(sleeper& s) noexcept;
  void announce_locked(sleeper& s) noexcept;  // [P-SLEEP IncSleepers]
  // IncSleepers, SleepFence, ReadJob: true when the re-check found a reason to stay awake.
  bool announce_and_recheck(sleeper& s, bool (*wanted)(const void*), const void* ctx) noexcept;
  void finish_wake(sleeper& s, bool away) noexcept;

  const std::uint32_t searcher_cap_;
  work_monitor& monitor_;
  alignas(k_cache_line) std::atomic<std::uint64_t> idle_{0};  // idle_count, encoded
  alignas(k_cache_line) std::mutex mutex_;
  std::vector<sleeper*> sleepers_;  // guarded by mutex_
  std::vector<sleeper*> woken_;     // wake_all's copy of sleepers_; only the pool's starting or ending thread calls it
  std::atomic<std::uint32_t> parked_{0};  // threads inside futex_wait now (diagnostics)
  std::atomic<std::uint64_t> wakes_{0};   // statistics: sleepers woken (a wake is a syscall anyway)
};

}  // namespace forkjoin::detail
