// affinity.cpp: the affinity-format-var (OMP_AFFINITY_FORMAT, omp_set/get_affinity_format), its
// expansion for the calling thread (omp_capture_affinity, omp_display_affinity), and
// OMP_DISPLAY_AFFINITY: a team thread prints its line at the start of a turn whose line differs
// from the last one it printed (OpenMP 5.0 section 6.14: on the first region, and whenever what
// the format shows changes).
//
// A field is %[[[0].]size]type, type a letter or a {long name}; "." right-justifies within size
// columns, "0." pads numbers with zeros after their sign. Types: t team_num, T num_teams,
// L nesting_level, n thread_num, N num_threads, a ancestor_tnum, H host, P process_id,
// i native_thread_id (the kernel's thread id), A thread_affinity (the CPUs the thread may run
// on now, as "0-3,8"); %% is a percent sign.
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "internal.hpp"

namespace forkjoin::omp {

std::atomic<bool> g_display_affinity{false};
std::atomic<bool> g_affinity_stdout{false};

namespace {

constexpr const char* k_default_format = "level %L thread %i affinity %A";

constexpr const char* k_libomp_format = "OMP: pid %P tid %i thread %n bound to OS proc set {%A}";

struct format_var {
  std::mutex lock;
  std::string value;
  bool given = false;  // by OMP_AFFINITY_FORMAT or omp_set_affinity_format
};
format_var& affinity_format() {
  // never destroyed: team threads may display while the process exits
  static format_var* v = new format_var{{}, config().affinity_format, config().affinity_format != k_default_format};
  return *v;
}
std::string current_format() {
  format_var& v = affinity_format();
  std::lock_guard<std::mutex> g(v.lock);
  // [P-OMP KMPC K15] a libomp program's default format is libomp's
  if (!v.given && kmpc_program()) return k_libomp_format;
  return v.value;
}

struct long_name {
  const char* name;
  char type;
};
constexpr long_name k_long_names[] = {{"team_num", 't'},       {"num_teams", 'T'},   {"nesting_level", 'L'},
                                      {"thread_num", 'n'},     {"num_threads", 'N'}, {"ancestor_tnum", 'a'},
                                      {"host", 'H'},           {"process_id", 'P'},  {"native_thread_id", 'i'},
                                      {"thread_affinity", 'A'}};

// The CPUs the calling thread may run on, as runs "first-last" separated by commas.
std::string cpu_list() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return "";
  std::string s;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!s.empty()) s += ',';
    s += std::to_string(c);
    if (last > c) s += '-' + std::to_string(last);
    c = last;
  }
  return s;
}

std::string host_name() {
  char name[256];
  if (gethostname(name, sizeof name) != 0) return "node";
  name[sizeof name - 1] = '\0';
  return name;
}

// Pads text to `size` columns: on the left when right-justified, with zeros after a sign
// when `zero` (numbers only), else on the right.
void append_field(std::string& out, const std::string& text, std::size_t size, bool right, bool zero) {
  if (text.size() >= size) {
    out += text;
  } else if (zero) {
    const std::size_t sign = !text.empty() && text[0] == '-' ? 1 : 0;
    out.append(text, 0, sign);
    out.append(size - text.size(), '0');
    out.append(text, sign, std::string::npos);
  } else if (right) {
    out.append(size - text.size(), ' ');
    out += text;
  } else {
    out += text;
    out.append(size - text.size(), ' ');
  }
}

// Expands `format` for the calling thread into out. A malformed field leaves the reason in
// *error and returns false; with `check_only` no value is looked up (validating a format).
bool expand(const char* format, std::string& out, std::string* error, bool check_only) {
  for (const char* p = format; *p != '\0'; ++p) {
    if (*p != '%') {
      out += *p;
      continue;
    }
    const char* field = p++;
    if (*p == '%') {
      out += '%';
      continue;
    }
    // [P-OMP KMPC K9] a libomp program's format follows libomp's reading: a 0 without '.'
    // (ignored, as printf ignores it left-justified), a '.' without a width, an unknown type
    // (printed as "undefined")
    const bool lenient = kmpc_program();
    bool zero = false, right = false;
    if (*p == '0') {
      zero = true;
      if (*++p != '.' && !lenient) {
        *error = "a leading 0 must be followed by '.'";
        return false;
      }
    }
    if (*p == '.') {
      right = true;
      ++p;
    }
    std::size_t size = 0;
    if (*p >= '1' && *p <= '9') {
      while (*p >= '0' && *p <= '9' && size < 4096) size = size * 10 + static_cast<std::size_t>(*p++ - '0');
      if (*p >= '0' && *p <= '9') {
        *error = "field width too large";
        return false;
      }
    } else if ((zero || right) && !lenient) {
      *error = "'0.' or '.' needs a field width";
      return false;
    }
    char type = *p;
    if (type == '{') {
      const char* close = std::strchr(p, '}');
      type = '\0';
      for (const long_name& n : k_long_names)
        if (close != nullptr && static_cast<std::size_t>(close - p - 1) == std::strlen(n.name) &&
            std::strncmp(p + 1, n.name, std::strlen(n.name)) == 0)
          type = n.type;
      if (type == '\0' && lenient) {  // libomp: skip the name's word and its '}'
        ++p;
        while (std::isalnum(static_cast<unsigned char>(*p)) || *p == '_') ++p;
        if (*p != '}') --p;
        out += "undefined";
        continue;
      }
      if (type == '\0') {
        *error =
            close == nullptr ? "unterminated field name" : "unknown field name '" + std::string(p + 1, close) + "'";
        return false;
      }
      p = close;
    }
    if (type == '\0' || std::strchr("tTLnNaHPiA", type) == nullptr) {
      if (lenient && type != '\0') {
        out += "undefined";
        continue;
      }
      *error = "unknown field type in '" + std::string(field, p + (*p != '\0' ? 1 : 0)) + "'";
      return false;
    }
    if (check_only) continue;
    const thread_state& ts = self();
    std::string text;
    bool number = true;
    switch (type) {
      case 't':
        text = std::to_string(ts.cur_task->icvs.league_num);
        break;
      case 'T':
        text = std::to_string(ts.cur_task->icvs.league_size);
        break;
      case 'L':
        text = std::to_string(ts.cur_team->level);
        break;
      case 'n':
        text = std::to_string(ts.id);
        break;
      case 'N':
        text = std::to_string(ts.cur_team->nthreads);
        break;
      case 'a':
        text = std::to_string(ancestor_thread_num(ts, static_cast<int>(ts.cur_team->level) - 1));
        break;
      case 'P':
        text = std::to_string(getpid());
        break;
      case 'i':
        text = std::to_string(syscall(SYS_gettid));
        break;
      case 'H':
        text = host_name();
        number = false;
        break;
      default:  // 'A'
        text = cpu_list();
        number = false;
        break;
    }
    append_field(out, text, size, right, zero && right && number);
  }
  return true;
}

