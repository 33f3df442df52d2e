// matrix_cpp.cpp: the C++ side of the busy-neighbours matrix (run_matrix.py): the workloads
// of matrix_omp.c on forkjoin's own pool and on oneTBB, each sized explicitly to THREADS
// threads, written the way each library's users write them (parallel_reduce, parallel_for,
// task_group). The barrier workload has no counterpart here: neither library has a barrier
// among its threads.
//
//   matrix_cpp forkjoin|tbb regions|loop|tree THREADS [--quick] [--expect ANSWER]
//
// prints one JSON line {"workload", "threads", "seconds", "answer"}; a wrong answer (against
// ANSWER, or against the serial count when ANSWER is not given) exits 1.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "matrix_work.h"

namespace {

[[noreturn]] void usage() {
  std::fputs("usage: matrix_cpp forkjoin|tbb regions|loop|tree THREADS [--quick] [--expect ANSWER]\n", stderr);
  std::exit(2);
}

[[noreturn]] void wrong(const char* what) {
  std::fprintf(stderr, "matrix_cpp: wrong answer: %s\n", what);
  std::exit(1);
}

// forkjoin: a pool of THREADS threads; every workload runs inside one p.run.
struct forkjoin_runtime {
  using task_group = forkjoin::task_group;
  forkjoin::pool pool;

  explicit forkjoin_runtime(int threads) : pool(threads) {}
  template <class F>
  void run(F&& f) {
    pool.run(f);
  }
  template <class Body>  // body(i) -> uint64_t, summed
  static std::uint64_t sum(int n, const Body& body) {
    return forkjoin::parallel_reduce(
        0, n, std::uint64_t{0}, [&body](int i) { return body(i); }, std::plus<>());
  }
  template <class Body>  // body(begin, end)
  static void for_chunks(int n, const Body& body) {
    forkjoin::parallel_for(0, n, [&body](int b, int e) { body(b, e); });
  }
};

// oneTBB: an arena of THREADS slots. The global_control lets oneTBB start THREADS - 1 workers
// even above the machine's CPU count (its default caps them at the CPUs): the oversubscribed
// cells must run as many threads as the OpenMP ones.
struct tbb_runtime {
  using task_group = tbb::task_group;
  tbb::global_control control;
  tbb::task_arena arena;

  explicit tbb_runtime(int threads)
      : control(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads)), arena(threads) {}
  template <class F>
  void run(F&& f) {
    arena.execute(f);
  }
  template <class Body>
  static std::uint64_t sum(int n, const Body& body) {
    return tbb::parallel_reduce(
        tbb::blocked_range<int>(0, n), std::uint64_t{0},
        [&body](const tbb::blocked_range<int>& r, std::uint64_t acc) {
          for (int i = r.begin(); i < r.end(); ++i) acc += body(i);
          return acc;
        },
        std::plus<>());
  }
  template <class Body>
  static void for_chunks(int n, const Body& body) {
    tbb::parallel_for(tbb::blocked_range<int>(0, n),
                      [&body](const tbb::blocked_range<int>& r) { body(r.begin(), r.end()); });
  }
};

// The subtree's size: a task_group child per child node (its state, the node's work,
// computed in the child), a wait at every inner node.
template <class TaskGroup>
std::uint64_t tree_below(const mx_sizes& s, std::uint64_t state) {
  const int n = mx_tree_children(state);
  if (n == 0) return 1;
  std::array<std::uint64_t, MX_TREE_BRANCH> part{};
  TaskGroup g;
  for (int i = 0; i < n; ++i)
    g.run([&part, &s, state, i] {
      part[static_cast<std::size_t>(i)] = tree_below<TaskGroup>(s, mx_tree_child(&s, state, i));
    });
  g.wait();
  std::uint64_t total = 1;
  for (int i = 0; i < n; ++i) total += part[static_cast<std::size_t>(i)];
  return total;
}

