// task_deps.cpp: the dependency bookkeeping of one task_group. The registering threads keep
// a map (open addressing, under a lock that only they take) from an object's address to
// its last writer and the open group of readers since; finished entries are swept when the
// map fills. Finishing children never touch the map: they update their own node, their
// reader groups and their successors with atomics. Protocol: forkjoin/DESIGN.md [P-DEPS].
#include "forkjoin/detail/task_deps.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/task_group.hpp"
#include "pool_impl.hpp"

namespace forkjoin::detail {

namespace {

// The successor stack of a finished node points here [P-DEPS F2]; never dereferenced.
dep_slot g_closed_mark;
dep_slot* const k_closed = &g_closed_mark;

constexpr std::size_t k_min_capacity = 64;

// One address with an unfinished node, or one whose nodes finished since the last sweep.
struct entry {
  const void* key = nullptr;  // null: the cell is free
  dep_node* writer = nullptr;
  dep_slot* group = nullptr;  // the leader slot of the open reader group
};

void hold(dep_node* n) noexcept {
  n->refs.fetch_add(1, std::memory_order_relaxed);  // [P-DEPS Ref] the caller holds a reference already
}

void release(dep_node* n) noexcept {
  if (n->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)  // [P-DEPS Ref] pairs with the other releases
    n->free_block(n);
}

bool finished(const dep_node* n) noexcept {
  return n->successors.load(std::memory_order_acquire) == k_closed;  // [P-DEPS R2a] pairs with F2's exchange
}

bool group_done(const dep_slot* leader) noexcept {
  return leader->readers.load(std::memory_order_acquire) == 1;  // [P-DEPS Sweep] pairs with F1's decrements
}

// [P-DEPS F3] one predecessor of n finished; the caller pushes n when this returns true.
bool release_one(dep_node* n) noexcept {
  return n->pending.fetch_sub(1, std::memory_order_acq_rel) == 1;  // pairs with R3 and the other F3s
}

// [P-DEPS R2a] s (a slot of the node being registered) becomes an edge on predecessor p;
// 1 if it did, 0 if p had finished.
std::uint32_t push_edge(dep_node* p, dep_slot& s) noexcept {
  dep_slot* head = p->successors.load(std::memory_order_acquire);  // pairs with F2's exchange
  for (;;) {
    if (head == k_closed) return 0;
    s.next_edge = head;
    if (p->successors.compare_exchange_weak(head, &s, std::memory_order_release,
                                            std::memory_order_acquire))  // [P-DEPS R2a] pairs with F2's exchange
      return 1;
  }
}

}  // namespace

// [P-DEPS R1] the registering threads' lock. Uncontended when one thread creates the
// children (the usual case): one exchange and one store. A waiter spins briefly, then yields
// (the holder may have been preempted; it never waits for another thread while holding it).
class registration_lock {
 public:
  void lock() noexcept {
    int spins = 0;
    while (held_.exchange(true, std::memory_order_acquire)) {  // pairs with unlock's store
      while (held_.load(std::memory_order_relaxed)) {
        if (++spins < 64)
          cpu_relax();
        else
          std::this_thread::yield();
      }
    }
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }  // pairs with lock's exchange

 private:
  std::atomic<bool> held_{false};
};

class task_deps {
 public:
  ~task_deps() {
    for (std::size_t i = 0; i < capacity_; ++i) drop(cells_[i]);
  }

  registration_lock lock;  // [P-DEPS R1] registering threads only

  // [P-DEPS R1] room for `more` new keys; may throw (before anything is linked).
  void reserve(std::size_t more) {
    if (used_ + more <= capacity_ / 2) return;
    sweep(more);
  }

  entry& find_or_insert(const void* key) noexcept {
    for (std::size_t i = hash(key);; i = (i + 1) & (capacity_ - 1)) {
      entry& e = cells_[i];
      if (e.key == key) return e;
      if (e.key == nullptr) {
        e.key = key;
        ++used_;
        return e;
      }
    }
  }

