// concurrency.hpp: how many threads this process should keep busy. default_pool() sizes
// itself from it, and every pool shares one CPU budget of that size (DESIGN.md [P-BUDGET]).
#pragma once

#include <cstddef>

namespace forkjoin {

/// The number of threads the process should keep busy: `FORKJOIN_NUM_THREADS`, else
/// `OMP_NUM_THREADS` (its first entry), when set to a positive integer, as given (also above
/// the CPU count: the user asked for that many); a malformed value is reported once on stderr
/// and ignored. Otherwise the smaller of
///  - the CPUs in the process's affinity mask (`taskset`, `sched_setaffinity`, cpusets),
///  - the CPU quota of the process's cgroup, rounded up (v2 `cpu.max`; v1
///    `cpu.cfs_quota_us / cpu.cfs_period_us`; the tightest of the cgroup and its ancestors);
/// at least 1. Computed afresh on every call (a few small reads of /proc and /sys).
std::size_t default_concurrency();

}  // namespace forkjoin
