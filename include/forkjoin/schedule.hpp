// schedule.hpp: OpenMP's schedule clause as a value (auto_, static_, dynamic, guided,
// runtime), plus the num_threads and if clauses as modifiers. Parsing of
// FORKJOIN_SCHEDULE / OMP_SCHEDULE is compiled (forkjoin/schedule.cpp).
#pragma once

#include <concepts>
#include <cstddef>
#include <string_view>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/errors.hpp"

namespace forkjoin {

/// How a loop's iterations are handed out. Every size is any integer type; a negative one
/// (or a negative number converted to an unsigned type, such as size_t(-5)) throws
/// std::invalid_argument naming it, and so does a chunk of 0 for dynamic and guided, a task
/// count of 0 for num_tasks. In a constant expression the same mistakes are compile errors.
/// A grain or chunk of 0 for auto_ and static_ means "choose", as OpenMP's clause without one.
class schedule {
 public:
  enum class kind { auto_, static_, dynamic, guided, num_tasks };

  /// Default: OpenMP's static blocks, block t run by worker t when it takes part (a loop
  /// called again on the same pool keeps each block on the same worker, and its data in
  /// that worker's cache); a block is split again only when an idle thread asks for work.
  /// `grain`: the smallest piece a split makes.
  template <std::integral I = std::size_t>
  static constexpr schedule auto_(I grain = 0) {
    return {kind::auto_, size("schedule::auto_", "grain", grain, false)};
  }
  /// OpenMP static: chunk 0 gives one contiguous block per thread (block t is OpenMP's
  /// block t: the first n % T blocks have one more iteration); else round-robin chunks.
  template <std::integral I = std::size_t>
  static constexpr schedule static_(I chunk = 0) {
    return {kind::static_, size("schedule::static_", "chunk", chunk, false)};
  }
  /// Chunks of `chunk` iterations (at least 1) from a shared counter, first come first served.
  template <std::integral I = std::size_t>
  static constexpr schedule dynamic(I chunk = 1) {
    return {kind::dynamic, size("schedule::dynamic", "chunk", chunk, true)};
  }
  /// Chunks proportional to the remaining iterations / threads, never below min_chunk (at
  /// least 1).
  template <std::integral I = std::size_t>
  static constexpr schedule guided(I min_chunk = 1) {
    return {kind::guided, size("schedule::guided", "min_chunk", min_chunk, true)};
  }
  /// OpenMP taskloop's num_tasks(n): the range is cut into min(n, iterations) chunks of
  /// near-equal size (the first iterations % n chunks have one more iteration), which the
  /// participants take from a shared counter. n must be at least 1.
  template <std::integral I>
  static constexpr schedule num_tasks(I n) {
    return {kind::num_tasks, size("schedule::num_tasks", "n", n, true)};
  }
  /// FORKJOIN_SCHEDULE, else OMP_SCHEDULE ("[monotonic:|nonmonotonic:]kind[,chunk]");
  /// auto_ when both are unset. A malformed value throws std::invalid_argument.
  static schedule runtime();
  /// Parses the OMP_SCHEDULE syntax; throws std::invalid_argument on anything else.
  static schedule parse(std::string_view text);

  /// OpenMP's num_threads clause: at most n threads work on this loop (0 = all).
  template <std::integral I>
  constexpr schedule num_threads(I n) const {
    schedule s = *this;
    s.max_threads_ = size("schedule::num_threads", "n", n, false);
    return s;
  }
  /// OpenMP's if clause: false runs the loop serially on the calling thread.
  constexpr schedule parallel_if(bool parallel) const noexcept {
    schedule s = *this;
    s.parallel_ = parallel;
    return s;
  }

  constexpr kind type() const noexcept { return kind_; }
  /// The chunk, grain or minimum chunk; for num_tasks, the number of tasks.
  constexpr std::size_t chunk() const noexcept { return chunk_; }
  constexpr std::size_t max_threads() const noexcept { return max_threads_; }
  constexpr bool parallel() const noexcept { return parallel_; }
  friend constexpr bool operator==(const schedule&, const schedule&) = default;

 private:
  constexpr schedule(kind k, std::size_t chunk) noexcept : kind_(k), chunk_(chunk) {}
  // The size as size_t, after the checks above (positive: 0 is an error too).
  template <std::integral I>
  static constexpr std::size_t size(const char* where, const char* name, I v, bool positive) {
    if (detail::negative_or_wrapped(v)) detail::bad_argument(where, name, v, "must not be negative");
    if (positive && v == 0) detail::bad_argument(where, name, v, "must be at least 1");
    return static_cast<std::size_t>(v);
  }
  kind kind_;
  std::size_t chunk_;
  std::size_t max_threads_ = 0;
  bool parallel_ = true;
};

}  // namespace forkjoin
