// test_tbb_capped_start.cpp: a program that caps oneTBB's parallelism before its first
// parallel call runs on the capped pool alone: the default pool, whose size the implicit
// arena compares against the cap, is never created, so its threads never start
// ([P-TBB Arena A2]). Its own process: nothing else may have created the default pool.
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "threads_held.hpp"

namespace {

TEST(TbbCappedStart, ACapOfOneStartsNoThread) {
  tbb::global_control cap(tbb::global_control::max_allowed_parallelism, 1);
  constexpr int k_n = 10000;
  std::vector<std::atomic<int>> hits(k_n);
  std::atomic<std::size_t> max_seen{process_threads()};
  tbb::parallel_for(0, k_n, [&](int i) {
    hits[static_cast<std::size_t>(i)]++;
    if (i % 512 == 0) note_max(max_seen);
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  // a thread started meanwhile is counted once it has named itself "forkjoin-N"
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  note_max(max_seen);
  EXPECT_EQ(max_seen.load(), 1u) << "threads in the process under a cap of 1";
}

}  // namespace
