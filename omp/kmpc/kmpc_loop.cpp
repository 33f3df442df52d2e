// kmpc_loop.cpp: KMPC worksharing loops: static schedules computed in place
// (__kmpc_for_static_init_*, distribute included), the dynamic ones on the core's work shares
// (__kmpc_dispatch_*, [P-OMP WS]), ordered ([P-OMP Ordered]) and doacross loops
// ([P-OMP Doacross] X4). Bounds are inclusive, as the compiler passes them. [P-OMP KMPC]
#include <type_traits>
#include <vector>

#include "kmpc.hpp"

namespace forkjoin::omp::kmpc {
namespace {

kmp_int32 strip_modifiers(kmp_int32 sched) noexcept {
  kmp_int32 s = sched & ~k_sch_modifiers;
  if (s >= k_nm_lower && s < k_nm_upper) s -= k_nm_lower - 32;  // "nomerge" forms schedule alike
  return s;
}

// Iterations of [lb, ub] with step st (ub inclusive; none when the bounds are crossed), as the
// loop's unsigned type; a loop of 2^64 iterations stops with a message.
template <class T>
std::uint64_t trip_count(T lb, T ub, std::make_signed_t<T> st) {
  using U = std::make_unsigned_t<T>;
  if (st == 0) fatal("a worksharing loop with a zero increment");
  if (st > 0 ? ub < lb : lb < ub) return 0;
  const U diff = st > 0 ? static_cast<U>(static_cast<U>(ub) - static_cast<U>(lb))
                        : static_cast<U>(static_cast<U>(lb) - static_cast<U>(ub));
  const U step = st > 0 ? static_cast<U>(st) : static_cast<U>(U{0} - static_cast<U>(st));
  const std::uint64_t q = static_cast<std::uint64_t>(diff / step);
  if (q == UINT64_MAX) fatal("a worksharing loop of 2^64 iterations is not supported");
  return q + 1;
}

// [P-OMP KMPC K3] this thread's part of a statically scheduled loop, computed without a work
// share from the team size and the thread's number (for distribute: the league's size and
// this team's number), as libomp splits it: balanced blocks, or round-robin chunks whose
// stride the compiler adds to both bounds; *plast marks the part that runs the last iteration.
template <class T>
void static_init(kmp_int32 schedtype, kmp_int32* plast, T* plower, T* pupper, std::make_signed_t<T>* pstride,
                 std::make_signed_t<T> incr, std::make_signed_t<T> chunk) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  const T lb = *plower, ub = *pupper;
  if (incr == 0) fatal("a worksharing loop with a zero increment");
  if (incr > 0 ? ub < lb : lb < ub) {  // no iteration
    if (plast != nullptr) *plast = 0;
    *pstride = incr;
    return;
  }
  thread_state& ts = self();
  kmp_int32 sched = strip_modifiers(schedtype);
  std::uint64_t nth, tid;
  if (sched == k_distribute_static || sched == k_distribute_static_chunked) {
    const icv& v = ts.cur_task->icvs;
    nth = v.league_size;
    tid = v.league_num;
    sched = sched == k_distribute_static ? k_sch_static : k_sch_static_chunked;
  } else {
    nth = ts.cur_team->nthreads;
    tid = ts.id;
  }
  const auto add = [](T a, U b) { return static_cast<T>(static_cast<U>(static_cast<U>(a) + b)); };
  const U uincr = static_cast<U>(incr);
  if (nth == 1) {  // the whole space
    if (plast != nullptr) *plast = 1;
    *pstride = incr > 0 ? static_cast<S>(static_cast<U>(static_cast<U>(ub) - static_cast<U>(lb)) + 1)
                        : static_cast<S>(U{0} - static_cast<U>(static_cast<U>(lb) - static_cast<U>(ub)) - 1);
    return;
  }
  const U tc = static_cast<U>(trip_count<T>(lb, ub, incr));
  const U n = static_cast<U>(nth), id = static_cast<U>(tid);
  switch (sched) {
    case k_sch_static:
    case k_sch_static_greedy:
    case k_sch_static_balanced:
    case k_sch_auto:
      if (tc < n) {  // one iteration each for the first tc threads
        if (id < tc)
          *plower = *pupper = add(lb, static_cast<U>(id * uincr));
        else
          *plower = add(ub, incr > 0 ? U{1} : static_cast<U>(~U{0}));  // crossed bounds: nothing
        if (plast != nullptr) *plast = id == tc - 1 ? 1 : 0;
      } else {
        const U small = tc / n, extras = tc % n;
        const T lo = add(lb, static_cast<U>(uincr * (id * small + (id < extras ? id : extras))));
        *plower = lo;
        *pupper = add(lo, static_cast<U>(small * uincr - (id < extras ? U{0} : uincr)));
        if (plast != nullptr) *plast = id == n - 1 ? 1 : 0;
      }
      *pstride = static_cast<S>(tc);
      return;
    case k_sch_static_chunked: {
      U c = chunk < 1 ? U{1} : static_cast<U>(chunk);
      if (c > tc) c = tc;
      const U nchunks = tc / c + (tc % c != 0 ? 1 : 0);
      const U span = static_cast<U>(c * uincr);
      if (nchunks < n) {
        *pstride = static_cast<S>(static_cast<U>(span * nchunks));
        if (id < nchunks) {
          *plower = add(lb, static_cast<U>(span * id));
          *pupper = add(*plower, static_cast<U>(span - uincr));
        } else {
          *plower = add(ub, incr > 0 ? U{1} : static_cast<U>(~U{0}));
        }
      } else {
        *pstride = static_cast<S>(static_cast<U>(span * n));
        *plower = add(lb, static_cast<U>(span * id));
        *pupper = add(*plower, static_cast<U>(span - uincr));
      }
      if (plast != nullptr) *plast = id == (nchunks - 1) % n ? 1 : 0;
      return;
    }
    case k_sch_static_balanced_chunked: {  // schedule(simd:static): blocks rounded up to the simd chunk
      U c = chunk < 1 ? U{1} : static_cast<U>(chunk);
      const U per = (tc + n - 1) / n;
      c = (per + c - 1) / c * c;
      *plower = add(lb, static_cast<U>(c * uincr * id));
      *pupper = add(*plower, static_cast<U>(c * uincr - uincr));
      if (incr > 0 ? (*pupper > ub || *pupper < *plower) : (*pupper < ub || *pupper > *plower)) *pupper = ub;
      if (plast != nullptr) *plast = id == (tc - 1) / c ? 1 : 0;
      *pstride = static_cast<S>(tc);
      return;
    }
    default:
      fatal("__kmpc_for_static_init: unknown schedule");
  }
}

// ---- dynamic schedules on work shares ----------------------------------------------------

// schedule(simd:static): one block per thread, a multiple of the simd width `chunk`.
void balanced_chunked(const thread_state& ts, std::uint64_t tc, std::uint64_t& chunk, int& kind) {
  const std::uint64_t n = ts.cur_team->nthreads, c = chunk < 1 ? 1 : chunk;
  const std::uint64_t per = tc / n + (tc % n != 0 ? 1 : 0);
  kind = k_sched_static;
  chunk = per == 0 ? 0 : (per + c - 1) / c * c;
}

// The core's schedule for a libomp one, whether the loop is ordered, and the multiple its
// guided chunks keep.
void core_schedule(thread_state& ts, kmp_int32 sched, std::uint64_t tc, std::uint64_t& chunk, int& kind, bool& ordered,
                   std::uint64_t& multiple) {
  sched = strip_modifiers(sched);
  ordered = sched > k_ord_lower && sched < k_ord_upper;
  if (ordered) sched -= k_ord_lower - 32;  // kmp_ord_x -> kmp_sch_x
  switch (sched) {
    case k_sch_static_chunked:
      kind = k_sched_static;
      return;
    case k_sch_static:
    case k_sch_static_greedy:
    case k_sch_static_balanced:
      kind = k_sched_static;
      chunk = 0;
      return;
    case k_sch_static_balanced_chunked:
      balanced_chunked(ts, tc, chunk, kind);
      return;
    case k_sch_dynamic_chunked:
    case k_sch_static_steal:
      kind = k_sched_dynamic;
      return;
    case k_sch_guided_chunked:
    case k_sch_guided_iterative:
    case k_sch_guided_analytical:
    case k_sch_trapezoidal:
      kind = k_sched_guided;
      return;
    case k_sch_guided_simd:  // schedule(simd:guided): chunks but the last are multiples of the simd width
      kind = k_sched_guided;
      multiple = chunk < 1 ? 1 : chunk;
      return;
    case k_sch_auto:
      kind = k_sched_auto;
      return;
    case k_sch_runtime:
      runtime_schedule(ts, kind, chunk);
      return;
    case k_sch_runtime_simd: {  // schedule(simd:runtime), `chunk` the simd width, as libomp reads it:
      const std::uint64_t width = chunk < 1 ? 1 : chunk;
      runtime_schedule(ts, kind, chunk);
      if ((kind == k_sched_static && chunk == 0) || kind == k_sched_auto) {  // one block per thread
        chunk = width;
        balanced_chunked(ts, tc, chunk, kind);
        return;
      }
      chunk = (chunk < 1 ? 1 : chunk) * width;  // otherwise the run-sched chunk counts simd widths
      if (kind == k_sched_guided) multiple = chunk;
      return;
    }
    default:
      fatal("__kmpc_dispatch_init: unknown schedule");
  }
}

// [P-OMP KMPC K4] a dynamically scheduled (or ordered) loop is a work share over its iteration
// numbers [0, tc); the creator records the loop's lower bound and step, from which every
// thread maps its chunks back to values.
template <class T>
void dispatch_init(kmp_int32 sched, T lb, T ub, std::make_signed_t<T> st, std::make_signed_t<T> chunk) {
  thread_state& ts = self();
  if (ws_enter(ts)) {
    const std::uint64_t tc = trip_count<T>(lb, ub, st);
    std::uint64_t c = chunk < 1 ? 0 : static_cast<std::uint64_t>(chunk);
    int kind = k_sched_static;
    bool ordered = false;
    std::uint64_t multiple = 1;
    core_schedule(ts, sched, tc, c, kind, ordered, multiple);
    work_share& w = *ts.cur_ws;
    init_loop_space(w, ts.cur_team->nthreads, tc, c, kind, ordered);
    // clang marks schedule(dynamic) nonmonotonic (OpenMP 5's default); static_steal and the
    // runtime schedule's dynamic keep the cursor
    if ((sched & k_sch_nonmonotonic) != 0 && strip_modifiers(sched) == k_sch_dynamic_chunked)
      allow_any_order(w, ts.cur_team->nthreads);
    w.multiple = multiple;
    w.start = static_cast<std::uint64_t>(lb);
    w.incr = static_cast<std::uint64_t>(st);
    w.is_ull = std::is_unsigned_v<T>;
    ws_publish(ts);
  }
}

template <class T>
kmp_int32 dispatch_next(kmp_int32* plast, T* plower, T* pupper, std::make_signed_t<T>* pstride) {
  thread_state& ts = self();
  if (ts.cur_ws == nullptr) fatal("__kmpc_dispatch_next outside a dispatched loop");
  std::uint64_t lo, hi;
  if (!loop_next(ts, lo, hi)) {
    end_loop(ts);
    return 0;
  }
  const work_share& w = *ts.cur_ws;
  *plower = static_cast<T>(w.start + lo * w.incr);
  *pupper = static_cast<T>(w.start + (hi - 1) * w.incr);
  if (pstride != nullptr) *pstride = static_cast<std::make_signed_t<T>>(w.incr);
  if (plast != nullptr) *plast = hi == w.count ? 1 : 0;
  return 1;
}

}  // namespace
}  // namespace forkjoin::omp::kmpc

