// fpmode.cpp: pool_options::flush_denormals. Each worker thread sets the mode once, at its
// start, and never restores it (it set it and it ends with it); threads that enter a pool
// from outside (pool::run) keep their own mode.
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif
#include <cstdint>

#include "pool_impl.hpp"

namespace forkjoin::detail {

void pool_impl::apply_fp_mode() const noexcept {
  if (!options_.flush_denormals) return;
#if defined(__x86_64__) || defined(__i386__)
  constexpr unsigned k_ftz = 1u << 15, k_daz = 1u << 6;  // MXCSR: flush-to-zero, denormals-are-zero
  _mm_setcsr(_mm_getcsr() | k_ftz | k_daz);
#elif defined(__aarch64__)
  std::uint64_t fpcr = 0;
  asm volatile("mrs %0, fpcr" : "=r"(fpcr));
  fpcr |= std::uint64_t{1} << 24;  // FPCR.FZ: inputs and results flushed to zero
  asm volatile("msr fpcr, %0" : : "r"(fpcr));
#endif
}

}  // namespace forkjoin::detail
