// kmp_env.cpp: libomp's conventions ([P-OMP KMP]): the KMP_* environment variables that job
// scripts written for LLVM's or Intel's OpenMP set, mapped onto this layer's controls where
// they have a counterpart and accepted with a one-line notice where they do not; the settings
// libomp's kmp_* routines change at run time (g_settings, kmp_set_defaults); KMP_SETTINGS's
// report.
#include <link.h>
#include <sched.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "internal.hpp"

namespace forkjoin::omp {

run_settings g_settings;

namespace {
// The first object dl_iterate_phdr reports is the main program: does its dynamic section
// need a libomp.so* or Intel's libiomp5.so*? (ld.so has relocated its DT_STRTAB entry to an
// address.)
int find_libomp(dl_phdr_info* info, std::size_t, void* out) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const auto* dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    const char* strtab = nullptr;
    for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d)
      if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(d->d_un.d_ptr);
    if (strtab == nullptr) break;
    for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d)
      if (d->d_tag == DT_NEEDED && (std::strncmp(strtab + d->d_un.d_val, "libomp.so", 9) == 0 ||
                                    std::strncmp(strtab + d->d_un.d_val, "libiomp5.so", 11) == 0))
        *static_cast<bool*>(out) = true;
    break;
  }
  return 1;  // the main program only
}
}  // namespace

bool libomp_linked() noexcept {
  static const bool linked = [] {
    bool found = false;
    dl_iterate_phdr(&find_libomp, &found);
    return found;
  }();
  return linked;
}

void kmp_notice(const char* fmt, ...) {
  if (!g_settings.warnings.load(std::memory_order_relaxed)) return;
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "forkjoin-omp: %s\n", text);
}

void set_blocktime(int ms) noexcept { current_settings().blocktime.store(ms < 0 ? 0 : ms, std::memory_order_relaxed); }

// libomp's modes: serial runs every region with one thread; throughput brings an infinite
// blocktime back to the default (__kmp_aux_set_library); turnaround changes nothing here.
void set_library(int mode) noexcept {
  if (mode < 1 || mode > 3) return;
  current_settings().library.store(mode, std::memory_order_relaxed);
  if (mode == 3 && g_settings.blocktime.load(std::memory_order_relaxed) == k_blocktime_infinite)
    g_settings.blocktime.store(k_blocktime_ladder, std::memory_order_relaxed);
}

namespace {

// libomp's booleans: 1/0, true/false, on/off, yes/no, enable(d)/disable(d), .true./.false.
bool parse_kmp_bool(const char* s, bool& out) {
  const std::string v = lower_trimmed(s);
  for (const char* t : {"1", "true", "on", "yes", "enable", "enabled", ".true.", "t", "y"}) {
    if (v != t) continue;
    out = true;
    return true;
  }
  for (const char* f : {"0", "false", "off", "no", "disable", "disabled", ".false.", "f", "n"}) {
    if (v != f) continue;
    out = false;
    return true;
  }
  return false;
}

// "infinite"/"infinity", or milliseconds (an optional "ms"), at most INT_MAX
bool parse_blocktime(const char* s, int& out) {
  std::string v = lower_trimmed(s);
  if (v == "infinite" || v == "infinity" || v == "inf") {
    out = k_blocktime_infinite;
    return true;
  }
  if (v.size() > 2 && v.compare(v.size() - 2, 2, "ms") == 0) v.resize(v.size() - 2);
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 10) return false;
  const unsigned long long ms = std::strtoull(v.c_str(), nullptr, 10);
  out = ms >= static_cast<unsigned long long>(k_blocktime_infinite) ? k_blocktime_infinite : static_cast<int>(ms);
  return true;
}

bool parse_library(const char* s, int& out) {
  const std::string v = lower_trimmed(s);
  static const char* const modes[] = {"serial", "turnaround", "throughput"};  // libomp's 1, 2, 3
  for (int m = 0; m < 3; ++m) {
    if (v != modes[m]) continue;
    out = m + 1;
    return true;
  }
  return false;
}