using namespace forkjoin::omp;
using namespace forkjoin::omp::kmpc;

#define FJ_KMPC_LOOP(suffix, T)                                                                                       \
  FORKJOIN_OMP_EXPORT void __kmpc_for_static_init_##suffix(ident*, kmp_int32, kmp_int32 schedtype, kmp_int32* plast,  \
                                                           T* plower, T* pupper, std::make_signed_t<T>* pstride,      \
                                                           std::make_signed_t<T> incr, std::make_signed_t<T> chunk) { \
    static_init<T>(schedtype, plast, plower, pupper, pstride, incr, chunk);                                           \
  }                                                                                                                   \
  FORKJOIN_OMP_EXPORT void __kmpc_dispatch_init_##suffix(ident*, kmp_int32, kmp_int32 sched, T lb, T ub,              \
                                                         std::make_signed_t<T> st, std::make_signed_t<T> chunk) {     \
    dispatch_init<T>(sched, lb, ub, st, chunk);                                                                       \
  }                                                                                                                   \
  FORKJOIN_OMP_EXPORT int __kmpc_dispatch_next_##suffix(ident*, kmp_int32, kmp_int32* plast, T* plower, T* pupper,    \
                                                        std::make_signed_t<T>* pstride) {                             \
    return dispatch_next<T>(plast, plower, pupper, pstride);                                                          \
  }                                                                                                                   \
  /* the end of an ordered loop's iteration: the ordered turn passes per chunk ([P-OMP Ordered]) */                   \
  FORKJOIN_OMP_EXPORT void __kmpc_dispatch_fini_##suffix(ident*, kmp_int32) {}

