// test_tbb_pipeline.cpp: oneTBB's parallel_pipeline on libforkjoin-tbb ([P-TBB Pipe]): every
// item exactly once in every combination of filter modes, serial_in_order order, serial
// filters never concurrent, the token limit, parallel filters overlapping, flow_control,
// items that need allocation, exceptions and cancellation with every dropped item finalized,
// nesting both ways. Built twice: against libforkjoin-tbb and against native libtbb (_native).
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_pipeline.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using tbb::filter_mode;

constexpr filter_mode k_modes[] = {filter_mode::parallel, filter_mode::serial_in_order,
                                   filter_mode::serial_out_of_order};

const char* name_of(filter_mode m) {
  return m == filter_mode::parallel ? "parallel" : m == filter_mode::serial_in_order ? "in_order" : "out_of_order";
}

// A few hundred cycles of work that depend on v, so that items overtake one another.
void jitter(std::uint64_t v) {
  volatile std::uint64_t x = v;
  const std::uint64_t n = (v * 2654435761u) % 512;
  for (std::uint64_t i = 0; i < n; ++i) x = x * 6364136223846793005u + 1;
}

// Stays inside a filter long enough for another thread to come in, if it may.
void linger() {
  for (int i = 0; i < 3; ++i) std::this_thread::yield();
}

// Records the largest number of threads inside at once.
class occupancy {
 public:
  void enter() {
    const int now = inside_.fetch_add(1) + 1;
    int seen = max_.load();
    while (now > seen && !max_.compare_exchange_weak(seen, now)) {
    }
  }
  void leave() { inside_.fetch_sub(1); }
  int max() const { return max_.load(); }

 private:
  std::atomic<int> inside_{0};
  std::atomic<int> max_{0};
};

// An item type that needs allocation between filters (not trivially copyable), counting its
// live objects: a dropped item that nobody finalizes stays counted.
std::atomic<long> g_live{0};
struct tracked {
  explicit tracked(long v) : value(v) { g_live.fetch_add(1); }
  tracked(const tracked& o) : value(o.value) { g_live.fetch_add(1); }
  tracked(tracked&& o) noexcept : value(o.value) { g_live.fetch_add(1); }
  tracked& operator=(const tracked&) = default;
  ~tracked() { g_live.fetch_sub(1); }
  long value;
};

