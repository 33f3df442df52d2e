// parallel_for_2d / parallel_for_3d: exactly-once coverage for every schedule and awkward
// shape; OpenMP's collapse(2)/collapse(3) static mapping against a model of libgomp's;
// auto_'s boxes; index types; exceptions; nesting. Also schedule::num_tasks.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;

namespace {
std::vector<fj::schedule> nd_schedules() {
  return {fj::schedule::auto_(),
          fj::schedule::auto_(5),
          fj::schedule::static_(),
          fj::schedule::static_(3),
          fj::schedule::dynamic(),
          fj::schedule::dynamic(17),
          fj::schedule::guided(2),
          fj::schedule::num_tasks(1),
          fj::schedule::num_tasks(5),
          fj::schedule::num_tasks(1000),
          fj::schedule::auto_().num_threads(2),
          fj::schedule::static_().parallel_if(false)};
}

// Every point of rows x cols exactly once, by the point form and by the box form.
void check_2d(long r0, long r1, int c0, int c1, const fj::schedule& s) {
  const std::size_t R = r1 > r0 ? static_cast<std::size_t>(r1 - r0) : 0;
  const std::size_t C = c1 > c0 ? static_cast<std::size_t>(c1 - c0) : 0;
  std::vector<std::atomic<int>> hits(R * C);
  fj::parallel_for_2d(
      r0, r1, c0, c1,
      [&](long i, int j) { hits[static_cast<std::size_t>(i - r0) * C + static_cast<std::size_t>(j - c0)]++; }, s);
  fj::parallel_for_2d(
      r0, r1, c0, c1,
      [&](long i0, long i1, int j0, int j1) {
        ASSERT_LT(i0, i1);
        ASSERT_LT(j0, j1);
        for (long i = i0; i < i1; ++i)
          for (int j = j0; j < j1; ++j) hits[static_cast<std::size_t>(i - r0) * C + static_cast<std::size_t>(j - c0)]++;
      },
      s);
  for (std::size_t k = 0; k < R * C; ++k) ASSERT_EQ(hits[k].load(), 2) << "point " << k / C << "," << k % C;
}

void check_3d(int n0, int n1, int n2, const fj::schedule& s) {
  const auto e0 = static_cast<std::size_t>(std::max(n0, 0)), e1 = static_cast<std::size_t>(std::max(n1, 0)),
             e2 = static_cast<std::size_t>(std::max(n2, 0));
  std::vector<std::atomic<int>> hits(e0 * e1 * e2);
  auto at = [&](int i, int j, int k) -> std::atomic<int>& {
    return hits[(static_cast<std::size_t>(i) * e1 + static_cast<std::size_t>(j)) * e2 + static_cast<std::size_t>(k)];
  };
  fj::parallel_for_3d(
      0, n0, 0, n1, 0, n2, [&](int i, int j, int k) { at(i, j, k)++; }, s);
  fj::parallel_for_3d(
      0, n0, 0, n1, 0, n2,
      [&](int i0, int i1, int j0, int j1, int k0, int k1) {
        for (int i = i0; i < i1; ++i)
          for (int j = j0; j < j1; ++j)
            for (int k = k0; k < k1; ++k) at(i, j, k)++;
      },
      s);
  for (std::size_t k = 0; k < hits.size(); ++k) ASSERT_EQ(hits[k].load(), 2) << "point " << k;
}
}  // namespace

TEST(ParallelFor2D, ExactlyOnceEveryRowCount0To200) {
  for (std::size_t T : {1u, 3u, 8u}) {
    fj::pool p(T);
    p.run([&] {
      for (long rows = 0; rows <= 200; ++rows)
        for (const auto& s : {fj::schedule::auto_(), fj::schedule::static_(), fj::schedule::num_tasks(7)})
          check_2d(-3, rows - 3, 2, 2 + static_cast<int>(rows % 13), s);
    });
  }
}

TEST(ParallelFor2D, ExactlyOnceEveryScheduleAndThreadCount) {
  std::mt19937 rng(7);
  for (std::size_t T = 1; T <= 8; ++T) {
    fj::pool p(T);
    for (const auto& s : nd_schedules())
      for (int round = 0; round < (fj::test::under_sanitizer() ? 2 : 6); ++round) {
        const long r = static_cast<long>(rng() % 90), c = static_cast<int>(rng() % 90);
        p.run([&] {
          check_2d(5, 5 + r, -7, -7 + static_cast<int>(c), s);
          check_2d(0, 1, 0, 1000, s);  // one long row: auto_ cuts columns
          check_2d(0, 1000, 0, 1, s);  // one column
          check_2d(4, 2, 0, 10, s);    // reversed: nothing
          check_2d(0, 10, 4, 2, s);
        });
      }
  }
}

