// trace.hpp: a pool's observer: the per-worker trace rings (FORKJOIN_TRACE, pool_options::
// trace_path) and the FORKJOIN_STATS table. Owns the rings' memory; writes the trace file
// (Chrome Trace Event Format JSON) on trace_flush(), at pool destruction and at exit.
// Protocol with the recording workers: DESIGN.md [P-TRACE]. Recording: detail/trace_hooks.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "forkjoin/detail/trace_hooks.hpp"
#include "forkjoin/pool.hpp"

namespace forkjoin::detail {

class pool_impl;

class observer {
 public:
  // Null when the options and the environment ask for neither a trace nor statistics.
  // Sets every slot's trace_ when tracing. Called before any worker thread starts.
  static std::unique_ptr<observer> create(pool_impl& p);
  observer(pool_impl& p, std::string path, std::size_t events, bool print_stats);
  observer(const observer&) = delete;
  observer& operator=(const observer&) = delete;
  ~observer();  // unregisters; writes nothing

  // The pool is being destroyed and its threads are joined: write the trace and print the
  // statistics, once. Not in a fork() child of the pool's process [P-FORK].
  void finish() noexcept;
  // [P-TRACE S1, S2, S3, S4, S5] snapshot every ring and rewrite the file; false if it could not be written.
  bool write_trace() noexcept;
  void print_stats() noexcept;
  bool stale() const noexcept;  // created before a fork(): in the child, inert
  // A ring for a thread that has no slot (a thread that is not the pool's, such as an
  // OpenMP team thread) or for a spare slot: a track of its own named `name`. Any thread;
  // allocates. Null when not tracing or out of memory.
  trace_ring* add_ring(const std::string& name) noexcept;
  std::uint64_t serial() const noexcept { return serial_; }  // unique in the process, never 0

 private:
  pool_impl& pool_;
  std::string path_;
  std::uint32_t fork_generation_;
  bool print_stats_;
  bool tsc_;                  // the rings count time-stamp counter ticks, not nanoseconds
  std::uint64_t epoch_ns_;    // steady_ns() at creation: ts 0 in the file
  std::uint64_t epoch_tick_;  // the rings' clock at creation
  std::uint64_t serial_;
  std::size_t events_;  // per ring
  // Guards the three vectors below: add_ring appends while a snapshot may read them. The
  // first num_threads() rings are the pool's slots', the others add_ring's.
  std::mutex rings_mutex_;
  std::vector<std::unique_ptr<std::uint64_t[]>> words_;
  std::vector<std::unique_ptr<trace_ring>> rings_;
  std::vector<std::string> names_;
};

// What write_trace copies out of the rings (trace.cpp) and writes as JSON (trace_json.cpp).
struct trace_event {
  std::uint64_t t0, t1, a, b;  // times in ticks as copied, then in nanoseconds since the pool started
  trace_kind kind;
  std::uint32_t worker;  // the ring's index
  bool open = false;     // still running at the snapshot: t1 is the snapshot's time
};
struct trace_snapshot {
  std::vector<const trace_ring*> rings;
  std::vector<std::string> names;      // ring i's track name
  std::vector<trace_event> events;     // ring after ring: its intact events oldest first, its open spans
  std::vector<std::uint64_t> dropped;  // per ring: the older events that were overwritten
};
// trace_json.cpp: s as a Chrome Trace Event Format JSON file at path; tsc says which clock
// the rings kept. False, with a message on stderr, if the file could not be written; throws
// std::bad_alloc when out of memory.
bool write_trace_json(const std::string& path, bool tsc, const trace_snapshot& s);

// pool::statistics(): relaxed snapshots of every slot's counters.
pool::stats pool_statistics(const pool_impl& p);
// The FORKJOIN_STATS table for one pool.
std::string format_stats_table(const pool::stats& s);

}  // namespace forkjoin::detail
