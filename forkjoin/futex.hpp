// futex.hpp: park and unpark on a 32-bit word. Linux futex syscall (private); elsewhere
// std::atomic wait/notify. Callers always re-check their predicate: wake-ups may be spurious.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace forkjoin::detail {

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept;
// The same for at most `limit` (elsewhere: a poll of `word` until then).
void futex_wait_for(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::chrono::nanoseconds limit) noexcept;
void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept;

}  // namespace forkjoin::detail
