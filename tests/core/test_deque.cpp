// Chase-Lev deque: order, growth, private/public split, exactly-once delivery under
// contention, and the last-element race.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "forkjoin/detail/deque.hpp"
#include "support.hpp"

using forkjoin::detail::chase_lev_deque;
using forkjoin::detail::steal_result;

namespace {
// Items are pointers into this array; the value tells which item was delivered.
std::vector<std::int64_t> make_items(std::size_t n) {
  std::vector<std::int64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int64_t>(i);
  return v;
}
void spin_for(std::chrono::nanoseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}
}  // namespace

TEST(ChaseLevDeque, OwnerPopIsLifoAndStealIsFifo) {
  for (std::size_t n = 1; n <= 265720; n = 3 * n + 1) {
    chase_lev_deque<std::int64_t*> d(2);
    auto items = make_items(n);
    for (auto& x : items) d.push(&x);
    for (std::size_t i = n; i-- > 0;) ASSERT_EQ(d.pop(), &items[i]);
    EXPECT_EQ(d.pop(), nullptr);
    for (auto& x : items) d.push(&x);
    for (std::size_t i = 0; i < n; ++i) {
      auto r = d.steal();
      ASSERT_EQ(r.result, steal_result::success);
      ASSERT_EQ(r.value, &items[i]);
    }
    EXPECT_EQ(d.steal().result, steal_result::empty);
    EXPECT_EQ(d.pop(), nullptr);
  }
}

TEST(ChaseLevDeque, GrowsFromCapacityTwo) {
  chase_lev_deque<std::int64_t*> d(2);
  EXPECT_EQ(d.capacity(), 2);
  auto items = make_items(17);
  for (auto& x : items) d.push(&x);
  EXPECT_GE(d.capacity(), 17);
  EXPECT_EQ(d.size(), 17);
  // Wrap-around after growth: steal some, push more, everything comes back once.
  for (int i = 0; i < 5; ++i) ASSERT_EQ(d.steal().value, &items[static_cast<std::size_t>(i)]);
  auto more = make_items(40);
  for (auto& x : more) d.push(&x);
  // Popping returns the newest first: the 40 new items in reverse, then items 16..5.
  std::vector<std::int64_t*> got, expect;
  while (auto* p = d.pop()) got.push_back(p);
  for (std::size_t i = more.size(); i-- > 0;) expect.push_back(&more[i]);
  for (std::size_t i = items.size(); i-- > 5;) expect.push_back(&items[i]);
  EXPECT_EQ(got, expect);
  EXPECT_EQ(d.steal().result, steal_result::empty);
}

TEST(ChaseLevDeque, PrivatePartIsInvisibleUntilPublished) {
  chase_lev_deque<std::int64_t*> d(2);
  auto items = make_items(8);
  for (auto& x : items) d.push_private(&x);
  EXPECT_FALSE(d.has_public_work());
  EXPECT_EQ(d.steal().result, steal_result::empty);
  EXPECT_TRUE(d.split_requested());  // the failed thief asked for a split
  d.publish();
  EXPECT_FALSE(d.split_requested());
  EXPECT_TRUE(d.has_public_work());
  EXPECT_EQ(d.steal().value, &items[0]);
  // Owner pops private and public elements alike, newest first.
  d.push_private(&items[0]);
  EXPECT_EQ(d.pop(), &items[0]);
  for (std::size_t i = 8; i-- > 1;) ASSERT_EQ(d.pop(), &items[i]);
  EXPECT_EQ(d.pop(), nullptr);
}

// [P-DEQUE X2] a publication that publishes nothing leaves the request pending: the public
// part is empty only while a reason to publish is pending, so the next push publishes.
TEST(ChaseLevDeque, PublishingNothingKeepsTheRequest) {
  chase_lev_deque<std::int64_t*> d(2);
  auto items = make_items(2);
  ASSERT_TRUE(d.publish_requested());  // a new deque starts with *emptied*
  EXPECT_FALSE(d.publish());           // nothing private (entering an isolated region)
  EXPECT_TRUE(d.publish_requested());
  d.push_private(&items[0]);
  EXPECT_TRUE(d.publish());
  EXPECT_FALSE(d.publish_requested());  // served by publishing items[0]
  EXPECT_EQ(d.steal().value, &items[0]);
  ASSERT_TRUE(d.publish_requested());  // [P-DEQUE X3] the thief took the last public element
  EXPECT_FALSE(d.publish());
  EXPECT_TRUE(d.publish_requested());
  d.push_private(&items[1]);
  EXPECT_TRUE(d.publish());
  EXPECT_TRUE(d.has_public_work());
  EXPECT_EQ(d.pop(), &items[1]);
  EXPECT_EQ(d.pop(), nullptr);
}

