// Loops: exactly-once coverage for every schedule, index type and awkward range; chunk
// forms; OpenMP's static mapping; reductions (order kept, deterministic); exceptions;
// nesting; schedule parsing and bad bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "support.hpp"

namespace fj = forkjoin;

namespace {
std::vector<fj::schedule> all_schedules() {
  return {fj::schedule::auto_(),
          fj::schedule::auto_(7),
          fj::schedule::static_(),
          fj::schedule::static_(1),
          fj::schedule::static_(5),
          fj::schedule::dynamic(),
          fj::schedule::dynamic(64),
          fj::schedule::guided(),
          fj::schedule::guided(9),
          fj::schedule::auto_().num_threads(2),
          fj::schedule::dynamic(3).parallel_if(false)};
}

template <class I>
void check_exactly_once(I first, std::size_t n, const fj::schedule& s) {
  std::vector<std::atomic<int>> hits(n);
  const I last = static_cast<I>(static_cast<std::make_unsigned_t<I>>(first) + n);
  using U = std::make_unsigned_t<I>;
  fj::parallel_for(
      first, last,
      [&](I i) {
        // Cast back to U: the subtraction promotes small types to int.
        hits[static_cast<std::size_t>(static_cast<U>(static_cast<U>(i) - static_cast<U>(first)))]++;
      },
      s);
  for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(hits[k].load(), 1) << "offset " << k << " of " << n;
}

template <class I>
void check_type(fj::pool& p) {
  const std::size_t P = p.num_threads();
  for (const auto& s : all_schedules())
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, P - 1, P, P + 1,
                          std::size_t{64}, std::size_t{100003}}) {
      if (n > static_cast<std::size_t>(std::numeric_limits<I>::max()) - 1) continue;
      p.run([&] {
        check_exactly_once<I>(I{0}, n, s);
        if constexpr (std::is_signed_v<I>) {
          if (n <= static_cast<std::size_t>(std::numeric_limits<I>::max()))
            check_exactly_once<I>(static_cast<I>(-static_cast<long long>(n / 2)), n, s);
        }
      });
    }
  // Ranges touching the type's limits.
  p.run([&] {
    check_exactly_once<I>(static_cast<I>(std::numeric_limits<I>::max() - 3), 3, fj::schedule::dynamic());
    check_exactly_once<I>(std::numeric_limits<I>::min(), 3, fj::schedule::guided());
  });
}
}  // namespace

TEST(ParallelFor, ExactlyOnceEveryScheduleAndType) {
  fj::pool p(4);
  check_type<std::int8_t>(p);
  check_type<std::uint8_t>(p);
  check_type<std::int16_t>(p);
  check_type<std::uint16_t>(p);
  check_type<std::int32_t>(p);
  check_type<std::uint32_t>(p);
  check_type<std::int64_t>(p);
  check_type<std::uint64_t>(p);
}

// Every value of the 8- and 16-bit types but the top one ([MIN, MAX) has 2^w - 1 values),
// each exactly once (per-index hits: a duplicate and a miss cannot cancel out).
TEST(ParallelFor, WholeRangeOfSmallTypes) {
  fj::pool p(3);
  for (const auto& s : all_schedules())
    p.run([&] {
      check_exactly_once<std::int8_t>(INT8_MIN, 255, s);
      check_exactly_once<std::uint8_t>(0, 255, s);
      check_exactly_once<std::int16_t>(INT16_MIN, 65535, s);
      check_exactly_once<std::uint16_t>(0, 65535, s);
    });
}

TEST(ParallelFor, IntMinToIntMaxChunksAreDisjointAndCover) {
  fj::pool p(4);
  for (const auto& s : {fj::schedule::auto_(), fj::schedule::static_(), fj::schedule::static_(1 << 28),
                        fj::schedule::dynamic(1 << 27), fj::schedule::guided(1 << 26)}) {
    std::mutex m;
    std::vector<std::pair<long long, long long>> chunks;
    p.run([&] {
      fj::parallel_for(
          INT_MIN, INT_MAX,
          [&](int b, int e) {
            std::lock_guard<std::mutex> l(m);
            chunks.emplace_back(b, e);
          },
          s);
    });
    std::sort(chunks.begin(), chunks.end());
    ASSERT_FALSE(chunks.empty());
    EXPECT_EQ(chunks.front().first, INT_MIN);
    EXPECT_EQ(chunks.back().second, INT_MAX);
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      EXPECT_LT(chunks[i].first, chunks[i].second);
      if (i > 0) {
        EXPECT_EQ(chunks[i - 1].second, chunks[i].first);
      }
    }
  }
}

