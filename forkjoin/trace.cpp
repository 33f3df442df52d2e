// trace.cpp: a pool's observer (trace.hpp): allocates the trace rings, snapshots them
// ([P-TRACE]) for trace_json.cpp to write as a Chrome Trace Event Format JSON file, keeps
// the process-wide list of observers for trace_flush() and exit, and formats the
// FORKJOIN_STATS table.
#include "trace.hpp"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string_view>

#include "pool_impl.hpp"

namespace forkjoin {
namespace detail {

namespace {

constexpr std::size_t k_default_trace_events = 1'000'000;
constexpr std::size_t k_max_trace_events = std::size_t{1} << 32;

// Every observer of this process, for trace_flush() and the exit handler. Never destroyed,
// so the exit handler may run after static destructors began.
struct observer_list {
  std::mutex mutex;
  std::vector<observer*> list;  // guarded by mutex
  std::size_t env_traced = 0;   // pools traced through FORKJOIN_TRACE so far, guarded by mutex
};
observer_list& observers() {
  static observer_list* const l = new observer_list;
  return *l;
}

void flush_at_exit() noexcept {
  observer_list& l = observers();
  std::lock_guard<std::mutex> lock(l.mutex);
  for (observer* o : l.list) {
    if (o->stale()) continue;
    o->write_trace();
    o->print_stats();
  }
}

void on_fork_child() noexcept {
  // A parent thread may have held the mutex: it does not exist here. The observers of the
  // parent's pools stay listed but stale: nothing is written for them in the child.
  new (&observers().mutex) std::mutex;
}

void register_handlers() {
  static const bool registered = [] {
    std::atexit(&flush_at_exit);
    return pthread_atfork(nullptr, nullptr, &on_fork_child) == 0;
  }();
  (void)registered;
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

std::size_t parse_events(const char* text) {
  std::string_view s(text);
  std::size_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc{} || end != s.data() + s.size() || n == 0)
    throw std::invalid_argument(std::string("forkjoin: FORKJOIN_TRACE_EVENTS='") + text +
                                "' is not a positive event count");
  return n;
}

// "t.json" for the first pool traced through the environment, then "t-1.json", "t-2.json".
std::string numbered(const std::string& path, std::size_t k) {
  if (k == 0) return path;
  const std::size_t slash = path.rfind('/');
  std::size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = path.size();
  return path.substr(0, dot) + "-" + std::to_string(k) + path.substr(dot);
}

// The time-stamp counter, when the kernel itself keeps time with it (then it is invariant
// and synchronised across cores); FORKJOIN_TRACE_CLOCK=steady forces steady_clock.
bool use_tsc() {
#if defined(__x86_64__)
  static const bool tsc = [] {
    if (const char* v = std::getenv("FORKJOIN_TRACE_CLOCK"); v != nullptr && std::strcmp(v, "steady") == 0)
      return false;
    std::FILE* f = std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f == nullptr) return false;
    char name[32] = {};
    const bool ok = std::fgets(name, sizeof name, f) != nullptr && std::strncmp(name, "tsc", 3) == 0 &&
                    (name[3] == '\n' || name[3] == '\0');
    std::fclose(f);
    return ok;
  }();
  return tsc;
#else
  return false;
#endif
}

// [P-TRACE O3, O4, O5] the spans of ring r open right now, before its events are copied.
void open_snapshot(const trace_ring& r, std::uint32_t worker, std::vector<trace_event>& out) {
  std::uint64_t words[trace_ring::k_max_open * 4];
  std::uint64_t n = 0;
  if (!r.open_spans(words, n)) return;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t* w = words + i * 4;
    out.push_back(
        trace_event{w[0], 0, w[2], w[3], static_cast<trace_kind>(w[1] >> trace_ring::k_kind_shift), worker, true});
  }
}

// [P-TRACE S1, S2, S3, S4, S5]: the events of one ring that are certainly intact, oldest first, and the
// number of older ones that were dropped (overwritten, or being overwritten right now).
std::uint64_t snapshot(const trace_ring& r, std::uint32_t worker, std::vector<trace_event>& out) {
  const std::uint64_t cap = r.capacity();
  const std::uint64_t done = r.done(std::memory_order_acquire);  // [P-TRACE S1] pairs with R3
  const std::uint64_t first = done > cap ? done - cap : 0;
  std::vector<trace_event> mine;
  mine.reserve(static_cast<std::size_t>(done - first));
  for (std::uint64_t i = first; i < done; ++i) {  // [P-TRACE S2] relaxed copies
    auto* e = const_cast<std::uint64_t*>(r.words() + (i % cap) * 4);
    const std::uint64_t w1 = std::atomic_ref<std::uint64_t>(e[1]).load(std::memory_order_relaxed);
    const std::uint64_t t0 = std::atomic_ref<std::uint64_t>(e[0]).load(std::memory_order_relaxed);
    mine.push_back(trace_event{t0, t0 + (w1 & trace_ring::k_time_mask),
                               std::atomic_ref<std::uint64_t>(e[2]).load(std::memory_order_relaxed),
                               std::atomic_ref<std::uint64_t>(e[3]).load(std::memory_order_relaxed),
                               static_cast<trace_kind>(w1 >> trace_ring::k_kind_shift), worker, false});
  }
  if constexpr (!FORKJOIN_TSAN) std::atomic_thread_fence(std::memory_order_acquire);  // [P-TRACE S3] pairs with R2
  const std::uint64_t begun = r.begun(std::memory_order_relaxed);                     // [P-TRACE S4]
  // [P-TRACE S5] event k overwrote event k - cap: keep only indices >= begun - cap.
  const std::uint64_t safe = begun > cap ? begun - cap : 0;
  const std::uint64_t keep_from = std::max(first, safe);
  const auto skip = static_cast<std::size_t>(std::min(keep_from - first, done - first));
  out.insert(out.end(), mine.begin() + static_cast<std::ptrdiff_t>(skip), mine.end());
  return std::min(keep_from, done);
}

// One ring's events, then those of its spans still open that it has not recorded closed;
// returns the number of its older events that were dropped.
std::uint64_t snapshot_with_open_spans(const trace_ring& r, std::uint32_t worker, std::vector<trace_event>& out) {
  // Open spans first: one that closes before its ring is copied is then in both, and
  // the closed copy wins below; read after, it would be in neither.
  std::vector<trace_event> open;
  open_snapshot(r, worker, open);
  const std::size_t first = out.size();
  const std::uint64_t dropped = snapshot(r, worker, out);
  for (const trace_event& o : open) {
    const bool closed = std::any_of(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                                    [&](const trace_event& e) { return e.kind == o.kind && e.t0 == o.t0; });
    if (!closed) out.push_back(o);
  }
  return dropped;
}

// Every ring of s in turn, ring i's events on worker i's track: fills s.events and s.dropped.
void snapshot_rings(trace_snapshot& s) {
  s.dropped.resize(s.rings.size());
  for (std::size_t i = 0; i < s.rings.size(); ++i)
    s.dropped[i] = snapshot_with_open_spans(*s.rings[i], static_cast<std::uint32_t>(i), s.events);
}

// A span still open at the snapshot ends at open_end, a time read after every open span began.
void close_open_spans(std::vector<trace_event>& events, std::uint64_t open_end) {
  for (trace_event& e : events)
    if (e.open) e.t1 = open_end;
}

// Ticks to nanoseconds since the pool started, calibrated on steady_clock over the
// whole trace (both clocks read at creation and now).
void ticks_to_ns(std::vector<trace_event>& events, bool tsc, std::uint64_t epoch_ns, std::uint64_t epoch_tick) {
  const std::uint64_t now_ns = steady_ns(), now_tick = trace_ring(nullptr, 0, tsc).now();
  const double scale = tsc && now_tick > epoch_tick
                           ? static_cast<double>(now_ns - epoch_ns) / static_cast<double>(now_tick - epoch_tick)
                           : 1.0;
  auto to_ns = [&](std::uint64_t t) {
    return t > epoch_tick ? static_cast<std::uint64_t>(static_cast<double>(t - epoch_tick) * scale) : 0;
  };
  for (trace_event& e : events) {
    e.t0 = to_ns(e.t0);
    e.t1 = to_ns(e.t1);
  }
}

// Processes' unique observer numbers, for this_thread_ring's per-thread cache.
std::atomic<std::uint64_t> g_observer_serial{0};

}  // namespace

