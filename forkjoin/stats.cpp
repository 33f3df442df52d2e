// stats.cpp: pool::statistics() (relaxed snapshots of every slot's counters) and the
// FORKJOIN_STATS table written at a pool's end.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "crowding.hpp"
#include "pool_impl.hpp"
#include "trace.hpp"

namespace forkjoin::detail {

std::string format_stats_table(const pool::stats& s) {
  std::string out = "forkjoin statistics (FORKJOIN_STATS)\n";
  char line[256];
  std::snprintf(line, sizeof line, "%6s %12s %10s %12s %10s %8s %10s %12s %12s\n", "worker", "jobs", "steals",
                "attempts", "lost", "parks", "splits", "parked ms", "spinning ms");
  out += line;
  auto row = [&](const char* name, const pool::worker_stats& w) {
    std::snprintf(line, sizeof line,
                  "%6s %12" PRIu64 " %10" PRIu64 " %12" PRIu64 " %10" PRIu64 " %8" PRIu64 " %10" PRIu64
                  " %12.3f %12.3f\n",
                  name, w.jobs_run, w.steals, w.steal_attempts, w.lost_races, w.parks, w.splits_served,
                  static_cast<double>(w.time_parked.count()) / 1e6, static_cast<double>(w.time_spinning.count()) / 1e6);
    out += line;
  };
  for (std::size_t i = 0; i < s.workers.size(); ++i) row(std::to_string(i).c_str(), s.workers[i]);
  pool::worker_stats total;
  total.jobs_run = s.jobs_run;
  total.steals = s.steals;
  total.steal_attempts = s.steal_attempts;
  total.lost_races = s.lost_races;
  total.parks = s.parks;
  total.splits_served = s.splits_served;
  total.time_parked = s.time_parked;
  total.time_spinning = s.time_spinning;
  row("total", total);
  std::snprintf(line, sizeof line, "sleepers woken: %" PRIu64 "\n", s.wakes);
  out += line;
  // [P-SLEEP Crowd] process-wide: every pool's and the OpenMP layer's waits observe it
  std::snprintf(line, sizeof line, "crowded CPUs observed: %" PRIu64 "\n", crowd_observations());
  out += line;
  return out;
}

pool::stats pool_statistics(const pool_impl& p) {
  pool::stats s;
  s.wakes = p.sleep().wakes();
  s.workers.resize(p.num_threads());
  for (std::size_t i = 0; i < p.num_threads(); ++i) {
    const worker_slot& w = p.slot(i);
    pool::worker_stats& o = s.workers[i];
    o.jobs_run = w.jobs_run_.load(std::memory_order_relaxed);
    o.steals = w.steals_.load(std::memory_order_relaxed);
    o.steal_attempts = w.steal_attempts_.load(std::memory_order_relaxed);
    o.lost_races = w.lost_races_.load(std::memory_order_relaxed);
    o.parks = w.sleep_.parks();
    o.splits_served = w.splits_served_.load(std::memory_order_relaxed);
    o.time_parked = std::chrono::nanoseconds(w.parked_ns_.load(std::memory_order_relaxed));
    o.time_spinning = std::chrono::nanoseconds(w.spinning_ns_.load(std::memory_order_relaxed));
    s.steals += o.steals;
    s.steal_attempts += o.steal_attempts;
    s.lost_races += o.lost_races;
    s.parks += o.parks;
    s.jobs_run += o.jobs_run;
    s.splits_served += o.splits_served;
    s.time_parked += o.time_parked;
    s.time_spinning += o.time_spinning;
  }
  return s;
}

}  // namespace forkjoin::detail