// The expansion of format (the affinity-format-var when null or empty); stops the program on
// a malformed format, as nothing can be returned in its place.
std::string capture(const char* format) {
  std::string fmt = format != nullptr && *format != '\0' ? std::string(format) : current_format();
  std::string out, error;
  if (!expand(fmt.c_str(), out, &error, false)) {
    const std::string message = "invalid affinity format \"" + fmt + "\": " + error;
    fatal(message.c_str());
  }
  return out;
}

void print_line(std::string line) {
  line += '\n';
  // one call: lines of several threads do not mix (relaxed: g_affinity_stdout picks a stream)
  std::fwrite(line.data(), 1, line.size(), g_affinity_stdout.load(std::memory_order_relaxed) ? stdout : stderr);
}

}  // namespace

bool valid_affinity_format(const char* format, std::string& error) {
  std::string unused;
  return expand(format, unused, &error, true);
}

std::size_t capture_affinity(char* buffer, std::size_t size, const char* format, bool fortran) {
  const std::string s = capture(format);
  if (fortran && size != 0) {  // blank-padded, no terminator
    std::memcpy(buffer, s.data(), s.size() < size ? s.size() : size);
    if (s.size() < size) std::memset(buffer + s.size(), ' ', size - s.size());
  } else if (size != 0 && buffer != nullptr) {
    const std::size_t n = s.size() < size ? s.size() : size - 1;
    std::memcpy(buffer, s.data(), n);
    buffer[n] = '\0';
  }
  return s.size();
}

void set_affinity_format(const char* format, std::size_t length) {
  format_var& v = affinity_format();
  std::lock_guard<std::mutex> g(v.lock);
  v.value.assign(format, length);
  v.given = true;
}

std::size_t get_affinity_format(char* buffer, std::size_t size, bool fortran) {
  const std::string s = current_format();
  if (fortran && size != 0) {
    std::memcpy(buffer, s.data(), s.size() < size ? s.size() : size);
    if (s.size() < size) std::memset(buffer + s.size(), ' ', size - s.size());
  } else if (size != 0 && buffer != nullptr) {
    const std::size_t n = s.size() < size ? s.size() : size - 1;
    std::memcpy(buffer, s.data(), n);
    buffer[n] = '\0';
  }
  return s.size();
}

void display_affinity(const char* format) { print_line(capture(format)); }

const char* default_affinity_format() noexcept { return k_default_format; }

// [P-OMP Display] the record of team thread id of t: thread 0 is its parent team thread.
static affinity_shown& shown_record(team& t, unsigned id) noexcept {
  team* x = &t;
  while (id == 0 && x->parent != nullptr) {
    id = x->parent_thread;
    x = x->parent;
  }
  return x->shown[id];
}

// [P-OMP Display] D1: the primary, before the team starts (and after the previous region of a
// hot team detached): the team displays when a thread's level, team size or place differs
// from what it displayed last, as libomp decides.
void plan_display(team& t) noexcept {
  bool all = false;
  for (unsigned id = 0; id < t.nthreads && !all; ++id) {
    const affinity_shown& r = shown_record(t, id);
    all = r.level != t.level || r.nthreads != t.nthreads || r.place != place_of(t, id);
  }
  set_if_changed(t.display_all, all);
}

// [P-OMP Display] D2: each team thread at the start of its turn.
void show_affinity_slow() noexcept {
  thread_state& ts = self();
  team& t = *ts.cur_team;
  if (t.shown == nullptr) return;  // a team made before the configuration was read
  std::string format = current_format();
  std::string line = capture(format.c_str());
  affinity_shown& r = shown_record(t, ts.id);
  // a new format alone is no change in what it shows (libomp does not print for it either)
  const bool show = t.display_all || (line != r.line && format == r.format);
  r.level = t.level;
  r.nthreads = t.nthreads;
  r.place = place_of(t, ts.id);
  r.line = line;
  r.format = std::move(format);
  if (show) print_line(std::move(line));
}

}  // namespace forkjoin::omp
