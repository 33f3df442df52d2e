// fp_env.hpp: a thread's floating-point settings as one word (MXCSR in the low 32 bits, the
// x87 control word above), read and applied for a scope. A task_group_context with
// fp_settings and a task_arena carry such a word; their tasks and execute's functor run
// under it ([P-TBB Task FP], [P-TBB Arena A13]). Nothing is read or set off x86-64.
#pragma once

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace forkjoin::detail::tbb_layer {

inline std::uint64_t current_fp_env() noexcept {
#if defined(__x86_64__)
  std::uint16_t cw = 0;
  __asm__ __volatile__("fnstcw %0" : "=m"(cw));
  return std::uint64_t{cw} << 32 | _mm_getcsr();
#else
  return 0;
#endif
}

// Applies `env` for its lifetime when `active`, then restores the thread's own settings.
class fp_env_scope {
 public:
  fp_env_scope(bool active, std::uint64_t env) noexcept {
#if defined(__x86_64__)
    active_ = active;
    if (!active_) return;
    saved_mxcsr_ = _mm_getcsr();
    __asm__ __volatile__("fnstcw %0" : "=m"(saved_cw_));
    _mm_setcsr(static_cast<unsigned>(env & 0xffffffffU));
    const auto cw = static_cast<std::uint16_t>(env >> 32);
    __asm__ __volatile__("fldcw %0" : : "m"(cw));
#else
    static_cast<void>(active);
    static_cast<void>(env);
#endif
  }
  ~fp_env_scope() {
#if defined(__x86_64__)
    if (!active_) return;
    _mm_setcsr(saved_mxcsr_);
    __asm__ __volatile__("fldcw %0" : : "m"(saved_cw_));
#endif
  }
  fp_env_scope(const fp_env_scope&) = delete;
  fp_env_scope& operator=(const fp_env_scope&) = delete;

 private:
#if defined(__x86_64__)
  bool active_ = false;
  unsigned saved_mxcsr_ = 0;
  std::uint16_t saved_cw_ = 0;
#endif
};

}  // namespace forkjoin::detail::tbb_layer