// [P-DEQUE Share] and [P-DEQUE Reclaim] with a Share like join's: the private form of x is
// its address plus one.
struct odd_slots {
  static constexpr bool k_rewrites = true;
  static std::int64_t* shared(std::int64_t* v) noexcept {
    const auto bits = reinterpret_cast<std::uintptr_t>(v);
    return (bits & 1) != 0 ? reinterpret_cast<std::int64_t*>(bits - 1) : v;
  }
  static bool is_private_form_of(std::int64_t* v, std::int64_t* x) noexcept {
    return reinterpret_cast<std::uintptr_t>(v) - reinterpret_cast<std::uintptr_t>(x) == 1;
  }
};
using odd_deque = chase_lev_deque<std::int64_t*, odd_slots>;
std::int64_t* private_form(std::int64_t* x) {
  return reinterpret_cast<std::int64_t*>(reinterpret_cast<std::uintptr_t>(x) + 1);
}
// join's push: the private form, and the slot it went to.
std::atomic<std::int64_t*>* push_join(odd_deque& d, std::int64_t* x) {
  d.push_private(private_form(x));
  return d.newest_slot();
}

// Nested joins at every position of three laps of a small ring: the take-backs, newest
// first, each find their element; a nest that spans a lap's start may send the outer ones
// to the slow path (pop), never a take-back of the wrong element.
TEST(ChaseLevDeque, TakeBackFindsEachUnsharedElementAtEveryPosition) {
  auto items = make_items(6);
  std::int64_t filler = 99;
  for (int depth = 1; depth <= 4; ++depth) {
    for (int start = 0; start < 12; ++start) {
      odd_deque d(4);
      for (int i = 0; i < start; ++i) {  // move top and head to index `start`
        d.push(&filler);
        ASSERT_EQ(d.steal().value, &filler);
      }
      std::vector<std::atomic<std::int64_t*>*> slots;
      for (int i = 0; i < depth; ++i) slots.push_back(push_join(d, &items[static_cast<std::size_t>(i)]));
      const bool one_lap = start / 4 == (start + depth - 1) / 4;
      for (int i = depth; i-- > 0;) {
        std::int64_t* const x = &items[static_cast<std::size_t>(i)];
        const bool back = d.take_back_unshared(slots[static_cast<std::size_t>(i)], x);
        if (one_lap || i == depth - 1) {
          ASSERT_TRUE(back) << "depth " << depth << " start " << start << " i " << i;
        }
        if (!back) {
          ASSERT_EQ(d.pop(), x) << "depth " << depth << " start " << start << " i " << i;
        }
        ASSERT_EQ(d.size(), i);
      }
      EXPECT_EQ(d.pop(), nullptr);
      EXPECT_EQ(d.steal().result, steal_result::empty);
    }
  }
}

// The take-back refuses every element that is not the newest unshared one: published (and
// stolen or not), popped (its slot since reused), below a newer element, or moved by grow.
// Thieves and pops get the shared form only.
TEST(ChaseLevDeque, TakeBackRefusesSharedOrBuriedElements) {
  auto items = make_items(8);
  std::int64_t* const a = &items[0];
  std::int64_t* const b = &items[1];
  {  // published, then popped back through the public pop
    odd_deque d(4);
    auto* slot = push_join(d, a);
    d.publish();
    EXPECT_FALSE(d.take_back_unshared(slot, a));
    EXPECT_EQ(d.pop(), a);
  }
  {  // published and stolen
    odd_deque d(4);
    auto* slot = push_join(d, a);
    d.publish();
    EXPECT_EQ(d.steal().value, a);
    EXPECT_FALSE(d.take_back_unshared(slot, a));
    EXPECT_EQ(d.pop(), nullptr);
  }
  {  // popped privately (a wait inside f), then its slot reused by another element
    odd_deque d(4);
    auto* slot = push_join(d, a);
    EXPECT_EQ(d.pop(), a);
    auto* slot_b = push_join(d, b);
    EXPECT_EQ(slot_b, slot);
    EXPECT_FALSE(d.take_back_unshared(slot, a));
    EXPECT_TRUE(d.take_back_unshared(slot_b, b));
    EXPECT_EQ(d.pop(), nullptr);
  }
  {  // a newer element above it: it is not the newest
    odd_deque d(4);
    auto* slot = push_join(d, a);
    d.push_private(b);
    EXPECT_FALSE(d.take_back_unshared(slot, a));
    EXPECT_EQ(d.pop(), b);
    EXPECT_TRUE(d.take_back_unshared(slot, a));
  }
  {  // the ring grew after the push: the element moved to the new ring, still private
    odd_deque d(2);
    auto* slot = push_join(d, a);
    for (std::size_t i = 2; i < 8; ++i) d.push_private(&items[i]);
    EXPECT_GE(d.capacity(), 8);
    for (std::size_t i = 8; i-- > 2;) ASSERT_EQ(d.pop(), &items[i]);
    EXPECT_FALSE(d.take_back_unshared(slot, a));
    EXPECT_EQ(d.pop(), a);
  }
}

