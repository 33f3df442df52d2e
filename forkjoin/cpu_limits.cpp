// cpu_limits.cpp: default_concurrency() and its pieces: the affinity mask, the cgroup CPU
// quota (v1 and v2, found through /proc/self/cgroup and /proc/self/mountinfo) and the
// FORKJOIN_NUM_THREADS / OMP_NUM_THREADS variables (an explicit count, which the mask and the
// quota do not cap). Read once per call; nothing cached.
#include "cpu_limits.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>
#include <vector>

#include "forkjoin/concurrency.hpp"

namespace forkjoin::detail {

namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// A whole decimal number that fits in 64 bits, else nothing.
std::optional<std::uint64_t> parse_u64(std::string_view s) {
  s = trim(s);
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const std::size_t at = s.find(sep);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

bool has_token(std::string_view list, std::string_view token) {
  for (std::string_view t : split(list, ','))
    if (t == token) return true;
  return false;
}

// mountinfo escapes blanks and backslashes in paths as \ooo (octal).
std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string_view oct = s.substr(i + 1, 3);
      unsigned v = 0;
      auto [end, ec] = std::from_chars(oct.data(), oct.data() + oct.size(), v, 8);
      if (ec == std::errc{} && end == oct.data() + oct.size() && v < 256) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// Whole CPUs granted by quota / period, rounded up; 0 when either is not positive.
std::size_t cpus_of_quota(std::uint64_t quota, std::uint64_t period) {
  if (quota == 0 || period == 0) return 0;
  return static_cast<std::size_t>(std::max<std::uint64_t>(1, quota / period + (quota % period != 0 ? 1 : 0)));
}

// cgroup v2: "max <period>" (no limit) or "<quota> <period>".
std::size_t v2_limit(const std::string& dir) {
  const std::optional<std::string> text = read_file(dir + "/cpu.max");
  if (!text) return 0;
  const std::vector<std::string_view> f = split(trim(*text), ' ');
  if (f.size() != 2 || f[0] == "max") return 0;
  const std::optional<std::uint64_t> quota = parse_u64(f[0]), period = parse_u64(f[1]);
  return quota && period ? cpus_of_quota(*quota, *period) : 0;
}

// cgroup v1: cpu.cfs_quota_us (-1 = no limit) over cpu.cfs_period_us.
std::size_t v1_limit(const std::string& dir) {
  const std::optional<std::string> quota_text = read_file(dir + "/cpu.cfs_quota_us");
  const std::optional<std::string> period_text = read_file(dir + "/cpu.cfs_period_us");
  if (!quota_text || !period_text) return 0;
  const std::optional<std::uint64_t> quota = parse_u64(*quota_text), period = parse_u64(*period_text);
  return quota && period ? cpus_of_quota(*quota, *period) : 0;  // "-1" does not parse: no limit
}

struct mount {
  std::string root;   // the part of the hierarchy mounted here
  std::string point;  // where
};

// The mount of the v2 hierarchy (v1 = false) or of the v1 hierarchy with the cpu controller.
std::optional<mount> find_mount(const std::string& mountinfo, bool v1) {
  std::istringstream lines(mountinfo);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    const std::vector<std::string_view> pre = split(std::string_view(line).substr(0, dash), ' ');
    const std::vector<std::string_view> post = split(std::string_view(line).substr(dash + 3), ' ');
    if (pre.size() < 5 || post.size() < 3) continue;
    const bool match = v1 ? post[0] == "cgroup" && has_token(post[2], "cpu") : post[0] == "cgroup2";
    if (match) return mount{unescape(pre[3]), unescape(pre[4])};
  }
  return std::nullopt;
}

// The process's path in the v2 hierarchy ("0::/path") or in the v1 cpu hierarchy.
std::optional<std::string> cgroup_path(const std::string& proc_cgroup, bool v1) {
  std::istringstream lines(proc_cgroup);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t a = line.find(':');
    const std::size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string_view controllers = std::string_view(line).substr(a + 1, b - a - 1);
    const bool match = v1 ? has_token(controllers, "cpu") : line.compare(0, a, "0") == 0 && controllers.empty();
    if (match) return line.substr(b + 1);
  }
  return std::nullopt;
}

// The tightest limit from the process's cgroup directory up to the mount point.
std::size_t hierarchy_limit(const std::string& root, const std::string& proc_cgroup, const std::string& mountinfo,
                            bool v1) {
  const std::optional<mount> m = find_mount(mountinfo, v1);
  const std::optional<std::string> path = cgroup_path(proc_cgroup, v1);
  if (!m || !path || path->empty() || path->front() != '/') return 0;
  // The mount shows the subtree m->root; the process's path is relative to the hierarchy.
  std::string rel = *path;
  if (m->root != "/") {
    const bool inside =
        rel.compare(0, m->root.size(), m->root) == 0 && (rel.size() == m->root.size() || rel[m->root.size()] == '/');
    rel = inside ? rel.substr(m->root.size()) : std::string();  // elsewhere: only the mount point's own
  }
  if (rel.find("/..") != std::string::npos) rel.clear();
  while (!rel.empty() && rel.back() == '/') rel.pop_back();
  std::size_t best = 0;
  for (;;) {
    std::string dir = root;
    dir += m->point;
    dir += rel;
    const std::size_t here = v1 ? v1_limit(dir) : v2_limit(dir);
    if (here != 0 && (best == 0 || here < best)) best = here;
    if (rel.empty()) return best;
    rel.resize(rel.rfind('/'));
  }
}

