// reduction.cpp: task reductions: taskgroup task_reduction with in_reduction tasks, taskloop
// reduction and parallel reduction(task, ...). gcc describes the variables in an array of
// words and combines the per-thread copies itself; the runtime allocates the copies and maps
// an original address to the running thread's copy. Protocol: [P-OMP Reduce].
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "internal.hpp"

namespace forkjoin::omp {
namespace {
// The descriptor's words (gcc 12): d[7 + 3i] is item i, {original address, offset in a
// thread's chunk, the runtime's back-pointer to d}.
constexpr std::size_t k_count = 0;  // items in this descriptor
constexpr std::size_t k_chunk = 1;  // bytes of one thread's copies
constexpr std::size_t k_base = 2;   // alignment on input, the copies' base once registered
constexpr std::size_t k_next = 4;   // next descriptor of the same clause list, then the enclosing one
constexpr std::size_t k_map = 5;    // head only: original address -> item
constexpr std::size_t k_end = 6;    // base + chunk * nthreads
constexpr std::size_t k_items = 7;

using word = std::uintptr_t;
using item_map = std::unordered_map<word, word*>;

word* next_of(const word* d) noexcept { return reinterpret_cast<word*>(d[k_next]); }
word* item(word* d, std::size_t i) noexcept { return d + k_items + 3 * i; }

[[noreturn]] void no_match() noexcept {
  fatal("in_reduction of a variable that no enclosing task_reduction or reduction(task, ...) lists");
}
}  // namespace

// [P-OMP Reduce R1] allocates every descriptor's copies (zeroed: gcc initialises them) and
// links the list's last descriptor to the enclosing one; the head's map holds the items of
// this list and of every enclosing one.
void register_reductions(word* data, word* outer, unsigned nthreads) {
  auto* map = new item_map;
  if (outer != nullptr) *map = *reinterpret_cast<const item_map*>(outer[k_map]);
  for (word* d = data;; d = next_of(d)) {
    const std::size_t align = d[k_base] < alignof(std::max_align_t) ? alignof(std::max_align_t) : d[k_base];
    const std::size_t size = d[k_chunk] * nthreads;
    const std::size_t rounded = size == 0 ? align : (size + align - 1) / align * align;
    void* copies = std::aligned_alloc(align, rounded);
    if (copies == nullptr) fatal("out of memory allocating task reduction copies");
    std::memset(copies, 0, rounded);
    d[k_base] = reinterpret_cast<word>(copies);
    d[k_end] = d[k_base] + size;
    d[k_map] = 0;
    for (std::size_t i = 0; i < d[k_count]; ++i) {
      word* it = item(d, i);
      it[2] = reinterpret_cast<word>(d);
      (*map)[it[0]] = it;  // an inner list's item hides an outer one for the same variable
    }
    if (d[k_next] == 0) {
      d[k_next] = reinterpret_cast<word>(outer);
      break;
    }
  }
  data[k_map] = reinterpret_cast<word>(map);
}

// ---- reduction(task, ...) on worksharing constructs ([P-OMP Reduce R5]) ------------------

// The copies of one worksharing construct's clause list, shared by the team's threads,
// each of which describes the same list in its own descriptors.
struct ws_reduction {
  std::atomic<unsigned> users{0};             // threads that have not unregistered
  std::vector<std::pair<word, word>> ranges;  // each descriptor's copies, [base, end)
};

namespace {
// A thread other than the creator: its own descriptors (same shape as the creator's) point at
// the creator's copies, its map at its own items, then the enclosing list's.
void view_reductions(word* data, word* outer, const ws_reduction& rec) {
  auto* map = new item_map;
  if (outer != nullptr) *map = *reinterpret_cast<const item_map*>(outer[k_map]);
  std::size_t k = 0;
  for (word* d = data;; d = next_of(d), ++k) {
    if (k == rec.ranges.size()) fatal("reduction(task, ...) clauses differ between the team's threads");
    d[k_base] = rec.ranges[k].first;
    d[k_end] = rec.ranges[k].second;
    d[k_map] = 0;
    for (std::size_t i = 0; i < d[k_count]; ++i) {
      word* it = item(d, i);
      it[2] = reinterpret_cast<word>(d);
      (*map)[it[0]] = it;
    }
    if (d[k_next] == 0) {
      d[k_next] = reinterpret_cast<word>(outer);
      break;
    }
  }
  data[k_map] = reinterpret_cast<word>(map);
}
}  // namespace

void ws_reductions_enter(thread_state& ts, work_share& w, word* data, bool creator) {
  // this thread's workshare taskgroup: the tasks of its part of the construct
  auto* g = new taskgroup;
  g->pending.owner = &ts;
  g->prev = ts.cur_task->current_group;
  word* outer = g->prev != nullptr ? g->prev->reductions : nullptr;
  if (creator) {
    // [P-OMP Reduce R5] the creator allocates the copies before W2 publishes the work share
    register_reductions(data, outer, ts.cur_team->nthreads);
    auto* rec = new ws_reduction;
    rec->users.store(ts.cur_team->nthreads, std::memory_order_relaxed);  // published by W2
    for (word* d = data;; d = next_of(d)) {
      rec->ranges.emplace_back(d[k_base], d[k_end]);
      if (next_of(d) == outer) break;
    }
    w.task_red = rec;
  } else {
    view_reductions(data, outer, *w.task_red);  // after W2's acquire
  }
  g->reductions = data;
  g->ws_red = w.task_red;
  g->workshare = true;
  ts.cur_task->current_group = g;
}

// [P-OMP Reduce R5] after the construct (and, on thread 0, after the compiler combined the
// copies): ends this thread's workshare taskgroup, waits for the team unless cancelled, and
// the last thread frees the copies.
void workshare_task_reduction_unregister(bool cancelled) {
  thread_state& ts = self();
  taskgroup* g = ts.cur_task->current_group;
  if (g == nullptr || g->ws_red == nullptr) fatal("GOMP_workshare_task_reduction_unregister outside its construct");
  wait_descendants(ts, g->pending);
  ts.cur_task->current_group = g->prev;
  ws_reduction* rec = g->ws_red;
  delete reinterpret_cast<item_map*>(g->reductions[k_map]);
  delete g;
  if (!cancelled) barrier(ts);
  if (rec->users.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // [P-OMP Reduce R5] pairs with the others' R5
    for (const auto& r : rec->ranges) std::free(reinterpret_cast<void*>(r.first));
    delete rec;
  }
}

// scope reduction(task, ...): a work share only to meet the team's other threads
void scope_start(std::uintptr_t* reductions) {
  if (reductions == nullptr) return;
  thread_state& ts = self();
  const bool creator = ws_enter(ts);
  ws_publish_extras(ts, creator, reductions, nullptr);
  ws_leave(ts);
}

void taskgroup_reduction_register(std::uintptr_t* data) {
  thread_state& ts = self();
  taskgroup* g = ts.cur_task->current_group;
  if (g == nullptr) fatal("task_reduction outside a taskgroup");
  // [P-OMP Reduce R2] registered before any task of the group exists: the pushes publish it
  register_reductions(data, g->reductions, ts.cur_team->nthreads);
  g->reductions = data;
}

// The compiler calls it once the taskgroup ended and it combined the copies.
void taskgroup_reduction_unregister(std::uintptr_t* data) {
  delete reinterpret_cast<item_map*>(data[k_map]);
  // this list's descriptors, up to the enclosing list's head (the one with a map)
  word* d = data;
  do {
    std::free(reinterpret_cast<void*>(d[k_base]));
    d = next_of(d);
  } while (d != nullptr && d[k_map] == 0);
}

// [P-OMP Reduce R3] ptrs[i] (an original address, or an address inside some thread's copy)
// becomes the running thread's copy: base + team id * chunk + offset. For i < cntorig,
// ptrs[cnt + i] receives the original address.
void task_reduction_remap(std::size_t cnt, std::size_t cntorig, void** ptrs) {
  thread_state& ts = self();
  taskgroup* g = ts.cur_task->current_group;
  word* data = g != nullptr ? g->reductions : nullptr;
  if (data == nullptr) no_match();
  const word id = ts.id;
  const auto& map = *reinterpret_cast<const item_map*>(data[k_map]);
  for (std::size_t i = 0; i < cnt; ++i) {
    const word p = reinterpret_cast<word>(ptrs[i]);
    if (auto found = map.find(p); found != map.end()) {
      const word* it = found->second;
      const word* d = reinterpret_cast<const word*>(it[2]);
      ptrs[i] = reinterpret_cast<void*>(d[k_base] + id * d[k_chunk] + it[1]);
      if (i < cntorig) ptrs[cnt + i] = reinterpret_cast<void*>(it[0]);
      continue;
    }
    word* d = data;
    while (d != nullptr && !(p >= d[k_base] && p < d[k_end])) d = next_of(d);
    if (d == nullptr || d[k_chunk] == 0) no_match();
    const word off = (p - d[k_base]) % d[k_chunk];
    ptrs[i] = reinterpret_cast<void*>(d[k_base] + id * d[k_chunk] + off);
    if (i < cntorig) {
      std::size_t k = 0;
      while (k < d[k_count] && item(d, k)[1] != off) ++k;
      if (k == d[k_count]) no_match();
      ptrs[cnt + i] = reinterpret_cast<void*>(item(d, k)[0]);
    }
  }
}

}  // namespace forkjoin::omp
