// display_env.cpp: OMP_DISPLAY_ENV=true|verbose prints the OpenMP version and the initial
// ICVs to stderr at start-up, in libgomp's format (one "  NAME = 'value'" line each between
// the BEGIN and END banners), and omp_display_env prints it on demand; verbose adds this
// runtime's own settings.
#include <cstdio>
#include <string>

#include "internal.hpp"

namespace forkjoin::omp {
namespace {
const char* bind_name(unsigned b) {
  switch (b) {
    case 1:
      return "TRUE";
    case 2:
      return "PRIMARY";
    case 3:
      return "CLOSE";
    case 4:
      return "SPREAD";
    default:
      return "FALSE";
  }
}

// libgomp's notation: runs of consecutive CPUs as first:length
std::string place_text(const std::vector<int>& cpus) {
  std::string s = "{";
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i + 1;
    while (j < cpus.size() && cpus[j] == cpus[j - 1] + 1) ++j;
    if (i != 0) s += ",";
    s += std::to_string(cpus[i]);
    if (j - i > 1) {  // two appends: gcc 12 -O3 warns (-Wrestrict, a false positive) on ":" + string&&
      s += ':';
      s += std::to_string(j - i);
    }
    i = j;
  }
  return s + "}";
}

}  // namespace

// [P-OMP Wait W0] the wait ladder under a blocktime ([P-OMP KMP])
std::string wait_text(int blocktime) {
  const std::string tail = ", yield " + std::to_string(k_yield_rounds) + ", then park";
  if (blocktime == 0) return "park";
  if (blocktime == k_blocktime_infinite) return "spin while the CPUs are not crowded" + tail;
  if (blocktime == k_blocktime_ladder)
    return "spin " + std::to_string(k_spin_rounds) + ", up to " + std::to_string(k_active_spin.count()) + " us" + tail;
  return "spin " + std::to_string(k_spin_rounds) + ", up to " + std::to_string(blocktime) + " ms" + tail;
}

namespace {
void line(const char* name, const std::string& value) { std::fprintf(stderr, "  %s = '%s'\n", name, value.c_str()); }
}  // namespace

void display_environment(const global_config& c) {
  const icv& v = c.initial;
  std::fprintf(stderr, "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n");
  line("_OPENMP", "201511");
  line("OMP_DYNAMIC", v.dyn ? "TRUE" : "FALSE");
  line("OMP_NESTED", v.max_active_levels > 1 ? "TRUE" : "FALSE");
  std::string n;
  if (c.nthreads_list.empty()) n = std::to_string(v.nthreads);
  for (unsigned x : c.nthreads_list) n += (n.empty() ? "" : ",") + std::to_string(x);
  line("OMP_NUM_THREADS", n);
  static const char* const kinds[] = {"", "STATIC", "DYNAMIC", "GUIDED", "AUTO"};
  std::string sched = v.run_monotonic ? "MONOTONIC:" : "";
  sched += kinds[v.run_sched];
  if (v.run_chunk > (v.run_sched == k_sched_static ? 0 : 1)) sched += "," + std::to_string(v.run_chunk);
  line("OMP_SCHEDULE", sched);
  std::string bind;
  if (c.bind_list.empty()) bind = bind_name(v.bind);
  for (unsigned b : c.bind_list) bind += (bind.empty() ? "" : ",") + std::string(bind_name(b));
  line("OMP_PROC_BIND", bind);
  std::string places;
  for (const auto& p : c.places) places += (places.empty() ? "" : ",") + place_text(p);
  line("OMP_PLACES", places);
  line("OMP_STACKSIZE", std::to_string(c.stack_size));
  const int blocktime = g_settings.blocktime.load(std::memory_order_relaxed);
  line("OMP_WAIT_POLICY", blocktime == 0 ? "PASSIVE" : "ACTIVE");
  line("OMP_THREAD_LIMIT", std::to_string(c.thread_limit != 0 ? c.thread_limit : 4294967295u));
  line("OMP_MAX_ACTIVE_LEVELS", std::to_string(v.max_active_levels));
  line("OMP_NUM_TEAMS", std::to_string(max_teams()));
  line("OMP_TEAMS_THREAD_LIMIT", std::to_string(teams_thread_limit()));
  line("OMP_CANCELLATION", c.cancellation ? "TRUE" : "FALSE");
  line("OMP_DEFAULT_DEVICE", std::to_string(c.default_device));
  line("OMP_MAX_TASK_PRIORITY", std::to_string(c.max_task_priority));
  line("OMP_DISPLAY_AFFINITY", c.display_affinity ? "TRUE" : "FALSE");
  line("OMP_AFFINITY_FORMAT", c.affinity_format);
  line("OMP_ALLOCATOR", k_allocator_names[c.initial.def_allocator]);
  line("OMP_TARGET_OFFLOAD", c.target_offload);
  if (c.display_env == 2) {
    line("FORKJOIN_OMP_RUNTIME", "libforkjoin-omp (OpenMP on forkjoin)");
    line("FORKJOIN_OMP_NUM_PROCS", std::to_string(c.num_procs));
    line("FORKJOIN_OMP_WAIT", wait_text(blocktime));
  }
  std::fprintf(stderr, "OPENMP DISPLAY ENVIRONMENT END\n");
}

}  // namespace forkjoin::omp
