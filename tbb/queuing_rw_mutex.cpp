// queuing_rw_mutex.cpp: tbb::queuing_rw_mutex, a fair reader-writer lock whose queue nodes
// are the program's scoped_lock objects. The header lays out the fields (the mutex's tail;
// each node's prev, next, state, going and internal lock); this file owns what they mean.
// Readers that queue behind active readers share the lock; everyone else waits for a grant
// from the node ahead, first spinning, then yielding, then asleep (not a blocking call for
// the pool: the waiter keeps its thread, as in oneTBB). A reader leaves from anywhere in the queue by unlinking itself
// under its neighbours' internal locks. Protocol: tbb/DESIGN.md [P-TBB QRW].
#include <oneapi/tbb/queuing_rw_mutex.h>
#include <sched.h>

#include <atomic>
#include <cstdint>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/config.hpp"
#include "internal.hpp"

namespace tbb::detail::r1 {

namespace tl = forkjoin::detail::tbb_layer;

struct queuing_rw_mutex_impl {
  using mutex = d1::queuing_rw_mutex;
  using node = d1::queuing_rw_mutex::scoped_lock;
  using state_t = node::state_t;

  // my_state: what the node is, plus k_notify: a reader queued behind it waits for its grant.
  static constexpr state_t k_reader_waiting = 1;
  static constexpr state_t k_reader = 2;  // an active reader: a reader queued behind is admitted at once
  static constexpr state_t k_writer_waiting = 3;
  static constexpr state_t k_writer = 4;
  static constexpr state_t k_upgrading = 5;  // an active reader that waits to become the writer in place
  static constexpr state_t k_notify = 0x80;
  static constexpr state_t k_kind = 0x7f;

  // my_going: 0 waiting, 1 granted, 2 waiting asleep (the granter wakes its bucket).
  static constexpr unsigned char k_waiting = 0;
  static constexpr unsigned char k_granted = 1;
  static constexpr unsigned char k_sleeping = 2;

  // Polls of my_going before a waiter sleeps: 7 doubling pause rounds (about 130 pauses),
  // then sched_yield; picked by hand (a handover between running threads takes well under
  // a yield, a preempted holder takes a time slice).
  static constexpr int k_spin_rounds = 7;
  static constexpr int k_polls_before_sleep = k_spin_rounds + 64;

  static node* as_node(std::uintptr_t v) noexcept { return reinterpret_cast<node*>(v); }
  static std::uintptr_t as_word(node* n) noexcept { return reinterpret_cast<std::uintptr_t>(n); }
  static state_t kind(const node& n) noexcept {
    return n.my_state.load(std::memory_order_relaxed) & k_kind;  // the owner's own field
  }

  // Short waits (an internal lock, a successor's link): pause, doubling, then yield.
  class backoff {
   public:
    void pause() noexcept {
      if (round_ < k_spin_rounds) {
        for (int i = 0; i < (1 << round_); ++i) forkjoin::detail::cpu_relax();
        ++round_;
      } else {
        sched_yield();
      }
    }

   private:
    int round_ = 0;
  };

  // [P-TBB QRW L] the internal lock. Blocking acquisitions go towards the tail only; a
  // node's predecessor is only ever tried.
  static void lock(node& n) noexcept {
    for (backoff b;; b.pause()) {
      if (n.my_internal_lock.load(std::memory_order_relaxed) != 0) continue;  // a hint: the CAS decides
      unsigned char expected = 0;
      if (n.my_internal_lock.compare_exchange_weak(expected, 1, std::memory_order_acquire,  // pairs with unlock
                                                   std::memory_order_relaxed))
        return;
    }
  }
  static bool try_lock(node& n) noexcept {
    unsigned char expected = 0;
    return n.my_internal_lock.compare_exchange_strong(expected, 1, std::memory_order_acquire,  // pairs with unlock
                                                      std::memory_order_relaxed);
  }
  static void unlock(node& n) noexcept {
    n.my_internal_lock.store(0, std::memory_order_release);  // [P-TBB QRW L] pairs with lock's acquire
  }