// A positive thread count (the first entry of an OpenMP-style list), else nothing.
std::optional<std::size_t> parse_thread_count(std::string_view s) {
  if (const std::size_t comma = s.find(','); comma != std::string_view::npos) s = s.substr(0, comma);
  const std::optional<std::uint64_t> n = parse_u64(s);
  if (!n || *n == 0) return std::nullopt;
  return static_cast<std::size_t>(std::min<std::uint64_t>(*n, SIZE_MAX));
}

}  // namespace

std::size_t affinity_cpu_count() noexcept {
  // Masks larger than cpu_set_t's 1024 CPUs: grow until the kernel's mask fits (EINVAL).
  for (int cpus = 1024; cpus <= (1 << 22); cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(cpus);
    if (set == nullptr) return 0;
    const std::size_t bytes = CPU_ALLOC_SIZE(cpus);
    CPU_ZERO_S(bytes, set);
    const int rc = sched_getaffinity(0, bytes, set);
    const int error = errno;
    const int count = rc == 0 ? CPU_COUNT_S(bytes, set) : 0;
    CPU_FREE(set);
    if (rc == 0) return static_cast<std::size_t>(count);
    if (error != EINVAL) return 0;
  }
  return 0;
}

std::size_t cgroup_cpu_limit(const std::string& root) {
  const std::optional<std::string> proc_cgroup = read_file(root + "/proc/self/cgroup");
  const std::optional<std::string> mountinfo = read_file(root + "/proc/self/mountinfo");
  if (!proc_cgroup || !mountinfo) return 0;
  const std::size_t v2 = hierarchy_limit(root, *proc_cgroup, *mountinfo, false);
  const std::size_t v1 = hierarchy_limit(root, *proc_cgroup, *mountinfo, true);
  if (v1 == 0 || v2 == 0) return std::max(v1, v2);
  return std::min(v1, v2);
}

std::size_t resolve_concurrency(const concurrency_inputs& in, std::string& warnings) {
  std::size_t hardware = in.mask_cpus;
  if (in.cgroup_limit != 0 && (hardware == 0 || in.cgroup_limit < hardware)) hardware = in.cgroup_limit;
  if (hardware == 0) hardware = std::max(1u, std::thread::hardware_concurrency());
  std::size_t result = hardware;
  std::vector<std::string_view> rejected;
  const std::pair<const char*, const char*> vars[] = {{"FORKJOIN_NUM_THREADS", in.forkjoin_num_threads},
                                                      {"OMP_NUM_THREADS", in.omp_num_threads}};
  for (const auto& [name, value] : vars) {
    if (value == nullptr || *value == '\0') continue;
    if (const std::optional<std::size_t> n = parse_thread_count(value)) {
      result = *n;  // explicit: honoured above the CPU count
      break;        // FORKJOIN_NUM_THREADS wins over OMP_NUM_THREADS
    }
    if (std::string_view(name) != "OMP_NUM_THREADS" || in.report_omp_num_threads) rejected.push_back(name);
  }
  for (std::string_view name : rejected) {
    const char* value = name == "OMP_NUM_THREADS" ? in.omp_num_threads : in.forkjoin_num_threads;
    warnings += "forkjoin: ignoring " + std::string(name) + "='" + value + "' (not a positive thread count); using " +
                std::to_string(result) + " threads\n";
  }
  return result;
}

namespace {
std::atomic<bool> omp_layer_reports{false};
}  // namespace

void leave_omp_num_threads_report_to_omp_layer() noexcept {
  omp_layer_reports.store(true, std::memory_order_relaxed);  // relaxed: it only silences a warning
}

}  // namespace forkjoin::detail

namespace forkjoin {

std::size_t default_concurrency() {
  detail::concurrency_inputs in;
  in.mask_cpus = detail::affinity_cpu_count();
  in.cgroup_limit = detail::cgroup_cpu_limit("");
  in.forkjoin_num_threads = std::getenv("FORKJOIN_NUM_THREADS");
  in.omp_num_threads = std::getenv("OMP_NUM_THREADS");
  in.report_omp_num_threads = !detail::omp_layer_reports.load(std::memory_order_relaxed);
  std::string warnings;
  const std::size_t n = detail::resolve_concurrency(in, warnings);
  if (!warnings.empty()) {
    // Each distinct message once per process: pools of the default size call this often.
    static std::mutex mutex;
    static std::vector<std::string> said;
    std::lock_guard<std::mutex> lock(mutex);
    if (std::find(said.begin(), said.end(), warnings) == said.end()) {
      said.push_back(warnings);
      std::fputs(warnings.c_str(), stderr);
    }
  }
  return n;
}

}  // namespace forkjoin
