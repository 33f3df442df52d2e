// uts.hpp: the Unbalanced Tree Search T1 tree (geometric shape, fixed depth 10, branching
// factor 4, root seed 19: 4,130,071 nodes). A node's state is a SHA-1 digest; child i's
// state is SHA-1(parent state || i as 4 big-endian bytes), and its child count is drawn
// from a geometric distribution with mean 4 by the last four bytes of the state, as UTS
// defines them (no code taken from UTS; the definition is the published benchmark's).
#pragma once

#include <cmath>
#include <cstdint>

#include "sha1.hpp"

namespace forkjoin::bench::uts {

inline constexpr int k_max_depth = 10;      // -d 10 (gen_mx), shape -a 3: fixed
inline constexpr double k_branching = 4.0;  // -b 4
inline constexpr int k_root_seed = 19;      // -r 19
inline constexpr int k_max_children = 100;  // UTS's MAXNUMCHILDREN
inline constexpr std::uint64_t k_t1_nodes = 4'130'071;

struct node {
  sha1_digest state;
  int depth;
};

// T1's root; depth > 0 places it deeper, which cuts the tree to k_max_depth - depth levels
// (a small tree of the same shape, for the quick run).
inline node root(int depth = 0) {
  std::uint8_t seed[20] = {};
  seed[16] = static_cast<std::uint8_t>(k_root_seed >> 24);
  seed[17] = static_cast<std::uint8_t>(k_root_seed >> 16);
  seed[18] = static_cast<std::uint8_t>(k_root_seed >> 8);
  seed[19] = static_cast<std::uint8_t>(k_root_seed);
  return {sha1(seed, 20), depth};
}

inline node child(const node& parent, int i) {
  std::uint8_t msg[24];
  for (int k = 0; k < 20; ++k) msg[k] = parent.state[static_cast<std::size_t>(k)];
  msg[20] = static_cast<std::uint8_t>(i >> 24);
  msg[21] = static_cast<std::uint8_t>(i >> 16);
  msg[22] = static_cast<std::uint8_t>(i >> 8);
  msg[23] = static_cast<std::uint8_t>(i);
  return {sha1(msg, 24), parent.depth + 1};
}

inline int num_children(const node& n) {
  const double b = n.depth < k_max_depth ? k_branching : 0.0;  // the root always uses b0
  const std::uint32_t r = ((std::uint32_t{n.state[16]} << 24) | (std::uint32_t{n.state[17]} << 16) |
                           (std::uint32_t{n.state[18]} << 8) | n.state[19]) &
                          0x7FFFFFFFu;
  const double u = static_cast<double>(r) / 2147483648.0;
  const double p = 1.0 / (1.0 + b);
  const int c = static_cast<int>(std::floor(std::log(1.0 - u) / std::log(1.0 - p)));
  return c > k_max_children ? k_max_children : c;
}

inline std::uint64_t count_serial(const node& n) {
  std::uint64_t total = 1;
  const int c = num_children(n);
  for (int i = 0; i < c; ++i) total += count_serial(child(n, i));
  return total;
}

}  // namespace forkjoin::bench::uts
