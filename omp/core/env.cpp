// env.cpp: the OpenMP environment variables, read once into global_config. A malformed
// value gets one line on stderr naming the variable and the default used, never a crash; this
// layer is the only one to report it (the core leaves OMP_NUM_THREADS to it, and the launcher
// hides these variables from libgomp, see restore_hidden_environment).
#include <strings.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "../../forkjoin/cpu_limits.hpp"
#include "internal.hpp"

namespace forkjoin::omp {

void complain(const char* var, const char* value, const char* fallback) {
  // [P-OMP KMPC K15] a program linked against libomp gets libomp's warning form (scripts and
  // tests match "OMP: Warning #N:"); the fallback is still named
  if (libomp_linked())
    std::fprintf(stderr, "OMP: Warning #42: %s: \"%s\" is an invalid value; ignored (forkjoin-omp uses %s).\n", var,
                 value, fallback);
  else
    std::fprintf(stderr, "forkjoin-omp: invalid value for environment variable %s: \"%s\"; using %s\n", var, value,
                 fallback);
}

namespace {

const char* skip_space(const char* p) {
  while (*p != '\0' && std::isspace(static_cast<unsigned char>(*p))) ++p;
  return p;
}

// OMP_ALLOCATOR: a predefined allocator's name (any case, blanks around it), as libgomp 12
// reads it; def-allocator-var's initial value.
void read_allocator(global_config& c) {
  const char* s = std::getenv("OMP_ALLOCATOR");
  if (s == nullptr) return;
  const char* p = skip_space(s);
  for (std::uintptr_t a = 1; a < 9; ++a) {
    const std::size_t n = std::strlen(k_allocator_names[a]);
    if (strncasecmp(p, k_allocator_names[a], n) == 0 && *skip_space(p + n) == '\0') {
      c.initial.def_allocator = a;
      return;
    }
  }
  complain("OMP_ALLOCATOR", s, "omp_default_mem_alloc");
}

// A positive integer (with optional surrounding blanks) that fits `max`; false otherwise.
bool parse_unsigned(const char*& p, unsigned long max, unsigned long& out) {
  p = skip_space(p);
  if (!std::isdigit(static_cast<unsigned char>(*p))) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long v = std::strtoul(p, &end, 10);
  if (errno != 0 || v > max) return false;
  out = v;
  p = skip_space(end);
  return true;
}

bool parse_bool(const char* s, bool& out) {
  std::string v;
  for (const char* p = skip_space(s); *p != '\0'; ++p)
    v += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  if (v == "true") {
    out = true;
    return true;
  }
  if (v == "false") {
    out = false;
    return true;
  }
  return false;
}

unsigned count_procs() { return static_cast<unsigned>(usable_cpus().size()); }

void read_num_threads(global_config& c) {
  const char* s = std::getenv("OMP_NUM_THREADS");
  if (s == nullptr) return;
  std::vector<unsigned> list;
  const char* p = s;
  for (;;) {
    unsigned long v = 0;
    if (!parse_unsigned(p, 1u << 20, v) || v == 0) {
      char fallback[64];
      std::snprintf(fallback, sizeof fallback, "%u (the number of processors)", c.num_procs);
      complain("OMP_NUM_THREADS", s, fallback);
      return;
    }
    list.push_back(static_cast<unsigned>(v));
    if (*p == '\0') break;
    if (*p != ',') {
      char fallback[64];
      std::snprintf(fallback, sizeof fallback, "%u (the number of processors)", c.num_procs);
      complain("OMP_NUM_THREADS", s, fallback);
      return;
    }
    ++p;
  }
  c.initial.nthreads = list[0];
  if (list.size() > 1) {
    c.nthreads_list = list;
    c.initial.max_active_levels = k_max_levels;  // a list enables nesting, as in libgomp
  }
}

void read_schedule(global_config& c) {
  const char* s = std::getenv("OMP_SCHEDULE");
  if (s == nullptr) return;
  c.schedule_given = true;
  const char* fallback = c.initial.run_sched == k_sched_static ? "static" : "dynamic,1";  // K15's: static
  std::string v;
  for (const char* p = s; *p != '\0'; ++p)
    if (!std::isspace(static_cast<unsigned char>(*p)))
      v += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
  bool monotonic = false;
  if (v.rfind("monotonic:", 0) == 0) {
    monotonic = true;
    v.erase(0, 10);
  } else if (v.rfind("nonmonotonic:", 0) == 0) {
    v.erase(0, 13);
  }
  std::string kind = v.substr(0, v.find(','));
  int k;
  if (kind == "static")
    k = k_sched_static;
  else if (kind == "dynamic")
    k = k_sched_dynamic;
  else if (kind == "guided")
    k = k_sched_guided;
  else if (kind == "auto")
    k = k_sched_auto;
  else if (kind == "trapezoidal" || kind == "static_steal")  // [P-OMP KMP] libomp's kinds
    k = kind == "trapezoidal" ? k_sched_trapezoidal : k_sched_dynamic;
  else {
    complain("OMP_SCHEDULE", s, fallback);
    return;
  }
  long chunk = k == k_sched_static ? 0 : 1;
  if (std::size_t comma = v.find(','); comma != std::string::npos) {
    const char* p = v.c_str() + comma + 1;
    unsigned long ch = 0;
    if (!parse_unsigned(p, 0x7fffffffUL, ch) || *p != '\0' || ch == 0) {
      complain("OMP_SCHEDULE", s, fallback);
      return;
    }
    chunk = static_cast<long>(ch);
  }
  c.initial.run_trapezoidal = k == k_sched_trapezoidal;
  if (k == k_sched_trapezoidal) {
    k = k_sched_guided;
    std::fprintf(stderr, "forkjoin-omp: OMP_SCHEDULE=%s: libomp's trapezoidal schedule runs as guided here\n", s);
  }
  c.initial.run_sched = k;
  c.initial.run_chunk = chunk;
  c.initial.run_monotonic = monotonic;
}

void apply_schedule(icv& v, const icv& from) noexcept {
  v.run_sched = from.run_sched;
  v.run_chunk = from.run_chunk;
  v.run_monotonic = from.run_monotonic;
  v.run_trapezoidal = from.run_trapezoidal;
}

void read_bool(const char* var, bool& out, const char* fallback) {
  const char* s = std::getenv(var);
  if (s == nullptr) return;
  bool v;
  if (parse_bool(s, v))
    out = v;
  else
    complain(var, s, fallback);
}

void read_count(const char* var, unsigned long max, unsigned& out, const char* fallback, bool allow_zero) {
  const char* s = std::getenv(var);
  if (s == nullptr) return;
  const char* p = s;
  unsigned long v = 0;
  if (!parse_unsigned(p, max, v) || *p != '\0' || (!allow_zero && v == 0)) {
    complain(var, s, fallback);
    return;
  }
  out = static_cast<unsigned>(v);
}

void read_stack_size(global_config& c) {
  const char* s = std::getenv("OMP_STACKSIZE");
  if (s == nullptr) return;
  const char* p = s;
  unsigned long v = 0;
  if (parse_unsigned(p, 1UL << 40, v)) {
    unsigned long unit = 1024;  // kilobytes unless a suffix says otherwise
    switch (std::tolower(static_cast<unsigned char>(*p))) {
      case 'b':
        unit = 1;
        ++p;
        break;
      case 'k':
        ++p;
        break;
      case 'm':
        unit = 1UL << 20;
        ++p;
        break;
      case 'g':
        unit = 1UL << 30;
        ++p;
        break;
      default:
        break;
    }
    p = skip_space(p);
    if (*p == '\0' && v != 0) {
      c.stack_size = static_cast<std::size_t>(v * unit);
      return;
    }
  }
  complain("OMP_STACKSIZE", s, "the system default");
}

// Under a preload, libgomp (the program's dependency) reads the OpenMP variables in its
// constructor, which runs before this library's: it would report a bad value a second time,
// print OMP_DISPLAY_ENV's report a second time and pin the initial thread for OMP_PROC_BIND.
// The launcher therefore hides the variables this layer reads: it renames each, keeping its
// length ('_' for the first letter), and lists the original names in FORKJOIN_OMP_HIDDEN.
// They are renamed back here, in place, before anything reads them, so that the program sees
// its environment unchanged (through environ and main's envp alike).
void restore_hidden_environment() {
  const char* list = std::getenv("FORKJOIN_OMP_HIDDEN");
  if (list == nullptr) return;
  const std::string names = list;
  for (std::size_t at = 0; at < names.size();) {
    std::size_t end = names.find(' ', at);
    if (end == std::string::npos) end = names.size();
    const std::string name = names.substr(at, end - at);
    at = end + 1;
    if (name.size() < 2) continue;
    // Built by append, not "_" + ...: g++ 12 at -O3 reports a false -Wrestrict overlap in
    // operator+(const char*, string&&) (GCC PR 105329), an error under FORKJOIN_WERROR.
    std::string hidden(1, '_');
    hidden.append(name, 1, std::string::npos).push_back('=');
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::strncmp(*e, hidden.c_str(), hidden.size()) == 0) {
        (*e)[0] = name[0];
        break;
      }
    }
  }
  unsetenv("FORKJOIN_OMP_HIDDEN");
}

