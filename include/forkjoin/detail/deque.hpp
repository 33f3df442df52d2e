// deque.hpp: the per-worker Chase-Lev work-stealing deque, split into a private and a
// public part (after Lace's split deque) so that the owner's common path needs no fence.
// Owns the ring buffers and the split point; not the jobs (callers own those).
// Protocol and proof: forkjoin/DESIGN.md [P-DEQUE]; step names P1-P4, T1-T4, S1-S5, the
// split steps X1-X2 and Share are cited at the lines that carry them.
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/config.hpp"

namespace forkjoin::detail {

// Deque elements are one machine word that fits a lock-free atomic ([P-DEQUE E6]: no volatile).
template <class T>
concept deque_element = std::is_trivially_copyable_v<T> && std::atomic<T>::is_always_lock_free;

enum class steal_result { success, empty, lost_race };

template <deque_element T>
struct steal_outcome {
  steal_result result;
  T value;
  std::uint32_t tag = 0;  // the isolation tag the owner pushed it with ([P-ISO Tag])
};

// What the owner does to an element as it leaves the private part, published or popped
// ([P-DEQUE Share]): shared(x) is the value thieves and pops get. A Share whose k_rewrites
// is true may change values (join pushes its frame in a private form that only the owner
// understands); plain elements stay as they are.
struct plain_slots {
  static constexpr bool k_rewrites = false;
  template <class T>
  static T shared(T x) noexcept {
    return x;
  }
};

template <deque_element T, class Share = plain_slots>
class chase_lev_deque {
 public:
  explicit chase_lev_deque(std::int64_t initial_capacity = 256) {
    std::int64_t cap = 2;
    while (cap < initial_capacity) cap *= 2;
    retired_.reserve(64);  // 64 doublings outgrow the address space: push_back never reallocates.
    ring* r = new ring(cap);
    slots_ = r->slots;
    tags_ = r->tags.get();
    mask_ = r->mask;
    next_ = slots_;
    limit_ = slots_ + cap;
    ring_.store(r, std::memory_order_relaxed);
  }
  chase_lev_deque(const chase_lev_deque&) = delete;
  chase_lev_deque& operator=(const chase_lev_deque&) = delete;
  ~chase_lev_deque() {
    delete ring_.load(std::memory_order_relaxed);
    for (ring* r : retired_) delete r;
  }

  // Owner thread only. Appends x to the private part: invisible to thieves until publish().
  // Allocates a bigger ring when full; on bad_alloc the deque is unchanged. The common
  // path touches only the owner's line.
  void push_private(T x) {
    if (next_ >= limit_) [[unlikely]]
      make_room();  // also [P-ISO Tag]'s store, published with the slot by P3/P4
    // Read again after make_room rather than kept across its call: no value of the caller's
    // has to live in a callee-saved register for the slow path's sake.
    std::atomic<T>* const p = next_;
    p->store(x, std::memory_order_relaxed);  // [P-DEQUE P2]
    next_ = p + 1;
  }

  // Owner thread only. push_private's common case, for a caller with a slow path of its
  // own: push_fast pushes x and returns the slot it wrote, when can_push_fast() said that
  // no make_room is needed.
  bool can_push_fast() const noexcept { return next_ < limit_; }
  std::atomic<T>* push_fast(T x) noexcept {
    std::atomic<T>* const p = next_;
    p->store(x, std::memory_order_relaxed);  // [P-DEQUE P2]
    next_ = p + 1;
    return p;
  }
  // Owner thread only. The slot of the newest element (after a push: the one it wrote).
  std::atomic<T>* newest_slot() const noexcept { return next_ - 1; }

  // Owner thread only. Takes back x if it is the newest element, pushed in its private
  // form (Share::private_form(x)) into slot p and never shared since: then no thief can
  // have seen it, and taking it back costs two loads that only feed a branch and one store
  // of p [P-DEQUE Reclaim]. False otherwise (x was published or popped, or elements pushed
  // after it are still here): use pop(). p is the caller's, kept from its push, so that
  // the owner's end is not a chain of loads and stores through next_ (each take-back
  // waiting for the store before it).
  bool take_back_unshared(std::atomic<T>* p, T x) noexcept {
    static_assert(Share::k_rewrites, "take_back_unshared: only a Share with a private form tells it apart");
    if (next_ != p + 1 || !Share::is_private_form_of(p->load(std::memory_order_relaxed), x)) [[unlikely]]
      return false;
    next_ = p;
    return true;
  }

