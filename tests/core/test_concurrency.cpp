// test_concurrency.cpp: default_concurrency() and its pieces: cgroup v1/v2 quotas read from
// files faked in a temporary directory (limits, no limit, nested paths, a container's
// subtree mount, garbage, missing files), the environment variables, and the affinity mask
// through `taskset` (the test re-executes this binary under it).
#include <gtest/gtest.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cpu_limits.hpp"
#include "forkjoin/forkjoin.hpp"

namespace fj = forkjoin;
namespace fs = std::filesystem;

namespace {

// Re-executed under taskset by MaskThroughTaskset: print default_concurrency() and leave
// before gtest starts.
const bool g_probe = [] {
  if (std::getenv("FORKJOIN_TEST_PRINT_CONCURRENCY") == nullptr) return false;
  const std::size_t first = fj::default_concurrency();  // twice: a bad variable is reported once
  if (fj::default_concurrency() != first) std::_Exit(1);
  std::printf("concurrency=%zu\n", first);
  std::fflush(stdout);
  std::_Exit(0);
}();

class fake_root {
 public:
  fake_root() {
    std::string tmpl = (fs::temp_directory_path() / "forkjoin-cgroup-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
  }
  ~fake_root() { fs::remove_all(dir_); }
  fake_root(const fake_root&) = delete;
  fake_root& operator=(const fake_root&) = delete;

  void write(const std::string& rel, const std::string& text) const {
    const fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::size_t limit() const { return fj::detail::cgroup_cpu_limit(dir_.string()); }

 private:
  fs::path dir_;
};

const char* const k_v2_mount = "30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";
const char* const k_v1_mount =
    "22 21 0:19 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
    "32 22 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:7 - cgroup cgroup rw,cpu,cpuacct\n"
    "33 22 0:30 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n";

std::string run_command(const std::string& cmd) {
  std::string out;
  FILE* f = ::popen(cmd.c_str(), "r");
  if (f == nullptr) return out;
  std::array<char, 256> buf;
  while (std::fgets(buf.data(), buf.size(), f) != nullptr) out += buf.data();
  ::pclose(f);
  return out;
}

}  // namespace

TEST(Cgroup, V2QuotaRoundsUp) {
  fake_root root;
  root.write("proc/self/cgroup", "0::/app.slice/job.scope\n");
  root.write("proc/self/mountinfo", k_v2_mount);
  root.write("sys/fs/cgroup/app.slice/job.scope/cpu.max", "150000 100000\n");
  EXPECT_EQ(root.limit(), 2u);
  root.write("sys/fs/cgroup/app.slice/job.scope/cpu.max", "50000 100000\n");
  EXPECT_EQ(root.limit(), 1u);  // half a CPU is still one thread
  root.write("sys/fs/cgroup/app.slice/job.scope/cpu.max", "400000 100000\n");
  EXPECT_EQ(root.limit(), 4u);
}

TEST(Cgroup, V2MaxMeansNoLimit) {
  fake_root root;
  root.write("proc/self/cgroup", "0::/user.slice\n");
  root.write("proc/self/mountinfo", k_v2_mount);
  root.write("sys/fs/cgroup/user.slice/cpu.max", "max 100000\n");
  EXPECT_EQ(root.limit(), 0u);
}

TEST(Cgroup, V2NestedPathTakesTightestAncestor) {
  fake_root root;
  root.write("proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
  root.write("proc/self/mountinfo", k_v2_mount);
  root.write("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "max 100000\n");
  root.write("sys/fs/cgroup/kubepods/pod1/cpu.max", "250000 100000\n");
  root.write("sys/fs/cgroup/kubepods/cpu.max", "800000 100000\n");
  EXPECT_EQ(root.limit(), 3u);  // the pod's 2.5 CPUs, not the leaf's "max"
  root.write("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "100000 100000\n");
  EXPECT_EQ(root.limit(), 1u);  // the leaf is tighter still
}

TEST(Cgroup, V1QuotaOverPeriod) {
  fake_root root;
  root.write("proc/self/cgroup", "5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n");
  root.write("proc/self/mountinfo", k_v1_mount);
  root.write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "150000\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(root.limit(), 2u);
  root.write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n");
  EXPECT_EQ(root.limit(), 0u);
}

TEST(Cgroup, V1ContainerSeesItsSubtreeAtTheMountPoint) {
  // Inside a container the mount's root is the container's own cgroup.
  fake_root root;
  root.write("proc/self/cgroup", "3:cpu,cpuacct:/docker/abc\n");
  root.write("proc/self/mountinfo", "40 31 0:29 /docker/abc /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpuacct,cpu\n");
  root.write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "300000\n");
  root.write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(root.limit(), 3u);
}

TEST(Cgroup, HybridTakesTheTighterHierarchy) {
  fake_root root;
  root.write("proc/self/cgroup", "4:cpu,cpuacct:/a\n0::/b\n");
  root.write("proc/self/mountinfo",
             std::string(k_v1_mount) + "41 22 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/a/cpu.cfs_quota_us", "600000\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/a/cpu.cfs_period_us", "100000\n");
  root.write("sys/fs/cgroup/unified/b/cpu.max", "200000 100000\n");
  EXPECT_EQ(root.limit(), 2u);
}

TEST(Cgroup, GarbageMeansNoLimit) {
  fake_root root;
  root.write("proc/self/cgroup", "0::/x\n");
  root.write("proc/self/mountinfo", k_v2_mount);
  for (const char* text :
       {"banana", "150000", "150000 0", "0 100000", "-5 100000", "1 2 3", "", "99999999999999999999999 100000"}) {
    root.write("sys/fs/cgroup/x/cpu.max", text);
    EXPECT_EQ(root.limit(), 0u) << "cpu.max = '" << text << "'";
  }
  root.write("sys/fs/cgroup/x/cpu.max", "200000 100000");
  EXPECT_EQ(root.limit(), 2u);
  root.write("proc/self/mountinfo", "garbage without a separator\n - \n1 2 3 - cgroup2\n");
  EXPECT_EQ(root.limit(), 0u);
  root.write("proc/self/mountinfo", k_v2_mount);
  root.write("proc/self/cgroup", "no colons here\n0:/x\n");
  EXPECT_EQ(root.limit(), 0u);
}

TEST(Cgroup, MissingFilesMeanNoLimit) {
  fake_root root;
  EXPECT_EQ(root.limit(), 0u);  // no /proc at all
  root.write("proc/self/cgroup", "0::/x\n");
  EXPECT_EQ(root.limit(), 0u);  // no mountinfo
  root.write("proc/self/mountinfo", k_v2_mount);
  EXPECT_EQ(root.limit(), 0u);  // no cpu.max
}

// mountinfo writes blanks and backslashes in paths as octal escapes (\040, \134): the mount
// point is found under its real name. A backslash that does not start three octal digits
// below \400 is kept as it is.
TEST(Cgroup, EscapedMountPointIsUnescaped) {
  fake_root root;
  root.write("proc/self/cgroup", "0::/job\n");
  root.write("proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup/my\\040tree\\134x rw - cgroup2 cgroup2 rw\n");
  root.write("sys/fs/cgroup/my tree\\x/job/cpu.max", "300000 100000\n");
  EXPECT_EQ(root.limit(), 3u);
  root.write("proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup/a\\9ab\\777\\12x\\12 rw - cgroup2 cgroup2 rw\n");
  root.write("sys/fs/cgroup/a\\9ab\\777\\12x\\12/job/cpu.max", "200000 100000\n");
  EXPECT_EQ(root.limit(), 2u);
}

// A v1 mount that shows a subtree the process is not in: only the mount point's own limit
// counts. Likewise a path that climbs out ("/.."); a trailing slash is no directory.
TEST(Cgroup, PathOutsideTheMountedSubtreeTakesTheMountPoint) {
  fake_root root;
  root.write("proc/self/mountinfo", "40 31 0:29 /docker/abc /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpuacct,cpu\n");
  root.write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "200000\n");
  root.write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  root.write("sys/fs/cgroup/cpu/sub/cpu.cfs_quota_us", "100000\n");
  root.write("sys/fs/cgroup/cpu/sub/cpu.cfs_period_us", "100000\n");
  root.write("sys/fs/cgroup/sub/cpu.cfs_quota_us", "100000\n");  // where "/docker/abc/../sub" would lead
  root.write("sys/fs/cgroup/sub/cpu.cfs_period_us", "100000\n");
  for (const char* outside : {"/other/abc", "/docker/abcdef", "/docker/abc/../sub"}) {
    root.write("proc/self/cgroup", std::string("3:cpu,cpuacct:") + outside + "\n");
    EXPECT_EQ(root.limit(), 2u) << outside;
  }
  root.write("proc/self/cgroup", "3:cpu,cpuacct:/docker/abc/sub/\n");
  EXPECT_EQ(root.limit(), 1u);  // inside: its own directory, tighter
}

// Process paths that are no absolute paths, and mount lines too short to read: no limit.
TEST(Cgroup, OddPathsAndShortMountLinesMeanNoLimit) {
  fake_root root;
  root.write("proc/self/mountinfo", k_v2_mount);
  root.write("sys/fs/cgroup/cpu.max", "100000 100000\n");
  for (const char* line : {"0::\n", "0::relative/path\n"}) {
    root.write("proc/self/cgroup", line);
    EXPECT_EQ(root.limit(), 0u) << line;
  }
  root.write("proc/self/cgroup", "0::/\n");
  EXPECT_EQ(root.limit(), 1u);
  root.write("proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup rw - cgroup2\n1 2 - cgroup2 cgroup2 rw\n");
  EXPECT_EQ(root.limit(), 0u);
}

// Without an affinity mask the quota decides; an empty variable counts as unset.
TEST(Concurrency, QuotaWithoutMaskAndEmptyVariables) {
  std::string warnings;
  fj::detail::concurrency_inputs in;
  in.cgroup_limit = 3;
  in.forkjoin_num_threads = "";
  in.omp_num_threads = "";
  EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 3u);
  EXPECT_EQ(warnings, "");
}

TEST(Concurrency, ExplicitCountElseSmallerOfMaskAndQuota) {
  std::string warnings;
  fj::detail::concurrency_inputs in;
  in.mask_cpus = 8;
  EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 8u);
  in.cgroup_limit = 3;
  EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 3u);
  in.cgroup_limit = 16;
  EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 8u);
  in.omp_num_threads = "5,2";  // the first entry of an OpenMP list
  EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 5u);
  in.forkjoin_num_threads = " 2 ";  // forkjoin's own variable wins
  EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 2u);
  in.forkjoin_num_threads = "64";  // explicit: honoured above the CPUs the process may use
  EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 64u);
  in.forkjoin_num_threads = nullptr;
  in.omp_num_threads = "12";
  EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 12u);
  EXPECT_EQ(warnings, "");
  in = {};
  EXPECT_GE(fj::detail::resolve_concurrency(in, warnings), 1u);  // nothing known: hardware_concurrency
}