// Every item made and dropped was destroyed (finalized). oneTBB 2021.8 itself leaves some
// items parked at a serial filter alive when its pipeline is cancelled or a filter throws (in
// about one run of ten here), so the native build checks only that none was destroyed twice.
#if FORKJOIN_TBB_NATIVE
constexpr bool k_every_dropped_item_finalized = false;
#else
constexpr bool k_every_dropped_item_finalized = true;
#endif
::testing::AssertionResult no_live_items() {
  const long live = g_live.load();
  if (live == 0 || (!k_every_dropped_item_finalized && live > 0)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << live << " items alive";
}

struct pipeline_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Three filters of the given modes over n items: every value reaches the output exactly once.
void check_every_item_once(filter_mode m0, filter_mode m1, filter_mode m2, std::size_t tokens, long n) {
  std::atomic<long> next{0};
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
  std::atomic<long> sum{0};
  tbb::parallel_pipeline(tokens, tbb::make_filter<void, long>(m0, [&](tbb::flow_control& fc) -> long {
                                   const long v = next.fetch_add(1);
                                   if (v >= n) fc.stop();
                                   return v;
                                 }) & tbb::make_filter<long, long>(m1, [](long v) {
                                   jitter(static_cast<std::uint64_t>(v));
                                   return 3 * v + 1;
                                 }) & tbb::make_filter<long, void>(m2, [&](long w) {
                                   const long v = (w - 1) / 3;
                                   ASSERT_TRUE(v >= 0 && v < n);
                                   hits[static_cast<std::size_t>(v)].fetch_add(1);
                                   sum.fetch_add(v);
                                 }));
  long bad = 0;
  for (auto& h : hits) bad += h.load() != 1;
  EXPECT_EQ(bad, 0) << name_of(m0) << " " << name_of(m1) << " " << name_of(m2) << " tokens " << tokens;
  EXPECT_EQ(sum.load(), n * (n - 1) / 2);
}

TEST(TbbPipeline, EveryItemOnceInEveryModeCombination) {
  for (filter_mode m0 : k_modes)
    for (filter_mode m1 : k_modes)
      for (filter_mode m2 : k_modes) check_every_item_once(m0, m1, m2, 8, 2000);
}

TEST(TbbPipeline, OneTokenAndManyTokens) {
  for (filter_mode m : k_modes) {
    check_every_item_once(m, filter_mode::parallel, m, 1, 500);
    check_every_item_once(m, filter_mode::parallel, m, 1000, 500);
  }
}

TEST(TbbPipeline, SerialInOrderSeesTheInputOrder) {
  constexpr long k_n = 5000;
  long made = 0;  // a serial input filter: one call at a time
  long expected = 0;
  long out_of_order = 0;
  tbb::parallel_pipeline(16,
                         tbb::make_filter<void, long>(filter_mode::serial_in_order, [&](tbb::flow_control& fc) -> long {
                           if (made == k_n) fc.stop();
                           return made++;
                         }) & tbb::make_filter<long, long>(filter_mode::parallel, [](long v) {
                           jitter(static_cast<std::uint64_t>(v) * 7919);
                           return v;
                         }) & tbb::make_filter<long, void>(filter_mode::serial_in_order, [&](long v) {
                           out_of_order += v != expected++;
                         }));
  EXPECT_EQ(expected, k_n);
  EXPECT_EQ(out_of_order, 0);
}

// When the input filter is not serial_in_order, the first serial_in_order filter sets the
// order: every later serial_in_order filter sees the same sequence.
TEST(TbbPipeline, InOrderFiltersAgree) {
  for (filter_mode input : {filter_mode::parallel, filter_mode::serial_out_of_order}) {
    constexpr long k_n = 3000;
    std::atomic<long> next{0};
    std::vector<long> first, second;
    tbb::parallel_pipeline(
        12, tbb::make_filter<void, long>(input, [&](tbb::flow_control& fc) -> long {
              const long v = next.fetch_add(1);
              if (v >= k_n) fc.stop();
              return v;
            }) & tbb::make_filter<long, long>(filter_mode::parallel, [](long v) {
              jitter(static_cast<std::uint64_t>(v));
              return v;
            }) & tbb::make_filter<long, long>(filter_mode::serial_in_order, [&](long v) {
              first.push_back(v);
              return v;
            }) & tbb::make_filter<long, long>(filter_mode::parallel, [](long v) {
              jitter(static_cast<std::uint64_t>(v) * 31);
              return v;
            }) & tbb::make_filter<long, void>(filter_mode::serial_in_order, [&](long v) { second.push_back(v); }));
    ASSERT_EQ(first.size(), static_cast<std::size_t>(k_n)) << name_of(input);
    EXPECT_EQ(first, second) << name_of(input);
  }
}

TEST(TbbPipeline, SerialFiltersNeverRunConcurrently) {
  for (filter_mode serial : {filter_mode::serial_in_order, filter_mode::serial_out_of_order}) {
    occupancy in, mid, out;
    long made = 0;
    long seen = 0;
    tbb::parallel_pipeline(8, tbb::make_filter<void, long>(serial, [&](tbb::flow_control& fc) -> long {
                                in.enter();
                                linger();
                                if (made == 1000) fc.stop();
                                const long v = made++;
                                in.leave();
                                return v;
                              }) & tbb::make_filter<long, long>(filter_mode::parallel, [](long v) {
                                jitter(static_cast<std::uint64_t>(v) * 13);
                                return v;
                              }) & tbb::make_filter<long, long>(serial, [&](long v) {
                                mid.enter();
                                linger();
                                mid.leave();
                                return v;
                              }) & tbb::make_filter<long, void>(serial, [&](long) {
                                out.enter();
                                linger();
                                ++seen;
                                out.leave();
                              }));
    EXPECT_EQ(seen, 1000);
    EXPECT_EQ(in.max(), 1) << name_of(serial);
    EXPECT_EQ(mid.max(), 1) << name_of(serial);
    EXPECT_EQ(out.max(), 1) << name_of(serial);
  }
}

// An item is live from the input call that makes it to the end of the last filter.
TEST(TbbPipeline, LiveItemsNeverExceedTheTokens) {
  for (std::size_t tokens : {1u, 2u, 3u, 7u}) {
    for (filter_mode input : k_modes) {
      occupancy live;
      std::atomic<long> next{0};
      tbb::parallel_pipeline(
          tokens, tbb::make_filter<void, long>(input, [&](tbb::flow_control& fc) -> long {
                    live.enter();
                    const long v = next.fetch_add(1);
                    if (v >= 2000) {
                      live.leave();
                      fc.stop();
                    }
                    return v;
                  }) & tbb::make_filter<long, long>(filter_mode::parallel, [](long v) {
                    jitter(static_cast<std::uint64_t>(v));
                    return v;
                  }) & tbb::make_filter<long, void>(filter_mode::serial_out_of_order, [&](long) { live.leave(); }));
      EXPECT_LE(live.max(), static_cast<int>(tokens)) << name_of(input);
      EXPECT_GE(live.max(), 1);
    }
  }
}

// Two items in the parallel filter at once, when the pool has two threads: each call waits
// (at most 10 s in all, then gives up) for another call to be inside.
TEST(TbbPipeline, ParallelFilterCallsOverlap) {
  const int threads = tbb::this_task_arena::max_concurrency();
  if (threads < 2) return;  // one thread: nothing can overlap
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  std::atomic<bool> gave_up{false};
  long made = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  tbb::parallel_pipeline(8,
                         tbb::make_filter<void, long>(filter_mode::serial_in_order, [&](tbb::flow_control& fc) -> long {
                           if (made == 200) fc.stop();
                           return made++;
                         }) & tbb::make_filter<long, void>(filter_mode::parallel, [&](long) {
                           if (inside.fetch_add(1) > 0) overlapped = true;
                           while (!overlapped && !gave_up) {
                             if (std::chrono::steady_clock::now() > deadline) gave_up = true;
                             std::this_thread::yield();
                           }
                           inside.fetch_sub(1);
                         }));
  EXPECT_TRUE(overlapped.load()) << "no two calls of the parallel filter overlapped on " << threads << " threads";
}

TEST(TbbPipeline, FlowControlStopEndsTheInput) {
  for (filter_mode input : {filter_mode::serial_in_order, filter_mode::serial_out_of_order}) {
    int calls = 0;
    std::atomic<int> out{0};
    tbb::parallel_pipeline(4, tbb::make_filter<void, int>(input, [&](tbb::flow_control& fc) {
                                if (++calls == 11 || calls == 1000) fc.stop();  // 1000: a broken stop ends too
                                return calls;
                              }) & tbb::make_filter<int, void>(filter_mode::parallel, [&](int) { out.fetch_add(1); }));
    EXPECT_EQ(calls, 11) << "a serial input filter is not called after it stopped";
    EXPECT_EQ(out.load(), 10);
  }
  // The one-filter pipeline: a void -> void filter.
  int calls = 0;
  tbb::parallel_pipeline(3, tbb::make_filter<void, void>(filter_mode::serial_in_order, [&](tbb::flow_control& fc) {
                           if (++calls == 100) fc.stop();
                         }));
  EXPECT_EQ(calls, 100);
}

TEST(TbbPipeline, EmptyInputRunsNoOtherFilter) {
  for (filter_mode input : k_modes) {
    std::atomic<int> others{0};
    tbb::parallel_pipeline(
        4, tbb::make_filter<void, int>(input, [](tbb::flow_control& fc) {
             fc.stop();
             return 0;
           }) & tbb::make_filter<int, int>(filter_mode::parallel, [&](int v) {
             return others.fetch_add(1) + v;
           }) & tbb::make_filter<int, void>(filter_mode::serial_in_order, [&](int) { others.fetch_add(1); }));
    EXPECT_EQ(others.load(), 0) << name_of(input);
  }
}

TEST(TbbPipeline, MiddleFilterMakesStrings) {
  for (filter_mode m : k_modes) {
    long made = 0;
    std::atomic<long> length{0};
    std::atomic<long> count{0};
    tbb::parallel_pipeline(
        6, tbb::make_filter<void, long>(filter_mode::serial_in_order, [&](tbb::flow_control& fc) -> long {
             if (made == 1000) fc.stop();
             return made++;
           }) & tbb::make_filter<long, std::string>(m, [](long v) {
             return std::string(static_cast<std::size_t>(v % 50) + 20, 'x') + std::to_string(v);
           }) & tbb::make_filter<std::string, std::string>(filter_mode::parallel, [](std::string s) {
             return s + "!";
           }) & tbb::make_filter<std::string, void>(m, [&](const std::string& s) {
             length.fetch_add(static_cast<long>(s.size()));
             count.fetch_add(1);
           }));
    long expected = 0;
    for (long v = 0; v < 1000; ++v) expected += v % 50 + 20 + static_cast<long>(std::to_string(v).size()) + 1;
    EXPECT_EQ(count.load(), 1000);
    EXPECT_EQ(length.load(), expected);
  }
}

// A pipeline of tracked items whose filter number `thrower` throws at item 50: the exception
// comes back with its type and message, and every item made was destroyed.
void check_exception(int thrower, filter_mode m) {
  g_live = 0;
  std::atomic<long> next{0};
  auto maybe_throw = [thrower](int filter, long v) {
    if (filter == thrower && v == 50) throw pipeline_error("filter " + std::to_string(filter) + " failed");
  };
  try {
    tbb::parallel_pipeline(8, tbb::make_filter<void, tracked>(m, [&](tbb::flow_control& fc) {
                                const long v = next.fetch_add(1);
                                if (v >= 100000) fc.stop();
                                maybe_throw(0, v);
                                return tracked(v);
                              }) & tbb::make_filter<tracked, tracked>(m, [&](tracked t) {
                                maybe_throw(1, t.value);
                                jitter(static_cast<std::uint64_t>(t.value));
                                return t;
                              }) & tbb::make_filter<tracked, tracked>(filter_mode::parallel, [&](tracked t) {
                                maybe_throw(2, t.value);
                                return t;
                              }) & tbb::make_filter<tracked, void>(m, [&](tracked t) { maybe_throw(3, t.value); }));
    ADD_FAILURE() << "no exception from filter " << thrower << " (" << name_of(m) << ")";
  } catch (const pipeline_error& e) {
    EXPECT_EQ(std::string(e.what()), "filter " + std::to_string(thrower) + " failed");
  }
  EXPECT_LT(next.load(), 100000) << "the input went on after the exception";
  EXPECT_TRUE(no_live_items()) << "items not finalized after filter " << thrower << " threw (" << name_of(m) << ")";
}

TEST(TbbPipeline, ExceptionKeepsTypeAndMessageAndFinalizesItems) {
  for (filter_mode m : k_modes)
    for (int thrower = 0; thrower < 4; ++thrower) check_exception(thrower, m);
}

// A filter cancels its own pipeline: the pipeline returns (no exception) and every item in
// flight is finalized.
TEST(TbbPipeline, FilterCancelsThePipeline) {
  for (filter_mode m : k_modes) {
    g_live = 0;
    std::atomic<long> next{0};
    std::atomic<long> out{0};
    tbb::task_group_context ctx;
    tbb::parallel_pipeline(
        8,
        tbb::make_filter<void, tracked>(filter_mode::parallel,
                                        [&](tbb::flow_control& fc) {
                                          const long v = next.fetch_add(1);
                                          if (v >= 100000) fc.stop();
                                          return tracked(v);
                                        }) &
            tbb::make_filter<tracked, tracked>(m,
                                               [&](tracked t) {
                                                 if (t.value == 200)
                                                   tbb::task::current_context()->cancel_group_execution();
                                                 return t;
                                               }) &
            tbb::make_filter<tracked, void>(m, [&](tracked) { out.fetch_add(1); }),
        ctx);
    EXPECT_TRUE(ctx.is_group_execution_cancelled());
    EXPECT_LT(next.load(), 100000) << name_of(m);
    EXPECT_TRUE(no_live_items()) << name_of(m);
  }
}

// A thread outside the pipeline cancels the context passed in: the pipeline stops although
// its input never ends (it would after 10 s, and the test then fails).
TEST(TbbPipeline, OutsideCancelStopsThePipeline) {
  g_live = 0;
  tbb::task_group_context ctx;
  std::atomic<long> out{0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::thread canceller([&] {
    while (out.load() < 100 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    ctx.cancel_group_execution();
  });
  bool timed_out = false;
  tbb::parallel_pipeline(
      4,
      tbb::make_filter<void, tracked>(filter_mode::serial_in_order,
                                      [&](tbb::flow_control& fc) {
                                        if (std::chrono::steady_clock::now() > deadline) {
                                          timed_out = true;
                                          fc.stop();
                                        }
                                        return tracked(1);
                                      }) &
          tbb::make_filter<tracked, tracked>(filter_mode::parallel, [](tracked t) { return t; }) &
          tbb::make_filter<tracked, void>(filter_mode::serial_in_order, [&](tracked) { out.fetch_add(1); }),
      ctx);
  canceller.join();
  EXPECT_FALSE(timed_out);
  EXPECT_GE(out.load(), 100);
  EXPECT_TRUE(no_live_items());
}

// A pipeline summing 0..n-1 through the given modes.
long pipeline_sum(long n, filter_mode m) {
  long made = 0;
  std::atomic<long> sum{0};
  tbb::parallel_pipeline(
      4, tbb::make_filter<void, long>(filter_mode::serial_in_order, [&](tbb::flow_control& fc) -> long {
           if (made == n) fc.stop();
           return made++;
         }) & tbb::make_filter<long, long>(m, [](long v) {
           return v;
         }) & tbb::make_filter<long, void>(filter_mode::serial_out_of_order, [&](long v) { sum.fetch_add(v); }));
  return sum.load();
}

TEST(TbbPipeline, PipelinesInsideAParallelFor) {
  std::vector<long> sums(64, -1);
  tbb::parallel_for(0, 64, [&](int i) { sums[static_cast<std::size_t>(i)] = pipeline_sum(100 + i, k_modes[i % 3]); });
  for (int i = 0; i < 64; ++i) EXPECT_EQ(sums[static_cast<std::size_t>(i)], (100L + i) * (99 + i) / 2) << i;
}

TEST(TbbPipeline, PipelineInsideATaskArena) {
  tbb::task_arena arena(2);
  long sum = 0;
  arena.execute([&] { sum = pipeline_sum(1000, filter_mode::parallel); });
  EXPECT_EQ(sum, 1000L * 999 / 2);
}

TEST(TbbPipeline, ParallelReduceInsideAFilter) {
  long made = 0;
  std::atomic<long> total{0};
  tbb::parallel_pipeline(
      4, tbb::make_filter<void, long>(filter_mode::serial_in_order, [&](tbb::flow_control& fc) -> long {
           if (made == 40) fc.stop();
           return made++;
         }) & tbb::make_filter<long, long>(filter_mode::parallel, [](long v) {
           return tbb::parallel_reduce(
               tbb::blocked_range<long>(0, 1000 + v), 0L,
               [](const tbb::blocked_range<long>& r, long acc) {
                 for (long i = r.begin(); i != r.end(); ++i) acc += i;
                 return acc;
               },
               [](long a, long b) { return a + b; });
         }) & tbb::make_filter<long, void>(filter_mode::serial_in_order, [&](long s) { total.fetch_add(s); }));
  long expected = 0;
  for (long v = 0; v < 40; ++v) expected += (1000 + v) * (999 + v) / 2;
  EXPECT_EQ(total.load(), expected);
}

TEST(TbbPipeline, PipelineInsideAFilter) {
  for (filter_mode m : k_modes) {
    long made = 0;
    std::atomic<long> total{0};
    tbb::parallel_pipeline(
        4, tbb::make_filter<void, long>(filter_mode::serial_in_order, [&](tbb::flow_control& fc) -> long {
             if (made == 30) fc.stop();
             return made++;
           }) & tbb::make_filter<long, long>(m, [](long v) {
             return pipeline_sum(50 + v, filter_mode::parallel);
           }) & tbb::make_filter<long, void>(filter_mode::parallel, [&](long s) { total.fetch_add(s); }));
    long expected = 0;
    for (long v = 0; v < 30; ++v) expected += (50 + v) * (49 + v) / 2;
    EXPECT_EQ(total.load(), expected) << name_of(m);
  }
}

// The input filter runs a whole pipeline before it stops: the inner pipeline's end of input
// is not the outer one's, nor the other way round.
TEST(TbbPipeline, PipelineInsideTheInputFilter) {
  for (filter_mode m : k_modes) {
    std::atomic<long> made{0};
    std::atomic<long> total{0};
    tbb::parallel_pipeline(
        4, tbb::make_filter<void, long>(m, [&](tbb::flow_control& fc) -> long {
             const long v = made.fetch_add(1);
             const long s = pipeline_sum(20 + v % 7, filter_mode::parallel);
             if (v >= 30) fc.stop();
             return s;
           }) & tbb::make_filter<long, void>(filter_mode::parallel, [&](long s) { total.fetch_add(s); }));
    long expected = 0;
    for (long v = 0; v < 30; ++v) expected += (20 + v % 7) * (19 + v % 7) / 2;
    EXPECT_EQ(total.load(), expected) << name_of(m);
  }
}

// An exception from an inner pipeline leaves through the outer filter and the outer pipeline.
TEST(TbbPipeline, InnerPipelineExceptionReachesTheOuterCaller) {
  g_live = 0;
  long made = 0;
  try {
    tbb::parallel_pipeline(
        4, tbb::make_filter<void, long>(filter_mode::serial_in_order, [&](tbb::flow_control& fc) -> long {
             if (made == 1000) fc.stop();
             return made++;
           }) & tbb::make_filter<long, void>(filter_mode::parallel, [](long v) {
             long inner = 0;
             tbb::parallel_pipeline(
                 3, tbb::make_filter<void, tracked>(filter_mode::serial_in_order, [&](tbb::flow_control& fc) {
                      if (inner == 20) fc.stop();
                      return tracked(inner++);
                    }) & tbb::make_filter<tracked, void>(filter_mode::parallel, [v](tracked t) {
                      if (v == 9 && t.value == 5) throw pipeline_error("inner " + std::to_string(v));
                    }));
           }));
    ADD_FAILURE() << "no exception";
  } catch (const pipeline_error& e) {
    EXPECT_STREQ(e.what(), "inner 9");
  }
  EXPECT_LT(made, 1000);
  EXPECT_TRUE(no_live_items());
}

#if !FORKJOIN_TBB_NATIVE
// oneTBB asserts on zero tokens in its debug build; libforkjoin-tbb refuses it before any
// filter runs.
TEST(TbbPipeline, ZeroTokensIsAnError) {
  int calls = 0;
  EXPECT_THROW(tbb::parallel_pipeline(0, tbb::make_filter<void, void>(filter_mode::serial_in_order,
                                                                      [&](tbb::flow_control& fc) {
                                                                        ++calls;
                                                                        fc.stop();
                                                                      })),
               std::invalid_argument);
  EXPECT_EQ(calls, 0);
}
#endif

}  // namespace