TEST(ChaseLevDeque, EmptyDequeNeverReturnsGarbage) {
  chase_lev_deque<std::int64_t*> d(2);
  for (int i = 0; i < 1000; ++i) {  // [P-DEQUE E2] pop on empty at index 0 must stay empty
    ASSERT_EQ(d.pop(), nullptr);
    ASSERT_EQ(d.steal().result, steal_result::empty);
  }
}

// [P-ISO Tag]/[P-ISO Settle] outside regions push stores no tag, so a slot written in a
// region must be zeroed before a tag-0 element reuses it: every element stolen after the
// region's jobs are gone carries tag 0, across ring wrap-around and growth, while a live
// element pushed under a tag keeps it.
TEST(ChaseLevDeque, TagsOfFinishedRegionsNeverLeakIntoLaterElements) {
  chase_lev_deque<std::int64_t*> d(4);
  auto items = make_items(64);
  // A region's jobs all popped back, then the region ends.
  d.set_tag(7);
  for (int i = 0; i < 3; ++i) d.push_private(&items[static_cast<std::size_t>(i)]);
  EXPECT_TRUE(d.tags_dirty());
  for (int i = 0; i < 3; ++i) ASSERT_NE(d.pop(), nullptr);
  d.set_tag(0);
  EXPECT_FALSE(d.tags_dirty());
  // Every later element, wrapping the 4-slot ring many times, is stolen with tag 0.
  for (std::size_t round = 0; round < 16; ++round) {
    for (std::size_t i = 0; i < 3; ++i) d.push(&items[i]);
    for (std::size_t i = 0; i < 3; ++i) {
      auto r = d.steal();
      ASSERT_EQ(r.result, steal_result::success);
      ASSERT_EQ(r.tag, 0u) << "round " << round << " element " << i;
    }
  }
  // A live element pushed under a tag keeps it after the tag returns to 0; the deque stays
  // dirty until it is gone, and the elements pushed meanwhile carry 0.
  d.set_tag(9);
  d.push(&items[10]);
  d.set_tag(0);
  EXPECT_TRUE(d.tags_dirty());
  for (std::size_t i = 11; i < 20; ++i) d.push(&items[i]);  // grows past 4 slots
  auto first = d.steal();
  ASSERT_EQ(first.value, &items[10]);
  EXPECT_EQ(first.tag, 9u);
  for (std::size_t i = 11; i < 20; ++i) {
    auto r = d.steal();
    ASSERT_EQ(r.value, &items[i]);
    EXPECT_EQ(r.tag, 0u);
  }
  d.set_tag(0);  // settles: nothing live is tagged
  EXPECT_FALSE(d.tags_dirty());
  for (std::size_t i = 0; i < 40; ++i) d.push(&items[i]);
  for (std::size_t i = 0; i < 40; ++i) {
    auto r = d.steal();
    ASSERT_EQ(r.value, &items[i]);
    EXPECT_EQ(r.tag, 0u);
  }
}

// One owner pushes (2/3) and pops (1/3), publishing as it goes, M thieves steal; every item
// is delivered exactly once (sorted against the input).
class DequeExactlyOnce : public ::testing::TestWithParam<int> {};

TEST_P(DequeExactlyOnce, EveryItemDeliveredOnce) {
  const int thieves = GetParam();
  const auto n = static_cast<std::size_t>(forkjoin::test::scaled(200000, 100000));
  auto items = make_items(n);
  chase_lev_deque<std::int64_t*> d(2);
  std::atomic<bool> done{false};
  std::vector<std::vector<std::int64_t>> stolen(static_cast<std::size_t>(thieves));
  std::vector<std::thread> threads;
  for (int t = 0; t < thieves; ++t)
    threads.emplace_back([&, t] {
      auto& out = stolen[static_cast<std::size_t>(t)];
      while (true) {
        auto r = d.steal();
        if (r.result == steal_result::success)
          out.push_back(*r.value);
        else if (r.result == steal_result::empty && done.load(std::memory_order_acquire))
          break;
      }
    });
  std::vector<std::int64_t> popped;
  std::mt19937 rng(42);
  std::size_t next = 0;
  while (next < n) {
    if (rng() % 3 != 0) {
      // Alternate between the classic push and private pushes published in bursts.
      if (rng() % 2 == 0)
        d.push(&items[next++]);
      else {
        d.push_private(&items[next++]);
        if (rng() % 4 == 0) d.publish();
      }
    } else if (auto* p = d.pop()) {
      popped.push_back(*p);
    }
  }
  d.publish();
  while (auto* p = d.pop()) popped.push_back(*p);
  done.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  std::vector<std::int64_t> all = popped;
  for (auto& s : stolen) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(all[i], static_cast<std::int64_t>(i));
  // Thieves take the oldest first: each thief's sequence increases.
  for (auto& s : stolen) EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
}

