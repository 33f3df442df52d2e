// task_deps.cpp: the dependency bookkeeping of one task_group: a map from an object's
// address to its unfinished last writer and the unfinished readers since, successor lists
// and predecessor counts, all under one mutex per group. Only dependent children come here.
// Protocol: forkjoin/DESIGN.md [P-DEPS].
#include "forkjoin/detail/task_deps.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "forkjoin/task_group.hpp"
#include "pool_impl.hpp"

namespace forkjoin::detail {

namespace {
constexpr std::uint32_t k_not_listed = std::numeric_limits<std::uint32_t>::max();

struct key_state {
  dep_node* writer = nullptr;  // the last out/inout, while unfinished
  // The in-nodes since that writer, while unfinished: (node, index of the key in node->deps).
  std::vector<std::pair<dep_node*, std::uint32_t>> readers;
};

// Room for one more element without reallocating in the no-throw part of register_node.
template <class T>
void make_room(std::vector<T>& v) {
  if (v.size() == v.capacity()) v.reserve(std::max<std::size_t>(4, 2 * v.capacity()));
}
}  // namespace

class task_deps {
 public:
  std::mutex mutex;
  std::unordered_map<const void*, key_state> keys;  // only keys with an unfinished node
};

task_deps& task_deps_of(std::atomic<task_deps*>& slot) {
  task_deps* d = slot.load(std::memory_order_acquire);  // [P-DEPS Create] pairs with the CAS
  if (d != nullptr) return *d;
  auto fresh = std::make_unique<task_deps>();
  if (slot.compare_exchange_strong(d, fresh.get(), std::memory_order_acq_rel,
                                   std::memory_order_acquire))  // [P-DEPS Create] pairs with the load above
    return *fresh.release();
  return *d;
}

void destroy_task_deps(task_deps* d) noexcept { delete d; }

bool register_node(task_deps& d, dep_node& n) {
  // A key given twice counts once, with the union of its modes.
  std::sort(n.deps.begin(), n.deps.end(),
            [](const dep_node::slot& a, const dep_node::slot& b) { return std::less<const void*>{}(a.key, b.key); });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n.deps.size(); ++i) {
    if (kept > 0 && n.deps[kept - 1].key == n.deps[i].key) {
      n.deps[kept - 1].mode = static_cast<dependency::access>(static_cast<unsigned>(n.deps[kept - 1].mode) |
                                                              static_cast<unsigned>(n.deps[i].mode));
    } else {
      n.deps[kept++] = n.deps[i];
    }
  }
  n.deps.resize(kept);

  std::lock_guard<std::mutex> lock(d.mutex);  // [P-DEPS R1]
  // R1: everything that can throw (map entries, room in every list this node joins).
  try {
    for (const dep_node::slot& s : n.deps) {
      key_state& k = d.keys[s.key];
      if (k.writer != nullptr) make_room(k.writer->successors);
      if (s.mode == dependency::access::in) {
        make_room(k.readers);
      } else {
        for (auto& r : k.readers) make_room(r.first->successors);
      }
    }
  } catch (...) {
    for (const dep_node::slot& s : n.deps) {
      auto it = d.keys.find(s.key);
      if (it != d.keys.end() && it->second.writer == nullptr && it->second.readers.empty()) d.keys.erase(it);
    }
    throw;
  }
  // R2: link behind the unfinished predecessors; nothing below allocates. A predecessor
  // found through two keys gets one edge: this node's edges are added together, so a
  // repeat is the last successor of that predecessor.
  auto link = [&n](dep_node* p) {
    if (p->successors.empty() || p->successors.back() != &n) {
      p->successors.push_back(&n);
      ++n.pending;
    }
  };
  for (std::uint32_t i = 0; i < n.deps.size(); ++i) {
    dep_node::slot& s = n.deps[i];
    key_state& k = d.keys.find(s.key)->second;
    if (k.writer != nullptr) link(k.writer);
    if (s.mode == dependency::access::in) {
      s.reader_pos = static_cast<std::uint32_t>(k.readers.size());
      k.readers.emplace_back(&n, i);
    } else {
      for (auto& [r, slot] : k.readers) {
        link(r);
        r->deps[slot].reader_pos = k_not_listed;
      }
      k.readers.clear();
      k.writer = &n;
    }
  }
  // R3: drop the registration's own count; 0 means every predecessor had finished.
  return --n.pending == 0;
}

std::size_t finish_node(task_deps& d, dep_node& n) noexcept {
  std::lock_guard<std::mutex> lock(d.mutex);  // [P-DEPS F1]
  for (const dep_node::slot& s : n.deps) {
    auto it = d.keys.find(s.key);
    if (it == d.keys.end()) continue;
    key_state& k = it->second;
    if (s.mode == dependency::access::in) {
      if (s.reader_pos != k_not_listed) {
        auto last = k.readers.back();
        k.readers[s.reader_pos] = last;
        last.first->deps[last.second].reader_pos = s.reader_pos;
        k.readers.pop_back();
      }
    } else if (k.writer == &n) {
      k.writer = nullptr;
    }
    if (k.writer == nullptr && k.readers.empty()) d.keys.erase(it);
  }
  std::size_t ready = 0;
  for (std::size_t i = 0; i < n.successors.size(); ++i) {
    if (--n.successors[i]->pending == 0) std::swap(n.successors[ready++], n.successors[i]);
  }
  return ready;
}

void push_ready(pool_impl& p, job_header* j) noexcept {
  worker* w = tls_worker;
  if (w != nullptr && w->pool_ == &p) {
    try {
      w->deque_.push_private(j);  // published at once, as every task_group child
      on_new_internal_work(*w);
      return;
    } catch (...) {  // the deque could not grow: the injector cannot fail
    }
  }
  inject_job(p, j);
}

}  // namespace forkjoin::detail