  // Owner thread only. Makes every private element stealable; false, and nothing done, when
  // there is none: X2 clears the request only by publishing a job, or a public part left
  // empty would have no reason to publish pending ([P-DEQUE X2]).
  // `keep`: request bits to leave set (the caller keeps *asked* while workers are idle).
  // `plain_newest`: how many of the newest elements the caller pushed as themselves (0 or
  // 1), which [P-DEQUE Share] then need not look at: a task_group child's publication
  // scans nothing when the rest of the deque is public already.
  bool publish(std::uint8_t keep = 0, std::int64_t plain_newest = 0) noexcept {
    const std::int64_t h = head();
    if (h <= bottom_.load(std::memory_order_relaxed)) return false;  // the owner's own word: exact
    // [P-DEQUE X2] request served, before P3: a thief that sees the new bottom (S3) sees this
    // store too, so the X3 of one who takes the last of these jobs is not erased by it.
    if (publish_request_.load(std::memory_order_relaxed) != keep)
      publish_request_.store(keep, std::memory_order_relaxed);
    if constexpr (Share::k_rewrites) share_private(h - plain_newest);  // [P-DEQUE Share] before P3 publishes the slots
    release_fence();                   // [P-DEQUE P3] publishes slots, ring and X2; pairs with S3
    bottom_.store(h, k_fenced_store);  // [P-DEQUE P4] release under TSan; pairs with S3
    return true;
  }

  // Owner thread only. The classic Chase-Lev push: push_private then publish.
  void push(T x) {
    push_private(x);
    static_cast<void>(publish());
  }

  // Owner thread only. Takes the newest element, or returns T{} when there is none.
  T pop() noexcept {
    const std::int64_t h = head();
    if (h > bottom_.load(std::memory_order_relaxed)) {  // private part non-empty: no thief can see it
      // The new end is the popped slot, in next_'s lap; at a lap's first two slots set_head
      // names the end as it does everywhere (a lap's start from the lap before, for
      // Reclaim, and then the end is not the popped slot).
      if (next_ > slots_ + 1) [[likely]] {
        --next_;
        return Share::shared(next_->load(std::memory_order_relaxed));  // [P-DEQUE Share]
      }
      set_head(h - 1);
      return Share::shared(slots_[(h - 1) & mask_].load(std::memory_order_relaxed));  // [P-DEQUE Share]
    }
    return pop_public();
  }

  // Any thread. Takes the oldest public element. `empty` and `lost_race` differ: after a
  // lost race the deque may still hold work and the caller must not conclude it is idle.
  steal_outcome<T> steal() noexcept { return steal_impl<false>(0); }
  // Any thread. As steal(), but takes the oldest public element only if its owner pushed it
  // with isolation tag `tag`; otherwise leaves it and reports `empty` ([P-ISO Steal]).
  steal_outcome<T> steal_tagged(std::uint32_t tag) noexcept { return steal_impl<true>(tag); }

  // Owner thread only. The isolation tag that push_private records with each element
  // ([P-ISO Tag]); 0 outside every isolated region. Back at 0, the slots that tags made
  // dirty are settled ([P-ISO Settle]).
  std::uint32_t tag() const noexcept { return static_cast<std::uint32_t>(tag_state_); }
  void set_tag(std::uint32_t t) noexcept {
    tag_state_ = (tag_state_ & k_dirty) | t;
    if (t != 0) limit_ = slots_;  // every push now takes make_room, which stores its tag
    if (tag_state_ == k_dirty) settle_tags();
  }
  // Owner thread only: some slot may hold a nonzero tag, so pushes still store theirs.
  bool tags_dirty() const noexcept { return (tag_state_ & k_dirty) != 0; }
  // Owner thread only, tag 0. [P-ISO Settle] zeroes the tags of the slots no live element
  // occupies; the deque stays dirty only while a live element carries a nonzero tag.
  FORKJOIN_NOINLINE void settle_tags() noexcept {
    const std::int64_t t = top_.load(std::memory_order_relaxed);  // a past top: elements below it are gone
    const std::int64_t h = head(), cap = mask_ + 1;
    std::int64_t lo = dirty_lo_, hi = dirty_hi_;
    if (hi - lo > cap) {  // the range wraps the ring: settle every slot
      lo = h - cap;
      hi = h;
    }
    std::int64_t live_lo = hi, live_hi = lo;
    for (std::int64_t i = lo; i < hi; ++i) {
      std::atomic<std::uint32_t>& tag = tags_[i & mask_];
      if (i >= t && i < h) {  // maybe live: keep its tag
        if (tag.load(std::memory_order_relaxed) != 0) {
          live_lo = std::min(live_lo, i);
          live_hi = std::max(live_hi, i + 1);
        }
      } else {
        // Not live. An index sharing its slot that is live (i + cap) was pushed while the
        // deque was dirty: with tag 0 (stored, so zeroing changes nothing) or with a tag,
        // and then it is in the range too, which is narrower than the ring here.
        tag.store(0, std::memory_order_relaxed);
      }
    }
    if (live_lo < live_hi) {
      dirty_lo_ = live_lo;
      dirty_hi_ = live_hi;
    } else {
      tag_state_ &= ~k_dirty;
      dirty_lo_ = dirty_hi_ = 0;
    }
  }
  // Owner thread only. The index one past the newest element: elements pushed from now on
  // get indices at or above it (an isolated region's mark, [P-ISO Mark]).
  std::int64_t end_index() const noexcept { return head(); }

