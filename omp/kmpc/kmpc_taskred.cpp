// kmpc_taskred.cpp: KMPC task reductions: taskgroup task_reduction with in_reduction tasks
// (taskloop reduction too), and reduction(task, ...) on parallel and worksharing constructs
// (the "modifier" forms). Unlike gcc, the compiler leaves the per-thread copies to the runtime:
// it allocates and initialises them, maps an item to the running thread's copy, and combines
// them when the taskgroup ends. [P-OMP KMPC K12]
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kmpc.hpp"

namespace forkjoin::omp::kmpc {
namespace {

// The compiler's descriptions of an item: the current form (with the original, for
// initialisers that read omp_orig) and the older one.
struct taskred_input {
  void* shar;
  void* orig;
  std::size_t size;
  void* init;  // init(priv, orig)
  void* fini;  // fini(priv)
  void* comb;  // comb(lhs, rhs): lhs op= rhs
  unsigned flags;
};
struct task_red_input {
  void* shar;
  std::size_t size;
  void* init;  // init(priv)
  void* fini;
  void* comb;
  unsigned flags;
};
constexpr unsigned k_lazy = 1;  // copies allocated on first use (big items, few tasks)

struct item {
  void* shar = nullptr;  // the item the copies combine into (this thread's, in a modifier form)
  void* orig = nullptr;  // omp_orig for a two-argument initialiser, else null
  std::size_t size = 0;  // bytes per thread's copy, rounded up to a cache line
  bool lazy = false;
  void* priv = nullptr;  // nthreads copies, or (lazy) nthreads pointers to copies
  void* pend = nullptr;  // end of the copies
  void* init = nullptr;
  void* fini = nullptr;
  void* comb = nullptr;
};

struct team_copies;

// What a taskgroup holds (taskgroup::kmpc_red).
struct reduction_set {
  unsigned nthreads = 1;
  std::vector<item> items;
  team_copies* team = nullptr;  // a modifier form: the copies every thread of the team shares
};

// [P-OMP KMPC K12] a modifier form's copies, made by the creator of a work share that every
// thread of the team enters; the last thread to end its taskgroup combines them.
struct team_copies {
  std::vector<item> items;
  std::atomic<unsigned> left{0};
  work_share* slot = nullptr;
};

void call_init(const item& it, void* copy) {
  if (it.init == nullptr) return;
  if (it.orig != nullptr)
    reinterpret_cast<void (*)(void*, void*)>(it.init)(copy, it.orig);
  else
    reinterpret_cast<void (*)(void*)>(it.init)(copy);
}

template <class In>
item describe(const In& in) {
  item it;
  it.shar = in.shar;
  if constexpr (std::is_same_v<In, taskred_input>) it.orig = in.orig != nullptr ? in.orig : in.shar;
  if (in.comb == nullptr) fatal("a task reduction without a combiner");
  const std::size_t line = forkjoin::detail::k_cache_line;
  it.size = in.size == 0 ? line : (in.size + line - 1) / line * line;
  it.lazy = (in.flags & k_lazy) != 0;
  it.init = in.init;
  it.fini = in.fini;
  it.comb = in.comb;
  return it;
}

// Allocates (zeroed, a cache line per thread) and initialises the copies of `it`.
void make_copies(item& it, unsigned nthreads) {
  const std::size_t line = forkjoin::detail::k_cache_line;
  const std::size_t bytes = it.lazy ? nthreads * sizeof(void*) : nthreads * it.size;
  it.priv = std::aligned_alloc(line, (bytes + line - 1) / line * line);
  if (it.priv == nullptr) fatal("out of memory allocating task reduction copies");
  std::memset(it.priv, 0, bytes);
  it.pend = static_cast<char*>(it.priv) + bytes;
  if (!it.lazy)
    for (unsigned j = 0; j < nthreads; ++j) call_init(it, static_cast<char*>(it.priv) + j * it.size);
}

// Combines every copy into it.shar, finalises and frees them.
void combine(item& it, unsigned nthreads) {
  auto comb = reinterpret_cast<void (*)(void*, void*)>(it.comb);
  auto fini = reinterpret_cast<void (*)(void*)>(it.fini);
  for (unsigned j = 0; j < nthreads; ++j) {
    void* copy = it.lazy ? static_cast<void**>(it.priv)[j] : static_cast<char*>(it.priv) + j * it.size;
    if (copy == nullptr) continue;  // a lazy copy never asked for
    comb(it.shar, copy);
    if (fini != nullptr) fini(copy);
    if (it.lazy) std::free(copy);
  }
  std::free(it.priv);
}

template <class In>
void* reduction_init(int num, const In* data) {
  thread_state& ts = self();
  taskgroup* g = ts.cur_task->current_group;
  if (g == nullptr) fatal("task_reduction outside a taskgroup");
  const unsigned nth = ts.cur_team->nthreads;
  if (nth == 1 || num <= 0) return g;  // a team of one: tasks update the items themselves
  auto* set = static_cast<reduction_set*>(g->kmpc_red);
  if (set == nullptr) g->kmpc_red = set = new reduction_set;
  set->nthreads = nth;
  for (int i = 0; i < num; ++i) {
    item it = describe(data[i]);
    make_copies(it, nth);
    set->items.push_back(it);
  }
  return g;
}

template <class In>
void* modifier_init(int num, const In* data) {
  thread_state& ts = self();
  taskgroup* g = taskgroup_start(ts);
  g->workshare = true;  // [P-OMP Cancel K3] cancel taskgroup passes it by
  const unsigned nth = ts.cur_team->nthreads;
  if (nth == 1 || num <= 0) return g;
  // every thread of the team reaches the construct: a work share matches their encounters
  const bool creator = ws_enter(ts);
  work_share& w = *ts.cur_ws;
  team_copies* shared;
  if (creator) {
    ws_publish(ts);
    shared = new team_copies;
    for (int i = 0; i < num; ++i) {
      item it = describe(data[i]);
      make_copies(it, nth);
      shared->items.push_back(it);
    }
    shared->left.store(nth, std::memory_order_relaxed);
    shared->slot = &w;
    w.copy_data.store(shared, std::memory_order_relaxed);
    w.copy_ready.store(1, std::memory_order_release);  // [P-OMP WS CP1] publishes the copies
    ts.cur_team->wakeup.notify();
  } else {
    ts.cur_team->wakeup.wait_until([&] { return w.copy_ready.load(std::memory_order_acquire) != 0; },  // pairs with CP1
                                   [] { return false; });
    shared = static_cast<team_copies*>(w.copy_data.load(std::memory_order_relaxed));
  }
  ts.cur_ws = nullptr;  // left at the taskgroup's end; the construct's own work share comes next
  auto* set = new reduction_set;
  set->nthreads = nth;
  set->team = shared;
  set->items = shared->items;  // the same copies, combined into this thread's own items
  for (int i = 0; i < num && static_cast<std::size_t>(i) < set->items.size(); ++i) {
    set->items[static_cast<std::size_t>(i)].shar = data[i].shar;
    if constexpr (std::is_same_v<In, taskred_input>)
      set->items[static_cast<std::size_t>(i)].orig = data[i].orig != nullptr ? data[i].orig : data[i].shar;
  }
  g->kmpc_red = set;
  return g;
}

}  // namespace

// [P-OMP KMPC K12] at the end of a taskgroup (its tasks finished): combine its copies into the
// items; a modifier form's thread counts itself out, and the last one combines the team's
// copies into its own items (which the construct's ordinary reduction then combines).
void taskred_fini(thread_state& ts, taskgroup& g) {
  auto* set = static_cast<reduction_set*>(g.kmpc_red);
  g.kmpc_red = nullptr;
  if (set->team == nullptr) {
    for (item& it : set->items) combine(it, set->nthreads);
  } else {
    team_copies* shared = set->team;
    work_share* slot = shared->slot;  // read before the count: the last thread frees `shared`
    if (shared->left.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // pairs with the others' decrements
      for (item& it : set->items) combine(it, set->nthreads);
      delete shared;
    }
    ws_leave_slot(ts, *slot);
  }
  delete set;
}

}  // namespace forkjoin::omp::kmpc

