// bench_deps.cpp: task dependencies, forkjoin's task_group in/out/inout against oneTBB,
// OpenMP `task depend` (the OpenMP this binary is linked with: libgomp) and serial code, on
// two graphs, every answer checked:
//
//   wavefront  64 x 64 blocks of 48 x 48 cells (the Smith-Waterman kernel of bench/compare);
//              block (i, j) after (i-1, j) and (i, j-1). The tokens are adjacent bytes of one
//              std::vector<char>, and one thread creates every child.
//   chains     10^5 children, each inout on one of 64 objects (picked by a fixed xorshift), each
//              updating its object: 64 interleaved chains whose links are a few instructions.
//
// Each repetition runs every implementation once, in a fresh random order, with a pause
// between them (spinning threads of one runtime go to sleep before the next starts); the
// table gives min / median / max over the repetitions and the load average before and after.
//
//   bench_deps [--threads=N] [--reps=N] [--quick] [--only=wavefront|chains] [--impl=a,b,...]
#include <omp.h>
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for_each.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../compare/workloads.hpp"
#include "forkjoin/forkjoin.hpp"

namespace {

namespace fb = forkjoin::bench;

int g_threads = 2;
int g_blocks = 64, g_cells = 48;
int g_children = 100'000;
constexpr int k_objects = 64;

// ---- wavefront -----------------------------------------------------------------------------

// The token of block (i, j); row -1 and column -1 are tokens nobody writes.
struct tokens {
  explicit tokens(int nb) : nb_(nb), v_(static_cast<std::size_t>((nb + 1) * (nb + 1))) {}
  char& operator()(int i, int j) { return v_[static_cast<std::size_t>((i + 1) * (nb_ + 1) + j + 1)]; }
  int nb_;
  std::vector<char> v_;
};

std::unique_ptr<forkjoin::pool> g_pool;
std::unique_ptr<tbb::task_arena> g_arena;

std::int64_t wave_serial(fb::wavefront& w) {
  for (int i = 0; i < w.blocks(); ++i)
    for (int j = 0; j < w.blocks(); ++j) w.block(i, j);
  return w.result();
}

std::int64_t wave_forkjoin(fb::wavefront& w) {
  const int nb = w.blocks();
  tokens tok(nb);
  g_pool->run([&] {
    forkjoin::task_group g;
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < nb; ++j)
        g.run(forkjoin::in(tok(i - 1, j)), forkjoin::in(tok(i, j - 1)), forkjoin::out(tok(i, j)),
              [&w, i, j] { w.block(i, j); });
    g.wait();
  });
  return w.result();
}

// The oneTBB feeder's shape on forkjoin (no dependency clauses): each block counts its
// unfinished upper and left neighbours, and the block that brings a count to zero spawns it
// into the same task_group. A reference for the dependency machinery's cost.
std::int64_t wave_forkjoin_counters(fb::wavefront& w) {
  const int nb = w.blocks();
  std::vector<std::atomic<int>> count(static_cast<std::size_t>(nb * nb));
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) count[static_cast<std::size_t>(i * nb + j)] = (i > 0) + (j > 0);
  g_pool->run([&] {
    forkjoin::task_group g;
    std::function<void(int, int)> block = [&](int i, int j) {
      w.block(i, j);
      if (j + 1 < nb && --count[static_cast<std::size_t>(i * nb + j + 1)] == 0)
        g.run([&block, i, j] { block(i, j + 1); });
      if (i + 1 < nb && --count[static_cast<std::size_t>((i + 1) * nb + j)] == 0)
        g.run([&block, i, j] { block(i + 1, j); });
    };
    g.run([&block] { block(0, 0); });
    g.wait();
  });
  return w.result();
}

std::int64_t wave_omp(fb::wavefront& w) {
  const int nb = w.blocks();
  tokens tok(nb);
  char* t = tok.v_.data();
  static_cast<void>(t);  // gcc does not count its uses in depend() as uses
#pragma omp parallel num_threads(g_threads)
#pragma omp single
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) {
      const int up = i * (nb + 1) + j + 1, left = (i + 1) * (nb + 1) + j, self = left + 1;
#pragma omp task depend(in : t[up], t[left]) depend(out : t[self]) firstprivate(i, j) shared(w)
      w.block(i, j);
    }
  return w.result();
}

