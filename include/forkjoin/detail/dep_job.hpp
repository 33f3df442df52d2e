// dep_job.hpp: task_group::run with dependencies (included at the end of task_group.hpp).
// A dep_job is a task_group child block that also holds its dep_node and one dep_slot per
// dependency. It is counted in the group's latch by whoever pushes it (run() when it is
// ready at once, else whoever releases its last predecessor, [P-DEPS F3], before that
// predecessor's own count drops), so wait() still covers children that are not ready yet.
// When it has run, its callable is destroyed at once, but the block itself lives until the
// last reference to its node is dropped ([P-DEPS Ref]); it finishes like any child
// (finish_child, [P-JOIN G2]) after it has released its successors.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "forkjoin/detail/task_deps.hpp"
#include "forkjoin/task_group.hpp"  // which includes this file at its end

namespace forkjoin {
namespace detail {

template <class F, std::size_t K>
class dep_job : public job_header {
 public:
  template <class Arg>
  dep_job(Arg&& f, task_group* g, const std::array<dependency, K>& deps) : job_header(&dep_job::execute_fn), group_(g) {
    ::new (static_cast<void*>(&f_)) F(std::forward<Arg>(f));  // may throw: nothing else to undo
    node_.job = this;
    node_.slots = slots_.data();
    node_.nslots = static_cast<std::uint32_t>(K);
    node_.free_block = &dep_job::free_fn;
    for (std::size_t i = 0; i < K; ++i) {
      slots_[i].key = deps[i].key;
      slots_[i].mode = deps[i].mode;
      slots_[i].owner = &node_;
    }
  }
  dep_job(const dep_job&) = delete;
  dep_job& operator=(const dep_job&) = delete;
  ~dep_job() {}  // f_ is destroyed when the child has run (or by discard)
  dep_node& node() noexcept { return node_; }

  // The child was never registered (registration threw): destroys it and frees its block.
  void discard() noexcept {
    f_.~F();
    this->~dep_job();
    deallocate_job(this, sizeof(dep_job));
  }

  static void execute_fn(job_header* h) noexcept {
    auto* self = static_cast<dep_job*>(h);
    task_group* g = self->group_;
    {
      const trace_scope span(tls_worker->trace_, trace_kind::task);
      g->run_child_body(self->f_);  // skipped when a predecessor that threw cancelled the group
    }
    self->f_.~F();  // before F1: the successors see everything the callable's destructor did
    finish_node(*g->pool_, g->latch_, self->node_);  // [P-DEPS F1-F3]; the block may be gone afterwards
    g->finish_child();                               // [P-JOIN G2] last access to the group
  }

 private:
  static void free_fn(dep_node* n) noexcept {  // [P-DEPS Ref] the last reference is gone
    auto* self = static_cast<dep_job*>(n->job);
    self->~dep_job();
    deallocate_job(self, sizeof(dep_job));
  }

  dep_node node_;  // first: its shared words share the job header's line
  task_group* group_;
  std::array<dep_slot, K> slots_;
  union {
    F f_;
  };
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

  using job_type = detail::dep_job<std::decay_t<callable>, k_deps>;
  static_assert(alignof(job_type) <= 64, "task_group: over-aligned callables are not supported");
  detail::task_deps& state = detail::task_deps_of(deps_);
  void* memory = detail::allocate_job(sizeof(job_type));
  job_type* job;
  try {
    job = ::new (memory) job_type(std::forward<callable>(std::get<k_deps - 1>(args)), this, deps);
  } catch (...) {
    detail::deallocate_job(memory, sizeof(job_type));
    throw;
  }
  bool ready;
  try {
    ready = detail::register_node(state, job->node());  // [P-DEPS R1-R3]
  } catch (...) {                                       // nothing was linked: the child was not spawned
    job->discard();
    throw;
  }
  // [P-DEPS R3] counted in the latch by whoever pushes it: here, or the releasing F3
  if (ready) {
    latch_.add_child();
    detail::push_ready(*pool_, job);
  }
}

}  // namespace forkjoin