// A size with an optional unit b, k, m, g, t (and a trailing 'b', "4mb"); without one,
// `unit` bytes (KMP_STACKSIZE: bytes, as libomp reads it).
bool parse_size(const char* s, std::size_t unit, std::size_t& out) {
  const std::string v = lower_trimmed(s);
  std::size_t i = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
  if (i == 0 || i > 15) return false;
  const unsigned long long n = std::strtoull(v.substr(0, i).c_str(), nullptr, 10);
  std::string suffix = v.substr(i);
  if (suffix.size() == 2 && suffix[1] == 'b') suffix.resize(1);
  if (suffix == "b")
    unit = 1;
  else if (suffix == "k")
    unit = 1ULL << 10;
  else if (suffix == "m")
    unit = 1ULL << 20;
  else if (suffix == "g")
    unit = 1ULL << 30;
  else if (suffix == "t")
    unit = 1ULL << 40;
  else if (!suffix.empty())
    return false;
  if (n == 0) return false;
  out = static_cast<std::size_t>(n * unit);
  return true;
}

// libomp's KMP_* variables that have no counterpart here, and why; anything else named KMP_*
// gets the generic notice.
struct no_effect {
  const char* name;
  const char* why;
};
constexpr no_effect k_no_effect[] = {
    {"KMP_HOT_TEAMS_MAX_LEVEL", "hot teams are kept per nesting level, up to 4"},
    {"KMP_HOT_TEAMS_MODE", "hot teams are kept per nesting level, up to 4"},
    {"KMP_DISP_NUM_BUFFERS", "its loops use no dispatch buffers"},
    {"KMP_USE_YIELD", "waits yield only when the CPUs are not crowded"},
    {"KMP_LOCK_KIND", "every lock is a futex mutex"},
    {"KMP_TOPOLOGY_METHOD", "the topology is read from /sys"},
    {"KMP_FORKJOIN_BARRIER", "one barrier algorithm"},
    {"KMP_PLAIN_BARRIER", "one barrier algorithm"},
    {"KMP_REDUCTION_BARRIER", "one barrier algorithm"},
    {"KMP_FORKJOIN_BARRIER_PATTERN", "one barrier algorithm"},
    {"KMP_PLAIN_BARRIER_PATTERN", "one barrier algorithm"},
    {"KMP_REDUCTION_BARRIER_PATTERN", "one barrier algorithm"},
    {"KMP_FORCE_REDUCTION", "reductions follow the compiler's method"},
    {"KMP_DETERMINISTIC_REDUCTION", "reductions follow the compiler's method"},
};
// KMP_* variables whose meaning always holds here: no notice.
constexpr const char* k_always_met[] = {
    "KMP_DUPLICATE_LIB_OK",  // one runtime serves every OpenMP library of the process
    "KMP_INIT_AT_FORK",      // a fork() child always gets a working runtime [P-FORK]
};

bool kmp_var_is(const char* entry, const char* name, const char*& value) {
  const std::size_t n = std::strlen(name);
  if (std::strncmp(entry, name, n) != 0 || entry[n] != '=') return false;
  value = entry + n + 1;
  return true;
}

