// places.cpp: OMP_PROC_BIND and OMP_PLACES (parsed once, with env.cpp's one-line message on a
// bad value), the binding of team threads to places, and the place queries of the omp_* API.
// [P-OMP Bind]
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "internal.hpp"

namespace forkjoin::omp {
// The CPUs the process may run on, in increasing order: FORKJOIN_OMP_CPUS when the launcher
// set it (its own affinity, in /proc's list form "0-3,8"; under a preload, libgomp's
// start-up may already have pinned the initial thread when binding is requested), else the
// calling thread's affinity mask.
std::vector<int> usable_cpus() {
  std::vector<int> cpus;
  if (const char* s = std::getenv("FORKJOIN_OMP_CPUS")) {
    for (const char* p = s; *p != '\0';) {
      char* end = nullptr;
      long first = std::strtol(p, &end, 10), last = first;
      if (end == p) break;
      if (*end == '-') {
        const char* q = end + 1;
        last = std::strtol(q, &end, 10);
        if (end == q) break;
      }
      for (long c = first; c <= last && c >= 0 && c < CPU_SETSIZE; ++c) cpus.push_back(static_cast<int>(c));
      p = *end == ',' ? end + 1 : "";
    }
  }
  if (cpus.empty()) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

std::string lower_trimmed(const char* s) {
  std::string v;
  for (const char* p = s; *p != '\0'; ++p)
    if (!std::isspace(static_cast<unsigned char>(*p)))
      v += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
  return v;
}

namespace {

long read_topology(int cpu, const char* what) {
  char path[128];
  std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
  std::ifstream f(path);
  long v = -1;
  if (!(f >> v)) return -1;
  return v;
}

// [P-OMP KMP] KMP_HW_SUBSET: the CPUs the abstract place names are built from (empty: every
// usable CPU). Written by read_places, before any reader, while the configuration is read once.
std::vector<int> g_subset_cpus;

// KMP_HW_SUBSET's layers: how many of each (socket, core per socket, thread per core) and the
// first one taken; count 0 keeps them all.
struct hw_layer {
  long count = 0;
  long offset = 0;
};

// KMP_HW_SUBSET := item (',' item)*; item := [count | '*'] layer ['@' offset] [':' attribute].
// Layers: s (socket, package), c (core), t (thread); any order. False on a syntax error; a
// layer this topology reader does not know (numa, tile, die, caches) or a core attribute gets
// a notice and is ignored.
bool parse_hw_subset(const std::string& text, hw_layer& sockets, hw_layer& cores, hw_layer& threads) {
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(at, end - at);
    at = end + 1;
    if (item.empty()) return false;
    if (const std::size_t colon = item.find(':'); colon != std::string::npos) {
      kmp_notice("KMP_HW_SUBSET: core attribute \"%s\" has no counterpart, ignored", item.c_str() + colon + 1);
      item.resize(colon);
    }
    hw_layer layer;
    std::size_t i = 0;
    if (i < item.size() && item[i] == '*') {
      ++i;
    } else {
      while (i < item.size() && std::isdigit(static_cast<unsigned char>(item[i])))
        layer.count = layer.count * 10 + (item[i++] - '0');
      if (i > 0 && layer.count == 0) return false;
    }
    const std::size_t at_sign = item.find('@', i);
    const std::string kind = item.substr(i, at_sign == std::string::npos ? std::string::npos : at_sign - i);
    if (at_sign != std::string::npos) {
      const std::string off = item.substr(at_sign + 1);
      if (off.empty() || off.find_first_not_of("0123456789") != std::string::npos) return false;
      layer.offset = std::strtol(off.c_str(), nullptr, 10);
    }
    if (kind == "s" || kind == "socket" || kind == "sockets" || kind == "package" || kind == "packages") {
      sockets = layer;
    } else if (kind == "c" || kind == "core" || kind == "cores") {
      cores = layer;
    } else if (kind == "t" || kind == "thread" || kind == "threads") {
      threads = layer;
    } else if (kind == "n" || kind == "numa" || kind == "numa_domains" || kind == "tile" || kind == "tiles" ||
               kind == "d" || kind == "die" || kind == "dice" || kind == "l1" || kind == "l2" || kind == "l3" ||
               kind == "ll" || kind == "llc") {
      kmp_notice("KMP_HW_SUBSET: layer \"%s\" is not read here, ignored", kind.c_str());
    } else {
      return false;
    }
  }
  return true;
}

// The usable CPUs within KMP_HW_SUBSET's layers, in increasing order: packages in the order
// of their first CPU, cores within a package likewise, threads within a core.
std::vector<int> hw_subset_cpus(const hw_layer& sockets, const hw_layer& cores, const hw_layer& threads) {
  std::map<long, long> package_rank;
  std::map<std::pair<long, long>, long> core_rank;  // (package, core id) -> rank in its package
  std::map<std::pair<long, long>, long> core_used;  // threads seen so far in a core
  std::map<long, long> cores_in_package;
  const auto within = [](const hw_layer& l, long rank) {
    return rank >= l.offset && (l.count == 0 || rank < l.offset + l.count);
  };
  std::vector<int> kept;
  for (int cpu : usable_cpus()) {
    long pkg = read_topology(cpu, "physical_package_id"), core = read_topology(cpu, "core_id");
    if (pkg < 0) pkg = 0;
    if (core < 0) core = cpu;
    const long p = package_rank.emplace(pkg, static_cast<long>(package_rank.size())).first->second;
    auto [it, fresh] = core_rank.emplace(std::pair{pkg, core}, cores_in_package[pkg]);
    if (fresh) ++cores_in_package[pkg];
    const long t = core_used[{pkg, core}]++;
    if (within(sockets, p) && within(cores, it->second) && within(threads, t)) kept.push_back(cpu);
  }
  return kept;
}

// threads: one place per CPU; cores: the CPUs of one core (package, core id); sockets: of one
// package. ll_caches and numa_domains are taken as sockets. At most `limit` places. Only the
// CPUs of KMP_HW_SUBSET when it is set.
std::vector<std::vector<int>> abstract_places(const std::string& name, unsigned long limit) {
  std::vector<std::vector<int>> places;
  std::map<std::pair<long, long>, std::size_t> index;
  for (int cpu : g_subset_cpus.empty() ? usable_cpus() : g_subset_cpus) {
    std::pair<long, long> key{cpu, 0};
    if (name == "cores") key = {read_topology(cpu, "physical_package_id"), read_topology(cpu, "core_id")};
    if (name == "sockets" || name == "ll_caches" || name == "numa_domains")
      key = {read_topology(cpu, "physical_package_id"), 0};
    if (key.first < 0) key = {cpu, 0};  // no topology: a CPU is its own core and socket
    auto [it, fresh] = index.emplace(key, places.size());
    if (fresh) places.emplace_back();
    places[it->second].push_back(cpu);
  }
  if (places.size() > limit) places.resize(limit);
  return places;
}

// Explicit lists: place-list := item (',' item)*; item := place [':' len [':' stride]];
// place := '{' res (',' res)* '}'; res := ['!'] num [':' len [':' stride]]. Strides may be
// negative. False on any syntax error or a CPU number out of range.
class place_parser {
 public:
  explicit place_parser(const char* s) : p_(s) {}

  bool parse(std::vector<std::vector<int>>& out) {
    for (;;) {
      std::vector<int> place;
      if (!parse_place(place)) return false;
      long len = 1, stride = 1;
      if (eat(':')) {
        if (!number(len) || len < 1) return false;
        if (eat(':') && !number(stride)) return false;
      }
      for (long k = 0; k < len; ++k) {
        std::vector<int> shifted;
        for (int c : place) {
          long v = c + k * stride;
          if (v < 0 || v >= CPU_SETSIZE) return false;
          shifted.push_back(static_cast<int>(v));
        }
        out.push_back(shifted);
      }
      skip();
      if (*p_ == '\0') return !out.empty();
      if (!eat(',')) return false;
    }
  }

 private:
  const char* p_;

  void skip() {
    while (std::isspace(static_cast<unsigned char>(*p_))) ++p_;
  }
  bool eat(char c) {
    skip();
    if (*p_ != c) return false;
    ++p_;
    return true;
  }
  bool number(long& v) {
    skip();
    if (!std::isdigit(static_cast<unsigned char>(*p_)) && *p_ != '-') return false;
    errno = 0;
    char* end = nullptr;
    v = std::strtol(p_, &end, 10);
    if (errno != 0 || end == p_ || v > CPU_SETSIZE || v < -CPU_SETSIZE) return false;
    p_ = end;
    return true;
  }
  bool parse_place(std::vector<int>& place) {
    if (!eat('{')) return false;
    std::vector<int> excluded;
    for (;;) {
      const bool exclude = eat('!');
      long first = 0, len = 1, stride = 1;
      if (!number(first) || first < 0) return false;
      if (eat(':')) {
        if (!number(len) || len < 1) return false;
        if (eat(':') && !number(stride)) return false;
      }
      for (long k = 0; k < len; ++k) {
        long v = first + k * stride;
        if (v < 0 || v >= CPU_SETSIZE) return false;
        (exclude ? excluded : place).push_back(static_cast<int>(v));
      }
      if (eat('}')) break;
      if (!eat(',')) return false;
    }
    std::erase_if(place, [&](int c) { return std::find(excluded.begin(), excluded.end(), c) != excluded.end(); });
    return true;
  }
};

thread_local int tls_place = -1;  // the place this thread is pinned to, -1 when unbound

// The affinity mask the process started with: an unbound team thread returns to it.
const cpu_set_t& initial_mask() {
  static const cpu_set_t mask = [] {
    cpu_set_t m;
    CPU_ZERO(&m);
    for (int c : usable_cpus()) CPU_SET(c, &m);
    return m;
  }();
  return mask;
}

void pin_to(int place) noexcept {
  if (tls_place == place) return;
  cpu_set_t set;
  if (place < 0) {
    set = initial_mask();
  } else {
    CPU_ZERO(&set);
    for (int c : config().places[static_cast<std::size_t>(place)]) CPU_SET(c, &set);
  }
  // a refused mask (CPUs taken away since start-up) leaves the thread where it was
  if (sched_setaffinity(0, sizeof(set), &set) == 0) tls_place = place;
}

}  // namespace

std::vector<std::vector<int>> named_places(const std::string& name) { return abstract_places(name, ~0UL); }

int num_places() noexcept { return static_cast<int>(config().places.size()); }

void read_proc_bind(global_config& c) {
  const char* s = std::getenv("OMP_PROC_BIND");
  if (s == nullptr) return;
  std::string v = lower_trimmed(s);
  std::vector<unsigned> list;
  if (v == "true" || v == "false") {
    list.push_back(v == "true" ? 1u : 0u);
  } else {
    std::size_t pos = 0;
    for (;;) {
      std::size_t comma = v.find(',', pos);
      std::string item = v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      if (item == "master" || item == "primary")
        list.push_back(2);
      else if (item == "close")
        list.push_back(3);
      else if (item == "spread")
        list.push_back(4);
      else {
        complain("OMP_PROC_BIND", s, "false");
        return;
      }
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  c.initial.bind = list[0];
  c.proc_bind_set = true;
  if (list.size() > 1) {
    c.bind_list = list;
    c.initial.max_active_levels = k_max_levels;  // a list enables nesting, as in libgomp
  }
}

// [P-OMP KMP] KMP_HW_SUBSET narrows the CPUs the abstract names are built from.
void read_hw_subset() {
  const char* s = std::getenv("KMP_HW_SUBSET");
  if (s == nullptr) return;
  hw_layer sockets, cores, threads;
  if (!parse_hw_subset(lower_trimmed(s), sockets, cores, threads)) {
    complain("KMP_HW_SUBSET", s, "every CPU");
    return;
  }
  g_subset_cpus = hw_subset_cpus(sockets, cores, threads);
  if (g_subset_cpus.empty()) complain("KMP_HW_SUBSET", s, "every CPU (the subset holds none)");
}

void read_places(global_config& c) {
  read_hw_subset();
  const char* s = std::getenv("OMP_PLACES");
  std::vector<std::vector<int>> places;
  if (s != nullptr) {
    std::string v = lower_trimmed(s);
    std::string name = v.substr(0, v.find('('));
    if (name == "threads" || name == "cores" || name == "sockets" || name == "ll_caches" || name == "numa_domains") {
      c.places_name = v;
      unsigned long limit = ~0UL;
      if (name.size() < v.size()) {
        const char* p = v.c_str() + name.size() + 1;
        char* end = nullptr;
        errno = 0;
        limit = std::strtoul(p, &end, 10);
        if (errno != 0 || end == p || limit == 0 || std::strcmp(end, ")") != 0) limit = 0;
      }
      if (limit != 0) places = abstract_places(name, limit);
    } else {
      place_parser parser(s);
      if (!parser.parse(places)) places.clear();
      // CPUs the process may not use are dropped, and so are the places left empty
      const std::vector<int> usable = usable_cpus();
      std::size_t before = places.size();
      for (auto& pl : places)
        std::erase_if(pl, [&](int cpu) { return std::find(usable.begin(), usable.end(), cpu) == usable.end(); });
      std::erase_if(places, [](const std::vector<int>& pl) { return pl.empty(); });
      if (!places.empty() && places.size() < before)
        std::fprintf(stderr,
                     "forkjoin-omp: number of places reduced from %zu to %zu because some places contain no usable "
                     "CPU\n",
                     before, places.size());
    }
    if (places.empty() && libomp_linked()) {
      // [P-OMP KMPC K15] libomp's fallback for a bad list: cores, and binding on with it
      complain("OMP_PLACES", s, "cores");
      places = abstract_places("cores", ~0UL);
      c.places_name = "cores";
    } else if (places.empty()) {
      complain("OMP_PLACES", s, "no places (one per CPU when OMP_PROC_BIND is on)");
    }
    if (!places.empty() && !c.proc_bind_set) c.initial.bind = 1;  // places given: binding on, as libgomp does
  }
  if (places.empty() && c.initial.bind != 0) places = abstract_places("threads", ~0UL);
  c.places = std::move(places);
}

// [P-OMP Bind] B1: the team's policy is the proc_bind clause (flags & 7) unless bind-var is
// false; true means close. The primary's place and partition come from the encountering team.
void plan_binding(thread_state& ts, team& t, unsigned flags, icv& inherited) noexcept {
  settle_initial_place();  // [P-OMP KMPC K17] a libomp program's first region
  const unsigned bind_var = ts.cur_task->icvs.bind;
  const unsigned clause = flags & 7;
  if (bind_var != 0 && clause != 0) inherited.bind = clause;
  const auto& list = config().bind_list;
  if (t.level < list.size()) inherited.bind = list[t.level];
  unsigned policy = bind_var == 0 || num_places() == 0 ? 0 : (clause != 0 ? clause : bind_var);
  if (policy == 1) policy = 3;
  int lo = 0, len = 0;
  partition_of(*ts.cur_team, ts.id, lo, len);
  set_if_changed(t.part_lo, lo);
  set_if_changed(t.part_len, len);
  set_if_changed(t.bind_policy, policy);
  // an unbound primary (or one outside the partition) starts at the partition's first place
  set_if_changed(t.bind_place, policy == 0 ? -1 : (tls_place >= lo && tls_place < lo + len ? tls_place : lo));
}

// [P-OMP Bind] B2: place of team thread `id`, relative to the primary's place p inside the
// team's partition of P places. primary: p. close: the places after p in turn, or id * P / T
// places after p when there are more threads than places. spread: the partition is cut into
// T sub-partitions [k P / T, (k + 1) P / T); thread id gets the first place of the id-th one
// after the primary's, the primary keeps p; with more threads than places, as close.
namespace {
long chunk_start(long k, long places, long threads) { return k * places / threads; }
long chunk_of(long rel, long places, long threads) {
  long k = 0;
  while (k + 1 < threads && chunk_start(k + 1, places, threads) <= rel) ++k;
  return k;
}
}  // namespace

int place_of(const team& t, unsigned id) noexcept {
  if (t.bind_policy == 0) return -1;
  const long P = t.part_len, T = t.nthreads, p = t.bind_place - t.part_lo;
  long rel = p;
  if (t.bind_policy == 3 || (t.bind_policy == 4 && T > P))
    rel = (p + (T <= P ? static_cast<long>(id) : static_cast<long>(id) * P / T)) % P;
  else if (t.bind_policy == 4 && id != 0)
    rel = chunk_start((chunk_of(p, P, T) + id) % T, P, T);
  return static_cast<int>(t.part_lo + rel);
}

void partition_of(const team& t, unsigned id, int& lo, int& len) noexcept {
  if (t.part_len <= 0) {  // the initial team: every place
    lo = 0;
    len = num_places();
    return;
  }
  lo = t.part_lo;
  len = t.part_len;
  if (t.bind_policy != 4) return;
  const long P = t.part_len, T = t.nthreads;
  if (T > P) {  // spread over fewer places than threads: each thread's partition is its place
    lo = place_of(t, id);
    len = 1;
    return;
  }
  const long k = chunk_of(place_of(t, id) - t.part_lo, P, T);
  lo = static_cast<int>(t.part_lo + chunk_start(k, P, T));
  len = static_cast<int>(chunk_start(k + 1, P, T) - chunk_start(k, P, T));
}

void bind_team_thread(const team& t, unsigned id) noexcept {
  if (t.bind_policy == 0) {
    unbind_thread();  // a bound thread serving an unbound team: unpinned again
    return;
  }
  pin_to(place_of(t, id));
}

void unbind_thread() noexcept {
  if (tls_place >= 0) pin_to(-1);
}

void remember_initial_mask() noexcept { (void)initial_mask(); }

namespace {
// [P-OMP KMPC K17] whether the initial place was settled (relaxed: the flag guards only itself)
std::atomic<bool> g_initial_place_settled{false};
}  // namespace

void settle_initial_place() noexcept {
  if (g_initial_place_settled.load(std::memory_order_relaxed)) return;
  if (g_initial_place_settled.exchange(true, std::memory_order_relaxed)) return;
  bind_initial_thread();
}

void bind_initial_thread() noexcept {
  (void)initial_mask();
  if (config().initial.bind != 0 && num_places() > 0) pin_to(0);
}

int place_num_procs(int place) noexcept {
  if (place < 0 || place >= num_places()) return 0;
  return static_cast<int>(config().places[static_cast<std::size_t>(place)].size());
}

void place_proc_ids(int place, int* ids) noexcept {
  if (place < 0 || place >= num_places() || ids == nullptr) return;
  for (int c : config().places[static_cast<std::size_t>(place)]) *ids++ = c;
}

int current_place() noexcept { return tls_place; }

}  // namespace forkjoin::omp