INSTANTIATE_TEST_SUITE_P(Thieves, DequeExactlyOnce, ::testing::Values(1, 2, 4, 8));

// The last-element race: one item, owner pop against K thieves, exactly one winner. The
// thieves are already spinning on steal() when the owner pushes, so they really race the
// owner's pop; both sides must win some rounds, or the race went unexercised.
TEST(ChaseLevDeque, LastElementRaceHasExactlyOneWinner) {
  // At most this many rounds and about 5 s: each round is a rendezvous of 4 threads, slow
  // when other processes load the machine.
  const int rounds = static_cast<int>(forkjoin::test::scaled(20000, 5000));
  const auto time_budget = std::chrono::seconds(5);
  constexpr int k_thieves = 3;
  chase_lev_deque<std::int64_t*> d(2);
  std::int64_t item = 7;
  std::atomic<int> open{0};      // round r is open once open >= r
  std::atomic<int> closed{0};    // round r's item is gone once closed >= r
  std::atomic<int> ready{0};     // thieves spinning on steal(), over all rounds
  std::atomic<int> finished{0};  // thieves done with their round, over all rounds
  std::atomic<int> wins{0};
  std::atomic<int> thief_wins{0};
  std::atomic<bool> failed{false}, quit{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < k_thieves; ++t)
    threads.emplace_back([&] {
      for (int r = 1; r <= rounds; ++r) {
        while (open.load(std::memory_order_acquire) < r) {
          if (quit.load()) return;
          std::this_thread::yield();
        }
        ready.fetch_add(1);
        for (int attempt = 0;; ++attempt) {
          auto s = d.steal();
          if (s.result == steal_result::success) {
            if (s.value != &item) failed = true;
            wins.fetch_add(1);
            thief_wins.fetch_add(1);
            break;
          }
          if (closed.load(std::memory_order_acquire) >= r || quit.load()) break;
          if (attempt > 2000) std::this_thread::yield();  // stay hot at first, then let the owner run
        }
        finished.fetch_add(1, std::memory_order_acq_rel);
      }
    });
  forkjoin::test::scope_exit join_thieves([&] {
    quit.store(true);
    for (auto& t : threads) t.join();
  });
  std::mt19937 rng(7);
  int owner_wins = 0;
  int r = 1;
  // Past the round and time budgets, go on (up to hard_limit) until both sides have won once:
  // on a loaded machine the thieves may be descheduled through every early round.
  const auto hard_limit = std::chrono::seconds(30);
  const auto start = std::chrono::steady_clock::now();
  const auto keep_going = [&] {
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed >= hard_limit) return false;
    if (r <= rounds && elapsed < time_budget) return true;
    return owner_wins == 0 || thief_wins.load() == 0;
  };
  for (; keep_going(); ++r) {
    wins.store(0);
    open.store(r, std::memory_order_release);
    while (ready.load() < r * k_thieves) std::this_thread::yield();
    d.push(&item);
    if (r % 2 == 0) spin_for(std::chrono::nanoseconds(rng() % 3000));  // give the thieves a chance, at random
    if (d.pop() == &item) ++owner_wins, wins.fetch_add(1);
    // Wait for the item to be taken (by the owner or a thief) before closing the round.
    while (wins.load() == 0) std::this_thread::yield();
    closed.store(r, std::memory_order_release);
    while (finished.load(std::memory_order_acquire) < r * k_thieves) std::this_thread::yield();
    ASSERT_EQ(wins.load(), 1) << "round " << r;
    ASSERT_EQ(d.pop(), nullptr) << "round " << r;
  }
  EXPECT_FALSE(failed.load());
  EXPECT_GT(owner_wins, 0) << "the owner never won the last-element race";
  EXPECT_GT(thief_wins.load(), 0) << "no thief ever won the last-element race";
  std::printf("last-element race: owner %d, thieves %d of %d rounds\n", owner_wins, thief_wins.load(), r - 1);
}