  // [P-TBB QRW G] the grant: the granter's last access to n, which waits and so is alive.
  static void grant(node& n) noexcept {
    forkjoin::detail::perturb_point();
    // release: pairs with Q5's acquire (everything the granter did, its critical section
    // included, happens before the grantee goes on)
    if (n.my_going.exchange(k_granted, std::memory_order_release) == k_sleeping) tl::wake_address(&n.my_going);
  }

  // [P-TBB QRW Q5] waits for the grant: polls, then sleeps on my_going's bucket.
  static void wait_for_grant(node& me) {
    backoff b;
    for (int i = 0; i < k_polls_before_sleep; ++i, b.pause())
      if (me.my_going.load(std::memory_order_acquire) == k_granted) return;  // pairs with G
    unsigned char expected = k_waiting;
    // acquire: on failure the grant came (pairs with G); on success the mutex orders the rest
    if (!me.my_going.compare_exchange_strong(expected, k_sleeping, std::memory_order_acquire)) return;
    tl::block_until(
        &me.my_going,
        [](const void* going) {
          // pairs with G's release exchange
          return static_cast<const std::atomic<unsigned char>*>(going)->load(std::memory_order_acquire) == k_granted;
        },
        &me.my_going, /*compensate=*/false);
  }

  // The node queued behind me, once it has linked itself (Q4); short: the arrival has
  // already swapped the tail.
  static node& wait_next(node& me) noexcept {
    for (backoff b;; b.pause()) {
      // acquire: pairs with Q4's release store (the arrival is done with me)
      if (node* n = as_node(me.my_next.load(std::memory_order_acquire)); n != nullptr) return *n;
    }
  }

  // [P-TBB QRW Q6] an active reader: a reader that asked for my grant (k_notify) gets it.
  static void become_reader(node& me) noexcept {
    // release: pairs with an arrival's Q3 acquire load (admitted through me, it must see
    // what I see); acquire: pairs with the arrival's Q3 CAS that set k_notify
    const state_t old = me.my_state.exchange(k_reader, std::memory_order_acq_rel);
    if ((old & k_notify) != 0) grant(wait_next(me));
  }

  // [P-TBB QRW Q6] an active writer, keeping k_notify: a reader behind me still waits.
  static void become_writer(node& me) noexcept {
    state_t s = me.my_state.load(std::memory_order_relaxed);
    // relaxed: only the value matters; a reader behind me reads it and waits for a grant
    while (!me.my_state.compare_exchange_weak(s, k_writer | (s & k_notify), std::memory_order_relaxed)) {
    }
  }

  static void enqueue_fields(mutex& m, node& me, state_t state) noexcept {
    me.my_mutex = &m;
    me.my_prev.store(0, std::memory_order_relaxed);  // published by Q1's release
    me.my_next.store(0, std::memory_order_relaxed);
    me.my_going.store(k_waiting, std::memory_order_relaxed);
    me.my_internal_lock.store(0, std::memory_order_relaxed);
    me.my_state.store(state, std::memory_order_relaxed);
  }

