// test_faults.cpp: what the runtime does when the system refuses it a thread or memory. This
// binary replaces pthread_create and the global operator new with versions that fail on
// request (a binary of its own, so that no other test runs with them):
//  - fail_threads(k): pthread_create succeeds k more times, then fails with EAGAIN until
//    disarmed;
//  - fail_allocation(k): on the calling thread only, k more allocations succeed and the next
//    one fails (std::bad_alloc, or nullptr for the nothrow forms); one shot.
// The sweeps fail the k-th allocation of an operation for k = 0, 1, 2, ... until the
// operation runs without reaching the failure, and check after each that the operation
// either completed or threw std::bad_alloc / std::system_error, that every task that was
// started ran exactly once, and that no thread was left behind.
#include <dirent.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace {

std::atomic<int> g_threads_left{-1};        // pthread_create calls that succeed before failures; -1: never fail
thread_local long t_allocations_left = -1;  // allocations that succeed before one fails; -1: none fails

using create_fn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

bool take_allocation_failure() noexcept {
  if (t_allocations_left < 0) return false;
  return t_allocations_left-- == 0;
}

void* allocate(std::size_t n, std::size_t align) noexcept {
  if (take_allocation_failure()) return nullptr;
  if (n == 0) n = 1;
  if (align <= alignof(std::max_align_t)) return std::malloc(n);
  void* p = nullptr;
  return posix_memalign(&p, align, n) == 0 ? p : nullptr;
}
void* allocate_or_throw(std::size_t n, std::size_t align) {
  if (void* p = allocate(n, align)) return p;
  throw std::bad_alloc();
}

}  // namespace

extern "C" int pthread_create(pthread_t* t, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  static const auto real = reinterpret_cast<create_fn>(dlsym(RTLD_NEXT, "pthread_create"));
  int left = g_threads_left.load();
  while (left >= 0) {
    if (left == 0) return EAGAIN;
    if (g_threads_left.compare_exchange_weak(left, left - 1)) break;
  }
  return real(t, attr, start, arg);
}

void* operator new(std::size_t n) { return allocate_or_throw(n, 0); }
void* operator new[](std::size_t n) { return allocate_or_throw(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

namespace fj = forkjoin;
using namespace std::chrono_literals;

namespace {

void fail_threads(int after) { g_threads_left.store(after); }
void allow_threads() { g_threads_left.store(-1); }
void fail_allocation(long after) { t_allocations_left = after; }
// Disarms; true when the failure happened.
bool allocation_failed() {
  const bool fired = t_allocations_left < 0;
  t_allocations_left = -1;
  return fired;
}

using forkjoin::test::count_threads;

using forkjoin::test::threads_back_to;

long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = fj::join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}

}  // namespace

// The replacements are in effect.
TEST(Faults, InjectionWorks) {
  fail_allocation(0);
  EXPECT_THROW(static_cast<void>(new int(1)), std::bad_alloc);
  EXPECT_TRUE(allocation_failed());
  fail_allocation(0);
  EXPECT_EQ(new (std::nothrow) int(1), nullptr);
  EXPECT_TRUE(allocation_failed());
  fail_threads(0);
  pthread_t t;
  EXPECT_EQ(pthread_create(
                &t, nullptr, [](void*) -> void* { return nullptr; }, nullptr),
            EAGAIN);
  allow_threads();
}

// A worker thread cannot be started: the constructor throws std::system_error naming the
// cause, after stopping and joining the workers that did start; the next pool works. Once
// with a pool inside the CPU budget, once with one sized above it.
TEST(Faults, WorkerThreadRefusedThrowsAndJoinsTheOthers) {
  std::thread([] {}).join();  // ThreadSanitizer starts a thread of its own at the first creation
  const int before = count_threads();
  for (std::size_t n : {std::size_t{2}, std::size_t{6}}) {
    for (int started = 0; started < static_cast<int>(n) - 1; ++started) {
      fail_threads(started);
      try {
        fj::pool p(n);
        ADD_FAILURE() << "a pool of " << n << " started with " << started << " threads allowed";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), EAGAIN);
        EXPECT_NE(std::string(e.what()).find("cannot start worker thread"), std::string::npos) << e.what();
      }
      allow_threads();
      EXPECT_TRUE(threads_back_to(before)) << n << " threads, " << started << " started: threads left behind";
    }
  }
  fj::pool p(3);
  EXPECT_EQ(p.run([] { return fib(15); }), 610);
}

// Every allocation the calling thread makes while constructing and using a pool, failed in
// turn: the constructor throws (std::bad_alloc, or std::system_error when a thread's start
// block could not be had) and leaves no thread behind, or the pool works.
TEST(Faults, AllocationFailureWhileStartingAPool) {
  std::thread([] {}).join();  // ThreadSanitizer starts a thread of its own at the first creation
  const int before = count_threads();
  long k = 0;
  for (;; ++k) {
    ASSERT_LT(k, 10000) << "the sweep does not end";
    bool threw = false;
    fail_allocation(k);
    try {
      fj::pool p(3);
      EXPECT_EQ(p.run([] { return fib(12); }), 144);
    } catch (const std::bad_alloc&) {
      threw = true;
    } catch (const std::system_error& e) {
      threw = true;
      EXPECT_EQ(e.code().value(), ENOMEM) << e.what();
    }
    const bool fired = allocation_failed();
    EXPECT_TRUE(threads_back_to(before)) << "allocation " << k << " failed: threads left behind";
    if (threw) {
      EXPECT_TRUE(fired);
    }
    if (!fired) break;
  }
  EXPECT_GT(k, 3);  // the constructor allocates: the sweep did fail some
}

