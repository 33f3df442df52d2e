// icv.hpp: internal control variables ([P-OMP ICV]), the contention group ([P-OMP Limit])
// and the process-wide settings read from the environment (env.cpp, places.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace forkjoin::omp {

// ---- internal control variables (OpenMP 5.0 section 2.5) ---------------------------------

enum sched_kind : int { k_sched_static = 1, k_sched_dynamic = 2, k_sched_guided = 3, k_sched_auto = 4 };
inline constexpr unsigned k_sched_monotonic = 0x80000000u;
// A front-end's flag on a loop start's kind: the loop's chunks may run in any order (a
// nonmonotonic dynamic loop): the core then takes them from per-thread ranges ([P-LOOP Steal]).
inline constexpr int k_sched_any_order = 0x100;
inline constexpr int k_sched_trapezoidal = 101;  // libomp's kmp_sched_trapezoidal
inline constexpr unsigned k_max_levels = 255;    // omp_get_supported_active_levels, as libgomp

// [P-OMP Limit] a contention group (an initial thread and every team thread its regions
// start, nested ones included): how many of its threads are in teams now.
struct contention_group {
  std::atomic<unsigned> busy{1};  // its initial thread, plus what the live regions reserved
};

// The ICVs a task carries (data environment ICVs: copied into every new task).
struct icv {
  unsigned nthreads = 1;  // nthreads-var for regions this task starts
  int run_sched = k_sched_dynamic;
  long run_chunk = 1;
  bool run_monotonic = false;
  bool run_trapezoidal = false;  // [P-OMP KMP] libomp's trapezoidal (101): run as guided, reported as 101
  bool dyn = false;
  unsigned max_active_levels = 1;
  unsigned bind = 0;          // proc-bind-var: 0 false, 1 true, 2 primary, 3 close, 4 spread
  unsigned thread_limit = 0;  // thread-limit-var set by a teams or target region (0: OMP_THREAD_LIMIT's)
  // the league of a teams construct this task runs in ([P-OMP Teams]): inherited like an ICV,
  // so parallel regions and tasks inside team k still answer omp_get_team_num() == k
  unsigned league_size = 1, league_num = 0;
  contention_group* cgroup = nullptr;  // the group its regions' threads count in ([P-OMP Limit])
  std::uintptr_t def_allocator = 1;    // def-allocator-var: omp_default_mem_alloc, or OMP_ALLOCATOR's
  bool operator==(const icv&) const = default;
};

// Process-wide settings from the environment (env.cpp), read once, then constant.
struct global_config {
  icv initial;                          // the initial task's ICVs
  std::vector<unsigned> nthreads_list;  // OMP_NUM_THREADS per level (index = level - 1)
  unsigned thread_limit = 0;            // 0: unlimited
  std::size_t stack_size = 0;           // 0: the system default for team threads
  unsigned num_procs = 1;
  bool cancellation = false;
  int max_task_priority = 0;
  std::vector<unsigned> bind_list;         // OMP_PROC_BIND per level (index = level - 1), when a list
  bool proc_bind_set = false;              // OMP_PROC_BIND was given (and valid)
  std::vector<std::vector<int>> places;    // OMP_PLACES: the CPUs of each place ([P-OMP Bind])
  std::string places_name;                 // the abstract name they came from ("cores(2)"), else empty
  int display_env = 0;                     // OMP_DISPLAY_ENV: 0 false, 1 true, 2 verbose
  unsigned default_device = 0;             // OMP_DEFAULT_DEVICE (checked and shown; the host is the only device)
  std::string target_offload = "DEFAULT";  // OMP_TARGET_OFFLOAD (checked and shown; nothing is offloaded)
  bool display_affinity = false;           // OMP_DISPLAY_AFFINITY
  std::string affinity_format;             // OMP_AFFINITY_FORMAT, else default_affinity_format()
  bool schedule_given = false;             // OMP_SCHEDULE was set at load [P-OMP KMPC K15]
  // libomp's settings ([P-OMP KMP], kmp_env.cpp)
  int blocktime = -1;           // KMP_BLOCKTIME or OMP_WAIT_POLICY (k_blocktime_*): ms of active spin
  int library = 3;              // KMP_LIBRARY: 1 serial, 2 turnaround, 3 throughput (libomp's numbers)
  bool task_throttling = true;  // KMP_ENABLE_TASK_THROTTLING: the local throttle ([P-OMP Task T1])
  bool kmp_settings = false;    // KMP_SETTINGS: print the settings at start-up
  std::string kmp_affinity;     // KMP_AFFINITY as given, when it set the binding
};