global_config read_environment() {
  restore_hidden_environment();
  forkjoin::detail::leave_omp_num_threads_report_to_omp_layer();
  global_config c;
  c.num_procs = count_procs();
  c.initial.nthreads = c.num_procs;
  read_num_threads(c);
  read_schedule(c);
  read_bool("OMP_DYNAMIC", c.initial.dyn, "false");
  bool nested = false;
  if (std::getenv("OMP_NESTED") != nullptr) {
    read_bool("OMP_NESTED", nested, "false");
    c.initial.max_active_levels = nested ? k_max_levels : 1;
  }
  read_count("OMP_MAX_ACTIVE_LEVELS", k_max_levels, c.initial.max_active_levels, "1", true);
  read_count("OMP_THREAD_LIMIT", 1u << 20, c.thread_limit, "unlimited", false);
  read_stack_size(c);
  read_bool("OMP_CANCELLATION", c.cancellation, "false");
  read_allocator(c);
  unsigned prio = 0;
  read_count("OMP_MAX_TASK_PRIORITY", 0x7fffffff, prio, "0", true);
  c.max_task_priority = static_cast<int>(prio);
  if (const char* s = std::getenv("OMP_WAIT_POLICY")) {
    std::string v;
    for (const char* p = s; *p != '\0'; ++p) v += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
    if (v == "passive") {
      c.blocktime = 0;  // park without spinning
    } else if (v == "active") {
      c.blocktime = k_blocktime_infinite;  // [P-OMP KMP] spin while the CPUs are not crowded
    } else {
      complain("OMP_WAIT_POLICY", s, "active then passive (spin, yield, park)");
    }
  }
  read_proc_bind(c);
  read_places(c);
  if (const char* s = std::getenv("OMP_DISPLAY_ENV")) {
    std::string v;
    for (const char* p = s; *p != '\0'; ++p)
      if (!std::isspace(static_cast<unsigned char>(*p)))
        v += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
    if (v == "true")
      c.display_env = 1;
    else if (v == "verbose")
      c.display_env = 2;
    else if (v != "false")
      complain("OMP_DISPLAY_ENV", s, "false");
  }
  read_count("OMP_DEFAULT_DEVICE", 0x7fffffff, c.default_device, "0", true);
  if (const char* s = std::getenv("OMP_TARGET_OFFLOAD")) {
    std::string v;
    for (const char* p = s; *p != '\0'; ++p)
      if (!std::isspace(static_cast<unsigned char>(*p)))
        v += static_cast<char>(std::toupper(static_cast<unsigned char>(*p)));
    if (v == "MANDATORY" || v == "DISABLED" || v == "DEFAULT")
      c.target_offload = v;
    else
      complain("OMP_TARGET_OFFLOAD", s, "default");
  }
  read_bool("OMP_DISPLAY_AFFINITY", c.display_affinity, "false");
  g_display_affinity.store(c.display_affinity, std::memory_order_relaxed);  // see show_affinity
  c.affinity_format = default_affinity_format();
  if (const char* s = std::getenv("OMP_AFFINITY_FORMAT")) {
    std::string error;
    if (valid_affinity_format(s, error))
      c.affinity_format = s;
    else
      complain("OMP_AFFINITY_FORMAT", s, (std::string("\"") + c.affinity_format + "\" (" + error + ")").c_str());
  }
  read_kmp_environment(c);
  return c;
}
}  // namespace

