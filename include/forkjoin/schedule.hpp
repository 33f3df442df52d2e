// schedule.hpp: OpenMP's schedule clause as a value (auto_, static_, dynamic, guided,
// runtime), plus the num_threads and if clauses as modifiers. Parsing of
// FORKJOIN_SCHEDULE / OMP_SCHEDULE is compiled (forkjoin/schedule.cpp).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string_view>

#include "forkjoin/detail/config.hpp"

namespace forkjoin {

/// How a loop's iterations are handed out. Chunk or grain 0 means "choose".
class schedule {
 public:
  enum class kind { auto_, static_, dynamic, guided, num_tasks };

  /// Default: OpenMP's static blocks, block t run by worker t when it takes part (a loop
  /// called again on the same pool keeps each block on the same worker, and its data in
  /// that worker's cache); a block is split again only when an idle thread asks for work.
  /// `grain`: the smallest piece a split makes.
  static constexpr schedule auto_(std::size_t grain = 0) noexcept { return {kind::auto_, grain}; }
  /// OpenMP static: chunk 0 gives one contiguous block per thread (block t is OpenMP's
  /// block t: the first n % T blocks have one more iteration); else round-robin chunks.
  static constexpr schedule static_(std::size_t chunk = 0) noexcept { return {kind::static_, chunk}; }
  /// Chunks of `chunk` iterations from a shared counter, first come first served.
  static constexpr schedule dynamic(std::size_t chunk = 1) noexcept { return {kind::dynamic, chunk == 0 ? 1 : chunk}; }
  /// Chunks proportional to the remaining iterations / threads, never below min_chunk.
  static constexpr schedule guided(std::size_t min_chunk = 1) noexcept {
    return {kind::guided, min_chunk == 0 ? 1 : min_chunk};
  }
  /// OpenMP taskloop's num_tasks(n): the range is cut into min(n, iterations) chunks of
  /// near-equal size (the first iterations % n chunks have one more iteration), which the
  /// participants take from a shared counter. n == 0 throws std::invalid_argument.
  static constexpr schedule num_tasks(std::size_t n) {
    if (n == 0) throw std::invalid_argument("forkjoin: schedule::num_tasks needs at least one task");
    return {kind::num_tasks, n};
  }
  /// FORKJOIN_SCHEDULE, else OMP_SCHEDULE ("[monotonic:|nonmonotonic:]kind[,chunk]");
  /// auto_ when both are unset. A malformed value throws std::invalid_argument.
  static schedule runtime();
  /// Parses the OMP_SCHEDULE syntax; throws std::invalid_argument on anything else.
  static schedule parse(std::string_view text);

  /// OpenMP's num_threads clause: at most n threads work on this loop (0 = all).
  constexpr schedule num_threads(std::size_t n) const noexcept {
    schedule s = *this;
    s.max_threads_ = n;
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
  kind kind_;
  std::size_t chunk_;
  std::size_t max_threads_ = 0;
  bool parallel_ = true;
};

}  // namespace forkjoin
