// kmpc_task.cpp: KMPC explicit tasks: allocation (the compiler fills the task's private data
// between __kmpc_omp_task_alloc and __kmpc_omp_task), dependences, if(0) tasks the compiler
// runs itself, untied continuations, detach, taskwait, taskgroup and taskloop, all on the
// core's tasks ([P-OMP Task], [P-OMP Depend], [P-OMP Detach]). [P-OMP KMPC]
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>

#include <strings.h>

#include "kmpc.hpp"

namespace forkjoin::omp::kmpc {
namespace {

// [P-OMP KMPC K9] one malloc per task (the allocator's thread cache: an aligned allocation
// takes its slow path): the core's task, this front-end's header, the header's address, then
// the compiler's kmp_task with its private data at the next cache-line boundary (the compiler
// lays out over-aligned private data from there, as libomp's cache-aligned task records
// allow), then the block of shared-variable pointers. The core frees the block from the task.
struct header {
  kmp_int32 flags = 0;      // the compiler's task flags
  std::size_t bytes = 0;    // kmp_task, private data and shareds, in bytes
  bool started = false;     // its body ran (an untied task calling __kmpc_omp_task on itself continues)
  bool again = false;       // a continuation is pending: the body runs again at once
  bool inline_if0 = false;  // the compiler runs the body itself (begin_if0 .. complete_if0)
  bool hidden = false;      // a hidden helper task: runs under a hidden helper's gtid ([P-OMP KMPC K18])
};
struct block {
  task core;
  header x;
};
constexpr std::size_t k_align = forkjoin::detail::k_cache_line;
// what precedes the kmp_task at most: the block, its address, the padding to the boundary
constexpr std::size_t k_prefix = sizeof(block) + sizeof(block*) + k_align - 1;

kmp_task* task_of(block* b) noexcept { return static_cast<kmp_task*>(b->core.data); }
block* block_of(kmp_task* kt) noexcept { return reinterpret_cast<block**>(kt)[-1]; }

void run_destructors(block& b, kmp_int32 gtid) {
  if ((b.x.flags & k_task_destructors) != 0) {
    kmp_task* kt = task_of(&b);
    kt->data1.destructors(gtid, kt);
  }
}

// ---- hidden helper identities ([P-OMP KMPC K18]) -----------------------------------------

// libomp's flag of a hidden helper task (the hidden_helper bit of its task flags)
constexpr kmp_int32 k_task_hidden_helper = 0x80;

// The hidden helper gtids in use here: N unless LIBOMP_USE_HIDDEN_HELPER_TASK is false, when
// hidden helper tasks are ordinary tasks (libomp keeps the range of gtids then, and so does
// team.cpp). Read once, when first needed.
int read_hidden_helpers() noexcept {
  if (const char* s = std::getenv("LIBOMP_USE_HIDDEN_HELPER_TASK")) {
    for (const char* no : {"0", "false", "off", "no", "disable", "disabled", ".false."})
      if (strcasecmp(s, no) == 0) return 0;
    bool yes = false;
    for (const char* y : {"1", "true", "on", "yes", "enable", "enabled", ".true."}) yes = yes || strcasecmp(s, y) == 0;
    if (!yes) kmp_notice("LIBOMP_USE_HIDDEN_HELPER_TASK=%s is not a boolean; true is used, as libomp does", s);
  }
  return hidden_helper_count();
}
int hidden_helpers() noexcept {
  static const int n = read_hidden_helpers();
  return n;
}

// Bit k set: gtid k + 1 is held by a thread running a hidden helper task. Relaxed: a bit hands
// out a number and guards no data; the read-modify-writes alone make each claim unique.
std::atomic<std::uint32_t> g_hidden_busy{0};

// The hidden helper gtid the calling thread runs under (0: its own gtid). Thread-local,
// initial-exec as tls_state: one load on __kmpc_global_thread_num's path.
__thread kmp_int32 tls_hidden_gtid __attribute__((tls_model("initial-exec"))) = 0;

}  // namespace

// The gtid the calling thread runs under: a hidden helper's while it runs a hidden helper
// task, else its own.
kmp_int32 current_gtid(const thread_state& ts) noexcept {
  const kmp_int32 h = tls_hidden_gtid;
  return h != 0 ? h : ts.gtid;
}

namespace {

struct hidden_identity {
  kmp_int32 gtid;  // 1..N
  bool owned;      // claimed here: released when the body returns
};

// A free gtid of 1..N, else (every one is held: more threads run hidden helper tasks at once
// than libomp has helpers) one shared with its holder, so the number stays in the range.
hidden_identity claim_hidden(const thread_state& ts) noexcept {
  const int n = hidden_helpers();
  const std::uint32_t all = (std::uint32_t{1} << n) - 1;  // n <= 16
  std::uint32_t busy = g_hidden_busy.load(std::memory_order_relaxed);
  while ((busy & all) != all) {
    const int k = std::countr_one(busy);
    if (g_hidden_busy.compare_exchange_weak(busy, busy | (std::uint32_t{1} << k), std::memory_order_relaxed))
      return {k + 1, true};
  }
  return {1 + ts.gtid % n, false};
}

// Runs the compiler's routine, again for each continuation an untied task asked for while it
// ran, then the destructors of its private data.
void run_routine(block& b, kmp_task* kt, kmp_int32 gtid) {
  do {
    b.x.again = false;
    kt->routine(gtid, kt);
  } while (b.x.again);
  run_destructors(b, gtid);
}

// The core's body of every KMPC task. A task without a routine is empty (`taskwait
// depend(...) nowait` is one, with its dependences). [P-OMP KMPC K18] a body runs under the
// identity of its task: a hidden helper task under a hidden helper gtid (the one its thread
// already holds when it runs it inside another hidden helper task's wait, else one claimed for
// the body), any other task under its thread's own.
void run_body(void* data) {
  auto* kt = static_cast<kmp_task*>(data);
  block& b = *block_of(kt);
  b.x.started = true;
  if (kt->routine == nullptr) return;
  const thread_state& ts = self();
  const kmp_int32 outer = tls_hidden_gtid;
  if (!b.x.hidden && outer == 0) [[likely]] {
    run_routine(b, kt, ts.gtid);
    return;
  }
  hidden_identity h{0, false};
  if (b.x.hidden) h = outer != 0 ? hidden_identity{outer, false} : claim_hidden(ts);
  tls_hidden_gtid = h.gtid;
  run_routine(b, kt, h.gtid != 0 ? h.gtid : ts.gtid);
  tls_hidden_gtid = outer;
  if (h.owned) g_hidden_busy.fetch_and(~(std::uint32_t{1} << (h.gtid - 1)), std::memory_order_relaxed);
}

// [P-OMP KMPC K18] a task is a hidden helper task when the compiler marks it so (a target
// task), or when an explicit task running under a hidden helper gtid creates it (libomp's
// hidden helper threads run what they create); not while hidden helpers are off.
bool hidden_child(const thread_state& ts, kmp_int32 flags) noexcept {
  if ((flags & k_task_hidden_helper) == 0 && (tls_hidden_gtid == 0 || ts.cur_task->implicit)) return false;
  return hidden_helpers() != 0;
}

// A block for `bytes` of kmp_task, private data and shareds; the caller fills the kmp_task.
block* make_block(std::size_t bytes, kmp_int32 flags) {
  if (bytes > SIZE_MAX - k_prefix) fatal("out of memory allocating a task");
  void* mem = std::malloc(k_prefix + bytes);
  if (mem == nullptr) fatal("out of memory allocating a task");
  auto* b = new (mem) block;
  b->x.flags = flags;
  b->x.bytes = bytes;
  const auto after = reinterpret_cast<std::uintptr_t>(b + 1) + sizeof(block*);
  auto* kt = reinterpret_cast<kmp_task*>((after + k_align - 1) / k_align * k_align);
  reinterpret_cast<block**>(kt)[-1] = b;
  b->core.fn = &run_body;
  b->core.data = kt;
  return b;
}

block* allocate(std::size_t task_size, std::size_t shareds_size, kmp_int32 flags) {
  const std::size_t task_bytes = (task_size + sizeof(void*) - 1) / sizeof(void*) * sizeof(void*);
  if (task_bytes < task_size || shareds_size > SIZE_MAX - task_bytes) fatal("out of memory allocating a task");
  block* b = make_block(task_bytes + shareds_size, flags);
  kmp_task* kt = task_of(b);
  std::memset(kt, 0, sizeof(kmp_task));
  kt->shareds = shareds_size != 0 ? reinterpret_cast<char*>(kt) + task_bytes : nullptr;
  return b;
}

// Drops a task that never ran (a taskloop's pattern, or one created in a cancelled group).
void discard(block& b, kmp_int32 gtid) {
  run_destructors(b, gtid);
  release_task(&b.core);
}

void submit(thread_state& ts, block& b, bool if_clause, void** depend) {
  task* t = &b.core;
  // [P-OMP Cancel K5] nothing new runs in a cancelled team or group; a detached task stays,
  // since its event may still be fulfilled (K5 skips its body)
  if (creation_cancelled(ts) && !t->detached) {
    discard(b, current_gtid(ts));
    return;
  }
  submit_task(ts, t, if_clause, depend, t->detached);
}

// libomp's dependence descriptor.
struct depend_info {
  std::intptr_t base_addr;
  std::size_t len;
  std::uint8_t flags;  // 1 in, 2 out, 4 mutexinoutset, 8 inoutset, 0x80 omp_all_memory
};

// The dependences of two lists in the core's (libgomp's) array format: {n, nout, the n_out
// addresses that are written, then the ones only read}; mutexinoutset and inoutset are
// ordered like inout ([P-OMP Depend]).
class depend_array {
 public:
  depend_array(kmp_int32 n1, const depend_info* l1, kmp_int32 n2, const depend_info* l2) {
    const std::size_t c1 = n1 > 0 ? static_cast<std::size_t>(n1) : 0, c2 = n2 > 0 ? static_cast<std::size_t>(n2) : 0;
    const std::size_t n = c1 + c2;
    if (n == 0) return;
    words_ = n + 2 <= k_inline ? inline_ : (heap_ = new void*[n + 2]);
    // omp_all_memory: the flag, or libomp's other spelling, the address -1 (LLVM's
    // tasking/kmp_task_depend_all.c); written, as a null address ([P-OMP Depend D4])
    const auto all = [](const depend_info& d) { return (d.flags & 0x80u) != 0 || d.base_addr == -1; };
    const auto writes = [&](const depend_info& d) { return all(d) || (d.flags & ~1u) != 0; };
    std::size_t k = 2, nout = 0;
    for (int pass = 0; pass < 2; ++pass)  // the written addresses first, then the read ones
      for (std::size_t i = 0; i < n; ++i) {
        const depend_info& d = i < c1 ? l1[i] : l2[i - c1];
        if (writes(d) != (pass == 0)) continue;
        words_[k++] = all(d) ? nullptr : reinterpret_cast<void*>(d.base_addr);
        if (pass == 0) ++nout;
      }
    words_[0] = reinterpret_cast<void*>(n);
    words_[1] = reinterpret_cast<void*>(nout);
  }
  ~depend_array() { delete[] heap_; }
  depend_array(const depend_array&) = delete;
  depend_array& operator=(const depend_array&) = delete;
  void** get() noexcept { return words_; }  // null without dependences