std::unique_ptr<observer> observer::create(pool_impl& p) {
  const pool_options& o = p.options();
  std::string path = o.trace_path;
  std::size_t events = o.trace_events;
  if (path.empty()) {
    if (const char* v = std::getenv("FORKJOIN_TRACE"); v != nullptr && *v != '\0') {
      observer_list& l = observers();
      std::lock_guard<std::mutex> lock(l.mutex);
      path = numbered(v, l.env_traced++);
    }
  }
  if (!path.empty() && events == 0) {
    const char* v = std::getenv("FORKJOIN_TRACE_EVENTS");
    events = v != nullptr && *v != '\0' ? parse_events(v) : k_default_trace_events;
  }
  if (events > k_max_trace_events)  // 32 bytes an event: the ring's size must not overflow
    throw std::invalid_argument("forkjoin: trace_events above 2^32 per worker");
  const bool stats = env_flag("FORKJOIN_STATS");
  if (path.empty() && !stats) return nullptr;
  return std::make_unique<observer>(p, std::move(path), events, stats);
}

observer::observer(pool_impl& p, std::string path, std::size_t events, bool print_stats)
    : pool_(p),
      path_(std::move(path)),
      fork_generation_(current_fork_generation()),
      print_stats_(print_stats),
      tsc_(use_tsc()),
      epoch_ns_(steady_ns()),
      epoch_tick_(trace_ring(nullptr, 0, tsc_).now()),
      serial_(g_observer_serial.fetch_add(1, std::memory_order_relaxed) + 1),
      events_(events) {
  if (!path_.empty()) {
    for (std::size_t i = 0; i < p.num_threads(); ++i) {
      // Uninitialised: the kernel maps the pages as the owner first writes them.
      words_.emplace_back(new std::uint64_t[events * 4]);
      rings_.push_back(std::make_unique<trace_ring>(words_.back().get(), events, tsc_));
      names_.push_back("worker " + std::to_string(i));
      p.slot(i).trace_ = rings_.back().get();
      // [P-TRACE Join] every push of this worker takes the slow path that records it
      p.slot(i).deque_.request_publication(job_deque::k_traced);
    }
    g_tracing.store(true, std::memory_order_relaxed);  // a hint: this_thread_ring decides
  }
  register_handlers();
  observer_list& l = observers();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.list.push_back(this);
}

