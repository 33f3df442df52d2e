// test_tbb_priority.cpp: flow graph node priorities (critical tasks, [P-TBB Crit]) and
// tasks put into a graph of another arena from a task and waited for inside that arena
// ([P-TBB Arena] A11), on libforkjoin-tbb. Built against native libtbb too (_native).
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using tbb::flow::continue_msg;
using tbb::flow::continue_node;
using tbb::flow::function_node;

// With one thread, every successor with a priority runs before every successor without,
// whatever the order of the edges: the source's body runs as a task, which puts to its
// successors, so the plain ones are spawned (one of them returned to run next) and the
// prioritized ones submitted as critical tasks.
TEST(TbbPriority, PrioritizedSuccessorsRunFirstOnOneThread) {
  const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  for (int round = 0; round < 20; ++round) {
    tbb::flow::graph g;
    continue_node<continue_msg> source(g, [](const continue_msg&) { return continue_msg(); });
    std::mutex m;
    std::vector<int> order;  // 1: a prioritized node ran, 0: a plain one
    auto body = [&](int kind) {
      return [&m, &order, kind](const continue_msg&) {
        const std::lock_guard<std::mutex> lock(m);
        order.push_back(kind);
      };
    };
    std::vector<std::unique_ptr<function_node<continue_msg>>> nodes;
    for (int i = 0; i < 6; ++i) {
      const bool high = (i + round) % 3 == 0;
      nodes.push_back(high ? std::make_unique<function_node<continue_msg>>(g, tbb::flow::unlimited, body(1),
                                                                           tbb::flow::node_priority_t(1 + i))
                           : std::make_unique<function_node<continue_msg>>(g, tbb::flow::unlimited, body(0)));
      tbb::flow::make_edge(source, *nodes.back());
    }
    source.try_put(continue_msg());
    g.wait_for_all();
    ASSERT_EQ(order.size(), 6u);  // each node exactly once
    EXPECT_EQ(order, (std::vector<int>{1, 1, 0, 0, 0, 0})) << "round " << round;
  }
}

// Every thread of the implicit arena runs a task that puts a message into a graph of
// another arena and waits for that graph inside that arena. The put comes from outside the
// arena (the task), the wait from inside, and all threads wait at once, so none is left to
// run another's message: each waiter must run its own.
TEST(TbbPriority, GraphOfAnotherArenaWaitedForFromATask) {
  const int threads = tbb::this_task_arena::max_concurrency();
  tbb::task_arena inner;
  for (int round = 0; round < 10; ++round) {
    std::atomic<int> arrived{0};
    std::atomic<int> ran{0};
    tbb::task_group tg;
    for (int t = 0; t < threads; ++t) {
      tg.run([&] {
        tbb::flow::graph g;
        function_node<int> node(g, tbb::flow::unlimited, [&ran](int) { ran.fetch_add(1); });
        inner.execute([&g] { g.reset(); });  // the graph now runs in `inner`
        arrived.fetch_add(1);
        while (arrived.load() < threads) std::this_thread::yield();  // every thread is in such a task
        node.try_put(1);
        g.wait_for_all();
      });
    }
    tg.wait();
    EXPECT_EQ(ran.load(), threads) << "round " << round;
  }
}

}  // namespace