 private:
  static constexpr std::size_t k_inline = 18;
  void* inline_[k_inline];
  void** heap_ = nullptr;
  void** words_ = nullptr;
};

}  // namespace
}  // namespace forkjoin::omp::kmpc

using namespace forkjoin::omp;
using namespace forkjoin::omp::kmpc;

FORKJOIN_OMP_EXPORT kmp_task* __kmpc_omp_task_alloc(ident*, kmp_int32, kmp_int32 flags, std::size_t task_size,
                                                    std::size_t shareds_size, routine_t entry) {
  if ((flags & k_task_proxy) != 0) unsupported("proxy tasks (__kmpc_omp_task_alloc)");
  thread_state& ts = self();
  block* b = allocate(task_size, shareds_size, flags);
  b->x.hidden = hidden_child(ts, flags);
  task_of(b)->routine = entry;
  init_child(ts, &b->core, (flags & k_task_final) != 0);
  return task_of(b);
}

// [P-OMP KMPC K18] a target task (`target nowait`, on the host device) is a hidden helper task,
// as in libomp, unless hidden helpers are off; an ordinary task then.
FORKJOIN_OMP_EXPORT kmp_task* __kmpc_omp_target_task_alloc(ident* loc, kmp_int32 gtid, kmp_int32 flags,
                                                           std::size_t task_size, std::size_t shareds_size,
                                                           routine_t entry, kmp_int64) {
  return __kmpc_omp_task_alloc(loc, gtid, flags | k_task_hidden_helper, task_size, shareds_size, entry);
}

