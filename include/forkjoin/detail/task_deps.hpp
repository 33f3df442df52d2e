// task_deps.hpp: task dependencies between the children of one task_group (OpenMP's
// `task depend`): in(x), out(x), inout(x) before the callable of task_group::run. A
// dependent child is a dep_job: the callable plus a dep_node with one dep_slot per distinct
// address. The group's task_deps (compiled in forkjoin/task_deps.cpp) maps each address to
// its last writer and the open group of readers since; only threads that register children
// touch it. A finishing child touches nothing but its own node, its reader groups and its
// successors, through atomics: no lock is shared with the threads that finish children.
// Protocol: forkjoin/DESIGN.md [P-DEPS].
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "forkjoin/detail/job.hpp"

namespace forkjoin {

/// One dependency of a task_group child: the object's address and whether the child reads
/// it (in), writes it (out) or both (inout). Made by in(), out() and inout().
struct dependency {
  enum class access : std::uint8_t { in = 1, out = 2, inout = 3 };
  const void* key;
  access mode;
};

/// The child reads x: it runs after the last earlier sibling that writes x has finished.
template <class T>
dependency in(const T& x) noexcept {
  return {static_cast<const void*>(std::addressof(x)), dependency::access::in};
}
/// The child writes x: it runs after every earlier sibling that reads or writes x.
template <class T>
dependency out(const T& x) noexcept {
  return {static_cast<const void*>(std::addressof(x)), dependency::access::out};
}
/// The child reads and writes x: ordered as out(x).
template <class T>
dependency inout(const T& x) noexcept {
  return {static_cast<const void*>(std::addressof(x)), dependency::access::inout};
}

class task_group;

namespace detail {

class pool_impl;
class task_deps;
class count_latch;
struct dep_node;

// One distinct address of a dependent child [P-DEPS R2]. Written by the registering thread
// before the node can run; read by the threads that finish it and its predecessors.
struct dep_slot {
  const void* key;
  dependency::access mode;
  // As the leader of a reader group (the first `in` of the address after its last writer):
  // unfinished members + 1 while the group is open, i.e. until a writer closes it.
  std::atomic<std::uint32_t> readers{0};
  dep_node* owner = nullptr;      // the node this slot belongs to
  dep_slot* next_edge = nullptr;  // this slot as an edge in its predecessor's successor stack
  dep_slot* group = nullptr;      // mode in: the leader slot of the group it joined (maybe itself)
  dep_node* closer = nullptr;     // as leader: the writer that closed the group
};

// A dependent child's bookkeeping, in its job block. The block lives while `refs` is not
// zero: 1 until the child finished, 1 per address the group's map records it as writer of,
// 1 per reader group it leads until that group is over [P-DEPS Ref].
struct dep_node {
  static constexpr std::uint32_t k_pending_bias = std::uint32_t{1} << 30;
  // The words other threads update come first: right after the job header, on its line.
  // The successors' edge slots (a stack), or the closed mark once finished [P-DEPS F2].
  std::atomic<dep_slot*> successors{nullptr};
  // k_pending_bias, minus 1 per predecessor that finished, minus (bias - edges) at R3
  std::atomic<std::uint32_t> pending{k_pending_bias};
  std::atomic<std::uint32_t> refs{1};
  job_header* job = nullptr;  // pushed when pending reaches 0
  dep_slot* slots = nullptr;
  std::uint32_t nslots = 0;
  void (*free_block)(dep_node*) noexcept = nullptr;  // refs reached 0
};

// The group's dependency state, created at its first dependent child.
task_deps& task_deps_of(std::atomic<task_deps*>& slot);
// The group is done (every child finished): drops the map's references and frees it.
void destroy_task_deps(task_deps* d) noexcept;
// [P-DEPS R1-R3] merges repeated keys and links n behind its unfinished predecessors;
// true when it has none (the caller pushes it). On an exception (allocation) nothing was
// linked and n holds no reference but its own.
bool register_node(task_deps& d, dep_node& n);
// [P-DEPS F1-F3] n finished (ran, threw or was skipped) and its callable is destroyed:
// leaves its reader groups, closes its successor stack, counts every successor it made
// ready in the group's latch and pushes it (onto the calling worker's deque, or p's
// injector), and drops its own reference (the block may be freed: n must not be touched
// afterwards).
void finish_node(pool_impl& p, count_latch& latch, dep_node& n) noexcept;
// Pushes a ready child: onto the calling worker's deque if it belongs to p, else into p's
// injector. Never fails (the injector cannot).
void push_ready(pool_impl& p, job_header* j) noexcept;

}  // namespace detail
}  // namespace forkjoin
