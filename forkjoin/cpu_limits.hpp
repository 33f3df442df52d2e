// cpu_limits.hpp: the pieces of default_concurrency() (include/forkjoin/concurrency.hpp),
// each testable alone: the affinity mask, the cgroup CPU quota read under any root directory
// (tests fake /proc and /sys in a temporary directory), and the environment variables.
#pragma once

#include <cstddef>
#include <string>

namespace forkjoin::detail {

// CPUs in the calling thread's affinity mask, for masks of any size; 0 if it cannot be read.
std::size_t affinity_cpu_count() noexcept;

// The CPU quota of the process's cgroup in whole CPUs (quota / period, rounded up, at least
// 1), the tightest of its own and every ancestor's up to the hierarchy's mount point, over
// cgroup v2 (cpu.max) and v1 (cpu.cfs_quota_us, cpu.cfs_period_us); 0 = no limit. Every path
// is read under `root` ("" for the real /proc and /sys). Missing or malformed files: no limit.
std::size_t cgroup_cpu_limit(const std::string& root);

// What default_concurrency() combines. `mask_cpus` and `cgroup_limit` are 0 when unknown or
// unlimited; the two texts are the variables' values (nullptr when unset).
// `report_omp_num_threads` false: a malformed OMP_NUM_THREADS is ignored without a warning
// (the OpenMP layer reports it).
struct concurrency_inputs {
  std::size_t mask_cpus = 0;
  std::size_t cgroup_limit = 0;
  const char* forkjoin_num_threads = nullptr;
  const char* omp_num_threads = nullptr;
  bool report_omp_num_threads = true;
};

// An explicit count (FORKJOIN_NUM_THREADS, else the first entry of OMP_NUM_THREADS) as given,
// even above the CPUs: the user asked for it. Otherwise the smaller of the affinity mask and
// the cgroup quota; at least 1. A malformed variable adds one line to `warnings` naming it, its
// value and the count used instead.
std::size_t resolve_concurrency(const concurrency_inputs& in, std::string& warnings);

// Called by the OpenMP layer (libforkjoin-omp), which reads OMP_NUM_THREADS too and reports a
// malformed value itself: default_concurrency() then leaves that report to it, so that one bad
// value gets one message.
void leave_omp_num_threads_report_to_omp_layer() noexcept;

}  // namespace forkjoin::detail
