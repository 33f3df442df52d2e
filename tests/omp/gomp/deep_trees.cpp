// deep_trees: task trees of UTS's shape (a wide root, then nodes with m children with
// probability q, q*m just below 1: long chains, depth in the hundreds) with a taskwait at
// every node, tied and untied, and one under a taskgroup at the root. Every node runs
// exactly once and the tree has the serial count. A waiter that steals a task it may not run
// hands it back to its parent ([P-OMP Handback]); the checks a waiter makes on what it stole,
// and the parent links they follow, stay within a few per node, whatever the tree's depth
// and however many tasks were handed back (a shared list that every waiter rescans, walking
// each entry's chain, costs thousands per node at 3 threads and above).
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

namespace forkjoin::omp {
std::uint64_t wait_walk_steps() noexcept;  // libforkjoin-omp's statistic (handback.cpp)
}

namespace {

constexpr int k_root_children = 500;
constexpr int k_children = 4;
constexpr std::uint64_t k_per_million = 249000;  // q * m = 0.996

std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
int children_of(std::uint64_t s, int depth) {
  if (depth == 0) return k_root_children;
  return s % 1000000 < k_per_million ? k_children : 0;
}
std::uint64_t child_state(std::uint64_t s, int i) {
  return mix(s ^ (static_cast<std::uint64_t>(i) + 1) * 0xD1B54A32D192ED03ull);
}

struct counts {
  long nodes = 1;
  int depth = 0;
};
counts serial(std::uint64_t s, int depth) {
  counts c;
  c.depth = depth;
  for (int i = 0, n = children_of(s, depth); i < n; ++i) {
    const counts sub = serial(child_state(s, i), depth + 1);
    c.nodes += sub.nodes;
    if (sub.depth > c.depth) c.depth = sub.depth;
  }
  return c;
}

std::vector<std::atomic<unsigned char>>* hits;
std::atomic<long> next_id{0};

void visit() {
  const long id = next_id.fetch_add(1, std::memory_order_relaxed);
  if (id < static_cast<long>(hits->size()))
    (*hits)[static_cast<std::size_t>(id)].fetch_add(1, std::memory_order_relaxed);
}

long tree_tied(std::uint64_t s, int depth) {
  visit();
  const int n = children_of(s, depth);
  std::vector<long> part(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
#pragma omp task firstprivate(i) shared(part)
    part[static_cast<std::size_t>(i)] = tree_tied(child_state(s, i), depth + 1);
  }
#pragma omp taskwait
  long total = 1;
  for (long p : part) total += p;
  return total;
}

long tree_untied(std::uint64_t s, int depth) {
  visit();
  const int n = children_of(s, depth);
  std::vector<long> part(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
#pragma omp task untied firstprivate(i) shared(part)
    part[static_cast<std::size_t>(i)] = tree_untied(child_state(s, i), depth + 1);
  }
#pragma omp taskwait
  long total = 1;
  for (long p : part) total += p;
  return total;
}

// The root task's children under a taskgroup: the group's end waits for every descendant.
long tree_group(std::uint64_t s) {
  std::atomic<long> total{1};
  visit();
#pragma omp taskgroup
  {
    for (int i = 0; i < k_root_children; ++i) {
#pragma omp task untied firstprivate(i) shared(total)
      total.fetch_add(tree_untied(child_state(s, i), 1), std::memory_order_relaxed);
    }
  }
  return total.load();
}

void run(const char* name, std::uint64_t seed, long (*grow)(std::uint64_t)) {
  const counts expected = serial(seed, 0);
  std::vector<std::atomic<unsigned char>> h(static_cast<std::size_t>(expected.nodes));
  hits = &h;
  next_id = 0;
  const std::uint64_t steps0 = forkjoin::omp::wait_walk_steps();
  long got = 0;
  int threads = 0;
#pragma omp parallel shared(got, threads)
#pragma omp single
  {
    threads = omp_get_num_threads();
    got = grow(seed);
  }
  const std::uint64_t steps = forkjoin::omp::wait_walk_steps() - steps0;
  std::printf("%s: %d threads, %ld nodes, depth %d, %llu waiter checks and links (%.2f per node)\n", name, threads, got,
              expected.depth, static_cast<unsigned long long>(steps), static_cast<double>(steps) / got);
  CHECK(got == expected.nodes);
  CHECK(next_id.load() == expected.nodes);
  for (auto& x : h) CHECK(x.load(std::memory_order_relaxed) == 1);
  // Each stolen task is checked once and goes back at most once: a few checks per node, and
  // links bounded by the depth it was stolen at, which the sweep's oldest-first order keeps near.
  CHECK(steps <= 4 * static_cast<std::uint64_t>(expected.nodes));
}

}  // namespace

int main() {
  constexpr std::uint64_t seed = 32;
  const counts c = serial(seed, 0);
  CHECK(c.nodes > 20000 && c.depth > 100);  // the shape this test is about
  run("tied", seed, [](std::uint64_t s) { return tree_tied(s, 0); });
  run("untied", seed, [](std::uint64_t s) { return tree_untied(s, 0); });
  run("taskgroup", seed, tree_group);
  return 0;
}