// [P-OMP KMPC K10] a task submitted again by its own body is an untied task's continuation
// (the compiler then returns from the body): it continues at once on this thread, since a
// task scheduling point may resume the task it suspends; an if(0) task's body, which the
// compiler calls once, takes its continuation by a nested call.
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_omp_task(ident*, kmp_int32 gtid, kmp_task* kt) {
  block& b = *block_of(kt);
  if (b.x.started) {
    if (b.x.inline_if0)
      kt->routine(gtid, kt);
    else
      b.x.again = true;
    return 0;
  }
  submit(self(), b, true, nullptr);
  return 0;
}

FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_omp_task_with_deps(ident*, kmp_int32, kmp_task* kt, kmp_int32 ndeps,
                                                        const depend_info* deps, kmp_int32 ndeps_noalias,
                                                        const depend_info* noalias) {
  depend_array d(ndeps, deps, ndeps_noalias, noalias);
  submit(self(), *block_of(kt), true, d.get());
  return 0;
}

// An if(0) task with dependences, and taskwait depend(...): wait for those siblings.
FORKJOIN_OMP_EXPORT void __kmpc_omp_wait_deps(ident*, kmp_int32, kmp_int32 ndeps, const depend_info* deps,
                                              kmp_int32 ndeps_noalias, const depend_info* noalias) {
  depend_array d(ndeps, deps, ndeps_noalias, noalias);
  if (d.get() != nullptr) taskwait_depend(d.get());
}

