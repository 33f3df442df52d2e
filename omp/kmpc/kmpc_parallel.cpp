// kmpc_parallel.cpp: the KMPC parallel and teams regions (__kmpc_fork_call, the pushed
// num_threads/proc_bind/num_teams, serialized regions) and the thread queries, on the core's
// begin_region/end_region ([P-OMP Team]) and host league ([P-OMP Teams]). [P-OMP KMPC]
#include <array>
#include <cstdarg>
#include <utility>
#include <vector>

#include "kmpc.hpp"

namespace forkjoin::omp::kmpc {

// [P-OMP KMPC K18] (kmpc_task.cpp) the gtid the calling thread runs under: a hidden helper's
// while it runs a hidden helper task, else its own.
kmp_int32 current_gtid(const thread_state& ts) noexcept;

namespace {

// The microtask is an ordinary function of (gtid*, tid*, a0, ..., a(n-1)) that the compiler
// declares variadic; it is called through a pointer of its exact arity for n <= k_exact, and
// with the arguments padded by null pointers to the next bucket above: every supported ABI
// passes the fixed arguments the same way and lets the caller remove extra ones, so a callee
// never sees the padding.
constexpr std::size_t k_exact = 16;
constexpr std::size_t k_buckets[] = {32, 64, 128, 256};
constexpr std::size_t k_max_args = 256;

template <std::size_t>
using ptr_arg = void*;

template <std::size_t... I>
void call_with(microtask_t fn, kmp_int32* gtid, kmp_int32* tid, void* const* args, std::index_sequence<I...>) {
  using exact = void (*)(kmp_int32*, kmp_int32*, ptr_arg<I>...);
  reinterpret_cast<exact>(reinterpret_cast<void (*)()>(fn))(gtid, tid, args[I]...);
}

template <std::size_t N>
void call_n(microtask_t fn, kmp_int32* gtid, kmp_int32* tid, void* const* args) {
  call_with(fn, gtid, tid, args, std::make_index_sequence<N>{});
}

using caller = void (*)(microtask_t, kmp_int32*, kmp_int32*, void* const*);

template <std::size_t... N>
constexpr auto exact_table(std::index_sequence<N...>) {
  return std::array<caller, sizeof...(N)>{&call_n<N>...};
}
constexpr auto k_exact_callers = exact_table(std::make_index_sequence<k_exact + 1>{});
constexpr caller k_bucket_callers[] = {&call_n<32>, &call_n<64>, &call_n<128>, &call_n<256>};

// The arguments of a fork: at most k_exact inline, the rest on the heap.
class fork_args {
 public:
  fork_args(kmp_int32 argc, va_list ap) {
    if (argc < 0 || static_cast<std::size_t>(argc) > k_max_args)
      fatal("a parallel or teams region that captures more than 256 variables is not supported");
    std::size_t n = static_cast<std::size_t>(argc);
    if (n > k_exact) {
      std::size_t bucket = k_max_args;
      for (std::size_t b : k_buckets)
        if (n <= b) {
          bucket = b;
          break;
        }
      heap_.assign(bucket, nullptr);
    }
    void** dst = heap_.empty() ? inline_ : heap_.data();
    for (std::size_t i = 0; i < n; ++i) dst[i] = va_arg(ap, void*);
    call_ = microtask_call{nullptr, argc, dst};
  }
  microtask_call& call() noexcept { return call_; }

 private:
  void* inline_[k_exact] = {};
  std::vector<void*> heap_;
  microtask_call call_{};
};

// A team thread's part of a region: its microtask call (fn_t for begin_region).
void run_microtask(void* data) {
  const auto& c = *static_cast<const microtask_call*>(data);
  const thread_state& ts = self();
  invoke_microtask(c, current_gtid(ts), static_cast<kmp_int32>(ts.id));
}

}  // namespace

void invoke_microtask(const microtask_call& c, kmp_int32 gtid, kmp_int32 tid) {
  const auto n = static_cast<std::size_t>(c.argc);
  if (n <= k_exact) {
    k_exact_callers[n](c.fn, &gtid, &tid, c.args);
    return;
  }
  std::size_t k = 0;
  while (k_buckets[k] < n) ++k;
  k_bucket_callers[k](c.fn, &gtid, &tid, c.args);
}

}  // namespace forkjoin::omp::kmpc

using namespace forkjoin::omp;
using namespace forkjoin::omp::kmpc;

FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_global_thread_num(ident*) { return current_gtid(self()); }
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_global_num_threads(ident*) { return thread_count(); }
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_bound_thread_num(ident*) { return static_cast<kmp_int32>(self().id); }
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_bound_num_threads(ident*) {
  return static_cast<kmp_int32>(self().cur_team->nthreads);
}
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_in_parallel(ident*) { return self().cur_team->active_level > 0 ? 1 : 0; }
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_ok_to_fork(ident*) { return 1; }
FORKJOIN_OMP_EXPORT void __kmpc_begin(ident*, kmp_int32) {}
FORKJOIN_OMP_EXPORT void __kmpc_end(ident*) {}

