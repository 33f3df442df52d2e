// Allocation counting: this binary replaces the global operator new and delete with
// counting versions (its own binary, so no other test runs with them), and checks that
// join allocates nothing once a pool is warmed up: with one thread (nothing stolen) and with
// two (g stolen and the waiter helping or sleeping).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "forkjoin/forkjoin.hpp"

namespace {
std::atomic<std::uint64_t> g_allocations{0};

void* counted_alloc(std::size_t n, std::size_t align) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (n == 0) n = 1;
  if (align <= alignof(std::max_align_t)) return std::malloc(n);
  void* p = nullptr;
  return posix_memalign(&p, align, n) == 0 ? p : nullptr;
}
void* counted_alloc_or_throw(std::size_t n, std::size_t align) {
  if (void* p = counted_alloc(n, align)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) { return counted_alloc_or_throw(n, 0); }
void* operator new[](std::size_t n) { return counted_alloc_or_throw(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_alloc_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) {
  return counted_alloc_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
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

namespace {
long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = fj::join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}
void* volatile g_sink = nullptr;
}  // namespace

// The replacement is in effect: an allocation the compiler may not elide is counted.
TEST(Alloc, CounterSeesAllocations) {
  const auto before = g_allocations.load();
  g_sink = ::operator new(64);
  ::operator delete(g_sink);
  EXPECT_EQ(g_allocations.load() - before, 1u);
}

TEST(Alloc, JoinAllocatesNothingAfterWarmUp) {
  for (std::size_t threads : {1u, 2u}) {
    fj::pool p(threads);
    for (int i = 0; i < 3; ++i) (void)p.run([] { return fib(20); });  // warm-up: deques grow, TLS
    const auto steals_before = p.statistics().steals;
    // Batches of 20 runs; with 2 threads, until the worker stole something (a worker the
    // scheduler keeps off a busy machine for a whole batch leaves only the inline path tested).
    int batches = 0;
    std::uint64_t steals = 0, allocated = 0;
    do {
      long results[20] = {};
      const auto before = g_allocations.load();
      for (long& r : results) r = p.run([] { return fib(20); });
      allocated += g_allocations.load() - before;  // statistics() below allocates
      for (long r : results) EXPECT_EQ(r, 6765);
      steals = p.statistics().steals - steals_before;
      ++batches;
    } while (threads == 2 && steals == 0 && batches < 500);
    EXPECT_EQ(allocated, 0u) << threads << " threads: " << allocated << " allocations in " << batches
                             << " batches of 20 runs of fib(20)";
    if (threads == 2) {
      EXPECT_GT(steals, 0u) << "nothing was stolen in " << batches << " batches: only the inline path was tested";
    }
  }
}
