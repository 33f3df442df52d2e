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
  union {
    // Link in the injection queue: written by injector::push before any read, under its
    // mutex. Left uninitialised elsewhere: join pushes a job per fork and pays for every store.
    job_header* next;
    // While tracing, a job pushed on a deque: its spawn time on the ring's clock, shifted
    // left by one, with 1 in bit 0 for a loop split ([P-TRACE Join]). Owner only.
    std::uint64_t trace_spawn;
  };
  // Index of the worker that stole this job, -1 while not stolen. A hint for the waiter
  // (leapfrogging: steal back from the thief first); relaxed, never used for correctness.
  std::atomic<std::int32_t> stolen_by{-1};
  // stolen_by of a join's second branch that its own join ran as a job while tracing.
  static constexpr std::int32_t k_run_by_owner = -2;
};

// An exception a branch may have thrown, or nothing. Like std::optional<std::exception_ptr>
// but with the flag in a byte of its own: optional's default construction zeroes the
// flag with a 16-byte vector store, and the byte load that tests it later cannot be
// forwarded from that store on some cores (a stall on every join).
class error_slot {
 public:
  error_slot() noexcept {}
  error_slot(const error_slot&) = delete;
  error_slot& operator=(const error_slot&) = delete;
  ~error_slot() {
    if (engaged_) error_.~exception_ptr();
  }
  // Inside a catch handler only.
  void capture_current() noexcept {
    ::new (static_cast<void*>(&error_)) std::exception_ptr(std::current_exception());
    engaged_ = true;
  }
  bool has_value() const noexcept { return engaged_; }
  [[noreturn]] void rethrow() const { std::rethrow_exception(error_); }

 private:
  union {
    std::exception_ptr error_;
  };
  bool engaged_ = false;
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