FORKJOIN_OMP_EXPORT void __kmpc_omp_task_begin_if0(ident*, kmp_int32, kmp_task* kt) {
  block& b = *block_of(kt);
  b.x.started = true;
  b.x.inline_if0 = true;
  begin_undeferred(self(), &b.core);
}
FORKJOIN_OMP_EXPORT void __kmpc_omp_task_complete_if0(ident*, kmp_int32 gtid, kmp_task* kt) {
  block& b = *block_of(kt);
  run_destructors(b, gtid);
  end_undeferred(self(), &b.core);
}

FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_omp_taskwait(ident*, kmp_int32) {
  taskwait(self());
  return 0;
}
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_omp_taskyield(ident*, kmp_int32, int) { return 0; }

// `affinity` is a hint
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_omp_reg_task_with_affinity(ident*, kmp_int32, kmp_task*, kmp_int32, void*) {
  return 0;
}

// [P-OMP Detach] the handle of the task's event, registered before the task is submitted.
FORKJOIN_OMP_EXPORT void* __kmpc_task_allow_completion_event(ident*, kmp_int32, kmp_task* kt) {
  return register_event(&block_of(kt)->core);
}

// ---- taskgroup ---------------------------------------------------------------------------

namespace forkjoin::omp::kmpc {
void taskred_fini(thread_state& ts, taskgroup& g);  // kmpc_taskred.cpp
}

FORKJOIN_OMP_EXPORT void __kmpc_taskgroup(ident*, kmp_int32) { taskgroup_start(self()); }
FORKJOIN_OMP_EXPORT void __kmpc_end_taskgroup(ident*, kmp_int32) {
  thread_state& ts = self();
  taskgroup* g = ts.cur_task->current_group;
  taskgroup_wait(ts, *g);
  if (g->kmpc_red != nullptr) taskred_fini(ts, *g);
  taskgroup_pop(ts, g);
}

// ---- taskloop ----------------------------------------------------------------------------

