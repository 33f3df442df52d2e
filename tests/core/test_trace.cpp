// test_trace.cpp: the worker timeline trace (pool_options::trace_path, FORKJOIN_TRACE) and
// the per-worker statistics. Each test runs a program of known shape in a traced pool,
// parses the JSON file the pool wrote with a strict parser, and checks what the file says
// against the program and against pool::statistics().
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "json_mini.hpp"
#include "support.hpp"

namespace {

using forkjoin::test::json;

std::string temp_path(const char* name) {
  return std::string(::testing::TempDir()) + "forkjoin-" + name + "-" + std::to_string(getpid()) + ".json";
}

// "12.345" microseconds -> 12345 ns, exactly (the writer prints three decimals).
std::int64_t ns_of(const json& v) {
  const std::string& s = v.str;
  const std::size_t dot = s.find('.');
  if (dot == std::string::npos) return std::stoll(s) * 1000;
  std::string frac = s.substr(dot + 1);
  frac.resize(3, '0');
  return std::stoll(s.substr(0, dot)) * 1000 + std::stoll(frac);
}

struct span {
  std::string name;
  std::int64_t t0, t1;
  std::int64_t a = 0, b = 0;  // args: lo/hi of a chunk, loop of a join.f, as_job of a join.g
  bool open = false;          // args.open: still running when the file was written
  int depth = 0;              // on its track, filled by nest()
  int parent = -1;            // index in the track's vector, -1 for a root
};

struct trace_file {
  json root;
  std::map<int, std::string> thread_names;  // tid -> name
  std::map<int, std::vector<span>> tracks;  // tid -> spans sorted by (t0, longest first)
  std::map<int, std::vector<json>> steals;  // tid -> steal instants
  std::map<int, std::vector<json>> splits;  // tid -> split instants
  std::vector<json> spare_starts;           // spare.start instants
  std::map<std::int64_t, int> flow_starts;  // id -> count
  std::map<std::int64_t, int> flow_ends;    // id -> count
  std::uint64_t dropped = 0;
};

std::int64_t arg(const json& e, const char* k) {
  return e.has("args") && e.at("args").has(k) ? static_cast<std::int64_t>(e.at("args").at(k).num) : 0;
}

// Parents from proper nesting; fails the test if two spans on one track overlap partially.
void nest(int tid, std::vector<span>& v) {
  std::sort(v.begin(), v.end(), [](const span& x, const span& y) { return x.t0 != y.t0 ? x.t0 < y.t0 : x.t1 > y.t1; });
  std::vector<int> stack;
  for (int i = 0; i < static_cast<int>(v.size()); ++i) {
    while (!stack.empty() && v[static_cast<std::size_t>(stack.back())].t1 <= v[static_cast<std::size_t>(i)].t0)
      stack.pop_back();
    if (!stack.empty()) {
      const span& p = v[static_cast<std::size_t>(stack.back())];
      EXPECT_LE(v[static_cast<std::size_t>(i)].t1, p.t1)
          << "track " << tid << ": " << v[static_cast<std::size_t>(i)].name << " at "
          << v[static_cast<std::size_t>(i)].t0 << " overlaps " << p.name << " at " << p.t0 << " partially";
      v[static_cast<std::size_t>(i)].parent = stack.back();
      v[static_cast<std::size_t>(i)].depth = static_cast<int>(stack.size());
    }
    stack.push_back(i);
  }
}

trace_file load(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "no trace file at " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  trace_file t;
  t.root = forkjoin::test::parse_json(ss.str());  // throws on malformed JSON: the test fails
  EXPECT_EQ(t.root.at("displayTimeUnit").str, "ns");
  t.dropped = static_cast<std::uint64_t>(t.root.at("otherData").at("dropped_events").num);
  for (const json& e : t.root.at("traceEvents").arr) {
    const std::string ph = e.at("ph").str;
    const int tid = static_cast<int>(e.at("tid").num);
    EXPECT_TRUE(e.has("pid"));
    if (ph == "M") {
      if (e.at("name").str == "thread_name") {
        EXPECT_EQ(t.thread_names.count(tid), 0u) << "two names for tid " << tid;
        t.thread_names[tid] = e.at("args").at("name").str;
      }
    } else if (ph == "X") {
      const std::int64_t t0 = ns_of(e.at("ts")), d = ns_of(e.at("dur"));
      EXPECT_GE(d, 0);
      span s{e.at("name").str, t0, t0 + d};
      s.open = e.has("args") && e.at("args").has("open") && e.at("args").at("open").b;
      if (s.name == "chunk") {
        s.a = arg(e, "lo");
        s.b = arg(e, "hi");
      } else if (s.name == "join.f") {
        s.a = arg(e, "loop");
      } else if (s.name == "join.g") {
        s.a = arg(e, "as_job");
      }
      t.tracks[tid].push_back(s);
    } else if (ph == "i") {
      EXPECT_EQ(e.at("s").str, "t");
      if (e.at("name").str == "steal") t.steals[tid].push_back(e);
      if (e.at("name").str == "split") t.splits[tid].push_back(e);
      if (e.at("name").str == "spare.start") t.spare_starts.push_back(e);
    } else if (ph == "s") {
      ++t.flow_starts[static_cast<std::int64_t>(e.at("id").num)];
    } else if (ph == "f") {
      ++t.flow_ends[static_cast<std::int64_t>(e.at("id").num)];
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  for (auto& [tid, v] : t.tracks) nest(tid, v);
  return t;
}

std::size_t count(const trace_file& t, const std::string& name, std::int64_t a = -1) {
  std::size_t n = 0;
  for (const auto& [tid, v] : t.tracks)
    for (const span& s : v)
      if (s.name == name && (a < 0 || s.a == a)) ++n;
  return n;
}

void spin_a_little() {
  volatile int x = 0;
  for (int i = 0; i < 2000; ++i) x = x + i;
}

// Joins made by pfib(n): one per call with n >= 2.
std::uint64_t count_joins(int n) { return n < 2 ? 0 : 1 + count_joins(n - 1) + count_joins(n - 2); }

std::uint64_t pfib(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto [a, b] = forkjoin::join([n] { return pfib(n - 1); }, [n] { return pfib(n - 2); });
  return a + b;
}

// Re-executed by EnvironmentTracesEveryPoolUnderItsOwnName with FORKJOIN_TRACE set: two
// pools one after the other, then leave before gtest starts (through exit(), which writes
// the counters of a coverage build).
const bool g_env_trace_probe = [] {
  if (std::getenv("FORKJOIN_TEST_TRACE_PROBE") == nullptr) return false;
  for (int i = 0; i < 2; ++i) {
    forkjoin::pool p(2);
    if (p.run([] { return pfib(12); }) != 144) std::exit(3);
  }
  std::exit(0);
}();

// One worker: nothing is stolen, so the track is exactly the program's call tree:
// run { join.f { join.f{C} join.g{D} } join.g{B} }.
TEST(Trace, OneWorkerTrackIsTheCallTree) {
  const std::string path = temp_path("tree");
  {
    forkjoin::pool_options o;
    o.num_threads = 1;
    o.trace_path = path;
    forkjoin::pool p(o);
    p.run([] { forkjoin::join([] { forkjoin::join(spin_a_little, spin_a_little); }, spin_a_little); });
  }
  trace_file t = load(path);
  ASSERT_EQ(t.thread_names.size(), 1u);
  EXPECT_EQ(t.thread_names.begin()->second, "worker 0");
  ASSERT_EQ(t.tracks.size(), 1u);
  const std::vector<span>& v = t.tracks.begin()->second;
  ASSERT_EQ(v.size(), 5u);
  const char* names[] = {"run", "join.f", "join.f", "join.g", "join.g"};
  const int depths[] = {0, 1, 2, 2, 1};
  const int parents[] = {-1, 0, 1, 1, 0};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(v[i].name, names[i]) << i;
    EXPECT_EQ(v[i].depth, depths[i]) << i;
    EXPECT_EQ(v[i].parent, parents[i]) << i;
  }
  EXPECT_LE(v[2].t1, v[3].t0) << "the inner join.g starts after its join.f ends";
  EXPECT_LE(v[1].t1, v[4].t0) << "the outer join.g starts after its join.f ends";
  EXPECT_EQ(t.dropped, 0u);
  EXPECT_TRUE(t.steals.empty());
  std::remove(path.c_str());
}

// Four workers: fib through join, an imbalanced auto_ loop and a task_group. Every span is
// closed and nested, every chunk appears once, steal events match the statistics.
TEST(Trace, ForkJoinLoopAndGroupOnFourWorkers) {
  const std::string path = temp_path("four");
  const int fib_n = forkjoin::test::under_sanitizer() ? 14 : 18;
  constexpr int k_loop_n = 4000, k_children = 40;
  forkjoin::pool::stats st;
  {
    forkjoin::pool_options o;
    o.num_threads = 4;
    o.trace_path = path;
    forkjoin::pool p(o);
    std::atomic<int> children{0};
    p.run([&] {
      // At least two steals: children that their spawner waits for without helping (a
      // task_group child is published at once, and the spawner is busy).
      {
        std::atomic<int> ran{0};
        forkjoin::task_group g;
        for (int i = 0; i < 2; ++i) g.run([&ran] { ran.fetch_add(1, std::memory_order_release); });
        for (int i = 0; i < 20000 && ran.load(std::memory_order_acquire) < 2; ++i) usleep(100);
        EXPECT_EQ(ran.load(), 2) << "no worker stole the children in 2 s";
        g.wait();
      }
      EXPECT_EQ(pfib(fib_n), forkjoin::test::serial_fib(fib_n));
      forkjoin::parallel_for(0, k_loop_n, [](int i) {
        if (i % 97 == 0) spin_a_little();
      });
      forkjoin::task_group g;
      for (int i = 0; i < k_children; ++i)
        g.run([&children] {
          spin_a_little();
          children.fetch_add(1, std::memory_order_relaxed);
        });
      g.wait();
    });
    EXPECT_EQ(children.load(), k_children);
    st = p.statistics();  // no job is left, so no steal can follow
  }
  trace_file t = load(path);
  ASSERT_EQ(t.thread_names.size(), 4u);
  for (int w = 0; w < 4; ++w) EXPECT_EQ(t.thread_names[w + 1], "worker " + std::to_string(w));
  for (const auto& [tid, v] : t.tracks) EXPECT_TRUE(tid >= 1 && tid <= 4) << tid;
  EXPECT_EQ(t.dropped, 0u);

  // Every join ran both branches once, wherever they ran.
  const std::uint64_t joins = count_joins(fib_n);
  EXPECT_EQ(count(t, "join.f", 0), joins);
  EXPECT_EQ(count(t, "join.f"), count(t, "join.g"));
  EXPECT_EQ(count(t, "task"), static_cast<std::size_t>(k_children) + 2);
  // The jobs the scheduler ran (statistics) are the spans of jobs taken from a deque.
  EXPECT_EQ(st.jobs_run, count(t, "join.g", 1) + count(t, "task"));
  EXPECT_EQ(count(t, "run"), 1u);

  // The chunks tile [0, n) exactly.
  std::vector<std::pair<std::int64_t, std::int64_t>> chunks;
  for (const auto& [tid, v] : t.tracks)
    for (const span& s : v)
      if (s.name == "chunk") chunks.emplace_back(s.a, s.b);
  std::sort(chunks.begin(), chunks.end());
  std::int64_t next = 0;
  for (const auto& [lo, hi] : chunks) {
    EXPECT_EQ(lo, next) << "gap or overlap before chunk [" << lo << ", " << hi << ")";
    EXPECT_LT(lo, hi);
    next = hi;
  }
  EXPECT_EQ(next, k_loop_n);

  // Nesting follows the program: the roots of a track are the run (worker 0), jobs taken
  // from a deque (a stolen join.g, a task) and idle spans; a join.f, an inline join.g and a
  // chunk always sit inside another job on the same track.
  for (const auto& [tid, v] : t.tracks)
    for (const span& s : v) {
      const bool root_kind = s.name == "run" || s.name == "task" || s.name == "spin" || s.name == "park" ||
                             (s.name == "join.g" && s.a == 1);
      if (s.parent < 0) {
        EXPECT_TRUE(root_kind) << s.name << " at " << s.t0 << " on track " << tid << " is outside every job";
      }
      if (s.name == "run") {
        EXPECT_EQ(tid, 1);
        EXPECT_EQ(s.parent, -1);
      }
      if (s.name == "spin" || s.name == "park") {
        // idle spans never contain anything
        for (const span& c : v) EXPECT_FALSE(c.t0 > s.t0 && c.t1 < s.t1 && &c != &s) << c.name << " inside " << s.name;
      }
    }

  // Steals: per worker, as many events as the statistics counted; never from oneself.
  std::uint64_t total = 0;
  for (int w = 0; w < 4; ++w) {
    const auto& ev = t.steals[w + 1];
    EXPECT_EQ(ev.size(), st.workers[static_cast<std::size_t>(w)].steals) << "worker " << w;
    for (const json& e : ev) {
      EXPECT_EQ(arg(e, "thief"), w);
      EXPECT_NE(arg(e, "victim"), w);
      EXPECT_LT(arg(e, "victim"), 4);
    }
    total += ev.size();
    EXPECT_EQ(t.splits[w + 1].size(), st.workers[static_cast<std::size_t>(w)].splits_served) << "worker " << w;
  }
  EXPECT_EQ(total, st.steals);
  EXPECT_GE(total, 2u) << "too few steals: the steal checks checked little";
  // Flow arrows come in pairs, one per steal at most.
  EXPECT_EQ(t.flow_starts, t.flow_ends);
  std::size_t flows = 0;
  for (const auto& [id, n] : t.flow_starts) {
    EXPECT_EQ(n, 1) << "flow id " << id << " reused";
    flows += static_cast<std::size_t>(n);
  }
  EXPECT_EQ(flows, total) << "no event was dropped: every steal has its spawn";
  std::remove(path.c_str());
}

// A ring of 16 events keeps the newest 16 and the file says how many it dropped. With one
// worker the events are known: a spawn, a join.f and a join.g per join, and the run.
TEST(Trace, TinyBufferReportsDroppedEvents) {
  const std::string path = temp_path("tiny");
  constexpr int k_n = 12;
  {
    forkjoin::pool_options o;
    o.num_threads = 1;
    o.trace_path = path;
    o.trace_events = 16;
    forkjoin::pool p(o);
    EXPECT_EQ(p.run([] { return pfib(k_n); }), forkjoin::test::serial_fib(k_n));
  }
  trace_file t = load(path);
  const std::uint64_t recorded = 3 * count_joins(k_n) + 1;
  EXPECT_EQ(t.dropped, recorded - 16);
  EXPECT_EQ(t.root.at("otherData").at("dropped_per_worker").arr.at(0).num, static_cast<double>(recorded - 16));
  std::size_t kept = 0;
  for (const auto& [tid, v] : t.tracks) kept += v.size();
  EXPECT_GE(kept, 10u);  // of the newest 16, about a third are spawns (not written)
  EXPECT_LE(kept, 16u);
  EXPECT_EQ(count(t, "run"), 1u) << "the run ended last: it is among the newest";
  std::remove(path.c_str());
}

// trace_flush() while workers record: each snapshot is valid JSON (and, under TSan, reads
// the rings without a race while their owners overwrite them), and the final file written
// at destruction has everything.
TEST(Trace, FlushWhileRunning) {
  const std::string path = temp_path("flush");
  const int n = forkjoin::test::under_sanitizer() ? 12 : 16;
  {
    forkjoin::pool_options o;
    o.num_threads = 3;
    o.trace_path = path;
    o.trace_events = 512;  // wraps many times during the run: snapshots race with overwrites
    forkjoin::pool p(o);
    p.run([&] {
      std::atomic<bool> stop{false};
      std::atomic<int> rounds{0};
      forkjoin::task_group g;
      // A child that records until told to stop: the spawner does not help, so another
      // worker runs it, concurrently with the snapshots below.
      g.run([&] {
        while (!stop.load(std::memory_order_relaxed)) {
          EXPECT_EQ(pfib(n), forkjoin::test::serial_fib(n));
          rounds.fetch_add(1, std::memory_order_relaxed);
        }
      });
      for (int i = 0; i < 20000 && rounds.load(std::memory_order_relaxed) == 0; ++i) usleep(100);
      for (int i = 0; i < 10; ++i) {
        forkjoin::trace_flush();
        trace_file mid = load(path);
        EXPECT_EQ(mid.thread_names.size(), 3u);
      }
      stop.store(true, std::memory_order_relaxed);
      g.wait();
      EXPECT_GT(rounds.load(), 0);
    });
  }
  trace_file t = load(path);
  EXPECT_EQ(count(t, "run"), 1u);
  EXPECT_GT(t.dropped, 0u);
  std::remove(path.c_str());
}

// Per-worker counters add up to the totals; a thief runs every job it stole.
TEST(Stats, PerWorkerFiguresAddUp) {
  forkjoin::pool p(4);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(p.run([] { return pfib(18); }), forkjoin::test::serial_fib(18));
    usleep(20000);  // the workers park; the next round wakes them
  }
  const forkjoin::pool::stats s = p.statistics();
  ASSERT_EQ(s.workers.size(), 4u);
  forkjoin::pool::worker_stats sum;
  for (const auto& w : s.workers) {
    sum.jobs_run += w.jobs_run;
    sum.steals += w.steals;
    sum.steal_attempts += w.steal_attempts;
    sum.lost_races += w.lost_races;
    sum.parks += w.parks;
    sum.splits_served += w.splits_served;
    sum.time_parked += w.time_parked;
    sum.time_spinning += w.time_spinning;
    EXPECT_GE(w.jobs_run, w.steals) << "a thief runs what it stole (steal_half is off)";
    EXPECT_GE(w.steal_attempts, w.steals + w.lost_races);
  }
  EXPECT_EQ(sum.jobs_run, s.jobs_run);
  EXPECT_EQ(sum.steals, s.steals);
  EXPECT_EQ(sum.steal_attempts, s.steal_attempts);
  EXPECT_EQ(sum.lost_races, s.lost_races);
  EXPECT_EQ(sum.parks, s.parks);
  EXPECT_EQ(sum.splits_served, s.splits_served);
  EXPECT_EQ(sum.time_parked, s.time_parked);
  EXPECT_EQ(sum.time_spinning, s.time_spinning);
  if (s.parks > 0) {
    EXPECT_GT(s.time_parked.count(), 0);
  }
}

// FORKJOIN_STATS=1 prints the table when the pool is destroyed.
TEST(Stats, EnvironmentPrintsTableAtDestruction) {
  ::setenv("FORKJOIN_STATS", "1", 1);
  ::testing::internal::CaptureStderr();
  {
    forkjoin::pool p(2);
    p.run([] { return pfib(10); });
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  ::unsetenv("FORKJOIN_STATS");
  EXPECT_NE(err.find("forkjoin statistics"), std::string::npos) << err;
  EXPECT_NE(err.find("total"), std::string::npos) << err;
  EXPECT_NE(err.find("steals"), std::string::npos) << err;
}

TEST(Trace, BadEventCountIsRejected) {
  forkjoin::pool_options o;
  o.num_threads = 1;
  o.trace_path = temp_path("bad");
  ::setenv("FORKJOIN_TRACE_EVENTS", "lots", 1);
  EXPECT_THROW(forkjoin::pool{o}, std::invalid_argument);
  ::setenv("FORKJOIN_TRACE_EVENTS", "0", 1);
  EXPECT_THROW(forkjoin::pool{o}, std::invalid_argument);
  ::unsetenv("FORKJOIN_TRACE_EVENTS");
  o.trace_events = std::size_t{1} << 62;  // 4 words an event would overflow size_t
  EXPECT_THROW(forkjoin::pool{o}, std::invalid_argument);
}

// A flush while jobs run writes the running ones closed at the flush, with "open": true:
// here the run and the stolen join.g spinning on worker 1. (A join.f is recorded when f
// ends, from its spawn's time, [P-TRACE Join]: not shown while it runs.)
TEST(Trace, FlushWritesOpenSpans) {
  const std::string path = temp_path("open");
  {
    forkjoin::pool_options o;
    o.num_threads = 2;
    o.trace_path = path;
    forkjoin::pool p(o);
    std::atomic<bool> stolen{false}, flushed{false};
    p.run([&] {
      forkjoin::join(
          [&] {
            while (!stolen.load()) usleep(100);  // worker 1 runs g now
            forkjoin::trace_flush();
            flushed.store(true);  // before any check: a failed one must not leave g spinning
            trace_file mid = load(path);
            std::vector<span> open;
            std::int64_t last_end = 0;
            for (const auto& [tid, v] : mid.tracks)
              for (const span& s : v) {
                if (s.open) open.push_back(s);
                last_end = std::max(last_end, s.t1);
              }
            std::sort(open.begin(), open.end(), [](const span& x, const span& y) { return x.name > y.name; });
            ASSERT_EQ(open.size(), 2u);  // returns from f only: g has been let go
            EXPECT_EQ(open[0].name, "run");
            EXPECT_EQ(open[1].name, "join.g");
            for (const span& s : open) EXPECT_EQ(s.t1, last_end) << s.name << " ends at the flush";
            EXPECT_EQ(count(mid, "join.g"), 1u) << "only the open one: g still runs";
          },
          [&] {
            stolen.store(true);
            while (!flushed.load()) usleep(100);
          });
    });
    EXPECT_TRUE(flushed.load());
  }
  trace_file t = load(path);  // at destruction nothing runs: nothing open
  for (const auto& [tid, v] : t.tracks)
    for (const span& s : v) EXPECT_FALSE(s.open) << s.name;
  EXPECT_EQ(count(t, "run"), 1u);
  EXPECT_EQ(count(t, "join.f"), 1u);
  EXPECT_EQ(count(t, "join.g", 1), 1u);
  std::remove(path.c_str());
}

// blocking(): one span per outermost call, on the thread that blocked (a worker or a spare
// that ran the child); each spare started is an instant naming its slot, which has a track.
TEST(Trace, BlockingCallsAndSpares) {
  const std::string path = temp_path("blocking");
  constexpr int k_calls = 6;
  std::atomic<int> done{0};
  {
    forkjoin::pool_options o;
    o.num_threads = 2;
    o.trace_path = path;
    forkjoin::pool p(o);
    p.run([&] {
      forkjoin::task_group g;
      for (int i = 0; i < k_calls; ++i)
        g.run([&] {
          forkjoin::blocking([] { forkjoin::blocking([] { usleep(5000); }); });  // nested: one span
          done.fetch_add(1);
        });
      g.wait();
    });
  }
  EXPECT_EQ(done.load(), k_calls);
  trace_file t = load(path);
  EXPECT_EQ(count(t, "blocking"), static_cast<std::size_t>(k_calls));
  EXPECT_EQ(count(t, "task"), static_cast<std::size_t>(k_calls));
  EXPECT_GE(t.spare_starts.size(), 1u) << "the first worker to block starts a spare";
  for (const json& e : t.spare_starts) {
    const std::int64_t k = arg(e, "spare") - 2;  // spare slots follow the pool's two
    const int spare_tid = static_cast<int>(arg(e, "spare")) + 1;
    EXPECT_EQ(t.thread_names[spare_tid], "spare " + std::to_string(k));
  }
  std::size_t spare_tracks = 0;
  for (const auto& [tid, name] : t.thread_names) spare_tracks += name.rfind("spare ", 0) == 0 ? 1 : 0;
  EXPECT_GE(spare_tracks, 1u);
  EXPECT_LE(spare_tracks, t.spare_starts.size()) << "a spare slot gets its track when first used";
  std::remove(path.c_str());
}

// yield_now(): with both workers busy in jobs that yield, the job submitted from outside
// runs inside exactly one yield span that served it.
TEST(Trace, YieldServesOutsideWork) {
  const std::string path = temp_path("yield");
  {
    forkjoin::pool_options o;
    o.num_threads = 2;
    o.trace_path = path;
    o.max_outside_threads = 1;  // the second caller's job is injected ([P-SLOT] D1)
    forkjoin::pool p(o);
    std::atomic<int> started{0};
    std::atomic<bool> served{false};
    auto yielder = [&] {
      started.fetch_add(1);
      while (!served.load()) forkjoin::yield_now();
    };
    std::thread outside([&] {
      while (started.load() < 2) usleep(100);
      p.run([&] { served.store(true); });  // the external slot is busy: injected
    });
    p.run([&] { forkjoin::join(yielder, yielder); });
    outside.join();
  }
  trace_file t = load(path);
  std::int64_t jobs = 0;
  for (const json& e : t.root.at("traceEvents").arr)
    if (e.at("name").str == "yield") jobs += arg(e, "jobs");
  EXPECT_EQ(jobs, 1);
  EXPECT_GE(count(t, "yield"), 1u);
  std::remove(path.c_str());
}

// FORKJOIN_TRACE names the file of the first pool traced through it; later pools get "-1",
// "-2" before the file's extension (a dot in a directory's name is none).
// FORKJOIN_TRACE_CLOCK=steady stamps with steady_clock. Both are read once per process:
// this binary is run again, as a child, for each path.
TEST(Trace, EnvironmentTracesEveryPoolUnderItsOwnName) {
  char self[4096];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(len, 0);
  self[len] = '\0';
  const std::string dir = std::string(::testing::TempDir()) + "forkjoin-env-" + std::to_string(getpid()) + ".d";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  const std::pair<std::string, std::string> cases[] = {{dir + "/t.json", dir + "/t-1.json"},
                                                       {dir + "/trace", dir + "/trace-1"}};
  for (const auto& [first, second] : cases) {
    const std::string cmd = "FORKJOIN_TEST_TRACE_PROBE=1 FORKJOIN_TRACE_CLOCK=steady FORKJOIN_TRACE='" + first +
                            "' FORKJOIN_TRACE_EVENTS=4096 '" + self + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    for (const std::string& path : {first, second}) {
      trace_file t = load(path);
      EXPECT_EQ(t.root.at("otherData").at("workers").num, 2.0) << path;
      EXPECT_EQ(t.root.at("otherData").at("events_per_worker").num, 4096.0) << path;
      EXPECT_EQ(t.root.at("otherData").at("clock").str.rfind("steady_clock", 0), 0u) << path;
      EXPECT_EQ(count(t, "run"), 1u) << path;
      std::remove(path.c_str());
    }
  }
  ::rmdir(dir.c_str());
}

// A trace that cannot be written (no such directory) is reported on stderr, never thrown.
TEST(Trace, UnwritablePathIsReported) {
  const std::string path =
      std::string(::testing::TempDir()) + "forkjoin-no-such-dir-" + std::to_string(getpid()) + "/t.json";
  ::testing::internal::CaptureStderr();
  {
    forkjoin::pool_options o;
    o.num_threads = 1;
    o.trace_path = path;
    forkjoin::pool p(o);
    EXPECT_EQ(p.run([] { return pfib(8); }), 21u);
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("forkjoin: cannot write the trace " + path), std::string::npos) << err;
}

}  // namespace
