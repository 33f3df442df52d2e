// trace_json.cpp: writes a snapshot of a pool's trace rings (trace.cpp) as a Chrome Trace
// Event Format JSON file, by hand: the file's header, a track per ring, then each ring's
// events as instants and spans, with flow arrows that link steals to their spawns.
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace.hpp"

namespace forkjoin::detail {

namespace {

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

// An event's tid: its ring's index + 1, as track_metadata numbers the tracks.
std::size_t track_id(const trace_event& e) { return e.worker + 1; }

// Flow arrows: each steal links to the latest spawn of the same job address at or
// before it (addresses are reused once a job is done, never while it waits).
// Job address -> its spawns, oldest first.
using spawn_index = std::unordered_map<std::uint64_t, std::vector<const trace_event*>>;

spawn_index index_spawns(const std::vector<trace_event>& events) {
  spawn_index spawns;
  for (const trace_event& e : events)
    if (e.kind == trace_kind::spawn) spawns[e.a].push_back(&e);
  for (auto& [addr, list] : spawns)
    std::sort(list.begin(), list.end(), [](const trace_event* x, const trace_event* y) { return x->t0 < y->t0; });
  return spawns;
}

// The spawn that a steal took: null when there is none at or before it.
const trace_event* spawn_of(const spawn_index& spawns, const trace_event& steal) {
  auto it = spawns.find(steal.a);
  if (it == spawns.end()) return nullptr;
  const auto& list = it->second;
  auto after = std::upper_bound(list.begin(), list.end(), steal.t0,
                                [](std::uint64_t t, const trace_event* s) { return t < s->t0; });
  if (after == list.begin()) return nullptr;  // its spawn was dropped
  return *(after - 1);
}

// A span's args: the kind's own, and "open": true for a span still running at the snapshot;
// args stays empty when there are none.
void format_span_args(const trace_event& e, char* args, std::size_t size) {
  switch (e.kind) {
    case trace_kind::chunk:
      std::snprintf(args, size, "\"lo\":%" PRIu64 ",\"hi\":%" PRIu64, e.a, e.b);
      break;
    case trace_kind::join_f:
      std::snprintf(args, size, "\"loop\":%" PRIu64, e.a);
      break;
    case trace_kind::join_g:
      std::snprintf(args, size, "\"as_job\":%" PRIu64, e.a);
      break;
    case trace_kind::park:
      std::snprintf(args, size, "\"blocked\":%" PRIu64, e.a);
      break;
    case trace_kind::yield:
      std::snprintf(args, size, "\"jobs\":%" PRIu64, e.a);
      break;
    case trace_kind::omp_region:
      std::snprintf(args, size, "\"region\":%" PRIu64 ",\"thread\":%" PRIu64 ",\"team_size\":%" PRIu64, e.a,
                    e.b & 0xffffffffu, e.b >> 32);
      break;
    case trace_kind::omp_task:
      std::snprintf(args, size, "\"fn\":\"0x%" PRIx64 "\",\"undeferred\":%" PRIu64, e.a, e.b);
      break;
    case trace_kind::omp_barrier:
      std::snprintf(args, size, "\"region\":%" PRIu64 ",\"end\":%" PRIu64, e.a, e.b);
      break;
    default:
      break;
  }
  if (e.open) std::strcat(args, args[0] != '\0' ? ",\"open\":true" : "\"open\":true");  // fits: args stay short
}

// One trace file, written in order: file_header, track_metadata, trace_events, file_footer.
class json_writer {
 public:
  json_writer(std::FILE* f, long pid) : f_(f), pid_(pid) {}
  void file_header(const trace_snapshot& s, bool tsc);  // otherData, then opens traceEvents
  void track_metadata(const trace_snapshot& s);         // the process's name, each track's name and place
  void trace_events(const std::vector<trace_event>& events, const spawn_index& spawns);
  void file_footer() { std::fputs("\n]}\n", f_); }

 private:
  // Microseconds with nanosecond digits, as the format wants ts and dur.
  void micros(std::uint64_t ns) { std::fprintf(f_, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000); }
  void ts(std::uint64_t ns_since_start) { micros(ns_since_start); }
  void begin_event() {
    std::fputs(first_ ? "\n" : ",\n", f_);
    first_ = false;
  }
  void spare_start(const trace_event& e);
  void steal_or_split(const trace_event& e);
  void steal_flow(std::uint64_t flow_id, const trace_event& spawn, const trace_event& steal);
  void span(const trace_event& e);