// Intel's compilers: distribute and the loop in one call (the team's part, pupperD its upper
// bound, then this thread's part of it), distribute alone, and a dispatched loop over the
// team's part. *plast: this thread (team) runs the loop's last iteration.
namespace {
template <class T>
void dist_static_init(kmp_int32 sched, kmp_int32* plast, T* plower, T* pupper, T* pupper_team,
                      std::make_signed_t<T>* pstride, std::make_signed_t<T> incr, std::make_signed_t<T> chunk) {
  kmp_int32 team_last = 0, thread_last = 0;
  static_init<T>(k_distribute_static, &team_last, plower, pupper, pstride, incr, 0);
  if (pupper_team != nullptr) *pupper_team = *pupper;
  if (incr > 0 ? *pupper < *plower : *plower < *pupper) {  // this team has no iteration
    if (plast != nullptr) *plast = 0;
    return;
  }
  static_init<T>(sched, &thread_last, plower, pupper, pstride, incr, chunk);
  if (plast != nullptr) *plast = team_last != 0 && thread_last != 0 ? 1 : 0;
}

template <class T>
void dist_dispatch_init(kmp_int32 sched, kmp_int32* plast, T lb, T ub, std::make_signed_t<T> st,
                        std::make_signed_t<T> chunk) {
  std::make_signed_t<T> stride = 0;
  kmp_int32 team_last = 0;
  static_init<T>(k_distribute_static, &team_last, &lb, &ub, &stride, st, 0);
  if (plast != nullptr) *plast = team_last;
  dispatch_init<T>(sched, lb, ub, st, chunk);
}
}  // namespace

