// trace.cpp: a pool's observer (trace.hpp): allocates the trace rings, snapshots them into
// a Chrome Trace Event Format JSON file ([P-TRACE]), keeps the process-wide list of
// observers for trace_flush() and exit, and formats the FORKJOIN_STATS table.
#include "trace.hpp"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

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

struct event {
  std::uint64_t t0, t1, a, b;
  trace_kind kind;
  std::uint32_t worker;
  bool open = false;  // still running at the snapshot: t1 is the snapshot's time
};

// [P-TRACE O3, O4, O5] the spans of ring r open right now, before its events are copied.
void open_snapshot(const trace_ring& r, std::uint32_t worker, std::vector<event>& out) {
  std::uint64_t words[trace_ring::k_max_open * 4];
  std::uint64_t n = 0;
  if (!r.open_spans(words, n)) return;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t* w = words + i * 4;
    out.push_back(event{w[0], 0, w[2], w[3], static_cast<trace_kind>(w[1] >> trace_ring::k_kind_shift), worker, true});
  }
}

// [P-TRACE S1, S2, S3, S4, S5]: the events of one ring that are certainly intact, oldest first, and the
// number of older ones that were dropped (overwritten, or being overwritten right now).
std::uint64_t snapshot(const trace_ring& r, std::uint32_t worker, std::vector<event>& out) {
  const std::uint64_t cap = r.capacity();
  const std::uint64_t done = r.done(std::memory_order_acquire);  // [P-TRACE S1] pairs with R3
  const std::uint64_t first = done > cap ? done - cap : 0;
  std::vector<event> mine;
  mine.reserve(static_cast<std::size_t>(done - first));
  for (std::uint64_t i = first; i < done; ++i) {  // [P-TRACE S2] relaxed copies
    auto* e = const_cast<std::uint64_t*>(r.words() + (i % cap) * 4);
    const std::uint64_t w1 = std::atomic_ref<std::uint64_t>(e[1]).load(std::memory_order_relaxed);
    const std::uint64_t t0 = std::atomic_ref<std::uint64_t>(e[0]).load(std::memory_order_relaxed);
    mine.push_back(event{t0, t0 + (w1 & trace_ring::k_time_mask),
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

const char* kind_name(trace_kind k) {
  switch (k) {
    case trace_kind::run:
      return "run";
    case trace_kind::join_f:
      return "join.f";
    case trace_kind::join_g:
      return "join.g";
    case trace_kind::task:
      return "task";
    case trace_kind::chunk:
      return "chunk";
    case trace_kind::spin:
      return "spin";
    case trace_kind::park:
      return "park";
    case trace_kind::spawn:
      return "spawn";
    case trace_kind::steal:
      return "steal";
    case trace_kind::split:
      return "split";
    case trace_kind::blocking:
      return "blocking";
    case trace_kind::spare_start:
      return "spare.start";
    case trace_kind::yield:
      return "yield";
    case trace_kind::omp_region:
      return "omp.region";
    case trace_kind::omp_task:
      return "omp.task";
    case trace_kind::omp_barrier:
      return "omp.barrier";
  }
  return "?";
}

bool is_job(trace_kind k) {
  return k == trace_kind::run || k == trace_kind::join_f || k == trace_kind::join_g || k == trace_kind::task ||
         k == trace_kind::chunk || k == trace_kind::yield || k == trace_kind::omp_region || k == trace_kind::omp_task;
}

const char* category(trace_kind k) {
  if (is_job(k)) return "job";
  if (k == trace_kind::blocking) return "blocked";
  return "idle";  // spin, park, omp.barrier
}

// Processes' unique observer numbers, for this_thread_ring's per-thread cache.
std::atomic<std::uint64_t> g_observer_serial{0};

class json_writer {
 public:
  explicit json_writer(std::FILE* f) : f_(f) {}
  // Microseconds with nanosecond digits, as the format wants ts and dur.
  void micros(std::uint64_t ns) { std::fprintf(f_, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000); }
  void ts(std::uint64_t ns_since_start) { micros(ns_since_start); }
  void begin_event() {
    std::fputs(first_ ? "\n" : ",\n", f_);
    first_ = false;
  }
  std::FILE* file() { return f_; }

 private:
  std::FILE* f_;
  bool first_ = true;
};

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
    std::vector<const trace_ring*> rings;
    std::vector<std::string> names;
    {
      std::lock_guard<std::mutex> lock(rings_mutex_);  // add_ring may append meanwhile
      for (const auto& r : rings_) rings.push_back(r.get());
      names = names_;
    }
    std::vector<event> events;
    std::vector<std::uint64_t> dropped(rings.size());
    for (std::size_t i = 0; i < rings.size(); ++i) {
      // Open spans first: one that closes before its ring is copied is then in both, and
      // the closed copy wins below; read after, it would be in neither.
      std::vector<event> open;
      open_snapshot(*rings[i], static_cast<std::uint32_t>(i), open);
      const std::size_t first = events.size();
      dropped[i] = snapshot(*rings[i], static_cast<std::uint32_t>(i), events);
      for (const event& o : open) {
        const bool closed = std::any_of(events.begin() + static_cast<std::ptrdiff_t>(first), events.end(),
                                        [&](const event& e) { return e.kind == o.kind && e.t0 == o.t0; });
        if (!closed) events.push_back(o);
      }
    }
    const std::uint64_t open_end = trace_ring(nullptr, 0, tsc_).now();  // after every open span began
    for (event& e : events)
      if (e.open) e.t1 = open_end;
    // Ticks to nanoseconds since the pool started, calibrated on steady_clock over the
    // whole trace (both clocks read at creation and now).
    const std::uint64_t now_ns = steady_ns(), now_tick = trace_ring(nullptr, 0, tsc_).now();
    const double scale = tsc_ && now_tick > epoch_tick_
                             ? static_cast<double>(now_ns - epoch_ns_) / static_cast<double>(now_tick - epoch_tick_)
                             : 1.0;
    auto to_ns = [&](std::uint64_t t) {
      return t > epoch_tick_ ? static_cast<std::uint64_t>(static_cast<double>(t - epoch_tick_) * scale) : 0;
    };
    for (event& e : events) {
      e.t0 = to_ns(e.t0);
      e.t1 = to_ns(e.t1);
    }

    // Flow arrows: each steal links to the latest spawn of the same job address at or
    // before it (addresses are reused once a job is done, never while it waits).
    std::unordered_map<std::uint64_t, std::vector<const event*>> spawns;
    for (const event& e : events)
      if (e.kind == trace_kind::spawn) spawns[e.a].push_back(&e);
    for (auto& [addr, list] : spawns)
      std::sort(list.begin(), list.end(), [](const event* x, const event* y) { return x->t0 < y->t0; });

    std::FILE* f = std::fopen(path_.c_str(), "w");
    if (f == nullptr) {
      std::perror(("forkjoin: cannot write the trace " + path_).c_str());
      return false;
    }
    json_writer w(f);
    const long pid = static_cast<long>(getpid());
    std::uint64_t total_dropped = 0;
    for (std::uint64_t d : dropped) total_dropped += d;
    std::fprintf(f,
                 "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"format\":\"forkjoin-trace-1\","
                 "\"clock\":\"%s, ts in microseconds since the pool started\","
                 "\"workers\":%zu,\"events_per_worker\":%" PRIu64 ",\"dropped_events\":%" PRIu64
                 ",\"dropped_per_worker\":[",
                 tsc_ ? "rdtsc calibrated on steady_clock" : "steady_clock", rings.size(),
                 rings.empty() ? 0 : rings[0]->capacity(), total_dropped);
    for (std::size_t i = 0; i < dropped.size(); ++i) std::fprintf(f, "%s%" PRIu64, i == 0 ? "" : ",", dropped[i]);
    std::fputs("]},\n\"traceEvents\":[", f);
    w.begin_event();
    std::fprintf(
        f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":1,\"args\":{\"name\":\"forkjoin pool\"}}", pid);
    for (std::size_t i = 0; i < rings.size(); ++i) {
      // tid = ring index + 1 (the workers first): Perfetto treats tid 0 as the idle thread.
      w.begin_event();
      std::fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%zu,\"args\":{\"name\":\"%s\"}}", pid,
                   i + 1, names[i].c_str());
      w.begin_event();
      std::fprintf(
          f, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%zu,\"args\":{\"sort_index\":%zu}}", pid,
          i + 1, i);
    }
    std::uint64_t flow_id = 0;
    for (const event& e : events) {
      const std::size_t tid = e.worker + 1;
      if (e.kind == trace_kind::spawn) continue;  // written with the steal that took it, if any
      if (e.kind == trace_kind::spare_start) {
        w.begin_event();
        std::fprintf(f,
                     "{\"name\":\"spare.start\",\"cat\":\"blocked\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%ld,\"tid\":%zu,"
                     "\"ts\":",
                     pid, tid);
        w.ts(e.t0);
        std::fprintf(f, ",\"args\":{\"spare\":%" PRIu64 "}}", e.a);
        continue;
      }
      if (e.kind == trace_kind::steal || e.kind == trace_kind::split) {
        w.begin_event();
        std::fprintf(f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%ld,\"tid\":%zu,\"ts\":",
                     kind_name(e.kind), kind_name(e.kind), pid, tid);
        w.ts(e.t0);
        if (e.kind == trace_kind::steal)
          std::fprintf(f, ",\"args\":{\"thief\":%" PRIu32 ",\"victim\":%" PRIu64 "}}", e.worker, e.b);
        else
          std::fprintf(f, ",\"args\":{\"lo\":%" PRIu64 ",\"hi\":%" PRIu64 "}}", e.a, e.b);
        if (e.kind == trace_kind::steal) {
          auto it = spawns.find(e.a);
          if (it == spawns.end()) continue;
          const auto& list = it->second;
          auto after = std::upper_bound(list.begin(), list.end(), e.t0,
                                        [](std::uint64_t t, const event* s) { return t < s->t0; });
          if (after == list.begin()) continue;  // its spawn was dropped
          const event& s = **(after - 1);
          ++flow_id;
          w.begin_event();
          std::fprintf(f,
                       "{\"name\":\"steal\",\"cat\":\"steal\",\"ph\":\"s\",\"id\":%" PRIu64
                       ",\"pid\":%ld,\"tid\":%" PRIu32 ",\"ts\":",
                       flow_id, pid, s.worker + 1);
          w.ts(s.t0);
          std::fputs("}", f);
          // No "bp": binds to the next slice on the thief's track, the stolen job's.
          w.begin_event();
          std::fprintf(f,
                       "{\"name\":\"steal\",\"cat\":\"steal\",\"ph\":\"f\",\"id\":%" PRIu64
                       ",\"pid\":%ld,\"tid\":%zu,\"ts\":",
                       flow_id, pid, tid);
          w.ts(e.t0);
          std::fputs("}", f);
        }
        continue;
      }
      w.begin_event();
      std::fprintf(f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%ld,\"tid\":%zu,\"ts\":", kind_name(e.kind),
                   category(e.kind), pid, tid);
      w.ts(e.t0);
      std::fputs(",\"dur\":", f);
      w.micros(e.t1 > e.t0 ? e.t1 - e.t0 : 0);
      // args: the kind's own, and "open": true for a span still running at the snapshot
      char args[160] = "";
      switch (e.kind) {
        case trace_kind::chunk:
          std::snprintf(args, sizeof args, "\"lo\":%" PRIu64 ",\"hi\":%" PRIu64, e.a, e.b);
          break;
        case trace_kind::join_f:
          std::snprintf(args, sizeof args, "\"loop\":%" PRIu64, e.a);
          break;
        case trace_kind::join_g:
          std::snprintf(args, sizeof args, "\"as_job\":%" PRIu64, e.a);
          break;
        case trace_kind::park:
          std::snprintf(args, sizeof args, "\"blocked\":%" PRIu64, e.a);
          break;
        case trace_kind::yield:
          std::snprintf(args, sizeof args, "\"jobs\":%" PRIu64, e.a);
          break;
        case trace_kind::omp_region:
          std::snprintf(args, sizeof args, "\"region\":%" PRIu64 ",\"thread\":%" PRIu64 ",\"team_size\":%" PRIu64, e.a,
                        e.b & 0xffffffffu, e.b >> 32);
          break;
        case trace_kind::omp_task:
          std::snprintf(args, sizeof args, "\"fn\":\"0x%" PRIx64 "\",\"undeferred\":%" PRIu64, e.a, e.b);
          break;
        case trace_kind::omp_barrier:
          std::snprintf(args, sizeof args, "\"region\":%" PRIu64 ",\"end\":%" PRIu64, e.a, e.b);
          break;
        default:
          break;
      }
      if (e.open) std::strcat(args, args[0] != '\0' ? ",\"open\":true" : "\"open\":true");  // fits: args stay short
      if (args[0] != '\0')
        std::fprintf(f, ",\"args\":{%s}}", args);
      else
        std::fputs("}", f);
    }
    std::fputs("\n]}\n", f);
    const bool ok = std::ferror(f) == 0;
    if (std::fclose(f) != 0 || !ok) {
      std::fprintf(stderr, "forkjoin: error writing the trace %s\n", path_.c_str());
      return false;
    }
    return true;
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
