// task_group_workloads.hpp: skynet, nqueens and UTS written once against a task_group
// with run(f) and wait(), the interface forkjoin::task_group and tbb::task_group share:
// both implementations run exactly the same program and differ only in the runtime.
#pragma once

#include <array>
#include <cstdint>

#include "uts.hpp"
#include "workloads.hpp"

namespace forkjoin::bench {

template <class TaskGroup>
std::uint64_t skynet_tg(std::uint64_t first, std::uint64_t size) {
  if (size == 1) return first;
  std::array<std::uint64_t, 10> part{};
  TaskGroup g;
  for (std::uint64_t i = 0; i < 10; ++i)
    g.run([&part, i, first, size] { part[i] = skynet_tg<TaskGroup>(first + i * (size / 10), size / 10); });
  g.wait();
  std::uint64_t sum = 0;
  for (auto p : part) sum += p;
  return sum;
}

template <class TaskGroup>
long nqueens_tg(const queens_board& col, int row, int n) {
  if (row == n) return 1;
  std::array<long, 16> part{};
  TaskGroup g;
  for (int c = 0; c < n; ++c) {
    if (!queen_safe(col, row, c)) continue;
    queens_board next = col;
    next[static_cast<std::size_t>(row)] = static_cast<signed char>(c);
    g.run([&part, next, row, n, c] { part[static_cast<std::size_t>(c)] = nqueens_tg<TaskGroup>(next, row + 1, n); });
  }
  g.wait();
  long sum = 0;
  for (long p : part) sum += p;
  return sum;
}

template <class TaskGroup>
std::uint64_t uts_tg(const uts::node& n) {
  const int c = uts::num_children(n);
  if (c == 0) return 1;
  std::array<std::uint64_t, uts::k_max_children> part{};
  TaskGroup g;
  for (int i = 0; i < c; ++i)
    g.run([&part, &n, i] { part[static_cast<std::size_t>(i)] = uts_tg<TaskGroup>(uts::child(n, i)); });
  g.wait();
  std::uint64_t total = 1;
  for (int i = 0; i < c; ++i) total += part[static_cast<std::size_t>(i)];
  return total;
}

inline std::uint64_t skynet_leaves(int depth) {
  std::uint64_t leaves = 1;
  for (int i = 0; i < depth; ++i) leaves *= 10;
  return leaves;
}

}  // namespace forkjoin::bench