TEST(ParallelFor3D, ExactlyOnceEveryScheduleAndThreadCount) {
  std::mt19937 rng(11);
  for (std::size_t T : {1u, 2u, 5u, 8u}) {
    fj::pool p(T);
    for (const auto& s : nd_schedules())
      for (int round = 0; round < (fj::test::under_sanitizer() ? 2 : 4); ++round) {
        const int a = static_cast<int>(rng() % 20), b = static_cast<int>(rng() % 20), c = static_cast<int>(rng() % 20);
        p.run([&] {
          check_3d(a, b, c, s);
          check_3d(1, 1, 3000, s);
          check_3d(2, 0, 5, s);
          check_3d(-2, 4, 5, s);
        });
      }
  }
}

// Mixed index types per dimension, ranges at the types' limits, and bounds that do not fit.
TEST(ParallelFor2D, IndexTypesAndLimits) {
  fj::pool p(4);
  p.run([] {
    std::atomic<long> sum{0}, count{0};
    fj::parallel_for_2d(static_cast<signed char>(-128), 127, std::uint64_t{0}, std::size_t{3},
                        [&](int i, std::uint64_t j) {
                          sum += i * 10 + static_cast<long>(j);
                          count++;
                        });
    EXPECT_EQ(count.load(), 255 * 3);
    long expect = 0;
    for (int i = -128; i < 127; ++i)
      for (int j = 0; j < 3; ++j) expect += i * 10 + j;
    EXPECT_EQ(sum.load(), expect);
    count = 0;
    const auto big = std::numeric_limits<std::uint64_t>::max();
    fj::parallel_for_2d(
        big - 3, big, std::numeric_limits<long>::min(), std::numeric_limits<long>::min() + 5,
        [&](std::uint64_t i, long j) {
          EXPECT_GE(i, big - 3);
          EXPECT_LT(j, std::numeric_limits<long>::min() + 5);
          count++;
        },
        fj::schedule::static_());
    EXPECT_EQ(count.load(), 15);
    EXPECT_THROW(fj::parallel_for_2d(-1, std::size_t{4}, 0, 2, [](std::size_t, int) {}), std::invalid_argument);
    // 2^40 x 2^40 points: the flattened index would not fit 64 bits.
    EXPECT_THROW(fj::parallel_for_2d(0LL, 1LL << 40, 0LL, 1LL << 40, [](long long, long long) {}),
                 std::invalid_argument);
  });
}

