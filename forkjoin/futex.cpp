// futex.cpp: see futex.hpp.
#include "futex.hpp"

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <ctime>
#else
#include <thread>
#endif

namespace forkjoin::detail {

#if defined(__linux__)
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}
void futex_wait_for(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::chrono::nanoseconds limit) noexcept {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(limit);
  const timespec timeout{static_cast<time_t>(s.count()), static_cast<long>((limit - s).count())};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, &timeout, nullptr, 0);
}
void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}
#else
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept { word.wait(expected); }
void futex_wait_for(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::chrono::nanoseconds limit) noexcept {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  // relaxed: callers re-check their predicate with their own ordering
  while (word.load(std::memory_order_relaxed) == expected && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
}
void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept { word.notify_all(); }
#endif

}  // namespace forkjoin::detail