  // Why the owner should publish at its next push [P-POST Publish]: an idle worker found the
  // public part empty and asked (X1, X5), or the public part became empty (X3, X4, or the
  // deque is new). Bits, so that the loop engine can split on demand only when asked.
  // k_traced: set for good on a traced worker's deque, so that every push takes the slow
  // path that records its spawn ([P-TRACE Join]).
  static constexpr std::uint8_t k_asked = 1, k_emptied = 2, k_traced = 4;
  // Owner thread only; a hint (relaxed). Any reason to publish: one load on push's path.
  bool publish_requested() const noexcept { return publish_request_.load(std::memory_order_relaxed) != 0; }
  // Owner thread only; a hint (relaxed). An idle worker asked for work from this deque.
  bool split_requested() const noexcept { return (publish_request_.load(std::memory_order_relaxed) & k_asked) != 0; }
  // Any thread. Records a reason to publish; writes only when the bit is missing, so that
  // idle workers do not bounce the owner's cache line. Relaxed: a hint, re-raised by every
  // sweep of an idle worker.
  void request_publication(std::uint8_t why) const noexcept {
    if ((publish_request_.load(std::memory_order_relaxed) & why) != why)
      publish_request_.fetch_or(why, std::memory_order_relaxed);
  }

  // Any thread; a hint (relaxed). True when thieves could find something right now.
  bool has_public_work() const noexcept {
    return top_.load(std::memory_order_relaxed) < bottom_.load(std::memory_order_relaxed);
  }
  // Any thread; a hint (relaxed). Public elements, 0 when none.
  std::int64_t public_size() const noexcept {
    const std::int64_t n = bottom_.load(std::memory_order_relaxed) - top_.load(std::memory_order_relaxed);
    return n > 0 ? n : 0;
  }
  // Owner thread only: elements held, private and public.
  std::int64_t size() const noexcept { return head() - top_.load(std::memory_order_relaxed); }
  std::int64_t capacity() const noexcept { return ring_.load(std::memory_order_relaxed)->mask + 1; }

 private:
  struct ring {
    explicit ring(std::int64_t cap)
        : mask(cap - 1),
          storage(new std::atomic<T>[static_cast<std::size_t>(cap)]),
          slots(storage.get()),
          tags(new std::atomic<std::uint32_t>[static_cast<std::size_t>(cap)]) {}
    std::int64_t mask;
    std::unique_ptr<std::atomic<T>[]> storage;
    std::atomic<T>* slots;
    std::unique_ptr<std::atomic<std::uint32_t>[]> tags;  // [P-ISO Tag] one per slot, written with it
    void put(std::int64_t i, T x, std::uint32_t tag) noexcept {
      tags[static_cast<std::size_t>(i & mask)].store(tag, std::memory_order_relaxed);
      slots[static_cast<std::size_t>(i & mask)].store(x, std::memory_order_relaxed);
    }
    std::uint32_t get_tag(std::int64_t i) const noexcept {
      return tags[static_cast<std::size_t>(i & mask)].load(std::memory_order_relaxed);
    }
    T get(std::int64_t i) const noexcept {
      return slots[static_cast<std::size_t>(i & mask)].load(std::memory_order_relaxed);
    }
  };

