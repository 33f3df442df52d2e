// depend.cpp: task dependences between sibling tasks (depend in/out/inout/mutexinoutset,
// omp_all_memory, both depend-array formats and depobj). [P-OMP Depend]
#include <unordered_map>
#include <vector>

#include "internal.hpp"
#include "lock.hpp"

namespace forkjoin::omp {

// Per address: the last sibling that wrote it and the siblings that read it since. Each
// recorded task holds a reference, so the pointers stay valid after the task finished.
struct dep_record {
  task* last_out = nullptr;
  std::vector<task*> readers;
};
struct dep_map {
  std::unordered_map<void*, dep_record> by_address;
  task* all = nullptr;  // [P-OMP Depend D4] the last sibling with depend(inout: omp_all_memory)
};

namespace {

void hold(task* t) {
  t->refs.fetch_add(1, std::memory_order_relaxed);
  t->dep_recorded = true;  // before t is published: its finish releases its successors
}

// [P-OMP Depend D1] an edge pred -> succ, unless pred has already finished.
void add_edge(task* pred, task* succ) {
  if (pred == succ) return;
  mutex_lock(&pred->dep_lock);
  if (!pred->dep_done) {
    if (pred->successors == nullptr) pred->successors = new std::vector<task*>;
    pred->successors->push_back(succ);
    succ->npred.fetch_add(1, std::memory_order_relaxed);  // succ is not visible yet
  }
  mutex_unlock(&pred->dep_lock);
}

void depend_on(dep_map& m, task* t, void* addr, bool out, bool record) {
  dep_record& r = m.by_address[addr];
  if (r.last_out != nullptr) add_edge(r.last_out, t);
  if (out) {
    for (task* reader : r.readers) add_edge(reader, t);
    if (!record) return;
    for (task* reader : r.readers) release_task(reader);  // t itself stays alive: it is not published yet
    r.readers.clear();
    if (r.last_out != nullptr && r.last_out != t) release_task(r.last_out);
    if (r.last_out != t) {
      hold(t);
      r.last_out = t;
    }
  } else if (record && r.last_out != t) {
    hold(t);
    r.readers.push_back(t);
  }
}
}  // namespace

namespace {
// The entries of a depend array: the address and whether the task writes it. A null address
// written is omp_all_memory (gcc 13 passes it so; the KMPC front-end translates libomp's flag).
template <class Visit>
void for_each_dependence(void** depend, Visit visit) {
  auto word = [&](std::size_t i) { return reinterpret_cast<std::uintptr_t>(depend[i]); };
  if (word(0) != 0) {
    const std::size_t n = word(0), nout = word(1);
    for (std::size_t i = 0; i < n; ++i) visit(depend[2 + i], i < nout);
    return;
  }
  const std::size_t n = word(1), nout = word(2), nmutex = word(3), nin = word(4);
  for (std::size_t i = 0; i < n; ++i) {
    if (i < nout + nmutex + nin) {
      visit(depend[5 + i], i < nout + nmutex);
    } else {
      auto* obj = static_cast<void**>(depend[5 + i]);
      const auto kind = reinterpret_cast<std::uintptr_t>(obj[1]);
      visit(obj[0], kind != 1);
    }
  }
}

// [P-OMP Depend D4] t depends on every recorded sibling; recorded, it replaces them all.
void depend_on_all(dep_map& m, task* t, bool record) {
  for (auto& [addr, r] : m.by_address) {
    if (r.last_out != nullptr) add_edge(r.last_out, t);
    for (task* reader : r.readers) add_edge(reader, t);
  }
  if (m.all != nullptr) add_edge(m.all, t);
  if (!record) return;
  for (auto& [addr, r] : m.by_address) {
    if (r.last_out != nullptr) release_task(r.last_out);
    for (task* reader : r.readers) release_task(reader);
  }
  m.by_address.clear();
  if (m.all != nullptr) release_task(m.all);
  hold(t);
  m.all = t;
}
}  // namespace

// depend arrays: old format [n, nout, out addresses..., in addresses...]; new format (gcc uses
// it when there is a mutexinoutset or a depobj) [0, n, nout, nmutexinoutset, nin, addresses...,
// depobj pointers...], where a depobj points to {address, kind}: 1 in, 2 out, 3 inout,
// 4 mutexinoutset. mutexinoutset is ordered like inout here: stricter, and still exclusive.
void add_dependences(task* parent, task* t, void** depend, bool record) {
  if (parent->deps == nullptr) parent->deps = new dep_map;
  dep_map& m = *parent->deps;
  bool all = false;
  for_each_dependence(depend, [&](void* addr, bool out) { all = all || (addr == nullptr && out); });
  if (all) {
    depend_on_all(m, t, record);
    return;
  }
  // [P-OMP Depend D4] after an omp_all_memory sibling, every sibling with a dependence waits for it
  if (m.all != nullptr) add_edge(m.all, t);
  for_each_dependence(depend, [&](void* addr, bool out) { depend_on(m, t, addr, out, record); });
}

void release_successors(thread_state& ts, task* t) noexcept {
  mutex_lock(&t->dep_lock);
  t->dep_done = true;
  std::vector<task*>* succ = t->successors;
  t->successors = nullptr;
  mutex_unlock(&t->dep_lock);
  if (succ == nullptr) return;
  for (task* s : *succ)
    if (s->npred.fetch_sub(1, std::memory_order_acq_rel) == 1)  // [P-OMP Depend D2] pairs with D3 and other D2s
      push_ready(ts, s);
  delete succ;
}

void clear_dependences_of(task* t) noexcept {
  dep_map* m = t->deps;
  t->deps = nullptr;
  for (auto& [addr, r] : m->by_address) {
    if (r.last_out != nullptr) release_task(r.last_out);
    for (task* reader : r.readers) release_task(reader);
  }
  if (m->all != nullptr) release_task(m->all);
  delete m;
}

}  // namespace forkjoin::omp