// Every allocation of task_group::run failed in turn (the child's block, a deque ring when
// 300 children outgrow the first): run throws std::bad_alloc and nothing was spawned, or the
// child runs; either way exactly the children that were spawned run, once each, and the
// group is waited for as usual.
TEST(Faults, AllocationFailureWhileSpawningChildren) {
  fj::pool p(2);
  long k = 0;
  for (;; ++k) {
    ASSERT_LT(k, 10000) << "the sweep does not end";
    const bool fired = p.run([&] {
      std::atomic<int> ran{0};
      int spawned = 0;
      bool threw = false;
      fj::task_group g;
      fail_allocation(k);
      try {
        for (int i = 0; i < 300; ++i) {
          g.run([&ran] { ran.fetch_add(1, std::memory_order_relaxed); });
          ++spawned;
        }
      } catch (const std::bad_alloc&) {
        threw = true;
      }
      const bool failed = allocation_failed();
      g.wait();
      EXPECT_EQ(ran.load(), spawned) << "allocation " << k;
      EXPECT_EQ(threw, failed) << "allocation " << k;
      return failed;
    });
    if (!fired) break;
  }
  EXPECT_GT(k, 0);
}

// Every allocation of spawning dependent children failed in turn (the group's dependency
// table, a key's entry, room in a list of readers or successors): run throws std::bad_alloc
// and the child was not spawned; the children that were spawned run once each in their
// order, and the group keeps ordering later ones.
TEST(Faults, AllocationFailureWhileSpawningDependentChildren) {
  fj::pool p(2);
  long k = 0;
  for (;; ++k) {
    ASSERT_LT(k, 10000) << "the sweep does not end";
    const bool fired = p.run([&] {
      long x = 0, y = 0;  // every child: inout(x), in(y), so they run one after another
      std::vector<int> order;
      order.reserve(64);  // the children allocate nothing
      int spawned = 0;
      bool threw = false;
      fj::task_group g;
      fail_allocation(k);
      try {
        for (int i = 0; i < 20; ++i) {
          g.run(fj::inout(x), fj::in(y), [&order, i] { order.push_back(i); });
          ++spawned;
        }
      } catch (const std::bad_alloc&) {
        threw = true;
      }
      const bool failed = allocation_failed();
      g.run(fj::inout(x), [&order] { order.push_back(100); });
      g.wait();
      EXPECT_EQ(threw, failed) << "allocation " << k;
      std::vector<int> expected(static_cast<std::size_t>(spawned));
      for (int i = 0; i < spawned; ++i) expected[static_cast<std::size_t>(i)] = i;
      expected.push_back(100);
      EXPECT_EQ(order, expected) << "allocation " << k;
      return failed;
    });
    if (!fired) break;
  }
  EXPECT_GT(k, 0);
}

namespace {

// blocking() on the only thread of a pool of one, with one child queued that only a spare
// thread could run meanwhile. Returns where the child ran (this_worker_index()), and checks
// that it ran exactly once and that blocking() returned f's result.
int block_with_one_child(fj::pool& p, bool wait_for_child, std::chrono::milliseconds patience) {
  std::atomic<int> ran{0}, where{-2};
  const int r = p.run([&] {
    fj::task_group g;
    g.run([&] {
      where.store(fj::this_worker_index());
      ran.fetch_add(1);
    });
    const int v = fj::blocking([&] {
      const auto deadline = std::chrono::steady_clock::now() + patience;
      while (wait_for_child && ran.load() == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
      return 42;
    });
    g.wait();
    return v;
  });
  EXPECT_EQ(r, 42);
  EXPECT_EQ(ran.load(), 1);
  return where.load();
}

}  // namespace

// No spare thread can be started (pthread_create fails): blocking() runs f anyway, the
// child runs after it on the blocked worker itself, and the pool's spare accounting is
// restored: the next blocking() call gets its spare.
TEST(Faults, SpareThreadRefusedWorkStillRuns) {
  fj::pool p(1);
  fail_threads(0);
  EXPECT_EQ(block_with_one_child(p, false, 0ms), 0);
  allow_threads();
  EXPECT_GE(block_with_one_child(p, true, 20s), 1);  // a spare ran it while the worker blocked
}

// Every allocation of starting a spare failed in turn (its slot, the slot's deque, its start
// block): no spare this time and the child runs after f on the worker, or the spare runs it.
TEST(Faults, AllocationFailureWhileStartingASpare) {
  fj::pool p(1);
  long k = 0;
  for (;; ++k) {
    ASSERT_LT(k, 1000) << "the sweep does not end";
    std::atomic<int> ran{0}, where{-2};
    bool fired = false;
    p.run([&] {
      fj::task_group g;
      g.run([&] {
        where.store(fj::this_worker_index());
        ran.fetch_add(1);
      });
      fail_allocation(k);
      fj::blocking([&] {
        fired = allocation_failed();  // before waiting: the spare, if any, has been started
        if (fired) return;
        const auto deadline = std::chrono::steady_clock::now() + 20s;
        while (ran.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
      });
      g.wait();
    });
    EXPECT_EQ(ran.load(), 1) << "allocation " << k;
    if (fired) {
      EXPECT_EQ(where.load(), 0) << "allocation " << k << " failed, yet a spare ran the child";
    } else {
      EXPECT_GE(where.load(), 1) << "no allocation failed, yet no spare ran the child";
      break;
    }
  }
  EXPECT_GT(k, 0);
}