#define FJ_KMPC_DIST(suffix, T)                                                                                        \
  FORKJOIN_OMP_EXPORT void __kmpc_dist_for_static_init_##suffix(                                                       \
      ident*, kmp_int32, kmp_int32 sched, kmp_int32* plast, T* plower, T* pupper, T* pupper_team,                      \
      std::make_signed_t<T>* pstride, std::make_signed_t<T> incr, std::make_signed_t<T> chunk) {                       \
    dist_static_init<T>(sched, plast, plower, pupper, pupper_team, pstride, incr, chunk);                              \
  }                                                                                                                    \
  FORKJOIN_OMP_EXPORT void __kmpc_team_static_init_##suffix(ident*, kmp_int32, kmp_int32* plast, T* plower, T* pupper, \
                                                            std::make_signed_t<T>* pstride,                            \
                                                            std::make_signed_t<T> incr, std::make_signed_t<T> chunk) { \
    static_init<T>(k_distribute_static_chunked, plast, plower, pupper, pstride, incr, chunk < 1 ? 1 : chunk);          \
  }                                                                                                                    \
  FORKJOIN_OMP_EXPORT void __kmpc_dist_dispatch_init_##suffix(ident*, kmp_int32, kmp_int32 sched, kmp_int32* plast,    \
                                                              T lb, T ub, std::make_signed_t<T> st,                    \
                                                              std::make_signed_t<T> chunk) {                           \
    dist_dispatch_init<T>(sched, plast, lb, ub, st, chunk);                                                            \
  }

FJ_KMPC_LOOP(4, kmp_int32)
FJ_KMPC_LOOP(4u, kmp_uint32)
FJ_KMPC_LOOP(8, kmp_int64)
FJ_KMPC_LOOP(8u, kmp_uint64)
FJ_KMPC_DIST(4, kmp_int32)
FJ_KMPC_DIST(4u, kmp_uint32)
FJ_KMPC_DIST(8, kmp_int64)
FJ_KMPC_DIST(8u, kmp_uint64)

FORKJOIN_OMP_EXPORT void __kmpc_for_static_fini(ident*, kmp_int32) {}

