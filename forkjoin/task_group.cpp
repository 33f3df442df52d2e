// task_group.cpp: the non-template parts of task_group (wait) and the allocator of child
// blocks: per-thread free lists in 64-byte size classes up to 512 bytes, capped so a
// producer/consumer pattern cannot hoard memory on one thread; misses and larger blocks
// are carved out of a plain new.
#include "forkjoin/task_group.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>

#include "pool_impl.hpp"

namespace forkjoin {

namespace {

// Waits until every child of the group with this latch has ended, helping meanwhile: on
// the pool's own worker, or from outside by entering the pool. Inlined into both callers:
// wait() is on the performance gate's task_group path, where the call cost 13 instructions (4%).
[[gnu::always_inline]] inline void wait_for_children(detail::pool_impl* pool, detail::count_latch& latch) {
  if (!latch.done()) {
    detail::worker* w = detail::tls_worker;
    if (w != nullptr && w->pool_ == pool) {
      detail::wait_for_group(*w, latch);
    } else {
      auto help = [&latch] { detail::wait_for_group(*detail::tls_worker, latch); };
      detail::run_in(*pool, help);
    }
  }
  latch.reset_waiter();
}

}  // namespace

void task_group::wait() {
  if (detail::tls_running_group == this)
    throw std::logic_error("forkjoin::task_group::wait called from one of the group's own tasks");
  wait_for_children(pool_, latch_);
  canceled_.store(false, std::memory_order_relaxed);
  if (has_error_.load(std::memory_order_relaxed)) {
    std::exception_ptr e = std::move(error_);
    error_ = nullptr;
    has_error_.store(false, std::memory_order_relaxed);
    std::rethrow_exception(e);
  }
}

void task_group::wait_children() noexcept {
  try {
    if (detail::tls_running_group != this) {
      wait_for_children(pool_, latch_);
      canceled_.store(false, std::memory_order_relaxed);
    }
  } catch (...) {  // the pool refused the wait (destroyed or forked away): nothing to wait on here
  }
}

namespace detail {

void on_uncollected_exception(const std::exception_ptr& e) noexcept {
  if (std::uncaught_exceptions() > 0) return;  // another exception is on its way out: it wins
  const char* what = "an exception not derived from std::exception";
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    what = x.what();
  } catch (...) {
  }
  std::fprintf(stderr,
               "forkjoin: a task_group was destroyed without wait() after a child threw (%s); the exception "
               "would be lost. Call wait() before the group goes out of scope.\n",
               what);
  std::terminate();
}

namespace {

constexpr std::size_t k_block_align = 64;
constexpr std::size_t k_classes = 8;        // 64, 128, ..., 512 bytes
constexpr std::size_t k_max_cached = 4096;  // blocks per class per thread (picked by hand:
                                            // 10^4-child groups recycle without hoarding)
struct free_block {
  free_block* next;
};

// A 64-aligned block carved out of a plain operator new of size + 64 bytes; the allocation
// it sits in is recorded in the word before it. An aligned operator new is glibc's memalign:
// several times the cost of a malloc, and it fragments the heap when blocks are allocated by
// one thread and freed by another (a producer of dependent children and the workers running
// them).
void* new_block(std::size_t size) {
  void* raw = ::operator new(size + k_block_align);  // at least 16-aligned: 16 or more bytes before the block
  const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(raw) & (k_block_align - 1);
  void* block = static_cast<char*>(raw) + (k_block_align - misalignment);
  static_cast<void**>(block)[-1] = raw;
  return block;
}
void delete_block(void* block) noexcept { ::operator delete(static_cast<void**>(block)[-1]); }

struct block_cache {
  std::array<free_block*, k_classes> heads{};
  std::array<std::size_t, k_classes> counts{};
  ~block_cache() {
    for (std::size_t c = 0; c < k_classes; ++c) {
      for (free_block* b = heads[c]; b != nullptr;) {
        free_block* next = b->next;
        delete_block(b);
        b = next;
      }
      heads[c] = nullptr;
      counts[c] = k_max_cached;  // later thread_local destructors bypass the cache
    }
  }
};

// initial-exec: in libforkjoin-omp (a shared object, and initial-exec already, whose static
// TLS this joins) the default model costs every allocation a __tls_get_addr call.
thread_local block_cache t_cache __attribute__((tls_model("initial-exec")));

}  // namespace

void* allocate_job(std::size_t size) {
  const std::size_t cls = (size + k_block_align - 1) / k_block_align - 1;
  if (cls < k_classes) {
    if (free_block* b = t_cache.heads[cls]) {
      t_cache.heads[cls] = b->next;
      --t_cache.counts[cls];
      return b;
    }
    return new_block((cls + 1) * k_block_align);
  }
  return new_block(size);
}

void deallocate_job(void* p, std::size_t size) noexcept {
  const std::size_t cls = (size + k_block_align - 1) / k_block_align - 1;
  if (cls < k_classes && t_cache.counts[cls] < k_max_cached) {
    auto* b = static_cast<free_block*>(p);
    b->next = t_cache.heads[cls];
    t_cache.heads[cls] = b;
    ++t_cache.counts[cls];
    return;
  }
  delete_block(p);
}

}  // namespace detail
}  // namespace forkjoin
