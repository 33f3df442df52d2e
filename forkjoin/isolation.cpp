// isolation.cpp: isolated regions (forkjoin::isolate): region tags, the isolated wait's
// own-deque pop, running a found job under the tag it was pushed with, and the isolated
// waiter's park and wake-up. The deque stores the tags ([P-ISO Tag]); the helping loop
// that calls these is worker.cpp's help_until. Protocol: DESIGN.md [P-ISO].
#include <atomic>
#include <mutex>
#include <vector>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/waiting_api.hpp"
#include "futex.hpp"
#include "pool_impl.hpp"

namespace forkjoin::detail {

namespace {
// Region tags, process-wide. 0 means "not isolated"; after 2^32 regions the counter wraps
// and skips 0, so two live regions could share a tag only 2^32 regions apart (their waits
// would then help each other, as non-isolated waits do).
std::atomic<std::uint32_t> g_next_tag{1};

// A fresh tag without the shared bit ([P-ISO Share]: shared regions' tags have it).
std::uint32_t new_tag() noexcept {
  for (;;) {
    // relaxed: only uniqueness matters
    const std::uint32_t t = g_next_tag.fetch_add(1, std::memory_order_relaxed) & ~pool_impl::k_shared_tag_bit;
    if (t != 0) return t;
  }
}

// [P-ISO Share] K0: the live shared regions, by key (few at a time: a linear search).
struct shared_region {
  std::uintptr_t key;
  std::uint32_t tag;
  std::size_t users;
};
std::mutex g_shared_mutex;
std::vector<shared_region>& shared_regions() {
  static auto* regions = new std::vector<shared_region>();  // never destroyed: threads may outlive statics
  return *regions;
}

// [P-ISO Share] the wake-up cells: a shared region's waiters park on the cell of its tag
// (regions that share a cell wake each other for nothing, never too few).
struct alignas(k_cache_line) wake_cell {
  std::atomic<std::uint32_t> parked{0};  // waiters between K3 and K5
  std::atomic<std::uint32_t> seq{0};     // bumped by K2 and by latch setters
};
constexpr std::size_t k_wake_cells = 64;
wake_cell g_wake_cells[k_wake_cells];
wake_cell& cell_of(std::uint32_t tag) noexcept { return g_wake_cells[tag % k_wake_cells]; }

void enter_with_tag(worker& w, std::uint32_t tag) noexcept {
  // [P-ISO Enter] jobs queued before the region stay stealable while f runs: the region's
  // waits will not run them, so others must be able to.
  on_new_internal_work(w);
  w.deque_.set_tag(tag);
  slot_of(w).iso_mark_ = w.deque_.end_index();
}
}  // namespace

isolation_state enter_isolation(worker& w) noexcept {
  const isolation_state saved{w.deque_.tag(), slot_of(w).iso_mark_};
  enter_with_tag(w, new_tag());
  return saved;
}

isolation_state enter_shared_isolation(worker& w, std::uintptr_t key) noexcept {
  const isolation_state saved{w.deque_.tag(), slot_of(w).iso_mark_};
  std::uint32_t tag = 0;
  {
    // [P-ISO Share] K0: the key's live region, or a new one with a fresh tag
    const std::lock_guard<std::mutex> lock(g_shared_mutex);
    std::vector<shared_region>& regions = shared_regions();
    for (shared_region& r : regions)
      if (r.key == key) {
        ++r.users;
        tag = r.tag;
        break;
      }
    if (tag == 0) {
      tag = new_tag() | pool_impl::k_shared_tag_bit;
      regions.push_back({key, tag, 1});  // bad_alloc here: terminate (noexcept), as a lost region would hang
    }
  }
  enter_with_tag(w, tag);
  return saved;
}

void leave_shared_isolation(worker& w, isolation_state saved, std::uintptr_t key) noexcept {
  leave_isolation(w, saved);
  // [P-ISO Share] K0: the last user ends the region; a later entry with the key gets a new tag
  const std::lock_guard<std::mutex> lock(g_shared_mutex);
  std::vector<shared_region>& regions = shared_regions();
  for (std::size_t i = 0; i < regions.size(); ++i)
    if (regions[i].key == key) {
      if (--regions[i].users == 0) {
        regions[i] = regions.back();
        regions.pop_back();
      }
      return;
    }
}

void leave_isolation(worker& w, isolation_state saved) noexcept {
  w.deque_.set_tag(saved.tag);  // [P-ISO Leave]
  slot_of(w).iso_mark_ = saved.mark;
}

void pool_impl::run_stolen(worker_slot& w, job_header* j) noexcept {
  const std::uint32_t tag = w.found_tag_;
  if (tag == w.deque_.tag()) {
    j->execute(j);
    return;
  }
  // [P-ISO Adopt] a job spawned in a region runs in that region, wherever it runs.
  const isolation_state saved{w.deque_.tag(), w.iso_mark_};
  w.deque_.set_tag(tag);
  w.iso_mark_ = w.deque_.end_index();
  j->execute(j);
  w.deque_.set_tag(saved.tag);
  w.iso_mark_ = saved.mark;
}

void pool_impl::park_isolated(worker_slot& w, bool (*done)(const void*), const void* ctx) noexcept {
  for (;;) {
    const std::uint32_t seq = w.iso_seq_.load(std::memory_order_acquire);  // [P-ISO Park] pairs with wake_isolated
    if (done(ctx)) break;
    futex_wait(w.iso_seq_, seq);
  }
  w.iso_parked_.store(false, std::memory_order_relaxed);
}

void pool_impl::wake_isolated(worker_slot& w) noexcept {
  // [P-ISO Park] the latch's J2/G2 acquired the waiter's J4/G4, which followed its store of
  // iso_parked_ (and of iso_word_, [P-ISO Share]): a waiter that parks here is seen.
  if (!w.iso_parked_.load(std::memory_order_relaxed)) return;
  // relaxed: ordered as iso_parked_ is; a stale word (the waiter has moved on) is a word that
  // lives as long as the process or the slot, and a bump there wakes nobody for nothing
  std::atomic<std::uint32_t>& word = *w.iso_word_.load(std::memory_order_relaxed);
  word.fetch_add(1, std::memory_order_release);  // [P-ISO Park] pairs with the acquire loads in park_isolated, K3
  futex_wake_all(word);
}

std::atomic<std::uint32_t>& pool_impl::shared_park_word(std::uint32_t tag) noexcept { return cell_of(tag).seq; }

job_header* pool_impl::park_shared(worker_slot& w, bool (*done)(const void*), const void* ctx, bool steal) noexcept {
  wake_cell& cell = cell_of(w.deque_.tag());
  // [P-ISO Share] K3: the word first, then the count: a K2 that reads the count bumps the
  // word after this read (else its bump happened before the count's increment, which K2
  // read before bumping), so the futex wait below cannot sleep through it
  const std::uint32_t seq = cell.seq.load(std::memory_order_acquire);  // pairs with K2's and the setter's bump
  cell.parked.fetch_add(1, std::memory_order_seq_cst);  // [P-ISO Share] K3: Dekker with K2's fence and load
  // [P-ISO Share] K4: the latch, then the region's public jobs (steal_sweep's S2 fence orders
  // its reads of every bottom after K3): a push that K2 saw no waiter for is seen here
  job_header* j = nullptr;
  if (!done(ctx)) {
    if (steal) j = steal_sweep(w, -1, false);
    if (j == nullptr) futex_wait(cell.seq, seq);  // [P-ISO Share] K5
  }
  cell.parked.fetch_sub(1, std::memory_order_relaxed);  // relaxed: a stale count costs K2 one bump
  return j;
}

void pool_impl::wake_shared_region(std::uint32_t tag) noexcept {
  wake_cell& cell = cell_of(tag);
  // [P-ISO Share] K2: the job was published (P3/P4) before this fence; Dekker with K3
  seq_cst_fence();
  if (cell.parked.load(std::memory_order_relaxed) == 0) return;  // relaxed: ordered by the fence above
  cell.seq.fetch_add(1, std::memory_order_release);              // [P-ISO Share] K2 pairs with K3's acquire load
  futex_wake_all(cell.seq);
}

}  // namespace forkjoin::detail
