// task_deps.hpp: task dependencies between the children of one task_group (OpenMP's
// `task depend`): in(x), out(x), inout(x) before the callable of task_group::run. A
// dependent child is a dep_job: the callable plus a dep_node, which the group's task_deps
// (compiled in forkjoin/task_deps.cpp, one mutex per group) links behind the earlier
// siblings it must follow. A node that has no unfinished predecessor goes to the deque like
// any child; the others are pushed by their last predecessor as it finishes. Protocol:
// forkjoin/DESIGN.md [P-DEPS].
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

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

// A dependent child's bookkeeping. Every field but `job` is read and written only under its
// group's task_deps mutex [P-DEPS R1].
struct dep_node {
  struct slot {
    const void* key;
    dependency::access mode;
    std::uint32_t reader_pos;  // this node's index in the key's reader list (mode == in)
  };
  job_header* job = nullptr;          // pushed when pending reaches 0
  std::vector<slot> deps;             // keys merged: a key given twice appears once
  std::vector<dep_node*> successors;  // nodes that wait for this one
  std::uint32_t pending = 1;          // unfinished predecessors, + 1 while registering
};

// The group's dependency state, created at its first dependent child.
task_deps& task_deps_of(std::atomic<task_deps*>& slot);
void destroy_task_deps(task_deps* d) noexcept;
// [P-DEPS R1-R3] links n behind its predecessors; true when it has none left (the caller
// pushes it). On an exception (allocation) nothing was linked.
bool register_node(task_deps& d, dep_node& n);
// [P-DEPS F1] n finished (ran, threw or was skipped). Reorders n.successors so that
// the ones now ready come first and returns how many they are; the caller pushes them
// [P-DEPS F2] after it has moved the list out of n.
std::size_t finish_node(task_deps& d, dep_node& n) noexcept;
// Pushes a ready child: onto the calling worker's deque if it belongs to p, else into p's
// injector. Never fails (the injector cannot).
void push_ready(pool_impl& p, job_header* j) noexcept;

}  // namespace detail
}  // namespace forkjoin