TEST(Concurrency, MalformedVariableIsReportedAndIgnored) {
  fj::detail::concurrency_inputs in;
  in.mask_cpus = 4;
  for (const char* bad : {"lots", "0", "-3", "2x", ",", "99999999999999999999999"}) {
    std::string warnings;
    in.forkjoin_num_threads = bad;
    in.omp_num_threads = "3";
    EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 3u) << bad;  // falls through to OMP_NUM_THREADS
    EXPECT_EQ(warnings, std::string("forkjoin: ignoring FORKJOIN_NUM_THREADS='") + bad +
                            "' (not a positive thread count); using 3 threads\n");
  }
  std::string warnings;
  in.forkjoin_num_threads = nullptr;
  in.omp_num_threads = "many";
  EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 4u);
  EXPECT_EQ(warnings, "forkjoin: ignoring OMP_NUM_THREADS='many' (not a positive thread count); using 4 threads\n");
  // in libforkjoin-omp the OpenMP layer reports OMP_NUM_THREADS: ignored without a warning
  warnings.clear();
  in.report_omp_num_threads = false;
  EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 4u);
  EXPECT_EQ(warnings, "");
  in.forkjoin_num_threads = "lots";  // forkjoin's own variable is still reported
  EXPECT_EQ(fj::detail::resolve_concurrency(in, warnings), 4u);
  EXPECT_EQ(warnings,
            "forkjoin: ignoring FORKJOIN_NUM_THREADS='lots' (not a positive thread count); using 4 threads\n");
}