// KMP_AFFINITY: [modifiers,]type[,permute[,offset]] onto proc-bind-var and the places.
void read_affinity(global_config& c, const char* s) {
  std::vector<std::string> tokens;
  std::string cur;
  int depth = 0;
  for (char ch : lower_trimmed(s)) {
    if (ch == '[') ++depth;
    if (ch == ']') --depth;
    if (ch == ',' && depth == 0) {
      tokens.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  tokens.push_back(cur);
  std::string type, gran = "core", procs;
  bool verbose = false, shifted = false;
  for (const std::string& t : tokens) {
    if (t == "verbose") {
      verbose = true;
    } else if (t == "noverbose" || t == "warnings" || t == "nowarnings" || t == "respect" || t == "norespect" ||
               t == "reset" || t == "noreset" || t.empty()) {
    } else if (t.rfind("granularity=", 0) == 0) {
      gran = t.substr(12);
    } else if (t.rfind("proclist=", 0) == 0) {
      procs = t.substr(9);
    } else if (t == "none" || t == "disabled" || t == "compact" || t == "scatter" || t == "balanced" ||
               t == "explicit" || t == "logical" || t == "physical") {
      type = t;
    } else if (t.find_first_not_of("0123456789") == std::string::npos) {
      shifted = shifted || std::strtoul(t.c_str(), nullptr, 10) != 0;
    } else {
      complain("KMP_AFFINITY", s, "the binding OMP_PROC_BIND and OMP_PLACES give");
      return;
    }
  }
  std::string places = "cores";
  if (gran == "fine" || gran == "thread" || gran == "threads")
    places = "threads";
  else if (gran == "socket" || gran == "package")
    places = "sockets";
  else if (gran == "numa" || gran == "numa_domain")
    places = "numa_domains";
  else if (gran == "l3" || gran == "llc" || gran == "ll_cache")
    places = "ll_caches";
  else if (gran != "core" && gran != "tile" && gran != "die" && gran != "l2" && gran != "l1")
    return complain("KMP_AFFINITY", s, "the binding OMP_PROC_BIND and OMP_PLACES give");
  if (type.empty()) return;
  if (std::getenv("OMP_PROC_BIND") != nullptr || std::getenv("OMP_PLACES") != nullptr)
    kmp_notice("KMP_AFFINITY=%s is set: OMP_PROC_BIND and OMP_PLACES are ignored, as libomp does", s);
  c.bind_list.clear();
  c.proc_bind_set = true;
  c.kmp_affinity = s;
  if (type == "none" || type == "disabled") {
    c.initial.bind = 0;
    c.places.clear();
    return;
  }
  if (type == "explicit") {
    // proclist=[0,2-3,{4,5}]: one place per CPU, per range element, per braced set
    std::vector<std::vector<int>> list;
    std::vector<int>* group = nullptr;
    for (const char* p = procs.c_str(); *p != '\0';) {
      if (*p == '{') list.emplace_back(), group = &list.back();
      if (*p == '}') group = nullptr;
      if (!std::isdigit(static_cast<unsigned char>(*p))) {
        ++p;
        continue;
      }
      char* end = nullptr;
      long lo = std::strtol(p, &end, 10), hi = lo;
      if (*end == '-') hi = std::strtol(end + 1, &end, 10);
      for (long cpu = lo; cpu <= hi && cpu < CPU_SETSIZE; ++cpu) {
        if (group == nullptr) list.emplace_back();
        (group != nullptr ? *group : list.back()).push_back(static_cast<int>(cpu));
      }
      p = end;
    }
    if (list.empty()) return complain("KMP_AFFINITY", s, "the binding OMP_PROC_BIND and OMP_PLACES give");
    c.places = list;
    c.initial.bind = 3;
  } else {
    if (type == "logical") places = "threads";
    c.places = named_places(places);
    c.initial.bind = type == "scatter" || type == "balanced" ? 4 : 3;  // spread, else close
  }
  if (shifted) kmp_notice("KMP_AFFINITY=%s: permute and offset have no counterpart, ignored", s);
  if (verbose)
    kmp_notice("KMP_AFFINITY=%s: libomp's binding report is not printed (OMP_DISPLAY_AFFINITY prints each thread's)",
               s);
}

// The KMP_* variables libomp reads once: those with a counterpart here, and the notice for
// the others. OMP_TEAMS_THREAD_LIMIT's counterpart is read in teams.cpp.
void read_one(global_config& c, const char* entry) {
  const char* v = nullptr;
  if (kmp_var_is(entry, "KMP_BLOCKTIME", v)) {
    if (!parse_blocktime(v, c.blocktime)) complain("KMP_BLOCKTIME", v, "the default wait");
  } else if (kmp_var_is(entry, "KMP_LIBRARY", v)) {
    if (!parse_library(v, c.library)) complain("KMP_LIBRARY", v, "throughput");
  } else if (kmp_var_is(entry, "KMP_STACKSIZE", v)) {
    std::size_t size = 0;
    if (!parse_size(v, 1, size)) return complain("KMP_STACKSIZE", v, "OMP_STACKSIZE's or the system default");
    if (std::getenv("OMP_STACKSIZE") != nullptr)
      kmp_notice("KMP_STACKSIZE=%s is set: OMP_STACKSIZE is ignored, as libomp does", v);
    c.stack_size = size;
  } else if (kmp_var_is(entry, "KMP_AFFINITY", v)) {
    read_affinity(c, v);
  } else if (kmp_var_is(entry, "KMP_SETTINGS", v)) {
    if (!parse_kmp_bool(v, c.kmp_settings)) complain("KMP_SETTINGS", v, "false");
  } else if (kmp_var_is(entry, "KMP_ENABLE_TASK_THROTTLING", v)) {
    if (!parse_kmp_bool(v, c.task_throttling)) complain("KMP_ENABLE_TASK_THROTTLING", v, "true");
  } else if (kmp_var_is(entry, "KMP_WARNINGS", v)) {
    bool on = true;
    if (!parse_kmp_bool(v, on)) complain("KMP_WARNINGS", v, "true");
    g_settings.warnings.store(on, std::memory_order_relaxed);
  } else if (kmp_var_is(entry, "KMP_VERSION", v)) {
    bool on = false;
    if (parse_kmp_bool(v, on) && on) std::fprintf(stderr, "forkjoin-omp: libforkjoin-omp (OpenMP on forkjoin)\n");
  } else if (kmp_var_is(entry, "KMP_TEAMS_THREAD_LIMIT", v) || kmp_var_is(entry, "KMP_TEAMS_PROC_BIND", v) ||
             kmp_var_is(entry, "KMP_HW_SUBSET", v)) {
    // read where they act: teams.cpp and places.cpp
  } else if (kmp_var_is(entry, "KMP_DISP_NUM_BUFFERS", v) &&
             (std::strtol(v, nullptr, 10) < 1 || std::strtol(v, nullptr, 10) > 4096)) {
    // libomp's range is 1 to 4096; its wording, which job logs are searched for
    std::fprintf(stderr, "OMP: Warning: KMP_DISP_NUM_BUFFERS=%s is too %s (1 to 4096); forkjoin-omp ignores it\n", v,
                 std::strtol(v, nullptr, 10) < 1 ? "small" : "large");
  } else {
    const std::string name(entry, std::strcspn(entry, "="));
    for (const char* met : k_always_met)
      if (name == met) return;
    const char* value = entry + name.size() + (entry[name.size()] == '=' ? 1 : 0);
    for (const no_effect& n : k_no_effect)
      if (name == n.name) return kmp_notice("%s=%s is libomp's; accepted, no effect here (%s)", n.name, value, n.why);
    kmp_notice("%s=%s is libomp's; accepted, no effect here", name.c_str(), value);
  }
}
}  // namespace

void read_kmp_environment(global_config& c) {
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "KMP_", 4) == 0) read_one(c, *e);
  if (c.library == 3 && c.blocktime == k_blocktime_infinite && std::getenv("KMP_LIBRARY") != nullptr)
    c.blocktime = k_blocktime_ladder;  // throughput, as set_library
  g_settings.blocktime.store(c.blocktime, std::memory_order_relaxed);
  g_settings.library.store(c.library, std::memory_order_relaxed);
  g_settings.stack_size.store(c.stack_size, std::memory_order_relaxed);
  const int offload = c.target_offload == "DISABLED" ? 0 : c.target_offload == "MANDATORY" ? 2 : 1;
  g_settings.target_offload.store(offload, std::memory_order_relaxed);
}