// oneTBB's documented wavefront: parallel_for_each from block (0, 0) with a feeder; each
// block counts its unfinished upper and left neighbours, and the one that brings a count to
// zero feeds that block.
std::int64_t wave_tbb_feeder(fb::wavefront& w) {
  const int nb = w.blocks();
  std::vector<std::atomic<int>> count(static_cast<std::size_t>(nb * nb));
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) count[static_cast<std::size_t>(i * nb + j)] = (i > 0) + (j > 0);
  const std::pair<int, int> start[] = {{0, 0}};
  g_arena->execute([&] {
    tbb::parallel_for_each(std::begin(start), std::end(start),
                           [&](const std::pair<int, int>& b, tbb::feeder<std::pair<int, int>>& feed) {
                             const auto [i, j] = b;
                             w.block(i, j);
                             if (j + 1 < nb && --count[static_cast<std::size_t>(i * nb + j + 1)] == 0)
                               feed.add({i, j + 1});
                             if (i + 1 < nb && --count[static_cast<std::size_t>((i + 1) * nb + j)] == 0)
                               feed.add({i + 1, j});
                           });
  });
  return w.result();
}

// The same graph as a tbb::flow graph: a continue_node per block, an edge from each block to
// its lower and right neighbours; one thread builds it, then starts block (0, 0).
std::int64_t wave_tbb_flow(fb::wavefront& w) {
  const int nb = w.blocks();
  g_arena->execute([&] {
    tbb::flow::graph g;
    std::vector<std::unique_ptr<tbb::flow::continue_node<tbb::flow::continue_msg>>> node;
    node.reserve(static_cast<std::size_t>(nb * nb));
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < nb; ++j) {
        node.push_back(std::make_unique<tbb::flow::continue_node<tbb::flow::continue_msg>>(
            g, [&w, i, j](const tbb::flow::continue_msg&) { w.block(i, j); }));
        if (i > 0) tbb::flow::make_edge(*node[static_cast<std::size_t>((i - 1) * nb + j)], *node.back());
        if (j > 0) tbb::flow::make_edge(*node[static_cast<std::size_t>(i * nb + j - 1)], *node.back());
      }
    node[0]->try_put(tbb::flow::continue_msg());
    g.wait_for_all();
  });
  return w.result();
}

// ---- chains --------------------------------------------------------------------------------

struct chain_graph {
  std::vector<std::uint8_t> object;  // child k updates objects[object[k]]
  std::array<std::uint64_t, k_objects> expected{};
};

chain_graph make_chains(int n) {
  chain_graph c;
  c.object.resize(static_cast<std::size_t>(n));
  std::uint32_t x = 2463534242u;
  for (auto& o : c.object) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    o = static_cast<std::uint8_t>(x % k_objects);
  }
  for (int k = 0; k < n; ++k) {
    std::uint64_t& v = c.expected[c.object[static_cast<std::size_t>(k)]];
    v = v * 3 + static_cast<std::uint64_t>(k);
  }
  return c;
}

using objects = std::array<std::uint64_t, k_objects>;

void chains_serial(const chain_graph& c, objects& v) {
  const int n = static_cast<int>(c.object.size());
  for (int k = 0; k < n; ++k) {
    std::uint64_t& x = v[c.object[static_cast<std::size_t>(k)]];
    x = x * 3 + static_cast<std::uint64_t>(k);
  }
}

void chains_forkjoin(const chain_graph& c, objects& v) {
  const int n = static_cast<int>(c.object.size());
  g_pool->run([&] {
    forkjoin::task_group g;
    for (int k = 0; k < n; ++k) {
      std::uint64_t& x = v[c.object[static_cast<std::size_t>(k)]];
      g.run(forkjoin::inout(x), [&x, k] { x = x * 3 + static_cast<std::uint64_t>(k); });
    }
    g.wait();
  });
}

void chains_omp(const chain_graph& c, objects& v) {
  const int n = static_cast<int>(c.object.size());
#pragma omp parallel num_threads(g_threads)
#pragma omp single
  for (int k = 0; k < n; ++k) {
    std::uint64_t* x = &v[c.object[static_cast<std::size_t>(k)]];
#pragma omp task depend(inout : x[0]) firstprivate(x, k)
    *x = *x * 3 + static_cast<std::uint64_t>(k);
  }
}

// ---- driver --------------------------------------------------------------------------------

struct impl {
  std::string name;
  std::function<bool()> run;  // one timed run; false: wrong answer
};

