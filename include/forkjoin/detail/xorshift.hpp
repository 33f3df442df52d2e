// xorshift.hpp: the one pseudo-random generator of the runtime (victim selection, schedule
// perturbation). Marsaglia's xorshift64 (13, 7, 17): a few cycles per number, 2^64 - 1
// period, not for anything that needs statistical quality.
#pragma once

#include <cstdint>

namespace forkjoin::detail {

class xorshift64 {
 public:
  // Stream `stream` of the family `base`: consecutive streams start far apart (the golden
  // ratio step), and the state is never zero (zero is xorshift's fixed point).
  static constexpr xorshift64 for_stream(std::uint64_t stream, std::uint64_t base = 0) noexcept {
    return xorshift64((base + k_golden * (stream + 1)) | 1);
  }

  constexpr std::uint64_t next() noexcept {
    std::uint64_t x = state_;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    state_ = x;
    return x;
  }

 private:
  static constexpr std::uint64_t k_golden = 0x9E3779B97F4A7C15ull;
  explicit constexpr xorshift64(std::uint64_t state) noexcept : state_(state) {}
  std::uint64_t state_;
};

}  // namespace forkjoin::detail