// kmp_set_defaults: what can change at run time changes; the rest gets a notice.
void apply_kmp_defaults(const char* text) {
  if (text == nullptr) return;
  (void)current_settings();  // [P-OMP KMPC K17] the environment first
  const std::string all = text;
  for (std::size_t at = 0; at <= all.size();) {
    std::size_t end = all.find('|', at);
    if (end == std::string::npos) end = all.size();
    const std::string item = all.substr(at, end - at);
    at = end + 1;
    const std::size_t eq = item.find('=');
    if (item.empty()) continue;
    if (eq == std::string::npos) {
      kmp_notice("kmp_set_defaults(\"%s\"): no value, nothing set", item.c_str());
      continue;
    }
    const std::string name = item.substr(0, eq);
    const char* v = item.c_str() + eq + 1;
    std::size_t size = 0;
    int n = 0;
    bool on = false;
    if (name == "KMP_BLOCKTIME" && parse_blocktime(v, n)) {
      set_blocktime(n);
    } else if (name == "OMP_WAIT_POLICY" && (lower_trimmed(v) == "active" || lower_trimmed(v) == "passive")) {
      set_blocktime(lower_trimmed(v) == "active" ? k_blocktime_infinite : 0);
    } else if (name == "KMP_LIBRARY" && parse_library(v, n)) {
      set_library(n);
    } else if ((name == "KMP_STACKSIZE" || name == "OMP_STACKSIZE") &&
               parse_size(v, name == "KMP_STACKSIZE" ? 1 : 1024, size)) {
      g_settings.stack_size.store(size, std::memory_order_relaxed);  // threads started from now on
    } else if (name == "KMP_WARNINGS" && parse_kmp_bool(v, on)) {
      g_settings.warnings.store(on, std::memory_order_relaxed);
    } else if (name == "OMP_TARGET_OFFLOAD") {
      // libomp's reading: anything but disabled or mandatory (any case) is default
      const std::string u = lower_trimmed(v);
      g_settings.target_offload.store(u == "disabled" ? 0 : u == "mandatory" ? 2 : 1, std::memory_order_relaxed);
    } else if (name == "OMP_NUM_THREADS" && std::strtol(v, nullptr, 10) > 0) {
      self().cur_task->icvs.nthreads = static_cast<unsigned>(std::strtol(v, nullptr, 10));
    } else {
      kmp_notice("kmp_set_defaults(\"%s\"): not changed at run time here", item.c_str());
    }
  }
}

