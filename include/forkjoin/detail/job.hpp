// job.hpp: what a deque slot points at. A job is a header with one execute pointer; its
// payload lives wherever its creator put it (a join frame, a task_group slab block, a
// pool::run caller's frame). Owns no memory. Lifetime rules: forkjoin/DESIGN.md [P-JOIN].
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

namespace forkjoin::detail {

struct job_header {
  using execute_fn = void (*)(job_header*) noexcept;
  explicit job_header(execute_fn fn) noexcept : execute(fn) {}
  execute_fn execute;
  job_header* next = nullptr;  // link in the injection queue; touched only under its mutex
  // Index of the worker that stole this job, -1 while not stolen. A hint for the waiter
  // (leapfrogging: steal back from the thief first); relaxed, never used for correctness.
  std::atomic<std::int32_t> stolen_by{-1};
};

// Storage for a callable's result: void becomes std::monostate, a reference is kept as a
// reference_wrapper, anything else as an optional so no default constructor is needed.
template <class R>
class result_slot {
  using stored = std::conditional_t<
      std::is_void_v<R>, std::monostate,
      std::conditional_t<std::is_reference_v<R>, std::reference_wrapper<std::remove_reference_t<R>>, R>>;

 public:
  using value_type = std::conditional_t<std::is_void_v<R>, std::monostate, R>;

  template <class F>
  void emplace_from(F& f) {
    if constexpr (std::is_void_v<R>) {
      std::invoke(f);
      value_.emplace();
    } else {
      value_.emplace(std::invoke(f));
    }
  }
  value_type take() {
    if constexpr (std::is_void_v<R>)
      return {};
    else if constexpr (std::is_reference_v<R>)
      return value_->get();
    else
      return std::move(*value_);
  }
  R take_as_returned() {
    if constexpr (std::is_void_v<R>)
      return;
    else
      return static_cast<R>(take());
  }

 private:
  std::optional<stored> value_;
};

}  // namespace forkjoin::detail