// [P-OMP KMP] KMP_BLOCKTIME's values: the wait ladder's own spin (unset), park at once (0),
// spin while the CPUs are not crowded (infinite, OMP_WAIT_POLICY=active); else milliseconds.
inline constexpr int k_blocktime_ladder = -1;
inline constexpr int k_blocktime_infinite = 0x7fffffff;  // INT_MAX, libomp's KMP_MAX_BLOCKTIME

// [P-OMP KMP] the settings libomp's kmp_* routines change at run time (kmp_env.cpp): set from
// the environment when it is read, then by kmp_set_blocktime, kmp_set_library*,
// kmp_set_stacksize*, kmp_set_defaults. Relaxed: each is a single value that takes effect at
// the next wait, region or thread creation, and carries no other data.
struct run_settings {
  std::atomic<int> blocktime{k_blocktime_ladder};
  std::atomic<int> library{3};
  std::atomic<std::size_t> stack_size{0};  // 0: the system default
  std::atomic<int> target_offload{1};      // 0 disabled, 1 default, 2 mandatory (libomp's numbers)
  std::atomic<bool> warnings{true};        // kmp_set_warnings_off silences the notices
};
extern run_settings g_settings;
inline bool waits_park_at_once() noexcept { return g_settings.blocktime.load(std::memory_order_relaxed) == 0; }
inline bool library_serial() noexcept { return g_settings.library.load(std::memory_order_relaxed) == 1; }
// Read once (on first use), then constant and never freed.
// [P-OMP KMPC K15] a libomp program's run-sched-var for an initial thread's ICVs (env.cpp)
void apply_kmpc_defaults(icv& v) noexcept;
const global_config& read_config() noexcept;
extern std::atomic<const global_config*> g_config;
inline const global_config& config() noexcept {
  // acquire: pairs with the release store in read_config (a plain load on x86)
  const global_config* c = g_config.load(std::memory_order_acquire);
  return c != nullptr ? *c : read_config();
}
// [P-OMP KMPC K17] g_settings for a kmp_* routine: the environment is read first (a libomp
// program's may not be yet), so its values never overwrite the program's later ones
inline run_settings& current_settings() noexcept {
  (void)config();
  return g_settings;
}
// The predefined allocators' names, index = handle (alloc.cpp).
extern const char* const k_allocator_names[9];
// thread-limit-var for a task with ICVs v: a teams or target clause, else OMP_THREAD_LIMIT,
// whichever is smaller; 0 when neither sets one.
unsigned thread_limit_of(const icv& v) noexcept;

// One line on stderr: "forkjoin-omp: invalid value for environment variable VAR: "value";
// using FALLBACK".
void complain(const char* var, const char* value, const char* fallback);
// An environment value with its blanks dropped and its letters lowered (places.cpp), as the
// OMP_* and KMP_* parsers compare it.
std::string lower_trimmed(const char* s);
// [P-OMP KMPC K15] the main program names libomp (libomp.so*, or Intel's libiomp5.so*) among
// its needed libraries: a clang (or Intel) program, whose reports take libomp's form
// (kmp_env.cpp)
bool libomp_linked() noexcept;
std::vector<int> usable_cpus();                    // places.cpp: the CPUs the process started with
void read_proc_bind(global_config& c);             // places.cpp
void read_places(global_config& c);                // places.cpp, after read_proc_bind
void display_environment(const global_config& c);  // display_env.cpp: OMP_DISPLAY_ENV's report
// places.cpp: the places of an abstract name (threads, cores, sockets, ll_caches, numa_domains)
std::vector<std::vector<int>> named_places(const std::string& name);
// kmp_env.cpp ([P-OMP KMP]): libomp's KMP_* variables, read after the OMP_* ones (a KMP_*
// variable wins over its OMP_* counterpart, as in libomp), then copied into g_settings
void read_kmp_environment(global_config& c);
void display_kmp_settings(const global_config& c);  // KMP_SETTINGS's report
// kmp_set_defaults: "NAME=value" settings separated by '|', applied at run time
void apply_kmp_defaults(const char* text);
void set_blocktime(int ms) noexcept;
std::string wait_text(int blocktime);  // display_env.cpp: the wait ladder under a blocktime
void set_library(int mode) noexcept;
void kmp_notice(const char* fmt, ...) __attribute__((format(printf, 1, 2)));  // one line, unless warnings are off
}  // namespace forkjoin::omp