void display_kmp_settings(const global_config& c) {
  std::fprintf(stderr, "\nUser settings:\n\n");
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "KMP_", 4) == 0 || std::strncmp(*e, "OMP_", 4) == 0) std::fprintf(stderr, "   %s\n", *e);
  std::fprintf(stderr, "\nEffective settings:\n\n");
  const auto line = [](const char* name, const std::string& value) {
    std::fprintf(stderr, "   %s='%s'\n", name, value.c_str());
  };
  static const char* const bind_names[] = {"false", "true", "primary", "close", "spread"};
  line("KMP_AFFINITY", c.kmp_affinity.empty() ? "none (OMP_PROC_BIND and OMP_PLACES)" : c.kmp_affinity);
  line("KMP_BLOCKTIME", c.blocktime == k_blocktime_infinite ? "infinite"
                        : c.blocktime == k_blocktime_ladder ? "default (" + wait_text(c.blocktime) + ")"
                                                            : std::to_string(c.blocktime) + "ms");
  static const char* const modes[] = {"", "serial", "turnaround", "throughput"};
  line("KMP_LIBRARY", modes[c.library]);
  line("KMP_STACKSIZE", std::to_string(c.stack_size));
  line("KMP_ENABLE_TASK_THROTTLING", c.task_throttling ? "true" : "false");
  line("KMP_TEAMS_THREAD_LIMIT", std::to_string(teams_thread_limit()));
  line("OMP_NUM_THREADS", std::to_string(c.initial.nthreads));
  line("OMP_PROC_BIND", bind_names[c.initial.bind < 5 ? c.initial.bind : 0]);
  std::string places;
  for (const auto& p : c.places) {
    places += places.empty() ? "{" : ",{";
    for (std::size_t i = 0; i < p.size(); ++i) {  // appends: gcc 12 -O3 -Wrestrict misfires on "," + string&&
      if (i != 0) places += ',';
      places += std::to_string(p[i]);
    }
    places += "}";
  }
  line("OMP_PLACES", c.places_name.empty() ? places : c.places_name + ": " + places);
  line("OMP_THREAD_LIMIT", std::to_string(c.thread_limit));
  line("OMP_WAIT_POLICY", c.blocktime == 0 ? "passive" : "active");
  std::fprintf(stderr, "\n");
}

}  // namespace forkjoin::omp
