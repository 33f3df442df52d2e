// concurrency.hpp: how many threads this process should keep busy. default_pool() sizes
// itself from it, and every pool shares one CPU budget of that size (DESIGN.md [P-BUDGET]).
#pragma once

#include <cstddef>

namespace forkjoin {

/// The number of threads the process should keep busy: the smallest of
///  - the CPUs in the process's affinity mask (`taskset`, `sched_setaffinity`, cpusets),
///  - the CPU quota of the process's cgroup, rounded up (v2 `cpu.max`; v1
///    `cpu.cfs_quota_us / cpu.cfs_period_us`; the tightest of the cgroup and its ancestors),
///  - `FORKJOIN_NUM_THREADS`, else `OMP_NUM_THREADS` (its first entry), when set to a
///    positive integer; a malformed value is reported once on stderr and ignored;
/// and at least 1. Computed afresh on every call (a few small reads of /proc and /sys).
std::size_t default_concurrency();

}  // namespace forkjoin
