// job.hpp: what a deque slot points at. A job is a header with one execute pointer; its
// payload lives wherever its creator put it (a join frame, a task_group slab block, a
// pool::run caller's frame). Owns no memory. Lifetime rules: forkjoin/DESIGN.md [P-JOIN].
// Also the storage of a callable's result: result_slot (in place, run inline) and
// branch_outcome (a join branch that ran as a job: its value or its exception).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

namespace forkjoin::detail {

struct job_header {
  using execute_fn = void (*)(job_header*) noexcept;
  explicit job_header(execute_fn fn) noexcept : execute(fn), stolen_by(-1) {}
  execute_fn execute;
  union {
    // Link in the injection queue: written by injector::push before any read, under its
    // mutex. Left uninitialised elsewhere: join pushes a job per fork and pays for every store.
    job_header* next;
    // While tracing, a job pushed on a deque: its spawn time on the ring's clock, shifted
    // left by one, with 1 in bit 0 for a loop split ([P-TRACE Join]). Owner only.
    std::uint64_t trace_spawn;
  };
  union {
    // Index of the worker that stole this job, -1 while not stolen. A hint for the waiter
    // (leapfrogging: steal back from the thief first); relaxed, never used for correctness.
    // A join frame constructs it only when it is shared ([P-JOIN Share]).
    std::atomic<std::int32_t> stolen_by;
  };
  // stolen_by of a join's second branch that its own join ran as a job while tracing.
  static constexpr std::int32_t k_run_by_owner = -2;

 protected:
  // A join frame's header: stolen_by is left for [P-JOIN Share] to construct.
  struct unshared_tag {};
  job_header(execute_fn fn, unshared_tag) noexcept : execute(fn) {}
};

// The result or the exception of a join's second branch when it ran as a job (stolen, or
// popped by a wait): raw storage that the branch constructs and the join's owner consumes
// once, after J3. Nothing is stored while the branch is merely pushed, so the join's common
// path pays nothing for it.
template <class R>
class branch_outcome {
  using stored = std::conditional_t<
      std::is_void_v<R>, std::monostate,
      std::conditional_t<std::is_reference_v<R>, std::reference_wrapper<std::remove_reference_t<R>>, R>>;

 public:
  using value_type = std::conditional_t<std::is_void_v<R>, std::monostate, R>;

  branch_outcome() noexcept {}
  branch_outcome(const branch_outcome&) = delete;
  branch_outcome& operator=(const branch_outcome&) = delete;
  ~branch_outcome() {}  // the owner destroys what was constructed (take, rethrow, discard)

  // Runs g into the storage. True when it returned, false when it threw (the exception is
  // stored). Never throws.
  template <class G>
  bool run(G& g) noexcept {
    try {
      if constexpr (std::is_void_v<R>) {
        std::invoke(g);
        ::new (static_cast<void*>(&value_)) stored();
      } else {
        ::new (static_cast<void*>(&value_)) stored(std::invoke(g));
      }
      return true;
    } catch (...) {
      ::new (static_cast<void*>(&error_)) std::exception_ptr(std::current_exception());
      return false;
    }
  }
  // After run returned true: moves the value out and destroys the storage.
  value_type take_value() {
    struct destroy {
      stored* p;
      ~destroy() { p->~stored(); }
    } guard{&value_};
    if constexpr (std::is_void_v<R>)
      return {};
    else if constexpr (std::is_reference_v<R>)
      return value_.get();
    else
      return std::move(value_);
  }
  // After run returned false: rethrows the exception (its storage destroyed first).
  [[noreturn]] void rethrow_error() {
    std::exception_ptr e = std::move(error_);
    error_.~exception_ptr();
    std::rethrow_exception(std::move(e));
  }
  // Destroys whatever run stored, unread (the join is being unwound by f's exception).
  void discard(bool returned) noexcept {
    if (returned)
      value_.~stored();
    else
      error_.~exception_ptr();
  }

 private:
  union {
    stored value_;
    std::exception_ptr error_;
  };
};

// Storage for a callable's result: void becomes std::monostate, a reference is kept as a
// reference_wrapper, anything else in place so no default constructor is needed. take() is
// called only after emplace_from returned normally (callers rethrow first). A trivial
// result (an integer, a pointer, a small aggregate) is value-initialised in place: one
// store and no "engaged" flag to set and test on join's hot path; other types sit in an
// optional, as their constructors and destructors require.
template <class R>
class result_slot {
  using stored = std::conditional_t<
      std::is_void_v<R>, std::monostate,
      std::conditional_t<std::is_reference_v<R>, std::reference_wrapper<std::remove_reference_t<R>>, R>>;
  static constexpr bool k_trivial =
      std::is_trivially_default_constructible_v<stored> && std::is_trivially_destructible_v<stored>;

 public:
  using value_type = std::conditional_t<std::is_void_v<R>, std::monostate, R>;

  template <class F>
  void emplace_from(F& f) {
    if constexpr (std::is_void_v<R>) {
      std::invoke(f);
    } else if constexpr (k_trivial) {
      value_ = std::invoke(f);
    } else {
      value_.emplace(std::invoke(f));
    }
  }
  value_type take() {
    if constexpr (std::is_void_v<R>)
      return {};
    else if constexpr (k_trivial)
      return value_;
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
  std::conditional_t<k_trivial, stored, std::optional<stored>> value_{};
};

}  // namespace forkjoin::detail