using namespace forkjoin::omp;
using namespace forkjoin::omp::kmpc;

FORKJOIN_OMP_EXPORT void* __kmpc_taskred_init(int, int num, void* data) {
  return reduction_init(num, static_cast<const taskred_input*>(data));
}
FORKJOIN_OMP_EXPORT void* __kmpc_task_reduction_init(int, int num, void* data) {
  return reduction_init(num, static_cast<const task_red_input*>(data));
}
FORKJOIN_OMP_EXPORT void* __kmpc_taskred_modifier_init(ident*, int, int, int num, void* data) {
  return modifier_init(num, static_cast<const taskred_input*>(data));
}
FORKJOIN_OMP_EXPORT void* __kmpc_task_reduction_modifier_init(ident*, int, int, int num, void* data) {
  return modifier_init(num, static_cast<const task_red_input*>(data));
}
FORKJOIN_OMP_EXPORT void __kmpc_task_reduction_modifier_fini(ident*, int, int) {
  thread_state& ts = self();
  taskgroup* g = ts.cur_task->current_group;
  taskgroup_wait(ts, *g);
  if (g->kmpc_red != nullptr) taskred_fini(ts, *g);
  taskgroup_pop(ts, g);
}

// The running thread's copy of the item at `data` (its original, or any thread's copy), in the
// taskgroup `tg` (null: the current task's innermost one) or an enclosing one.
FORKJOIN_OMP_EXPORT void* __kmpc_task_reduction_get_th_data(int, void* tg, void* data) {
  thread_state& ts = self();
  if (ts.cur_team->nthreads == 1) return data;
  const std::size_t id = ts.id;
  for (auto* g = tg != nullptr ? static_cast<taskgroup*>(tg) : ts.cur_task->current_group; g != nullptr; g = g->prev) {
    auto* set = static_cast<reduction_set*>(g->kmpc_red);
    if (set == nullptr) continue;
    for (item& it : set->items) {
      if (!it.lazy) {
        if (data == it.shar || (data >= it.priv && data < it.pend)) return static_cast<char*>(it.priv) + id * it.size;
        continue;
      }
      // a slot is written only by its thread; others compare against it (relaxed: a pointer
      // a task holds reached it through that task's creation), and the taskgroup's end reads
      // them after its wait (C3)
      auto copy_of = [&](std::size_t j) { return std::atomic_ref<void*>(static_cast<void**>(it.priv)[j]); };
      bool found = data == it.shar;
      for (unsigned j = 0; !found && j < set->nthreads; ++j) found = data == copy_of(j).load(std::memory_order_relaxed);
      if (!found) continue;
      void* mine = copy_of(id).load(std::memory_order_relaxed);
      if (mine == nullptr) {
        mine = std::aligned_alloc(forkjoin::detail::k_cache_line, it.size);
        if (mine == nullptr) fatal("out of memory allocating a task reduction copy");
        std::memset(mine, 0, it.size);
        call_init(it, mine);
        copy_of(id).store(mine, std::memory_order_relaxed);
      }
      return mine;
    }
  }
  fatal("in_reduction of a variable that no enclosing task_reduction or reduction(task, ...) lists");
}
