// scan.hpp: the fixed split tree under parallel_inclusive_scan / parallel_exclusive_scan.
// The input is cut into blocks of k_scan_block elements and each block into four lanes
// (contiguous quarters, the last one taking the remainder); nothing depends on the thread
// count, so every element is the same expression of the inputs on every run (DESIGN.md
// §13, "the scan's fixed tree"):
//   lane sum   a_c = x_first(c) op ... op x_last(c), folded left to right
//   carries    c_1 = a_0, c_2 = c_1 op a_1, c_3 = c_2 op a_2; block sum s = c_3 op a_3
//   prefix     P_0 = init (none for an inclusive scan without init), P_{b+1} = P_b op s_b
//   output     lane c of block b runs left to right from P_b (c = 0) or P_b op c_c.
// The lanes are independent chains, so one block's fold and scan run four operations at
// a time instead of one dependent chain. Blocks are reduced (phase 1) and scanned
// (phase 2) by parallel_for; one thread does both per block while it is in cache.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/parallel_for.hpp"
#include "forkjoin/pool.hpp"

namespace forkjoin::detail {

inline constexpr std::size_t k_scan_block = 4096;

// {c_1, c_2, c_3, s} of one block; for a block of fewer than four elements (one lane) all
// four are its sum.
template <class T>
using scan_carries = std::array<T, 4>;

// it[k] for an index held as size_t (the explicit conversion keeps -Wsign-conversion quiet
// in the user's code, where these templates are instantiated).
template <class It>
decltype(auto) elem(It it, std::size_t k) {
  return it[static_cast<std::iter_difference_t<It>>(k)];
}

template <class T, class It, class Op>
scan_carries<T> scan_reduce_block(It x, std::size_t lo, std::size_t hi, Op& op) {
  const std::size_t len = hi - lo;
  if (len < 4) {
    T a = elem(x, lo);
    for (std::size_t k = lo + 1; k < hi; ++k) a = std::invoke(op, std::move(a), elem(x, k));
    return {a, a, a, a};
  }
  const std::size_t q = len / 4, l1 = lo + q, l2 = lo + 2 * q, l3 = lo + 3 * q;
  T a0 = elem(x, lo), a1 = elem(x, l1), a2 = elem(x, l2), a3 = elem(x, l3);
  for (std::size_t j = 1; j < q; ++j) {
    a0 = std::invoke(op, std::move(a0), elem(x, lo + j));
    a1 = std::invoke(op, std::move(a1), elem(x, l1 + j));
    a2 = std::invoke(op, std::move(a2), elem(x, l2 + j));
    a3 = std::invoke(op, std::move(a3), elem(x, l3 + j));
  }
  for (std::size_t k = l3 + q; k < hi; ++k) a3 = std::invoke(op, std::move(a3), elem(x, k));
  T c2 = std::invoke(op, a0, std::move(a1));
  T c3 = std::invoke(op, c2, std::move(a2));
  T s = std::invoke(op, c3, std::move(a3));
  return {std::move(a0), std::move(c2), std::move(c3), std::move(s)};
}

// Writes the block's outputs from its prefix p (null: block 0 of an inclusive scan without
// init) and its carries. Every input element is read before its output is written, so
// out == x (in place) is fine.
template <bool k_exclusive, class T, class It, class Out, class Op>
void scan_block(It x, Out out, std::size_t lo, std::size_t hi, const T* p, const scan_carries<T>& carries, Op& op) {
  const std::size_t len = hi - lo;
  if (len < 4) {
    if constexpr (k_exclusive) {
      T r = *p;
      for (std::size_t k = lo; k < hi; ++k) {
        T v = elem(x, k);
        elem(out, k) = r;
        r = std::invoke(op, std::move(r), std::move(v));
      }
    } else {
      T r = p != nullptr ? std::invoke(op, *p, elem(x, lo)) : T(elem(x, lo));
      elem(out, lo) = r;
      for (std::size_t k = lo + 1; k < hi; ++k) {
        r = std::invoke(op, std::move(r), elem(x, k));
        elem(out, k) = r;
      }
    }
    return;
  }
  const std::size_t q = len / 4, l1 = lo + q, l2 = lo + 2 * q, l3 = lo + 3 * q;
  auto start = [&](std::size_t c) -> T { return p != nullptr ? std::invoke(op, *p, carries[c - 1]) : carries[c - 1]; };
  T r1 = start(1), r2 = start(2), r3 = start(3);
  if constexpr (k_exclusive) {
    T r0 = *p;
    for (std::size_t j = 0; j < q; ++j) {
      T v0 = elem(x, lo + j), v1 = elem(x, l1 + j), v2 = elem(x, l2 + j), v3 = elem(x, l3 + j);
      elem(out, lo + j) = r0;
      elem(out, l1 + j) = r1;
      elem(out, l2 + j) = r2;
      elem(out, l3 + j) = r3;
      r0 = std::invoke(op, std::move(r0), std::move(v0));
      r1 = std::invoke(op, std::move(r1), std::move(v1));
      r2 = std::invoke(op, std::move(r2), std::move(v2));
      r3 = std::invoke(op, std::move(r3), std::move(v3));
    }
    for (std::size_t k = l3 + q; k < hi; ++k) {
      T v = elem(x, k);
      elem(out, k) = r3;
      r3 = std::invoke(op, std::move(r3), std::move(v));
    }
  } else {
    T r0 = p != nullptr ? std::invoke(op, *p, elem(x, lo)) : T(elem(x, lo));
    r1 = std::invoke(op, std::move(r1), elem(x, l1));
    r2 = std::invoke(op, std::move(r2), elem(x, l2));
    r3 = std::invoke(op, std::move(r3), elem(x, l3));
    elem(out, lo) = r0;
    elem(out, l1) = r1;
    elem(out, l2) = r2;
    elem(out, l3) = r3;
    for (std::size_t j = 1; j < q; ++j) {
      r0 = std::invoke(op, std::move(r0), elem(x, lo + j));
      r1 = std::invoke(op, std::move(r1), elem(x, l1 + j));
      r2 = std::invoke(op, std::move(r2), elem(x, l2 + j));
      r3 = std::invoke(op, std::move(r3), elem(x, l3 + j));
      elem(out, lo + j) = r0;
      elem(out, l1 + j) = r1;
      elem(out, l2 + j) = r2;
      elem(out, l3 + j) = r3;
    }
    for (std::size_t k = l3 + q; k < hi; ++k) {
      r3 = std::invoke(op, std::move(r3), elem(x, k));
      elem(out, k) = r3;
    }
  }
}

// The whole scan of [x, x + n) into out, from init (nullopt: an inclusive scan without
// one). One thread: block by block, each reduced and then scanned while in cache. More:
// phase 1 reduces every block in parallel, the prefixes P_b are folded serially (one op
// per block), phase 2 scans every block in parallel. Both compute the same expressions.
template <bool k_exclusive, class T, class It, class Out, class Op>
void scan_run(It x, std::size_t n, Out out, Op& op, std::optional<T> init) {
  if (n == 0) return;
  const std::size_t blocks = (n - 1) / k_scan_block + 1;
  auto bounds = [n](std::size_t b) { return std::pair{b * k_scan_block, std::min(n, (b + 1) * k_scan_block)}; };
  auto serial = [&] {
    std::optional<T> p = std::move(init);
    for (std::size_t b = 0; b < blocks; ++b) {
      const auto [lo, hi] = bounds(b);
      const scan_carries<T> c = scan_reduce_block<T>(x, lo, hi, op);
      scan_block<k_exclusive, T>(x, out, lo, hi, p ? &*p : nullptr, c, op);
      if (b + 1 < blocks) p = p ? std::invoke(op, std::move(*p), c[3]) : c[3];
    }
  };
  auto parallel = [&] {
    std::vector<std::optional<scan_carries<T>>> carries(blocks);
    parallel_for(std::size_t{0}, blocks, [&](std::size_t b0, std::size_t b1) {
      for (std::size_t b = b0; b < b1; ++b) {
        const auto [lo, hi] = bounds(b);
        carries[b].emplace(scan_reduce_block<T>(x, lo, hi, op));
      }
    });
    std::vector<std::optional<T>> prefix(blocks);
    prefix[0] = std::move(init);
    for (std::size_t b = 0; b + 1 < blocks; ++b)
      prefix[b + 1] = prefix[b] ? std::invoke(op, *prefix[b], (*carries[b])[3]) : (*carries[b])[3];
    parallel_for(std::size_t{0}, blocks, [&](std::size_t b0, std::size_t b1) {
      for (std::size_t b = b0; b < b1; ++b) {
        const auto [lo, hi] = bounds(b);
        scan_block<k_exclusive, T>(x, out, lo, hi, prefix[b] ? &*prefix[b] : nullptr, *carries[b], op);
      }
    });
  };
  auto run = [&] {
    if (blocks == 1 || tls_worker->pool_size_ == 1)
      serial();
    else
      parallel();
  };
  if (blocks == 1)
    serial();
  else if (tls_worker == nullptr)
    default_pool().run(run);
  else
    run();
}

}  // namespace forkjoin::detail