observer::~observer() {
  observer_list& l = observers();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.list.erase(std::remove(l.list.begin(), l.list.end(), this), l.list.end());
}

bool observer::stale() const noexcept { return fork_generation_ != current_fork_generation(); }

trace_ring* observer::add_ring(const std::string& name) noexcept {
  if (path_.empty()) return nullptr;
  try {
    std::unique_ptr<std::uint64_t[]> words(new std::uint64_t[events_ * 4]);
    auto ring = std::make_unique<trace_ring>(words.get(), events_, tsc_);
    std::lock_guard<std::mutex> lock(rings_mutex_);
    names_.reserve(names_.size() + 1);
    words_.reserve(words_.size() + 1);
    rings_.reserve(rings_.size() + 1);
    names_.push_back(name);
    words_.push_back(std::move(words));
    rings_.push_back(std::move(ring));
    return rings_.back().get();
  } catch (...) {  // out of memory: this thread goes untraced
    return nullptr;
  }
}

namespace {
// The ring this_thread_ring made for the calling thread, and the observer it belongs to.
thread_local std::uint64_t tls_ring_serial = 0;
thread_local trace_ring* tls_ring = nullptr;
}  // namespace

trace_ring* this_thread_ring(pool_impl& p) noexcept {
  if (worker* w = tls_worker) return w->trace_;  // bound to a slot: the slot's ring
  observer* o = p.trace_observer();
  if (o == nullptr) return nullptr;
  if (tls_ring_serial != o->serial()) {  // first call for this pool's trace
    const auto tid = static_cast<long>(syscall(SYS_gettid));
    tls_ring =
        o->add_ring(tid == static_cast<long>(getpid()) ? std::string("main thread") : "thread " + std::to_string(tid));
    tls_ring_serial = o->serial();
  }
  return tls_ring;
}

void observer::finish() noexcept {
  {
    observer_list& l = observers();
    std::lock_guard<std::mutex> lock(l.mutex);  // waits for a trace_flush() in progress
    l.list.erase(std::remove(l.list.begin(), l.list.end(), this), l.list.end());
  }
  write_trace();
  print_stats();
}

void observer::print_stats() noexcept {
  if (!print_stats_) return;
  try {
    const std::string table = format_stats_table(pool_statistics(pool_));
    std::fputs(table.c_str(), stderr);
    print_stats_ = false;  // once: at exit or at destruction
  } catch (...) {          // out of memory while formatting: no table
  }
}

bool observer::write_trace() noexcept {
  if (path_.empty()) return true;
  try {
    trace_snapshot s;
    {
      std::lock_guard<std::mutex> lock(rings_mutex_);  // add_ring may append meanwhile
      for (const auto& r : rings_) s.rings.push_back(r.get());
      s.names = names_;
    }
    snapshot_rings(s);
    close_open_spans(s.events, trace_ring(nullptr, 0, tsc_).now());  // after every open span began
    ticks_to_ns(s.events, tsc_, epoch_ns_, epoch_tick_);
    return write_trace_json(path_, tsc_, s);
  } catch (...) {  // out of memory while snapshotting: no file, never an exception
    std::fprintf(stderr, "forkjoin: out of memory writing the trace %s\n", path_.c_str());
    return false;
  }
}

void note_split_served(worker& w, std::uint64_t lo, std::uint64_t hi) noexcept {
  worker_slot& s = slot_of(w);
  s.splits_served_.store(s.splits_served_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (w.trace_ != nullptr) [[unlikely]]
    w.trace_->instant(trace_kind::split, lo, hi);
}

}  // namespace detail

void trace_flush() {
  detail::observer_list& l = detail::observers();
  std::lock_guard<std::mutex> lock(l.mutex);
  for (detail::observer* o : l.list)
    if (!o->stale()) o->write_trace();
}

}  // namespace forkjoin