// [P-OMP KMPC K11] taskloop: the compiler allocates one pattern task whose private data holds
// the loop's bounds at *lb and *ub (inclusive, 64 bits, step st); each task of the loop is a
// copy of it with its own bounds, its firstprivate data copied by task_dup (which also sets
// the lastprivate flag of the last one); the pattern itself never runs. The split follows
// libomp: no clause gives ten tasks per team thread, grainsize g tasks of g to 2g - 1
// iterations (exactly g with strict, the last one shorter), num_tasks n that many.
namespace {
void taskloop(kmp_int32 gtid, kmp_task* pattern, int if_val, const kmp_uint64* lb, const kmp_uint64* ub, kmp_int64 st,
              int nogroup, int sched, kmp_uint64 grainsize, int modifier, void* task_dup) {
  thread_state& ts = self();
  block& pb = *block_of(pattern);
  taskgroup* g = nogroup == 0 ? taskgroup_start(ts) : nullptr;
  const kmp_uint64 lower = *lb, upper = *ub;
  kmp_uint64 tc;
  if (st == 1)
    tc = upper - lower + 1;
  else if (st < 0)
    tc = (lower - upper) / (kmp_uint64{0} - static_cast<kmp_uint64>(st)) + 1;
  else if (st > 0)
    tc = (upper - lower) / static_cast<kmp_uint64>(st) + 1;
  else
    fatal("a taskloop with a zero increment");
  kmp_uint64 num_tasks = 0, extras = 0, last_chunk = 0;
  bool shorter_last = false;
  if (tc != 0) {
    switch (sched) {
      case 0:  // no clause
        grainsize = static_cast<kmp_uint64>(ts.cur_team->nthreads) * 10;
        [[fallthrough]];
      case 2:  // num_tasks(grainsize)
        if (grainsize == 0) grainsize = 1;
        num_tasks = grainsize > tc ? tc : grainsize;
        grainsize = tc / num_tasks;
        extras = tc % num_tasks;
        break;
      case 1:  // grainsize(grainsize)
        if (grainsize == 0) grainsize = 1;
        if (grainsize > tc) {
          num_tasks = 1;
          grainsize = tc;
        } else if (modifier != 0) {  // strict: exact grainsize, a shorter last task
          num_tasks = (tc + grainsize - 1) / grainsize;
          last_chunk = num_tasks * grainsize - tc;
          shorter_last = last_chunk != 0;
        } else {
          num_tasks = tc / grainsize;
          grainsize = tc / num_tasks;
          extras = tc % num_tasks;
        }
        break;
      default:
        fatal("__kmpc_taskloop: unknown schedule");
    }
  }
  const std::size_t lb_at = reinterpret_cast<const char*>(lb) - reinterpret_cast<const char*>(pattern);
  const std::size_t ub_at = reinterpret_cast<const char*>(ub) - reinterpret_cast<const char*>(pattern);
  const std::size_t shareds_at =
      pattern->shareds != nullptr
          ? static_cast<std::size_t>(static_cast<char*>(pattern->shareds) - reinterpret_cast<char*>(pattern))
          : 0;
  auto dup = reinterpret_cast<void (*)(kmp_task*, kmp_task*, kmp_int32)>(task_dup);
  kmp_uint64 lo = lower;
  for (kmp_uint64 i = 0; i < num_tasks; ++i) {
    kmp_uint64 n = grainsize + (i < extras ? 1 : 0);
    if (shorter_last && i + 1 == num_tasks) n -= last_chunk;
    const kmp_uint64 hi = lo + (n - 1) * static_cast<kmp_uint64>(st);
    block* b = make_block(pb.x.bytes, pb.x.flags);
    b->x.hidden = pb.x.hidden;  // [P-OMP KMPC K18]
    kmp_task* kt = task_of(b);
    std::memcpy(kt, pattern, pb.x.bytes);
    if (pattern->shareds != nullptr) kt->shareds = reinterpret_cast<char*>(kt) + shareds_at;
    std::memcpy(reinterpret_cast<char*>(kt) + lb_at, &lo, sizeof lo);
    std::memcpy(reinterpret_cast<char*>(kt) + ub_at, &hi, sizeof hi);
    init_child(ts, &b->core, (pb.x.flags & k_task_final) != 0);
    if (dup != nullptr) dup(kt, pattern, i + 1 == num_tasks ? 1 : 0);
    submit(ts, *b, if_val != 0, nullptr);
    lo = hi + static_cast<kmp_uint64>(st);
  }
  discard(pb, gtid);
  if (g != nullptr) {
    taskgroup_wait(ts, *g);
    if (g->kmpc_red != nullptr) taskred_fini(ts, *g);
    taskgroup_pop(ts, g);
  }
}
}  // namespace

FORKJOIN_OMP_EXPORT void __kmpc_taskloop(ident*, kmp_int32 gtid, kmp_task* pattern, int if_val, kmp_uint64* lb,
                                         kmp_uint64* ub, kmp_int64 st, int nogroup, int sched, kmp_uint64 grainsize,
                                         void* task_dup) {
  taskloop(gtid, pattern, if_val, lb, ub, st, nogroup, sched, grainsize, 0, task_dup);
}
FORKJOIN_OMP_EXPORT void __kmpc_taskloop_5(ident*, kmp_int32 gtid, kmp_task* pattern, int if_val, kmp_uint64* lb,
                                           kmp_uint64* ub, kmp_int64 st, int nogroup, int sched, kmp_uint64 grainsize,
                                           int modifier, void* task_dup) {
  taskloop(gtid, pattern, if_val, lb, ub, st, nogroup, sched, grainsize, modifier, task_dup);
}

// Proxy tasks (libomptarget's target nowait on devices) and the pre-OpenMP 4 task parts API:
// not provided; a call stops the program instead of running wrong.
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_omp_task_parts(ident*, kmp_int32, kmp_task*) {
  unsupported("__kmpc_omp_task_parts");
}
FORKJOIN_OMP_EXPORT void __kmpc_proxy_task_completed(kmp_int32, kmp_task*) {
  unsupported("__kmpc_proxy_task_completed");
}
FORKJOIN_OMP_EXPORT void __kmpc_proxy_task_completed_ooo(kmp_task*) { unsupported("__kmpc_proxy_task_completed_ooo"); }
FORKJOIN_OMP_EXPORT int __kmpc_invoke_task_func(int) { unsupported("__kmpc_invoke_task_func"); }