template <class TaskGroup>
std::uint64_t tree_root(const mx_sizes& s) {
  const std::uint64_t root = mx_tree_root_state();
  std::vector<std::uint64_t> part(static_cast<std::size_t>(s.tree_root));
  TaskGroup g;
  for (int i = 0; i < s.tree_root; ++i)
    g.run([&part, &s, root, i] {
      part[static_cast<std::size_t>(i)] = tree_below<TaskGroup>(s, mx_tree_child(&s, root, i));
    });
  g.wait();
  std::uint64_t total = 1;
  for (std::uint64_t p : part) total += p;
  return total;
}

struct outcome {
  double seconds;
  std::string answer;
  std::uint64_t count;  // the integer answers
  double sum;           // the loop's
};

template <class Runtime>
outcome measure(enum mx_workload w, const mx_sizes& s, int threads) {
  Runtime rt(threads);
  // The threads started before the clock (forkjoin starts them in the constructor, oneTBB on
  // the arena's first work): thread creation is not what the matrix measures.
  rt.run(
      [threads] { Runtime::sum(threads * 64, [](int i) { return mx_rounds(static_cast<std::uint64_t>(i), 200); }); });
  std::vector<double> a, b;
  if (w == mx_loop) {
    a.resize(static_cast<std::size_t>(s.loop_n));
    b.resize(static_cast<std::size_t>(s.loop_n));
    mx_loop_init(a.data(), b.data(), s.loop_n);
  }
  outcome o{0, "", 0, 0};
  const auto t0 = std::chrono::steady_clock::now();
  rt.run([&] {
    switch (w) {
      case mx_regions:
        for (int r = 0; r < s.regions; ++r)
          o.count += Runtime::sum(s.region_iters, [&s, r](int i) { return mx_region_iteration(&s, r, i); });
        break;
      case mx_loop:
        for (int c = 0; c < s.loop_calls; ++c)
          Runtime::for_chunks(s.loop_n, [pa = a.data(), pb = b.data()](int lo, int hi) {
            for (int i = lo; i < hi; ++i) pa[i] = pa[i] * 1.0001 + pb[i];
          });
        break;
      case mx_tree:
        o.count = tree_root<typename Runtime::task_group>(s);
        break;
      case mx_barrier:
      case mx_none:
        usage();
    }
  });
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  char text[64];
  if (w == mx_loop) {
    o.sum = mx_loop_sum(a.data(), s.loop_n);
    std::snprintf(text, sizeof text, "%.17g", o.sum);
  } else {
    std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(o.count));
  }
  o.answer = text;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) usage();
  const std::string lib = argv[1];
  const enum mx_workload w = mx_workload_named(argv[2]);
  const int threads = std::atoi(argv[3]);
  bool quick = false;
  const char* expect = nullptr;
  for (int i = 4; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strcmp(argv[i], "--expect") == 0 && i + 1 < argc)
      expect = argv[++i];
    else
      usage();
  }
  if ((lib != "forkjoin" && lib != "tbb") || w == mx_none || w == mx_barrier || threads < 1 || threads > 256) usage();
  const mx_sizes s = mx_sizes_for(quick ? 1 : 0);
  const outcome o = lib == "forkjoin" ? measure<forkjoin_runtime>(w, s, threads) : measure<tbb_runtime>(w, s, threads);

  // The check: against the driver's serial answer, else against one computed here (after the
  // clock). The loop's sum may differ in its last bits between builds: relative 1e-9.
  if (w == mx_loop) {
    const double want = expect != nullptr ? std::strtod(expect, nullptr) : mx_loop_serial(&s);
    if (o.sum != want && !((o.sum - want) / want < 1e-9 && (want - o.sum) / want < 1e-9)) wrong("the loop's sum");
  } else if (expect != nullptr) {
    if (o.answer != expect) wrong(w == mx_tree ? "the node count" : "the sum");
  } else {
    int depth = 0;
    if (o.count != (w == mx_regions ? mx_regions_serial(&s) : mx_tree_serial(&s, &depth)))
      wrong(w == mx_tree ? "the node count" : "the sum");
  }
  std::printf("{\"workload\": \"%s\", \"threads\": %d, \"seconds\": %.6f, \"answer\": \"%s\"}\n", argv[2], threads,
              o.seconds, o.answer.c_str());
  return 0;
}