TEST(ParallelFor, Int64Limits) {
  fj::pool p(4);
  p.run([] {
    check_exactly_once<std::int64_t>(INT64_MAX - 10, 10, fj::schedule::auto_());
    check_exactly_once<std::int64_t>(INT64_MIN, 10, fj::schedule::dynamic());
    check_exactly_once<std::uint64_t>(UINT64_MAX - 10, 10, fj::schedule::guided());
    check_exactly_once<std::int64_t>(INT64_MAX - 1000, 1000, fj::schedule::static_(3));
  });
}

TEST(ParallelFor, EmptyAndReversedRangesCallNothing) {
  int calls = 0;
  fj::parallel_for(5, 5, [&](int) { ++calls; });
  fj::parallel_for(
      10, 3, [&](int) { ++calls; }, fj::schedule::dynamic());
  fj::parallel_for(10u, 3u, [&](unsigned, unsigned) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, MixedBoundTypes) {
  std::vector<int> v(1000, 1);
  fj::parallel_for(0, v.size(), [&](std::size_t i) { v[i] = 2; });
  EXPECT_EQ(std::count(v.begin(), v.end(), 2), 1000);
  EXPECT_THROW(fj::parallel_for(-1, v.size(), [](std::size_t) {}), std::invalid_argument);
}

// A bound the loop's common type cannot hold is named as the caller wrote it: -1, not
// 18446744073709551615.
TEST(ParallelFor, BadBoundIsNamedInItsOwnType) {
  std::vector<int> v(10);
  std::string m = fj::test::invalid_argument_message([&] { fj::parallel_for(-1, v.size(), [](std::size_t) {}); });
  EXPECT_NE(m.find("first = -1:"), std::string::npos) << m;
  m = fj::test::invalid_argument_message([&] { fj::parallel_for(v.size(), -7, [](std::size_t) {}); });
  EXPECT_NE(m.find("last = -7:"), std::string::npos) << m;
  m = fj::test::invalid_argument_message([&] {
    (void)fj::parallel_reduce(
        -3, 10u, 0L, [](unsigned) { return 1L; }, std::plus<>());
  });
  EXPECT_NE(m.find("first = -3:"), std::string::npos) << m;
}

TEST(ParallelFor, StaticMatchesOpenMPBlocks) {
  for (std::size_t T : {1u, 2u, 3u, 4u, 7u}) {
    fj::pool p(T);
    for (long n : {1L, 5L, 7L, 100L, 1001L}) {
      std::mutex m;
      std::vector<std::pair<long, long>> blocks;
      p.run([&] {
        fj::parallel_for(
            0L, n,
            [&](long b, long e) {
              std::lock_guard<std::mutex> l(m);
              blocks.emplace_back(b, e);
            },
            fj::schedule::static_());
      });
      std::sort(blocks.begin(), blocks.end());
      const long t = static_cast<long>(std::min<std::size_t>(T, static_cast<std::size_t>(n)));
      ASSERT_EQ(static_cast<long>(blocks.size()), t);
      for (long i = 0; i < t; ++i) {  // libgomp: q = n / t, r = n % t, block i = [i*q + min(i, r), + q + (i < r))
        const long q = n / t, r = n % t;
        EXPECT_EQ(blocks[static_cast<std::size_t>(i)].first, i * q + std::min(i, r));
        EXPECT_EQ(blocks[static_cast<std::size_t>(i)].second, i * q + std::min(i, r) + q + (i < r ? 1 : 0));
      }
    }
  }
}

// Block t runs on worker t when every worker takes part: each block's first iteration
// waits until all T blocks have started, so no worker can run two blocks.
TEST(ParallelFor, StaticBlockTRunsOnWorkerT) {
  for (std::size_t T : {2u, 3u, 4u}) {
    fj::pool p(T);
    const long n = 1000;
    std::vector<int> owner(static_cast<std::size_t>(n), -1);
    std::atomic<std::size_t> started{0};
    std::atomic<bool> all_started{true};
    p.run([&] {
      fj::parallel_for(
          0L, n,
          [&](long b, long e) {
            started.fetch_add(1);
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (started.load() < T) {
              if (std::chrono::steady_clock::now() > deadline) {
                all_started = false;
                break;
              }
              std::this_thread::yield();
            }
            for (long i = b; i < e; ++i) owner[static_cast<std::size_t>(i)] = fj::this_worker_index();
          },
          fj::schedule::static_());
    });
    ASSERT_TRUE(all_started.load()) << "T=" << T;
    const long q = n / static_cast<long>(T), r = n % static_cast<long>(T);
    for (long t = 0; t < static_cast<long>(T); ++t)
      for (long i = t * q + std::min(t, r); i < (t + 1) * q + std::min(t + 1, r); ++i)
        ASSERT_EQ(owner[static_cast<std::size_t>(i)], t) << "T=" << T << " i=" << i;
  }
}

namespace {
// The chunks a loop of n iterations hands to the chunk form of the body, sorted.
std::vector<std::pair<long, long>> chunks_of(fj::pool& p, long n, const fj::schedule& s) {
  std::mutex m;
  std::vector<std::pair<long, long>> chunks;
  p.run([&] {
    fj::parallel_for(
        0L, n,
        [&](long b, long e) {
          std::lock_guard<std::mutex> l(m);
          chunks.emplace_back(b, e);
        },
        s);
  });
  std::sort(chunks.begin(), chunks.end());
  return chunks;
}
}  // namespace

// A chunk or grain larger than the range means one chunk: the whole range, once.
TEST(ParallelFor, ChunkLargerThanRangeIsOneChunk) {
  fj::pool p(4);
  for (const auto& s : {fj::schedule::auto_(1 << 28), fj::schedule::static_(1 << 28), fj::schedule::dynamic(1 << 28),
                        fj::schedule::guided(1 << 28), fj::schedule::static_(1000), fj::schedule::dynamic(1001)}) {
    const auto chunks = chunks_of(p, 1000, s);
    ASSERT_EQ(chunks.size(), 1u) << "chunk " << s.chunk();
    EXPECT_EQ(chunks[0], std::make_pair(0L, 1000L)) << "chunk " << s.chunk();
  }
}

// schedule(dynamic) without a chunk hands out chunks of 1 iteration, as OpenMP does.
TEST(Schedule, DynamicDefaultChunkIsOne) {
  EXPECT_EQ(fj::schedule::dynamic().chunk(), 1u);
  fj::pool p(3);
  const auto chunks = chunks_of(p, 1000, fj::schedule::dynamic());
  ASSERT_EQ(chunks.size(), 1000u);
  for (long k = 0; k < 1000; ++k) EXPECT_EQ(chunks[static_cast<std::size_t>(k)], std::make_pair(k, k + 1));
}

// A negative size, or a negative number converted to size_t, is an error naming it, as is
// a chunk of 0 for dynamic and guided (OpenMP requires a positive chunk) and 0 tasks; 0
// for auto_'s grain and static_'s chunk means "choose". Sizes of any integer type work.
TEST(Schedule, NegativeOrZeroSizesAreErrorsNamingTheValue) {
  auto message = [](auto make) { return fj::test::invalid_argument_message([&] { (void)make(); }); };
  const std::pair<std::string, std::string> cases[] = {
      {message([] { return fj::schedule::dynamic(-5); }), "schedule::dynamic: chunk = -5:"},
      {message([] { return fj::schedule::dynamic(0); }), "schedule::dynamic: chunk = 0: must be at least 1"},
      {message([] { return fj::schedule::static_(-1); }), "schedule::static_: chunk = -1:"},
      {message([] { return fj::schedule::guided(-1); }), "schedule::guided: min_chunk = -1:"},
      {message([] { return fj::schedule::guided(0); }), "schedule::guided: min_chunk = 0:"},
      {message([] { return fj::schedule::auto_(-2); }), "schedule::auto_: grain = -2:"},
      {message([] { return fj::schedule::num_tasks(-1); }), "schedule::num_tasks: n = -1:"},
      {message([] { return fj::schedule::num_tasks(0); }), "schedule::num_tasks: n = 0:"},
      {message([] { return fj::schedule::auto_().num_threads(-3); }), "schedule::num_threads: n = -3:"},
      {message([] { return fj::schedule::dynamic(std::size_t{0} - 5); }),
       "chunk = 18446744073709551611 (-5 converted to an unsigned type)"},
  };
  for (const auto& [got, expected] : cases) EXPECT_NE(got.find(expected), std::string::npos) << got;
  EXPECT_EQ(fj::schedule::dynamic(64), fj::schedule::dynamic(std::size_t{64}));
  EXPECT_EQ(fj::schedule::static_(0).chunk(), 0u);
  EXPECT_EQ(fj::schedule::auto_(0).chunk(), 0u);
  EXPECT_EQ(fj::schedule::guided(short{3}).chunk(), 3u);
  EXPECT_EQ(fj::schedule::num_tasks(7u).chunk(), 7u);
}

// schedule(guided, c): whatever the interleaving, a chunk that starts at b has libgomp's
// size min(n - b, max(ceil((n - b) / T), c)), T being the loop's team, and the chunks
// tile the range.
TEST(Schedule, GuidedChunkFollowsLibgompRule) {
  fj::pool p(3);
  for (std::size_t team : {3u, 2u})
    for (long c : {1L, 9L, 100L})
      for (long n : {1L, 7L, 1000L, 100003L}) {
        const auto chunks =
            chunks_of(p, n, fj::schedule::guided(static_cast<std::size_t>(c)).num_threads(team == 3 ? 0 : team));
        const long t = static_cast<long>(team);
        long expect_begin = 0;
        for (const auto& [b, e] : chunks) {
          ASSERT_EQ(b, expect_begin) << "n=" << n << " c=" << c << " T=" << t;
          const long remaining = n - b;
          EXPECT_EQ(e - b, std::min(remaining, std::max((remaining + t - 1) / t, c)))
              << "chunk at " << b << ", n=" << n << " c=" << c << " T=" << t;
          expect_begin = e;
        }
        EXPECT_EQ(expect_begin, n) << "n=" << n << " c=" << c << " T=" << t;
      }
}

// schedule(static, c): chunk k = [k*c, (k+1)*c) goes to participant k mod T, which runs
// its chunks in order. The first chunk of each participant waits until all T have
// started, so the T participants run on T distinct workers; then each worker's sequence of
// chunks must be exactly m, m + T, m + 2T, ... for one m.
TEST(Schedule, StaticChunkKRunsOnParticipantKModT) {
  for (std::size_t T : {2u, 3u, 4u}) {
    fj::pool p(T);
    const long n = 1000, c = 7, chunks = (n + c - 1) / c;
    std::vector<std::vector<long>> sequence(T);  // per worker index; each written by its worker only
    std::atomic<std::size_t> started{0};
    std::atomic<bool> all_started{true};
    std::atomic<bool> bad_chunk{false};
    p.run([&] {
      fj::parallel_for(
          0L, n,
          [&](long b, long e) {
            const long k = b / c;
            if (b != k * c || e != std::min(n, b + c)) bad_chunk.store(true);
            if (k < static_cast<long>(T)) {
              started.fetch_add(1);
              const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
              while (started.load() < T) {
                if (std::chrono::steady_clock::now() > deadline) {
                  all_started.store(false);
                  break;
                }
                std::this_thread::yield();
              }
            }
            sequence[static_cast<std::size_t>(fj::this_worker_index())].push_back(k);
          },
          fj::schedule::static_(static_cast<std::size_t>(c)));
    });
    ASSERT_TRUE(all_started.load()) << "T=" << T;
    EXPECT_FALSE(bad_chunk.load()) << "T=" << T;
    std::vector<bool> class_seen(T, false);
    for (std::size_t w = 0; w < T; ++w) {
      ASSERT_FALSE(sequence[w].empty()) << "worker " << w << " ran no participant, T=" << T;
      const long m = sequence[w][0];
      ASSERT_LT(m, static_cast<long>(T)) << "T=" << T;
      EXPECT_FALSE(class_seen[static_cast<std::size_t>(m)]) << "two workers ran participant " << m;
      class_seen[static_cast<std::size_t>(m)] = true;
      std::vector<long> expect;
      for (long k = m; k < chunks; k += static_cast<long>(T)) expect.push_back(k);
      EXPECT_EQ(sequence[w], expect) << "worker " << w << ", T=" << T;
    }
  }
}

TEST(ParallelFor, ForEachVisitsEveryElement) {
  std::vector<int> v(10007, 3);
  fj::parallel_for_each(
      v.begin(), v.end(), [](int& x) { x *= 2; }, fj::schedule::guided(4));
  EXPECT_EQ(std::count(v.begin(), v.end(), 6), 10007);
}

namespace {
struct body_error {
  int index;
};
}  // namespace

// The exception thrown at one index reaches the caller (that very one), every index ran at
// most once, and, with the throw at index 0 of a long loop, the loop stopped handing out
// new chunks: fewer than n iterations ran (each other iteration spins ~1 us, so finishing
// all of them would take 100 ms of CPU after the throw).
TEST(ParallelFor, BodyExceptionRethrownOnce) {
  fj::pool p(4);
  constexpr int n = 100000;
  for (const auto& s : all_schedules())
    for (int at : {777, 0}) {
      std::vector<std::atomic<int>> hits(n);
      std::atomic<int> ran{0};
      try {
        p.run([&] {
          fj::parallel_for(
              0, n,
              [&](int i) {
                hits[static_cast<std::size_t>(i)].fetch_add(1);
                ran.fetch_add(1);
                if (i == at) throw body_error{i};
                if (at == 0) {
                  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(1);
                  while (std::chrono::steady_clock::now() < until) {
                  }
                }
              },
              s);
        });
        ADD_FAILURE() << "nothing thrown, at " << at;
      } catch (const body_error& e) {
        EXPECT_EQ(e.index, at);
      }
      for (std::size_t i = 0; i < hits.size(); ++i) ASSERT_LE(hits[i].load(), 1) << "index " << i << ", at " << at;
      EXPECT_EQ(hits[static_cast<std::size_t>(at)].load(), 1);
      if (at == 0) {
        EXPECT_LT(ran.load(), n) << "the loop went on after the throw at index 0";
      }
    }
}

// Nested loops: the right sum, and the inner loops run on the pool's own workers (at most
// 4 distinct threads, all with a worker index of this pool): nesting adds no threads.
TEST(ParallelFor, NestedLoopsSum) {
  fj::pool p(4);
  std::atomic<long> sum{0};
  std::mutex m;
  std::set<std::thread::id> threads;
  std::atomic<bool> outside_pool{false};
  p.run([&] {
    fj::parallel_for(0, 1000, [&](int i) {
      long local = fj::parallel_reduce(
          0, 1000, 0L,
          [&, i](int j) {
            if (j % 100 == 0) {
              const int w = fj::this_worker_index();
              if (w < 0 || w >= 4) outside_pool.store(true);
              std::lock_guard<std::mutex> l(m);
              threads.insert(std::this_thread::get_id());
            }
            return long(i) * 1000 + j;
          },
          std::plus<>{});
      sum += local;
    });
  });
  EXPECT_EQ(sum.load(), 999999L * 1000000L / 2);
  EXPECT_FALSE(outside_pool.load());
  EXPECT_LE(threads.size(), 4u);
}

TEST(ParallelReduce, EqualsSerialForEverySchedule) {
  fj::pool p(3);
  for (const auto& s : all_schedules())
    for (long n : {0L, 1L, 2L, 3L, 64L, 100003L}) {
      long expect = n * (n - 1) / 2;
      EXPECT_EQ(p.run([&] {
        return fj::parallel_reduce(
            0L, n, 0L, [](long i) { return i; }, std::plus<>{}, s);
      }),
                expect);
      auto chunked = [](long b, long e, long acc) {
        for (long i = b; i < e; ++i) acc += i;
        return acc;
      };
      EXPECT_EQ(p.run([&] { return fj::parallel_reduce(0L, n, 0L, chunked, std::plus<>{}, s); }), expect);
    }
}

TEST(ParallelReduce, KeepsOrderForNonCommutativeCombine) {
  fj::pool p(4);
  std::string expect;
  for (int i = 0; i < 2000; ++i) expect += static_cast<char>('a' + i % 26);
  for (const auto& s : all_schedules()) {
    std::string got = p.run([&] {
      return fj::parallel_reduce(
          0, 2000, std::string(), [](int i) { return std::string(1, static_cast<char>('a' + i % 26)); },
          [](std::string a, const std::string& b) { return a + b; }, s);
    });
    EXPECT_EQ(got, expect);
  }
}

TEST(ParallelReduce, CombineExceptionRethrown) {
  fj::pool p(2);
  EXPECT_THROW(p.run([] {
    return fj::parallel_reduce(
        0, 10000, 0, [](int) { return 1; },
        [](int a, int b) -> int {
          if (a + b > 5000) throw std::overflow_error("combine");
          return a + b;
        });
  }),
               std::overflow_error);
}

// OpenMP's reduction(+ : sum) with sum = 100 adds the loop's sum to 100 once; passing 100 as
// the identity would add it once per chunk (the answer would depend on the schedule), so it
// is an error naming the value. The start value is combined with the result instead.
TEST(ParallelReduce, StartValueAsIdentityIsAnError) {
  auto ident = [](long i) { return i; };
  std::string m = fj::test::invalid_argument_message(
      [&] { (void)fj::parallel_reduce(0L, 1000L, 100L, ident, std::plus<>(), fj::schedule::dynamic(10)); });
  EXPECT_NE(m.find("parallel_reduce: identity = 100:"), std::string::npos) << m;
  m = fj::test::invalid_argument_message([&] {
    (void)fj::parallel_reduce(
        0, 10, 2.5, [](int) { return 1.0; }, std::plus<double>());
  });
  EXPECT_NE(m.find("identity = 2.5:"), std::string::npos) << m;
  m = fj::test::invalid_argument_message([&] {
    (void)fj::parallel_reduce(
        0, 10, 2L, [](int) { return 1L; }, std::multiplies<>());
  });
  EXPECT_NE(m.find("identity = 2:"), std::string::npos) << m;
  m = fj::test::invalid_argument_message(
      [&] { (void)fj::parallel_deterministic_reduce(0L, 1000L, 7L, ident, std::plus<>()); });
  EXPECT_NE(m.find("parallel_deterministic_reduce: identity = 7:"), std::string::npos) << m;
  m = fj::test::invalid_argument_message([&] {
    (void)fj::parallel_reduce(
        0, 10, 3u, [](int) { return 1u; }, std::bit_xor<>());
  });
  EXPECT_NE(m.find("identity = 3:"), std::string::npos) << m;
  // The right forms, and identities that are fine: 1 for *, any start value for an
  // idempotent combine (max), 0 of any arithmetic type.
  fj::pool p(3);
  const long total =
      p.run([&] { return 100 + fj::parallel_reduce(0L, 1000L, 0L, ident, std::plus<>(), fj::schedule::dynamic(10)); });
  EXPECT_EQ(total, 100 + 499500);
  EXPECT_EQ(fj::parallel_reduce(
                1, 6, 1L, [](int i) { return static_cast<long>(i); }, std::multiplies<>()),
            120);
  EXPECT_EQ(fj::parallel_reduce(
                0, 50, 100, [](int i) { return i; }, [](int a, int b) { return std::max(a, b); }),
            100);
  EXPECT_EQ(fj::parallel_reduce(
                0, 4, -0.0, [](int) { return 0.5; }, std::plus<>()),
            2.0);
}

TEST(ParallelDeterministicReduce, BitwiseIdenticalAcrossThreadCounts) {
  std::vector<double> x(100003);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 / static_cast<double>(i + 1) * ((i % 3) ? 1e8 : 1e-8);
  std::vector<double> results;
  for (std::size_t T : {1u, 2u, 3u, 4u, 8u}) {
    fj::pool p(T);
    for (int rep = 0; rep < 3; ++rep)
      results.push_back(p.run([&] {
        return fj::parallel_deterministic_reduce(
            std::size_t{0}, x.size(), 0.0, [&](std::size_t i) { return x[i]; }, std::plus<>{}, 100);
      }));
  }
  for (double r : results) EXPECT_EQ(std::memcmp(&r, &results[0], sizeof r), 0);
}

TEST(Schedule, ParsesOpenMPSyntax) {
  EXPECT_EQ(fj::schedule::parse("dynamic,64"), fj::schedule::dynamic(64));
  EXPECT_EQ(fj::schedule::parse(" nonmonotonic:guided , 8 "), fj::schedule::guided(8));
  EXPECT_EQ(fj::schedule::parse("STATIC"), fj::schedule::static_());
  EXPECT_EQ(fj::schedule::parse("auto"), fj::schedule::auto_());
  for (const char* bad : {"", "fast", "dynamic,", "dynamic,0", "dynamic,-3", "dynamic,4x", "weird:static", "static,,2"})
    EXPECT_THROW(fj::schedule::parse(bad), std::invalid_argument) << bad;
}

// Blanks and tabs around each part, any case, the kinds without a chunk (dynamic and guided
// then take 1), and the errors named in the message.
TEST(Schedule, ParsesEveryFormOfTheSyntax) {
  EXPECT_EQ(fj::schedule::parse("\tdynamic\t"), fj::schedule::dynamic(1));
  EXPECT_EQ(fj::schedule::parse("monotonic: Guided"), fj::schedule::guided(1));
  EXPECT_EQ(fj::schedule::parse("NONMONOTONIC:dynamic,3"), fj::schedule::dynamic(3));
  EXPECT_EQ(fj::schedule::parse("static, 16"), fj::schedule::static_(16));
  EXPECT_EQ(fj::schedule::parse("auto,4"), fj::schedule::auto_(4));
  const std::pair<const char*, const char*> bad[] = {{"monotonicx:static", "the modifier must be"},
                                                     {"static:dynamic", "the modifier must be"},
                                                     {"guided,x", "the chunk must be a positive integer"},
                                                     {"sometimes,2", "the kind must be"}};
  for (const auto& [text, why] : bad) {
    try {
      fj::schedule::parse(text);
      ADD_FAILURE() << text << " parsed";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string("'") + text + "'"), std::string::npos) << what;
      EXPECT_NE(what.find(why), std::string::npos) << what;
    }
  }
}