std::atomic<const global_config*> g_config{nullptr};

// ---- a libomp program's defaults ([P-OMP KMPC K15]) ---------------------------------------

std::atomic<bool> g_kmpc_program{false};

namespace {
std::once_flag g_kmpc_once;
bool g_kmpc_sched_set = false;  // written once before g_kmpc_program's release store
global_config g_kmpc_sched;     // its run-sched-var, when g_kmpc_sched_set
}  // namespace

// [P-OMP KMPC K15] libomp reads its environment at the program's first OpenMP call, and its
// run-sched-var defaults to static: unless OMP_SCHEDULE was set when the library loaded, the
// initial threads' run-sched-var is OMP_SCHEDULE as the environment holds it now, else
// static. The calling thread, outside every region, takes it unless a program's
// omp_set_schedule changed its own already; initial threads made later take it in make_self.
void mark_kmpc_program() noexcept {
  if (kmpc_program()) return;
  std::call_once(g_kmpc_once, [] {
    if (config().schedule_given) {
      g_kmpc_program.store(true, std::memory_order_release);  // pairs with apply_kmpc_defaults
      return;
    }
    g_kmpc_sched.initial.run_sched = k_sched_static;
    g_kmpc_sched.initial.run_chunk = 0;
    read_schedule(g_kmpc_sched);
    g_kmpc_sched_set = true;
    thread_state& ts = self();
    icv& v = ts.cur_task->icvs;
    const icv& c = config().initial;
    if (ts.cur_team->level == 0 && v.run_sched == c.run_sched && v.run_chunk == c.run_chunk &&
        v.run_monotonic == c.run_monotonic)
      apply_schedule(v, g_kmpc_sched.initial);
    g_kmpc_program.store(true, std::memory_order_release);  // pairs with apply_kmpc_defaults
  });
}

