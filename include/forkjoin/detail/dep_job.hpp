// dep_job.hpp: task_group::run with dependencies (included at the end of task_group.hpp).
// A dep_job is a task_group child block that also holds its dep_node. It counts in the
// group's latch from run() on, so wait() covers children that are not ready yet; it is
// pushed when its last predecessor finishes ([P-DEPS F2]), and finishes like any child
// (finish_child, [P-JOIN G2]) after it has released its successors.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "forkjoin/detail/task_deps.hpp"
#include "forkjoin/task_group.hpp"  // which includes this file at its end

namespace forkjoin {
namespace detail {

template <class F>
class dep_job : public job_header {
 public:
  template <class Arg>
  dep_job(Arg&& f, task_group* g) : job_header(&dep_job::execute_fn), f_(std::forward<Arg>(f)), group_(g) {
    node_.job = this;
  }
  dep_node& node() noexcept { return node_; }

  static void execute_fn(job_header* h) noexcept {
    auto* self = static_cast<dep_job*>(h);
    task_group* g = self->group_;
    {
      const trace_scope span(tls_worker->trace_, trace_kind::task);
      g->run_child_body(self->f_);  // skipped when a predecessor that threw cancelled the group
    }
    // [P-DEPS F1] under the group's dependency mutex; then the node is no longer reachable
    // from the group, and the ready successors belong to this thread alone.
    const std::size_t ready = finish_node(*g->deps_.load(std::memory_order_relaxed), self->node_);
    std::vector<dep_node*> successors = std::move(self->node_.successors);
    self->~dep_job();
    deallocate_job(self, sizeof(dep_job));
    for (std::size_t i = 0; i < ready; ++i) push_ready(*g->pool_, successors[i]->job);  // [P-DEPS F2]
    g->finish_child();  // [P-JOIN G2] last access to the group
  }

 private:
  F f_;
  task_group* group_;
  dep_node node_;
};

template <class T>
inline constexpr bool is_dependency_v = std::is_same_v<std::remove_cvref_t<T>, dependency>;

}  // namespace detail

template <class... A>
requires(sizeof...(A) >= 1) void task_group::run(dependency d, A&&... rest) {
  constexpr std::size_t k_deps = sizeof...(A);  // d and all of rest but the callable
  auto args = std::forward_as_tuple(std::forward<A>(rest)...);
  using callable = std::tuple_element_t<k_deps - 1, std::tuple<A&&...>>;
  static_assert(!detail::is_dependency_v<callable>, "task_group::run: the last argument must be the callable");
  std::array<dependency, k_deps> deps{d};
  [&]<std::size_t... i>(std::index_sequence<i...>) {
    static_assert((detail::is_dependency_v<std::tuple_element_t<i, std::tuple<A&&...>>> && ...),
                  "task_group::run: every argument before the callable must be in(), out() or inout()");
    ((deps[i + 1] = std::get<i>(args)), ...);
  }
  (std::make_index_sequence<k_deps - 1>{});

  using job_type = detail::dep_job<std::decay_t<callable>>;
  static_assert(alignof(job_type) <= 64, "task_group: over-aligned callables are not supported");
  detail::task_deps& state = detail::task_deps_of(deps_);
  void* memory = detail::allocate_job(sizeof(job_type));
  job_type* job;
  try {
    job = ::new (memory) job_type(std::forward<callable>(std::get<k_deps - 1>(args)), this);
  } catch (...) {
    detail::deallocate_job(memory, sizeof(job_type));
    throw;
  }
  bool ready;
  latch_.add_child();
  try {
    job->node().deps.reserve(k_deps);
    for (const dependency& x : deps) job->node().deps.push_back({x.key, x.mode, 0});
    ready = detail::register_node(state, job->node());  // [P-DEPS R1-R3]
  } catch (...) {                                       // nothing was linked: the child was not spawned
    job->~job_type();
    detail::deallocate_job(memory, sizeof(job_type));
    latch_.remove_child_never_started();
    throw;
  }
  if (ready) detail::push_ready(*pool_, job);
}

}  // namespace forkjoin