  std::FILE* f_;
  long pid_;
  bool first_ = true;
};

void json_writer::file_header(const trace_snapshot& s, bool tsc) {
  std::uint64_t total_dropped = 0;
  for (std::uint64_t d : s.dropped) total_dropped += d;
  std::fprintf(f_,
               "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"format\":\"forkjoin-trace-1\","
               "\"clock\":\"%s, ts in microseconds since the pool started\","
               "\"workers\":%zu,\"events_per_worker\":%" PRIu64 ",\"dropped_events\":%" PRIu64
               ",\"dropped_per_worker\":[",
               tsc ? "rdtsc calibrated on steady_clock" : "steady_clock", s.rings.size(),
               s.rings.empty() ? 0 : s.rings[0]->capacity(), total_dropped);
  for (std::size_t i = 0; i < s.dropped.size(); ++i) std::fprintf(f_, "%s%" PRIu64, i == 0 ? "" : ",", s.dropped[i]);
  std::fputs("]},\n\"traceEvents\":[", f_);
}

void json_writer::track_metadata(const trace_snapshot& s) {
  begin_event();
  std::fprintf(
      f_, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":1,\"args\":{\"name\":\"forkjoin pool\"}}", pid_);
  for (std::size_t i = 0; i < s.rings.size(); ++i) {
    // tid = ring index + 1 (the workers first): Perfetto treats tid 0 as the idle thread.
    begin_event();
    std::fprintf(f_, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%zu,\"args\":{\"name\":\"%s\"}}", pid_,
                 i + 1, s.names[i].c_str());
    begin_event();
    std::fprintf(f_,
                 "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%zu,\"args\":{\"sort_index\":%zu}}",
                 pid_, i + 1, i);
  }
}

// Each event on its worker's track, in the snapshot's order.
void json_writer::trace_events(const std::vector<trace_event>& events, const spawn_index& spawns) {
  std::uint64_t flow_id = 0;
  for (const trace_event& e : events) {
    if (e.kind == trace_kind::spawn) continue;  // written with the steal that took it, if any
    if (e.kind == trace_kind::spare_start) {
      spare_start(e);
    } else if (e.kind == trace_kind::split) {
      steal_or_split(e);
    } else if (e.kind == trace_kind::steal) {
      steal_or_split(e);
      if (const trace_event* s = spawn_of(spawns, e)) steal_flow(++flow_id, *s, e);
    } else {
      span(e);
    }
  }
}

void json_writer::spare_start(const trace_event& e) {
  begin_event();
  std::fprintf(f_,
               "{\"name\":\"spare.start\",\"cat\":\"blocked\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%ld,\"tid\":%zu,"
               "\"ts\":",
               pid_, track_id(e));
  ts(e.t0);
  std::fprintf(f_, ",\"args\":{\"spare\":%" PRIu64 "}}", e.a);
}

// An instant on the worker's track, named and categorised by its kind.
void json_writer::steal_or_split(const trace_event& e) {
  begin_event();
  std::fprintf(f_, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%ld,\"tid\":%zu,\"ts\":",
               kind_name(e.kind), kind_name(e.kind), pid_, track_id(e));
  ts(e.t0);
  if (e.kind == trace_kind::steal)
    std::fprintf(f_, ",\"args\":{\"thief\":%" PRIu32 ",\"victim\":%" PRIu64 "}}", e.worker, e.b);
  else
    std::fprintf(f_, ",\"args\":{\"lo\":%" PRIu64 ",\"hi\":%" PRIu64 "}}", e.a, e.b);
}

// The arrow from the spawn, on its worker's track, to the steal, on the thief's.
void json_writer::steal_flow(std::uint64_t flow_id, const trace_event& spawn, const trace_event& steal) {
  begin_event();
  std::fprintf(f_,
               "{\"name\":\"steal\",\"cat\":\"steal\",\"ph\":\"s\",\"id\":%" PRIu64 ",\"pid\":%ld,\"tid\":%" PRIu32
               ",\"ts\":",
               flow_id, pid_, spawn.worker + 1);
  ts(spawn.t0);
  std::fputs("}", f_);
  // No "bp": binds to the next slice on the thief's track, the stolen job's.
  begin_event();
  std::fprintf(f_,
               "{\"name\":\"steal\",\"cat\":\"steal\",\"ph\":\"f\",\"id\":%" PRIu64 ",\"pid\":%ld,\"tid\":%zu,\"ts\":",
               flow_id, pid_, track_id(steal));
  ts(steal.t0);
  std::fputs("}", f_);
}

// A complete event ("X"): a span with its duration and args.
void json_writer::span(const trace_event& e) {
  begin_event();
  std::fprintf(f_, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%ld,\"tid\":%zu,\"ts\":", kind_name(e.kind),
               category(e.kind), pid_, track_id(e));
  ts(e.t0);
  std::fputs(",\"dur\":", f_);
  micros(e.t1 > e.t0 ? e.t1 - e.t0 : 0);
  char args[160] = "";
  format_span_args(e, args, sizeof args);
  if (args[0] != '\0')
    std::fprintf(f_, ",\"args\":{%s}}", args);
  else
    std::fputs("}", f_);
}

}  // namespace

bool write_trace_json(const std::string& path, bool tsc, const trace_snapshot& s) {
  const spawn_index spawns = index_spawns(s.events);
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::perror(("forkjoin: cannot write the trace " + path).c_str());
    return false;
  }
  json_writer w(f, static_cast<long>(getpid()));
  w.file_header(s, tsc);
  w.track_metadata(s);
  w.trace_events(s.events, spawns);
  w.file_footer();
  const bool ok = std::ferror(f) == 0;
  if (std::fclose(f) != 0 || !ok) {
    std::fprintf(stderr, "forkjoin: error writing the trace %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace forkjoin::detail