// An empty variable counts as unset.
TEST(Schedule, EmptyVariablesAreUnset) {
  ::setenv("FORKJOIN_SCHEDULE", "", 1);
  ::setenv("OMP_SCHEDULE", "static,7", 1);
  EXPECT_EQ(fj::schedule::runtime(), fj::schedule::static_(7));
  ::setenv("OMP_SCHEDULE", "", 1);
  EXPECT_EQ(fj::schedule::runtime(), fj::schedule::auto_());
  ::unsetenv("FORKJOIN_SCHEDULE");
  ::unsetenv("OMP_SCHEDULE");
}

TEST(Schedule, RuntimeReadsEnvironment) {
  ::setenv("OMP_SCHEDULE", "guided,5", 1);
  EXPECT_EQ(fj::schedule::runtime(), fj::schedule::guided(5));
  ::setenv("FORKJOIN_SCHEDULE", "dynamic,2", 1);
  EXPECT_EQ(fj::schedule::runtime(), fj::schedule::dynamic(2));
  ::setenv("FORKJOIN_SCHEDULE", "sometimes", 1);
  EXPECT_THROW(fj::schedule::runtime(), std::invalid_argument);
  ::unsetenv("FORKJOIN_SCHEDULE");
  ::unsetenv("OMP_SCHEDULE");
  EXPECT_EQ(fj::schedule::runtime(), fj::schedule::auto_());
}