// num_threads(n) and proc_bind(kind) for the thread's next region (libomp's proc_bind numbers
// are libgomp's: 2 primary, 3 close, 4 spread).
FORKJOIN_OMP_EXPORT void __kmpc_push_num_threads(ident*, kmp_int32, kmp_int32 n) {
  self().kmpc.push_threads = n > 0 ? static_cast<unsigned>(n) : 0;
}
FORKJOIN_OMP_EXPORT void __kmpc_pop_num_threads(ident*, kmp_int32) { self().kmpc.push_threads = 0; }
FORKJOIN_OMP_EXPORT void __kmpc_push_proc_bind(ident*, kmp_int32, int kind) {
  self().kmpc.push_bind = kind >= 1 && kind <= 4 ? static_cast<unsigned>(kind) : 0;
}

// [P-OMP KMPC K1] a parallel region: the caller and the team it starts each call the microtask
// with their global and team thread numbers; the arguments live in the caller's frame, which
// outlives the region's end barrier.
FORKJOIN_OMP_EXPORT void __kmpc_fork_call(ident*, kmp_int32 argc, microtask_t microtask, ...) {
  if (!kmpc_program()) [[unlikely]]
    mark_kmpc_program();  // [P-OMP KMPC K15]
  thread_state& ts = self();
  va_list ap;
  va_start(ap, microtask);
  fork_args args(argc, ap);
  va_end(ap);
  microtask_call& c = args.call();
  c.fn = microtask;
  if (g_display_affinity.load(std::memory_order_relaxed)) [[unlikely]]  // relaxed: see show_affinity
    kmpc_affinity_to_stdout();
  const unsigned requested = ts.kmpc.push_threads, bind = ts.kmpc.push_bind;
  ts.kmpc.push_threads = 0;
  ts.kmpc.push_bind = 0;
  begin_region(ts, &run_microtask, &c, resolve_num_threads(ts, requested), bind);
  invoke_microtask(c, current_gtid(ts), 0);
  end_region(ts);
}

// if(false): the compiler calls the microtask itself between these two, in a team of one.
FORKJOIN_OMP_EXPORT void __kmpc_serialized_parallel(ident*, kmp_int32) {
  if (!kmpc_program()) [[unlikely]]
    mark_kmpc_program();  // [P-OMP KMPC K15]
  thread_state& ts = self();
  if (g_display_affinity.load(std::memory_order_relaxed)) [[unlikely]]  // relaxed: see show_affinity
    kmpc_affinity_to_stdout();
  const unsigned bind = ts.kmpc.push_bind;
  ts.kmpc.push_threads = 0;
  ts.kmpc.push_bind = 0;
  begin_region(ts, nullptr, nullptr, 1, bind);
}
FORKJOIN_OMP_EXPORT void __kmpc_end_serialized_parallel(ident*, kmp_int32) { end_region(self()); }

// ---- teams on the host ([P-OMP Teams]) ---------------------------------------------------

FORKJOIN_OMP_EXPORT void __kmpc_push_num_teams(ident*, kmp_int32, kmp_int32 num_teams, kmp_int32 num_threads) {
  thread_state& ts = self();
  ts.kmpc.push_teams = num_teams > 0 ? static_cast<unsigned>(num_teams) : 0;
  ts.kmpc.push_team_limit = num_threads > 0 ? static_cast<unsigned>(num_threads) : 0;
}
// num_teams(lower:upper) (OpenMP 5.1): the league has `upper` teams, which the lower bound admits
FORKJOIN_OMP_EXPORT void __kmpc_push_num_teams_51(ident* loc, kmp_int32 gtid, kmp_int32, kmp_int32 upper,
                                                  kmp_int32 num_threads) {
  __kmpc_push_num_teams(loc, gtid, upper, num_threads);
}

// [P-OMP KMPC K2] host teams: the league runs on the core's host league (one team after another
// on the encountering thread, each an initial thread of its own), each team's initial thread
// calling the microtask. Without num_teams the league has nteams-var teams, else one (libomp's
// default).
FORKJOIN_OMP_EXPORT void __kmpc_fork_teams(ident*, kmp_int32 argc, microtask_t microtask, ...) {
  if (!kmpc_program()) [[unlikely]]
    mark_kmpc_program();  // [P-OMP KMPC K15]
  thread_state& ts = self();
  va_list ap;
  va_start(ap, microtask);
  fork_args args(argc, ap);
  va_end(ap);
  microtask_call& c = args.call();
  c.fn = microtask;
  if (g_display_affinity.load(std::memory_order_relaxed)) [[unlikely]]  // relaxed: see show_affinity
    kmpc_affinity_to_stdout();
  unsigned num_teams = ts.kmpc.push_teams;
  const unsigned limit = ts.kmpc.push_team_limit;
  ts.kmpc.push_teams = 0;
  ts.kmpc.push_team_limit = 0;
  if (num_teams == 0) num_teams = max_teams() > 0 ? static_cast<unsigned>(max_teams()) : 1;
  teams_reg(&run_microtask, &c, num_teams, limit, 0);
}