void apply_kmpc_defaults(icv& v) noexcept {
  if (g_kmpc_program.load(std::memory_order_acquire) && g_kmpc_sched_set)  // pairs with the stores above
    apply_schedule(v, g_kmpc_sched.initial);
}

namespace {
// What follows the first reading: the KMP_SETTINGS and OMP_DISPLAY_ENV reports, the teams
// variables, and for a gcc program the initial thread's place when binding is on (a libomp
// program's first region or place query settles it, as libomp's middle initialisation).
void announce(const global_config& c) {
  if (c.kmp_settings) display_kmp_settings(c);
  if (c.display_env != 0) display_environment(c);
  (void)max_teams();  // teams.cpp reads OMP_NUM_TEAMS and OMP_TEAMS_THREAD_LIMIT on first use
  (void)teams_thread_limit();
  if (!libomp_linked()) settle_initial_place();
}
}  // namespace

const global_config& read_config() noexcept {
  // never destroyed: parked team threads may still read it while the process exits
  static const global_config* c = [] {
    const global_config* read = new global_config(read_environment());
    g_config.store(read, std::memory_order_release);  // pairs with the acquire load in config()
    announce(*read);
    return read;
  }();
  return *c;
}

// [P-OMP KMPC K17] A gcc program's environment is read when the library loads, as libgomp
// reads it, so malformed values are reported at start-up and the initial thread takes its
// place before main. A program linked against libomp gets it read at its first OpenMP call,
// as libomp does: a variable that main sets with setenv before then counts, and the initial
// thread keeps its whole mask until then. Either way the hidden variables are restored here,
// before main can read them.
__attribute__((constructor)) static void init_environment() {
  restore_hidden_environment();
  remember_initial_mask();
  if (!libomp_linked()) (void)config();
}

}  // namespace forkjoin::omp
