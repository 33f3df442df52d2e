// tbb_replace_probe.cpp: linked against native libtbb (-ltbb). With the argument "forkjoin"
// it checks that it runs on libforkjoin-tbb instead (the replace folder first in
// LD_LIBRARY_PATH): the runtime's version string, libforkjoin-omp and libforkjoin-tbb in
// /proc/self/maps, tasks run by forkjoin's worker threads (named "forkjoin-<i>"), and a
// parallel_reduce that is right. With "native" it checks the opposite (the control).
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/version.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace {

bool maps_contain(const char* name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || (std::strcmp(argv[1], "forkjoin") != 0 && std::strcmp(argv[1], "native") != 0)) {
    std::fprintf(stderr, "usage: %s forkjoin|native\n", argv[0]);
    return 2;
  }
  const bool want_forkjoin = std::strcmp(argv[1], "forkjoin") == 0;
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "FAILED: %s\n", what);
      ++failures;
    }
  };

  const long long n = 1000000;
  const long long sum = tbb::parallel_reduce(
      tbb::blocked_range<long long>(0, n), 0LL,
      [](const tbb::blocked_range<long long>& r, long long acc) {
        for (long long i = r.begin(); i != r.end(); ++i) acc += i;
        return acc;
      },
      [](long long a, long long b) { return a + b; });
  check(sum == n * (n - 1) / 2, "parallel_reduce sum");

  // Thread names of the threads that ran iterations (the caller keeps its own name).
  std::atomic<int> forkjoin_named{0};
  tbb::parallel_for(0, 64, [&](int) {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof(name));
    if (std::strncmp(name, "forkjoin", 8) == 0) forkjoin_named++;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });

  const bool version_is_ours = std::strstr(TBB_runtime_version(), "libforkjoin-tbb") != nullptr;
  if (want_forkjoin) {
    check(version_is_ours, "TBB_runtime_version names libforkjoin-tbb");
    check(maps_contain("libforkjoin-tbb.so"), "libforkjoin-tbb.so is mapped");
    check(maps_contain("libforkjoin-omp.so"), "libforkjoin-omp.so is mapped");
    check(forkjoin_named.load() > 0 || tbb::this_task_arena::max_concurrency() < 2,
          "some iterations ran on forkjoin's worker threads");
  } else {
    check(!version_is_ours, "native oneTBB answers TBB_runtime_version");
    check(!maps_contain("libforkjoin"), "nothing of forkjoin is mapped");
  }
  std::printf("%s: %s, sum %lld, %d iterations on forkjoin workers\n", argv[1], TBB_runtime_version(), sum,
              forkjoin_named.load());
  return failures == 0 ? 0 : 1;
}