  static void acquire(mutex& m, node& me, bool write) {
    enqueue_fields(m, me, write ? k_writer_waiting : k_reader_waiting);
    // [P-TBB QRW Q1] release: my fields to the node that queues behind me (its Q3, Q4);
    // acquire: my predecessor's (its Q1), or the last holder's release (R1, D3)
    node* const pred = m.q_tail.exchange(&me, std::memory_order_acq_rel);
    if (pred == nullptr) {  // [P-TBB QRW Q2] the queue was empty
      if (write)
        become_writer(me);
      else
        become_reader(me);
      return;
    }
    me.my_prev.store(as_word(pred), std::memory_order_relaxed);  // published to pred by Q4's release
    bool admitted = false;
    if (!write) {
      // [P-TBB QRW Q3] behind an active reader: in at once; else ask for pred's grant.
      state_t ps = pred->my_state.load(std::memory_order_acquire);  // pairs with pred's Q6 exchange
      for (;;) {
        if ((ps & k_kind) == k_reader) {
          admitted = true;
          break;
        }
        // acquire: on failure ps may now be k_reader (pairs with pred's Q6 exchange); on
        // success pred's grant orders the rest
        if (pred->my_state.compare_exchange_weak(ps, ps | k_notify, std::memory_order_acquire)) break;
      }
    }
    forkjoin::detail::perturb_point();
    // [P-TBB QRW Q4] my last access to pred. release: pairs with pred's acquire loads of its
    // next (D3, R1, wait_next): my accesses to pred above are done before it leaves.
    pred->my_next.store(as_word(&me), std::memory_order_release);
    if (!admitted) wait_for_grant(me);  // [P-TBB QRW Q5]
    if (write)
      become_writer(me);
    else
      become_reader(me);
  }

  static bool try_acquire(mutex& m, node& me, bool write) noexcept {
    if (m.q_tail.load(std::memory_order_relaxed) != nullptr) return false;  // a hint: the CAS decides
    enqueue_fields(m, me, write ? k_writer : k_reader);
    node* expected = nullptr;
    // [P-TBB QRW TA] release: my fields to the next arrival (Q3); acquire: pairs with the
    // last holder's release (R1, D3)
    if (!m.q_tail.compare_exchange_strong(expected, &me, std::memory_order_acq_rel, std::memory_order_relaxed)) {
      me.my_mutex = nullptr;
      return false;
    }
    return true;
  }

  // [P-TBB QRW R1] a writer leaves: it is the head and everyone behind it waits.
  static void release_writer(mutex& m, node& me) noexcept {
    node* succ = as_node(me.my_next.load(std::memory_order_acquire));  // pairs with Q4
    if (succ == nullptr) {
      node* expected = &me;
      // release: pairs with the next arrival's Q1 acquire (my critical section before its)
      if (m.q_tail.compare_exchange_strong(expected, nullptr, std::memory_order_release, std::memory_order_relaxed))
        return;
      succ = &wait_next(me);
    }
    succ->my_prev.store(0, std::memory_order_relaxed);  // published by the grant's release
    grant(*succ);
  }

  // [P-TBB QRW D1-D4] an active reader leaves from wherever it is in the queue.
  static void release_reader(mutex& m, node& me) noexcept {
    for (backoff b;; b.pause()) {
      lock(me);  // D1 my links are stable: neither neighbour can unlink without my lock
      node* const pred = as_node(me.my_prev.load(std::memory_order_relaxed));  // written under my lock only
      if (pred != nullptr && !try_lock(*pred)) {                               // D2 towards the head: only tried
        unlock(me);
        continue;
      }
      forkjoin::detail::perturb_point();
      node* succ = as_node(me.my_next.load(std::memory_order_acquire));  // D3 pairs with Q4
      if (succ == nullptr) {
        // pred becomes the tail if the CAS succeeds: its next must read null by then
        if (pred != nullptr) pred->my_next.store(0, std::memory_order_relaxed);  // under pred's lock
        node* expected = &me;
        // release: pairs with the next arrival's Q1 acquire: it links itself to pred after
        // the store above, and my critical section precedes a writer's
        if (m.q_tail.compare_exchange_strong(expected, pred, std::memory_order_release, std::memory_order_relaxed)) {
          if (pred != nullptr) unlock(*pred);
          unlock(me);
          return;
        }
        if (pred != nullptr) pred->my_next.store(as_word(&me), std::memory_order_relaxed);  // still my pred
        succ = &wait_next(me);
      }
      lock(*succ);  // D4 towards the tail: succ cannot unlink while I hold my lock
      succ->my_prev.store(as_word(pred), std::memory_order_relaxed);                       // under succ's lock
      if (pred != nullptr) pred->my_next.store(as_word(succ), std::memory_order_relaxed);  // under pred's lock
      // Made the head, a waiting writer or an upgrader takes the lock; a reader behind me
      // is active already or admitted through my grant (Q3, Q6).
      const state_t k = succ->my_state.load(std::memory_order_relaxed) & k_kind;  // k_upgrading: set under succ's lock
      const bool make_writer = pred == nullptr && (k == k_writer_waiting || k == k_upgrading);
      unlock(*succ);
      if (pred != nullptr) unlock(*pred);
      unlock(me);
      if (make_writer) grant(*succ);
      return;
    }
  }