// libgomp's collapse + schedule(static): the collapsed count N = product of the extents,
// block t = [t*q + min(t, r), + q + (t < r)) of the row-major flattened index, q = N / T,
// r = N % T, run by thread t. Each worker's first call waits until all T have started, so
// no worker runs two blocks and block t must run on worker t.
namespace {
int omp_static_owner(std::size_t flat, std::size_t N, std::size_t T) {
  const std::size_t t = std::min(T, N), q = N / t, r = N % t;
  for (std::size_t b = 0; b < t; ++b)
    if (flat < (b + 1) * q + std::min(b + 1, r)) return static_cast<int>(b);
  return -1;
}

template <class Run>
std::vector<int> record_owners(fj::pool& p, std::size_t N, Run run) {
  std::vector<int> owner(N, -2);
  const std::size_t T = std::min(p.num_threads(), N);
  std::vector<std::atomic<bool>> seen(p.num_threads());
  std::atomic<std::size_t> started{0};
  p.run([&] {
    run([&](std::size_t flat) {
      const int w = fj::this_worker_index();
      if (!seen[static_cast<std::size_t>(w)].exchange(true)) {
        started++;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (started.load() < T && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
      }
      owner[flat] = w;
    });
  });
  return owner;
}
}  // namespace

TEST(ParallelFor2D, StaticMatchesOpenMPCollapse2) {
  for (std::size_t T : {2u, 3u, 4u}) {
    fj::pool p(T);
    for (auto shape : {std::pair{7, 5}, std::pair{3, 100}, std::pair{100, 3}, std::pair{1, 9}, std::pair{13, 1}}) {
      const int R = shape.first, C = shape.second;  // not a structured binding: clang 14 cannot capture one
      const auto N = static_cast<std::size_t>(R * C);
      const auto owner = record_owners(p, N, [&](auto&& point) {
        fj::parallel_for_2d(
            10, 10 + R, -4, -4 + C, [&](int i, int j) { point(static_cast<std::size_t>((i - 10) * C + (j + 4))); },
            fj::schedule::static_());
      });
      for (std::size_t f = 0; f < N; ++f)
        ASSERT_EQ(owner[f], omp_static_owner(f, N, T)) << "T=" << T << " " << R << "x" << C << " flat " << f;
    }
  }
}

TEST(ParallelFor3D, StaticMatchesOpenMPCollapse3) {
  for (std::size_t T : {2u, 3u}) {
    fj::pool p(T);
    for (auto shape : {std::tuple{3, 4, 5}, std::tuple{1, 7, 3}, std::tuple{5, 1, 1}}) {
      const int A = std::get<0>(shape), B = std::get<1>(shape), C = std::get<2>(shape);
      const auto N = static_cast<std::size_t>(A * B * C);
      const auto owner = record_owners(p, N, [&](auto&& point) {
        fj::parallel_for_3d(
            0, A, 0, B, 0, C, [&](int i, int j, int k) { point(static_cast<std::size_t>((i * B + j) * C + k)); },
            fj::schedule::static_());
      });
      for (std::size_t f = 0; f < N; ++f) ASSERT_EQ(owner[f], omp_static_owner(f, N, T)) << "T=" << T << " flat " << f;
    }
  }
}

// auto_ with enough rows hands out bands of whole rows; with one row, pieces of it.
TEST(ParallelFor2D, AutoBoxesAreBandsOfWholeRows) {
  fj::pool p(4);
  std::mutex m;
  std::vector<std::pair<int, int>> bands;
  p.run([&] {
    fj::parallel_for_2d(0, 4096, 3, 515, [&](int i0, int i1, int j0, int j1) {
      EXPECT_EQ(j0, 3);
      EXPECT_EQ(j1, 515);
      std::lock_guard<std::mutex> l(m);
      bands.emplace_back(i0, i1);
    });
  });
  std::sort(bands.begin(), bands.end());
  int next = 0;
  for (auto [a, b] : bands) {
    ASSERT_EQ(a, next);
    next = b;
  }
  EXPECT_EQ(next, 4096);
  std::atomic<int> calls{0};
  p.run([&] {
    fj::parallel_for_2d(
        0, 1, 0, 1 << 16, [&](int, int, int, int) { calls++; }, fj::schedule::auto_(1));
  });
  EXPECT_GT(calls.load(), 1);  // a single row is still shared
}

TEST(ParallelFor2D, BodyExceptionRethrownOnce) {
  fj::pool p(4);
  for (const auto& s : nd_schedules()) {
    std::atomic<int> thrown{0};
    EXPECT_THROW(p.run([&] {
      fj::parallel_for_2d(
          0, 100, 0, 100,
          [&](int i, int j) {
            if (i == 57 && j == 3) {
              thrown++;
              throw std::runtime_error("boom");
            }
          },
          s);
    }),
                 std::runtime_error);
    EXPECT_EQ(thrown.load(), 1);
  }
}

TEST(ParallelFor2D, NestedInsideOtherCalls) {
  fj::pool p(4);
  std::atomic<long> total{0};
  p.run([&] {
    fj::parallel_for(0, 8, [&](int) {
      fj::parallel_for_2d(0, 30, 0, 40, [&](int i0, int i1, int j0, int j1) { total += (i1 - i0) * (j1 - j0); });
    });
    fj::task_group g;
    g.run([&] {
      fj::parallel_for_3d(
          0, 5, 0, 6, 0, 7, [&](int, int, int) { total++; }, fj::schedule::dynamic(4));
    });
    g.wait();
  });
  EXPECT_EQ(total.load(), 8 * 30 * 40 + 5 * 6 * 7);
  // From outside every pool (default_pool()).
  total = 0;
  fj::parallel_for_2d(0, 50, 0, 50, [&](int, int) { total++; });
  EXPECT_EQ(total.load(), 2500);
}

// taskloop's num_tasks: min(k, n) chunks, the first n % k one longer, each once.
TEST(Schedule, NumTasksSplitsIntoNearEqualChunks) {
  EXPECT_THROW(fj::schedule::num_tasks(0), std::invalid_argument);
  for (std::size_t T : {1u, 3u, 8u}) {
    fj::pool p(T);
    for (long n : {1L, 7L, 64L, 1000L, 1001L})
      for (std::size_t k : {1u, 2u, 5u, 64u, 5000u}) {
        std::mutex m;
        std::vector<std::pair<long, long>> chunks;
        p.run([&] {
          fj::parallel_for(
              0L, n,
              [&](long b, long e) {
                std::lock_guard<std::mutex> l(m);
                chunks.emplace_back(b, e);
              },
              fj::schedule::num_tasks(k));
        });
        std::sort(chunks.begin(), chunks.end());
        const long t = static_cast<long>(std::min<std::size_t>(k, static_cast<std::size_t>(n)));
        if (T == 1) {  // a one-thread pool runs the loop as one chunk
          ASSERT_EQ(chunks.size(), 1u);
          continue;
        }
        ASSERT_EQ(static_cast<long>(chunks.size()), t) << "n=" << n << " k=" << k;
        for (long c = 0; c < t; ++c) {
          const long q = n / t, r = n % t;
          EXPECT_EQ(chunks[static_cast<std::size_t>(c)].first, c * q + std::min(c, r));
          EXPECT_EQ(chunks[static_cast<std::size_t>(c)].second - chunks[static_cast<std::size_t>(c)].first,
                    q + (c < r ? 1 : 0));
        }
        const long sum = p.run([&] {
          return fj::parallel_reduce(
              0L, n, 0L, [](long i) { return i; }, std::plus<>(), fj::schedule::num_tasks(k));
        });
        EXPECT_EQ(sum, n * (n - 1) / 2);
      }
  }
}