double load_average() {
  double l = -1;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1) l = -1;
    std::fclose(f);
  }
  return l;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 11;
  std::string only, impls;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--threads=", 10)) {
      g_threads = std::atoi(argv[i] + 10);
    } else if (!std::strncmp(argv[i], "--reps=", 7)) {
      reps = std::atoi(argv[i] + 7);
    } else if (!std::strcmp(argv[i], "--quick")) {
      g_blocks = 8;
      g_children = 2000;
      reps = 2;
    } else if (!std::strncmp(argv[i], "--only=", 7)) {
      only = argv[i] + 7;
    } else if (!std::strncmp(argv[i], "--impl=", 7)) {
      impls = std::string(",") + (argv[i] + 7) + ",";
    } else {
      std::fprintf(stderr, "usage: %s [--threads=N] [--reps=N] [--quick] [--only=wavefront|chains] [--impl=a,b]\n",
                   argv[0]);
      return 2;
    }
  }
  if (g_threads < 1 || reps < 1) {
    std::fprintf(stderr, "bench_deps: --threads and --reps must be positive\n");
    return 2;
  }
  g_pool = std::make_unique<forkjoin::pool>(static_cast<std::size_t>(g_threads));
  tbb::global_control threads_limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(g_threads));
  g_arena = std::make_unique<tbb::task_arena>(g_threads);

  fb::wavefront grid(g_blocks, g_cells);
  const std::int64_t wave_expected = fb::wavefront_expected(g_blocks, g_cells);
  const chain_graph chains = make_chains(g_children);

  std::vector<std::pair<std::string, std::vector<impl>>> workloads;
  auto wave = [&](std::int64_t (*f)(fb::wavefront&)) {
    return [&grid, wave_expected, f] {
      grid.reset();
      return f(grid) == wave_expected;
    };
  };
  auto chain = [&](void (*f)(const chain_graph&, objects&)) {
    return [&chains, f] {
      objects v{};
      f(chains, v);
      return v == chains.expected;
    };
  };
  if (only.empty() || only == "wavefront")
    workloads.push_back({"wavefront",
                         {{"serial", wave(wave_serial)},
                          {"forkjoin", wave(wave_forkjoin)},
                          {"fj_counters", wave(wave_forkjoin_counters)},
                          {"openmp", wave(wave_omp)},
                          {"tbb_feeder", wave(wave_tbb_feeder)},
                          {"tbb_flow", wave(wave_tbb_flow)}}});
  if (only.empty() || only == "chains")
    workloads.push_back(
        {"chains",
         {{"serial", chain(chains_serial)}, {"forkjoin", chain(chains_forkjoin)}, {"openmp", chain(chains_omp)}}});

  const double load_before = load_average();
  std::mt19937 rng(20261201);
  std::map<std::pair<std::string, std::string>, std::vector<double>> ms;
  for (int r = 0; r < reps; ++r) {
    for (auto& [wname, list] : workloads) {
      std::vector<impl*> order;
      for (auto& i : list)
        if (impls.empty() || impls.find("," + i.name + ",") != std::string::npos) order.push_back(&i);
      std::shuffle(order.begin(), order.end(), rng);
      for (impl* i : order) {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        const auto t0 = std::chrono::steady_clock::now();
        const bool ok = i->run();
        const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (!ok) {
          std::fprintf(stderr, "bench_deps: %s/%s computed a wrong answer\n", wname.c_str(), i->name.c_str());
          return 1;
        }
        ms[{wname, i->name}].push_back(t);
      }
    }
  }
  const double load_after = load_average();
  std::printf("bench_deps: %d threads, %d repetitions, wavefront %dx%d blocks of %dx%d cells, chains %d children\n",
              g_threads, reps, g_blocks, g_blocks, g_cells, g_cells, g_children);
  std::printf("load average (1 min) before %.2f, after %.2f\n", load_before, load_after);
  std::printf("%-10s %-11s %9s %9s %9s %7s\n", "workload", "impl", "min ms", "median", "max", "spread");
  for (auto& [key, v] : ms) {
    std::sort(v.begin(), v.end());
    const double med = v[v.size() / 2];
    std::printf("%-10s %-11s %9.3f %9.3f %9.3f %6.1f%%\n", key.first.c_str(), key.second.c_str(), v.front(), med,
                v.back(), 100.0 * (v.back() - v.front()) / med);
  }
  return 0;
}