  template <bool k_filter>
  steal_outcome<T> steal_impl(std::uint32_t want) noexcept {
    std::int64_t t = top_.load(std::memory_order_acquire);     // [P-DEQUE S1]
    seq_cst_fence();                                           // [P-DEQUE S2] pairs with T2 in pop_public
    std::int64_t b = bottom_.load(std::memory_order_acquire);  // [P-DEQUE S3] pairs with P3/P4
    if (t >= b) {
      request_publication(k_asked);  // [P-DEQUE X1] found nothing public: ask the owner to publish
      return {steal_result::empty, T{}};
    }
    ring* r = ring_.load(std::memory_order_acquire);  // [P-DEQUE S4] pairs with the release store in grow()
    T x = r->get(t);                                  // [P-DEQUE E3] read the slot before the CAS
    const std::uint32_t tag = r->get_tag(t);          // [P-ISO Steal] and its tag, from the same ring
    if constexpr (k_filter) {
      if (tag != want) return {steal_result::empty, T{}};  // [P-ISO Steal] a foreign job: leave it
    }
    perturb_point();
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                      std::memory_order_relaxed))  // [P-DEQUE S5] pairs with T4 and other thieves' S5
      return {steal_result::lost_race, T{}};
    if (t + 1 >= b) request_publication(k_emptied);  // [P-DEQUE X3] took the last public element
    return {steal_result::success, x, tag};
  }

  // [P-DEQUE Share] the private part [bottom, end) is about to be published: each element
  // leaves it in its shared form, written back to its slot (relaxed: P3's fence publishes
  // it). Inline and without a call: a call here would cost publish's callers saved
  // registers on every publication.
  void share_private(std::int64_t end) noexcept {
    for (std::int64_t i = bottom_.load(std::memory_order_relaxed); i < end; ++i) {
      std::atomic<T>& slot = slots_[i & mask_];
      const T x = slot.load(std::memory_order_relaxed);
      const T y = Share::shared(x);
      if (y != x) slot.store(y, std::memory_order_relaxed);
    }
  }

  // [P-ISO Tag] in a region, or while a slot may keep an old nonzero tag.
  void store_tag(std::int64_t h) noexcept {
    const auto t = static_cast<std::uint32_t>(tag_state_);
    tags_[h & mask_].store(t, std::memory_order_relaxed);
    if (t == 0) return;
    if ((tag_state_ & k_dirty) == 0) {
      tag_state_ |= k_dirty;
      dirty_lo_ = h;
      dirty_hi_ = h + 1;
    } else {
      dirty_lo_ = std::min(dirty_lo_, h);
      dirty_hi_ = std::max(dirty_hi_, h + 1);
    }
  }

  // The owner's end of the deque as an index ([P-DEQUE E2]): next_ is its slot.
  std::int64_t head() const noexcept { return lap_ + (next_ - slots_); }
  // Moves the end to index h. An index at a lap's start is named from the lap before (its
  // end): then a push that wrote the slot below and a take-back of it see the same next_.
  // Only index 0 is named from its own lap.
  void set_head(std::int64_t h) noexcept {
    std::int64_t offset = h & mask_;
    if (offset == 0 && h != 0) offset = mask_ + 1;
    next_ = slots_ + offset;
    if (h - offset != lap_) {  // the limit depends on the lap only
      lap_ = h - offset;
      set_limit();
    }
  }
  // Push's fast path writes below limit_: the ring's end, and the room [P-DEQUE P1] left
  // below top_seen_ + capacity; the ring's first slot (every push slow) while tags are in
  // use ([P-ISO Tag]).
  void set_limit() noexcept {
    const std::int64_t cap = mask_ + 1;
    if (tag_state_ != 0) {
      limit_ = slots_;
      return;
    }
    limit_ = slots_ + std::clamp<std::int64_t>(top_seen_ + cap - lap_, 0, cap);
  }

  // Push's slow path: next_ reached limit_ (the ring looks full, the lap ends, or tags are
  // in use). Reads top again [P-DEQUE P1] and grows only if thieves have not freed a slot
  // since; moves to the next lap at the ring's end; then stores the tag of the new slot
  // while the tag or the dirty bit is set ([P-ISO Tag]).
  FORKJOIN_NOINLINE void make_room() {
    const std::int64_t h = head();
    if (h - top_seen_ > mask_) {
      const std::int64_t t = top_.load(std::memory_order_acquire);  // [P-DEQUE P1] pairs with S5's CAS: a slot is
                                                                    // reused only after its thief read it
      if (h - t > mask_) grow(h, t);
      top_seen_ = t;
    }
    lap_ = h - (h & mask_);  // name slot h from its own lap: the push writes it now
    next_ = slots_ + (h & mask_);
    set_limit();
    if (tag_state_ != 0) store_tag(h);
  }
  void grow(std::int64_t h, std::int64_t t) {
    ring* old = ring_.load(std::memory_order_relaxed);
    auto fresh = std::make_unique<ring>(2 * (old->mask + 1));  // may throw: nothing changed yet
    for (std::int64_t i = t; i < h; ++i) fresh->put(i, old->get(i), old->get_tag(i));
    perturb_point();
    retired_.push_back(old);  // cannot throw: capacity reserved in the constructor
    slots_ = fresh->slots;
    tags_ = fresh->tags.get();
    mask_ = fresh->mask;
    ring_.store(fresh.release(),
                std::memory_order_release);  // [P-DEQUE grow] pairs with S4; [P-DEQUE E1] callers use the new ring
  }

  // Called with head = bottom (pop found no private element). The two failing cases and
  // the last-element race leave head where it was; only taking b moves it down by one.
  FORKJOIN_NOINLINE T pop_public() noexcept {
    std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    bottom_.store(b, std::memory_order_relaxed);            // [P-DEQUE T1] reserve slot b
    seq_cst_fence();                                        // [P-DEQUE T2] StoreLoad; pairs with S2 in steal
    std::int64_t t = top_.load(std::memory_order_relaxed);  // [P-DEQUE T3]
    if (t > b) {
      bottom_.store(b + 1, std::memory_order_relaxed);
      request_publication(k_emptied);  // [P-DEQUE X4] the public part is empty
      return T{};
    }
    T x = slots_[b & mask_].load(std::memory_order_relaxed);
    if (t == b) {
      bool won = top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                              std::memory_order_relaxed);  // [P-DEQUE T4] pairs with S5
      bottom_.store(b + 1, std::memory_order_relaxed);                     // canonical empty state
      return won ? x : T{};
    }
    if (next_ != slots_)  // head - 1 = b, as at the end of a lap
      --next_;
    else
      set_head(b);
    return x;
  }

  // Thief-written line: top and the split request.
  alignas(k_cache_line) std::atomic<std::int64_t> top_{0};
  // Publication request bits: set by idle workers and by whoever empties the public part,
  // cleared by publish (X2). Start "emptied": the first push of a new deque publishes.
  // Mutable: a hint that const observers (ReadJob) may raise.
  mutable std::atomic<std::uint8_t> publish_request_{k_emptied};
  // Owner-written, thief-read line: the split point (end of the public part) and the ring.
  alignas(k_cache_line) std::atomic<std::int64_t> bottom_{0};
  std::atomic<ring*> ring_{nullptr};
  // Owner-only line. The end of the private part (head, >= bottom_) is kept as its slot,
  // so that join's push and take-back touch no index: next_ is the slot of index head(),
  // slots_[0] the slot of index lap_.
  alignas(k_cache_line) std::atomic<T>* next_ = nullptr;
  std::atomic<T>* limit_ = nullptr;  // push's fast path writes only below it (set_limit)
  std::int64_t lap_ = 0;
  std::int64_t top_seen_ = 0;                   // a past value of top_ (<= top_): the owner's room check
  std::atomic<T>* slots_ = nullptr;             // the current ring's slots and mask, for the owner
  std::atomic<std::uint32_t>* tags_ = nullptr;  // and its tags
  std::int64_t mask_ = 0;
  // The owner's current isolation tag [P-ISO Tag] in the low half, k_dirty above it: one
  // test on push's path covers both.
  static constexpr std::uint64_t k_dirty = std::uint64_t{1} << 32;
  std::uint64_t tag_state_ = 0;
  std::int64_t dirty_lo_ = 0, dirty_hi_ = 0;  // indices written with a nonzero tag since the last settle
  std::vector<ring*> retired_;                // old rings live until the deque dies [P-DEQUE E5]
};

}  // namespace forkjoin::detail