 private:
  std::size_t hash(const void* key) const noexcept {
    return static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(key) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  // Releases what a finished entry holds; true if nothing unfinished is left in it.
  static bool settle(entry& e) noexcept {
    if (e.writer != nullptr && finished(e.writer)) {
      release(e.writer);
      e.writer = nullptr;
    }
    if (e.group != nullptr && group_done(e.group)) {  // no member left, never closed
      release(e.group->owner);                        // the group's reference: it is over
      e.group = nullptr;
    }
    return e.writer == nullptr && e.group == nullptr;
  }
  // Every child finished: every group in the map has only its open count left.
  static void drop(entry& e) noexcept {
    if (e.writer != nullptr) release(e.writer);
    if (e.group != nullptr) release(e.group->owner);
  }

  // [P-DEPS Sweep] drops every finished entry and moves the rest into a table with room.
  void sweep(std::size_t more) {
    std::size_t live = 0;
    for (std::size_t i = 0; i < capacity_; ++i)
      if (cells_[i].key != nullptr && !settle(cells_[i])) ++live;
    const std::size_t capacity = std::bit_ceil(std::max(k_min_capacity, 4 * (live + more)));
    auto fresh = std::make_unique<entry[]>(capacity);  // may throw: the table is still whole
    std::unique_ptr<entry[]> old = std::move(cells_);
    const std::size_t old_capacity = capacity_;
    cells_ = std::move(fresh);
    capacity_ = capacity;
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
    used_ = 0;
    for (std::size_t i = 0; i < old_capacity; ++i) {
      const entry& e = old[i];
      if (e.key == nullptr || (e.writer == nullptr && e.group == nullptr)) continue;
      find_or_insert(e.key) = e;
    }
  }

  std::unique_ptr<entry[]> cells_;
  std::size_t capacity_ = 0;  // a power of two, or 0 before the first child
  std::size_t used_ = 0;      // cells with a key
  unsigned shift_ = 64;
};

task_deps& task_deps_of(std::atomic<task_deps*>& slot) {
  task_deps* d = slot.load(std::memory_order_acquire);  // [P-DEPS Create] pairs with the CAS
  if (d != nullptr) return *d;
  auto fresh = std::make_unique<task_deps>();
  if (slot.compare_exchange_strong(d, fresh.get(), std::memory_order_acq_rel,
                                   std::memory_order_acquire))  // [P-DEPS Create] pairs with the load above
    return *fresh.release();
  return *d;
}

void destroy_task_deps(task_deps* d) noexcept { delete d; }

bool register_node(task_deps& d, dep_node& n) {
  // A key given twice counts once, with the union of its modes.
  std::uint32_t kept = 0;
  for (std::uint32_t i = 0; i < n.nslots; ++i) {
    dep_slot& s = n.slots[i];
    std::uint32_t k = 0;
    while (k < kept && n.slots[k].key != s.key) ++k;
    if (k < kept) {
      n.slots[k].mode =
          static_cast<dependency::access>(static_cast<unsigned>(n.slots[k].mode) | static_cast<unsigned>(s.mode));
    } else if (kept++ != i) {
      n.slots[k].key = s.key;
      n.slots[k].mode = s.mode;
    }
  }
  n.nslots = kept;

  std::lock_guard<registration_lock> guard(d.lock);  // [P-DEPS R1]
  d.reserve(kept);                                   // may throw: nothing is linked yet
  std::uint32_t edges = 0;
  for (std::uint32_t i = 0; i < kept; ++i) {  // [P-DEPS R2]
    dep_slot& s = n.slots[i];
    entry& e = d.find_or_insert(s.key);
    if (e.writer != nullptr && finished(e.writer)) {
      release(e.writer);
      e.writer = nullptr;
    }
    if (s.mode == dependency::access::in) {
      if (e.writer != nullptr) edges += push_edge(e.writer, s);    // R2a
      if (e.group != nullptr) {                                    // R2b: join the open group
        e.group->readers.fetch_add(1, std::memory_order_relaxed);  // the open count keeps it above 0
        s.group = e.group;
      } else {                                          // lead a new one
        s.readers.store(2, std::memory_order_relaxed);  // open + this member; published by R3 or the map's lock
        s.group = &s;
        e.group = &s;
        hold(&n);  // [P-DEPS Ref] the group's reference, until readers reaches 0
      }
    } else {
      if (e.group != nullptr) {  // R2c: close the readers' group; its last member releases n
        e.group->closer = &n;
        if (e.group->readers.fetch_sub(1, std::memory_order_acq_rel) != 1)  // pairs with F1's decrements
          ++edges;
        else
          release(e.group->owner);  // every member had finished: the group is over
        e.group = nullptr;
      } else if (e.writer != nullptr) {
        edges += push_edge(e.writer, s);  // R2a
      }
      if (e.writer != nullptr) release(e.writer);
      e.writer = &n;
      hold(&n);
    }
  }
  // R3: drop the bias; what is left is the edges not yet released.
  const std::uint32_t drop = dep_node::k_pending_bias - edges;
  return n.pending.fetch_sub(drop, std::memory_order_acq_rel) == drop;  // [P-DEPS R3] pairs with F3
}

void finish_node(pool_impl& p, count_latch& latch, dep_node& n) noexcept {
  // [P-DEPS F3] the successor is counted in the latch before it is pushed, and before this
  // child's own G2: the count cannot reach zero in between
  auto push = [&p, &latch](dep_node* s) {
    latch.add_child();
    push_ready(p, s->job);
  };
  for (std::uint32_t i = 0; i < n.nslots; ++i) {  // [P-DEPS F1] leave the reader groups
    dep_slot& s = n.slots[i];
    dep_slot* g = s.group;
    if (g == nullptr) continue;
    // not touched after a decrement that leaves members: the group may be over, its leader freed
    if (g->readers.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // pairs with R2c and the other F1s
      dep_node* closer = g->closer;                                 // set before R2c's release
      if (release_one(closer)) push(closer);                        // [P-DEPS F3]
      release(g->owner);                                            // [P-DEPS Ref] the group's reference
    }
  }
  // [P-DEPS F2] close the successor stack; later registrations see the node finished.
  dep_slot* e = n.successors.exchange(k_closed, std::memory_order_acq_rel);  // pairs with R2a
  while (e != nullptr) {
    dep_slot* next = e->next_edge;  // read before F3: then e's node may run and be freed
    dep_node* s = e->owner;
    if (release_one(s)) push(s);  // [P-DEPS F3]
    e = next;
  }
  release(&n);  // [P-DEPS Ref] its own reference
}

void push_ready(pool_impl& p, job_header* j) noexcept {
  worker* w = tls_worker;
  if (w != nullptr && w->pool_ == &p) {
    try {
      w->deque_.push_private(j);  // pushed as itself, published at once as every task_group child
      on_new_job(*w, j);          // records its spawn when tracing [P-TRACE Join]
      return;
    } catch (...) {  // the deque could not grow: the injector cannot fail
    }
  }
  inject_job(p, j);
}

}  // namespace forkjoin::detail