  static void release(node& me) noexcept {
    mutex& m = *me.my_mutex;
    if (kind(me) == k_writer)
      release_writer(m, me);
    else
      release_reader(m, me);
    me.my_mutex = nullptr;
  }

  // [P-TBB QRW U1-U3]
  static bool upgrade(node& me) {
    if (kind(me) == k_writer) return true;
    mutex& m = *me.my_mutex;
    lock(me);  // U1 a departing neighbour reads my state and changes my prev only under it
    me.my_going.store(k_waiting, std::memory_order_relaxed);    // under my lock, before U1's release
    me.my_state.store(k_upgrading, std::memory_order_relaxed);  // no k_notify on an active reader
    node* expected = &me;
    // U1 claim the tail: release pairs with a later arrival's Q1 acquire, which then reads
    // k_upgrading (Q3) and waits; failure relaxed: U3 reads my next with acquire
    const bool claimed =
        m.q_tail.compare_exchange_strong(expected, &me, std::memory_order_release, std::memory_order_relaxed);
    if (claimed) {
      const bool head = me.my_prev.load(std::memory_order_relaxed) == 0;  // under my lock
      unlock(me);
      if (!head) wait_for_grant(me);  // U2 the departure that makes me the head grants me (D4)
      become_writer(me);
      return true;
    }
    // U3 someone queued behind me, perhaps admitted as a reader: leave and queue as a writer.
    // release: pairs with a later arrival's Q3 acquire load (admitted through me)
    const state_t old = me.my_state.exchange(k_reader, std::memory_order_acq_rel);
    unlock(me);
    if ((old & k_notify) != 0) grant(wait_next(me));  // a reader that saw k_upgrading
    release_reader(m, me);
    acquire(m, me, true);
    return false;
  }

  // [P-TBB QRW DG]
  static bool downgrade(node& me) noexcept {
    if (kind(me) == k_writer) become_reader(me);
    return true;
  }

  static bool is_writer(const node& me) noexcept { return kind(me) == k_writer; }

  static void construct(mutex& m) noexcept { m.q_tail.store(nullptr, std::memory_order_relaxed); }
};

void construct(d1::queuing_rw_mutex& m) { queuing_rw_mutex_impl::construct(m); }
void acquire(d1::queuing_rw_mutex& m, d1::queuing_rw_mutex::scoped_lock& s, bool write) {
  queuing_rw_mutex_impl::acquire(m, s, write);
}
bool try_acquire(d1::queuing_rw_mutex& m, d1::queuing_rw_mutex::scoped_lock& s, bool write) {
  return queuing_rw_mutex_impl::try_acquire(m, s, write);
}
void release(d1::queuing_rw_mutex::scoped_lock& s) { queuing_rw_mutex_impl::release(s); }
bool upgrade_to_writer(d1::queuing_rw_mutex::scoped_lock& s) { return queuing_rw_mutex_impl::upgrade(s); }
bool downgrade_to_reader(d1::queuing_rw_mutex::scoped_lock& s) { return queuing_rw_mutex_impl::downgrade(s); }
bool is_writer(const d1::queuing_rw_mutex::scoped_lock& s) { return queuing_rw_mutex_impl::is_writer(s); }

}  // namespace tbb::detail::r1