FORKJOIN_OMP_EXPORT void __kmpc_ordered(ident*, kmp_int32) { ordered_start(self()); }
FORKJOIN_OMP_EXPORT void __kmpc_end_ordered(ident*, kmp_int32) {}

// ---- doacross loops ([P-OMP Doacross] X4) -------------------------------------------------

namespace {
struct kmp_dim {  // one dimension of an ordered(n) nest: lo..up inclusive, step st
  kmp_int64 lo, up, st;
};

// The iteration numbers of vector vec (one value per dimension), false if it lies outside.
bool normalise(const kmpc_doacross& d, const kmp_int64* vec, std::uint64_t* v) {
  for (std::size_t k = 0; k < d.dims.size(); ++k) {
    const auto& [lo, st] = d.dims[k];
    const kmp_int64 x = vec[k];
    if (st > 0 ? x < lo : x > lo) return false;
    const std::uint64_t diff = st > 0 ? static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(lo)
                                      : static_cast<std::uint64_t>(lo) - static_cast<std::uint64_t>(x);
    const std::uint64_t step =
        st > 0 ? static_cast<std::uint64_t>(st) : std::uint64_t{0} - static_cast<std::uint64_t>(st);
    v[k] = diff / step;  // past the last iteration: rejected by the table's bounds check
  }
  return true;
}
}  // namespace

// [P-OMP KMPC K5] the doacross table is a work share of its own, entered before the loop's
// (libomp's order: the loop may be static, without a work share); its bits cover the whole
// space, since KMPC passes every ordered dimension and not how they are collapsed.
FORKJOIN_OMP_EXPORT void __kmpc_doacross_init(ident*, kmp_int32, kmp_int32 num_dims, const kmp_dim* dims) {
  thread_state& ts = self();
  if (num_dims < 1 || num_dims > 64) fatal("a doacross loop with more than 64 ordered dimensions");
  kmpc_doacross d;
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(num_dims));
  for (kmp_int32 k = 0; k < num_dims; ++k) {
    d.dims.emplace_back(dims[k].lo, dims[k].st);
    counts[static_cast<std::size_t>(k)] = trip_count<kmp_int64>(dims[k].lo, dims[k].up, dims[k].st);
  }
  const bool creator = ws_enter(ts);
  work_share& w = *ts.cur_ws;
  if (creator) {
    init_loop_space(w, ts.cur_team->nthreads, 0, 0, k_sched_static, false);
    // a team of one needs no table: every iteration a wait names already ran
    if (ts.cur_team->nthreads > 1)
      w.dx = doacross_create_bits(ts.cur_team->nthreads, static_cast<unsigned>(num_dims), counts.data());
  }
  ws_publish_extras(ts, creator, nullptr, nullptr);
  ts.cur_ws = nullptr;  // the loop's own work share, if any, comes next
  d.slot = &w;
  ts.kmpc.doacross.push_back(std::move(d));
}

FORKJOIN_OMP_EXPORT void __kmpc_doacross_wait(ident*, kmp_int32, const kmp_int64* vec) {
  thread_state& ts = self();
  if (ts.kmpc.doacross.empty()) fatal("__kmpc_doacross_wait outside a doacross loop");
  const kmpc_doacross& d = ts.kmpc.doacross.back();
  std::uint64_t v[64];
  if (d.slot->dx != nullptr && normalise(d, vec, v)) doacross_wait(*d.slot->dx, v);
}

FORKJOIN_OMP_EXPORT void __kmpc_doacross_post(ident*, kmp_int32, const kmp_int64* vec) {
  thread_state& ts = self();
  if (ts.kmpc.doacross.empty()) fatal("__kmpc_doacross_post outside a doacross loop");
  const kmpc_doacross& d = ts.kmpc.doacross.back();
  std::uint64_t v[64];
  if (d.slot->dx != nullptr && normalise(d, vec, v)) doacross_post(*d.slot->dx, v);
}

FORKJOIN_OMP_EXPORT void __kmpc_doacross_fini(ident*, kmp_int32) {
  thread_state& ts = self();
  if (ts.kmpc.doacross.empty()) fatal("__kmpc_doacross_fini outside a doacross loop");
  work_share* slot = ts.kmpc.doacross.back().slot;
  ts.kmpc.doacross.pop_back();
  ws_leave_slot(ts, *slot);
}
