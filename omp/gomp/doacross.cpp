// gomp/doacross.cpp: libgomp's doacross entry points, `depend(source)` and
// `depend(sink: ...)` of an `ordered(n)` loop (long and unsigned long long), on the core's
// table of posted iterations (core/doacross.cpp, [P-OMP Doacross]). The loops start in
// gomp/loop.cpp.
#include <cstdarg>
#include <cstdint>

#include "../abi/export.hpp"
#include "../core/common.hpp"
#include "../core/work_share.hpp"
#include "forkjoin/detail/atomic.hpp"

using namespace forkjoin::omp;
using forkjoin::omp::ull;

namespace {

template <class T>
void post_entry(const T* counts) {
  doacross* dx = current_doacross();
  if (dx == nullptr) {
    forkjoin::detail::seq_cst_fence();  // outside a doacross loop of a team: as libgomp, a full barrier
    return;
  }
  std::uint64_t v[k_doacross_max_dims];
  for (unsigned d = 0; d < doacross_dims(*dx); ++d) v[d] = static_cast<std::uint64_t>(counts[d]);
  doacross_post(*dx, v);
}

// The sink vector of a wait: `first`, then ncounts - 1 more values of the same type.
template <class T>
void read_sink(const doacross& dx, T first, va_list ap, std::uint64_t* v) noexcept {
  v[0] = static_cast<std::uint64_t>(first);
  for (unsigned d = 1; d < doacross_dims(dx); ++d) v[d] = static_cast<std::uint64_t>(va_arg(ap, T));
}

}  // namespace

FORKJOIN_OMP_EXPORT void GOMP_doacross_post(long* counts) { post_entry(counts); }
FORKJOIN_OMP_EXPORT void GOMP_doacross_ull_post(ull* counts) { post_entry(counts); }

FORKJOIN_OMP_EXPORT void GOMP_doacross_wait(long first, ...) {
  doacross* dx = current_doacross();
  if (dx == nullptr) return;
  std::uint64_t v[k_doacross_max_dims];
  va_list ap;
  va_start(ap, first);
  read_sink<long>(*dx, first, ap, v);
  va_end(ap);
  doacross_wait(*dx, v);
}

FORKJOIN_OMP_EXPORT void GOMP_doacross_ull_wait(ull first, ...) {
  doacross* dx = current_doacross();
  if (dx == nullptr) return;
  std::uint64_t v[k_doacross_max_dims];
  va_list ap;
  va_start(ap, first);
  read_sink<ull>(*dx, first, ap, v);
  va_end(ap);
  doacross_wait(*dx, v);
}
