// parallel_inclusive_scan / parallel_exclusive_scan: equal to the standard algorithm for
// every size 0..200 and random larger ones on pools of 1..8 threads, in place and not,
// with a non-commutative operation; the same bits for doubles on every thread count;
// exceptions; nesting.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;

namespace {
// An associative, non-commutative operation: composition of affine maps x -> a x + b
// (mod 2^32), applied left first.
struct affine {
  std::uint32_t a = 1, b = 0;
  friend bool operator==(const affine&, const affine&) = default;
};
struct compose {
  affine operator()(const affine& f, const affine& g) const { return {f.a * g.a, f.b * g.a + g.b}; }
};

template <class T, class Op>
void check_all_forms(fj::pool& p, const std::vector<T>& x, Op op, T init) {
  const std::size_t n = x.size();
  std::vector<T> expect(n), got(n);
  std::inclusive_scan(x.begin(), x.end(), expect.begin(), op);
  p.run([&] {
    EXPECT_EQ(fj::parallel_inclusive_scan(x.begin(), x.end(), got.begin(), op), got.begin() + static_cast<long>(n));
  });
  ASSERT_EQ(got, expect) << "inclusive n=" << n;
  std::vector<T> in_place = x;
  p.run([&] { fj::parallel_inclusive_scan(in_place.begin(), in_place.end(), in_place.begin(), op); });
  ASSERT_EQ(in_place, expect) << "inclusive in place n=" << n;

  std::inclusive_scan(x.begin(), x.end(), expect.begin(), op, init);
  p.run([&] { fj::parallel_inclusive_scan(x.begin(), x.end(), got.begin(), op, init); });
  ASSERT_EQ(got, expect) << "inclusive with init n=" << n;

  std::exclusive_scan(x.begin(), x.end(), expect.begin(), init, op);
  p.run([&] {
    EXPECT_EQ(fj::parallel_exclusive_scan(x.begin(), x.end(), got.begin(), init, op),
              got.begin() + static_cast<long>(n));
  });
  ASSERT_EQ(got, expect) << "exclusive n=" << n;
  in_place = x;
  p.run([&] { fj::parallel_exclusive_scan(in_place.begin(), in_place.end(), in_place.begin(), init, op); });
  ASSERT_EQ(in_place, expect) << "exclusive in place n=" << n;
}
}  // namespace

TEST(ParallelScan, MatchesStdEverySize0To200) {
  std::mt19937 rng(1);
  for (std::size_t T : {1u, 2u, 5u, 8u}) {
    fj::pool p(T);
    for (std::size_t n = 0; n <= 200; ++n) {
      std::vector<long> x(n);
      for (auto& v : x) v = static_cast<long>(rng() % 1000) - 500;
      check_all_forms(p, x, std::plus<>(), 7L);
      std::vector<affine> f(n);
      for (auto& v : f) v = {static_cast<std::uint32_t>(rng() | 1), static_cast<std::uint32_t>(rng())};
      check_all_forms(p, f, compose(), affine{3, 5});
    }
  }
}

TEST(ParallelScan, MatchesStdRandomLargerSizesEveryThreadCount) {
  std::mt19937 rng(2);
  const std::size_t sizes[] = {
      4095, 4096, 4097, 8192 + 3, 3 * 4096 + 1, 40000, static_cast<std::size_t>(fj::test::scaled(150001, 30001))};
  for (std::size_t T = 1; T <= 8; ++T) {
    fj::pool p(T);
    for (std::size_t n : sizes) {
      std::vector<std::int64_t> x(n);
      for (auto& v : x) v = static_cast<std::int64_t>(rng() % 2001) - 1000;
      check_all_forms(p, x, std::plus<>(), std::int64_t{-3});
      if (T % 3 == 1) {
        std::vector<affine> f(n);
        for (auto& v : f) v = {static_cast<std::uint32_t>(rng() | 1), static_cast<std::uint32_t>(rng())};
        check_all_forms(p, f, compose(), affine{});
      }
    }
  }
}

// Doubles: not associative, so only a fixed grouping gives the same bits everywhere.
TEST(ParallelScan, BitwiseIdenticalDoublesAcrossThreadCounts) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> d(-1e6, 1e6);
  for (std::size_t n :
       {std::size_t{5000}, std::size_t{4096 * 7 + 5}, static_cast<std::size_t>(fj::test::scaled(200003, 40009))}) {
    std::vector<double> x(n);
    for (auto& v : x) v = d(rng) * (rng() % 2 == 0 ? 1e-9 : 1.0);
    std::vector<double> ref_inc, ref_exc;
    for (std::size_t T = 1; T <= 8; ++T) {
      fj::pool p(T);
      std::vector<double> inc(n), exc(n);
      p.run([&] {
        fj::parallel_inclusive_scan(x.begin(), x.end(), inc.begin());
        fj::parallel_exclusive_scan(x.begin(), x.end(), exc.begin(), 0.5);
      });
      if (T == 1) {
        ref_inc = inc;
        ref_exc = exc;
        continue;
      }
      ASSERT_EQ(std::memcmp(inc.data(), ref_inc.data(), n * sizeof(double)), 0) << "inclusive T=" << T << " n=" << n;
      ASSERT_EQ(std::memcmp(exc.data(), ref_exc.data(), n * sizeof(double)), 0) << "exclusive T=" << T << " n=" << n;
    }
    std::vector<double> outside(n);  // from outside every pool, in place
    outside = x;
    fj::parallel_inclusive_scan(outside.begin(), outside.end(), outside.begin());
    ASSERT_EQ(std::memcmp(outside.data(), ref_inc.data(), n * sizeof(double)), 0);
  }
}

TEST(ParallelScan, OperationExceptionRethrownOnce) {
  fj::pool p(4);
  for (std::size_t n : {std::size_t{100}, std::size_t{50000}}) {
    std::vector<int> x(n, 1), out(n);
    std::atomic<int> thrown{0};
    auto op = [&](int a, int b) {
      if (a == 77) {
        thrown++;
        throw std::runtime_error("op");
      }
      return a + b;
    };
    EXPECT_THROW(p.run([&] { fj::parallel_inclusive_scan(x.begin(), x.end(), out.begin(), op); }), std::runtime_error);
    EXPECT_GE(thrown.load(), 1);
  }
}

TEST(ParallelScan, NestedInsideParallelFor) {
  fj::pool p(4);
  std::vector<std::vector<int>> rows(16, std::vector<int>(10000, 1));
  p.run([&] {
    fj::parallel_for(std::size_t{0}, rows.size(), [&](std::size_t r) {
      fj::parallel_exclusive_scan(rows[r].begin(), rows[r].end(), rows[r].begin(), static_cast<int>(r));
    });
  });
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t k = 0; k < rows[r].size(); ++k) ASSERT_EQ(rows[r][k], static_cast<int>(r + k));
}