TEST(Concurrency, AffinityMaskMatchesTheKernel) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_EQ(fj::detail::affinity_cpu_count(), static_cast<std::size_t>(CPU_COUNT(&set)));
  EXPECT_GE(fj::default_concurrency(), 1u);
  if (std::getenv("FORKJOIN_NUM_THREADS") == nullptr && std::getenv("OMP_NUM_THREADS") == nullptr) {
    EXPECT_LE(fj::default_concurrency(), fj::detail::affinity_cpu_count());
  }
}

TEST(Concurrency, MaskThroughTaskset) {
  // One CPU of the current mask (CPU 0 may not be in it).
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &set)) ++cpu;
  char self[4096];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(len, 0);
  self[len] = '\0';
  const std::string prefix = "env -u FORKJOIN_NUM_THREADS -u OMP_NUM_THREADS FORKJOIN_TEST_PRINT_CONCURRENCY=1 ";
  const std::string pinned = " taskset -c " + std::to_string(cpu) + " '" + self + "' 2>&1";
  EXPECT_EQ(run_command(prefix + pinned), "concurrency=1\n");
  // an explicit count is honoured above the one CPU the process may use
  EXPECT_EQ(run_command(prefix + "OMP_NUM_THREADS=3" + pinned), "concurrency=3\n");
  EXPECT_EQ(run_command(prefix + "FORKJOIN_NUM_THREADS=5 OMP_NUM_THREADS=3" + pinned), "concurrency=5\n");
  // Unpinned, the child sees what this process sees.
  std::string warnings;
  const std::size_t unpinned = fj::detail::resolve_concurrency(
      {fj::detail::affinity_cpu_count(), fj::detail::cgroup_cpu_limit(""), nullptr, nullptr}, warnings);
  EXPECT_EQ(run_command(prefix + "'" + self + "' 2>&1"), "concurrency=" + std::to_string(unpinned) + "\n");
}

TEST(Concurrency, MalformedEnvironmentWarnsOnceAndNeverThrows) {
  // A child process: the warning is printed once per process.
  char self[4096];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(len, 0);
  self[len] = '\0';
  const std::string out = run_command(std::string("env -u OMP_NUM_THREADS FORKJOIN_NUM_THREADS=lots ") +
                                      "FORKJOIN_TEST_PRINT_CONCURRENCY=1 '" + self + "' 2>&1");
  const std::string warning = "forkjoin: ignoring FORKJOIN_NUM_THREADS='lots' (not a positive thread count); using ";
  const std::size_t at = out.find(warning);
  EXPECT_NE(at, std::string::npos) << out;
  EXPECT_EQ(out.find(warning, at + 1), std::string::npos) << out;  // once
  EXPECT_NE(out.find("concurrency="), std::string::npos) << out;
}

TEST(Concurrency, DefaultPoolSizesItselfFromIt) {
  EXPECT_EQ(fj::default_pool().num_threads(), fj::default_concurrency());
}
