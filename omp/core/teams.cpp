// teams.cpp: the teams construct on the host, inside target regions (GOMP_teams4, GOMP_teams)
// and at the top level (GOMP_teams_reg), the league queries, the nteams-var and
// teams-thread-limit-var API, the "initial thread" context that target regions and the
// teams of a league run in, and the places of a libomp program's host league. [P-OMP Teams]
#include <sched.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <string>

#include "internal.hpp"

namespace forkjoin::omp {
namespace {

// nteams-var and teams-thread-limit-var (OMP_NUM_TEAMS, OMP_TEAMS_THREAD_LIMIT): 0 unset.
unsigned read_positive(const char* var) {
  const char* s = std::getenv(var);
  if (s == nullptr) return 0;
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  while (end != nullptr && (*end == ' ' || *end == '\t')) ++end;
  if (end == s || end == nullptr || *end != '\0' || v <= 0 || v > INT_MAX) {
    complain(var, s, "unset");
    return 0;
  }
  return static_cast<unsigned>(v);
}
std::atomic<unsigned>& nteams_var() {
  static std::atomic<unsigned> v{read_positive("OMP_NUM_TEAMS")};
  return v;
}

// The place binding policies as team::bind_policy holds them ([P-OMP Bind]).
constexpr unsigned k_bind_primary = 2;
constexpr unsigned k_bind_close = 3;
constexpr unsigned k_bind_spread = 4;

// [P-OMP Teams M4] KMP_TEAMS_PROC_BIND: one policy (not a list), spread when unset as in
// libomp; true is spread and false leaves the teams where the encountering thread is, as
// libomp takes them. 0: false.
unsigned read_teams_proc_bind() {
  const char* s = std::getenv("KMP_TEAMS_PROC_BIND");
  if (s == nullptr) return k_bind_spread;
  const std::string v = lower_trimmed(s);
  if (v == "spread" || v == "true") return k_bind_spread;
  if (v == "close") return k_bind_close;
  if (v == "primary" || v == "master") return k_bind_primary;
  if (v == "false") return 0;
  complain("KMP_TEAMS_PROC_BIND", s, "spread");
  return k_bind_spread;
}

// The teams settings libomp reads from KMP_* variables, read together on first use (with the
// environment's announcement, [P-OMP Teams M4]).
struct kmp_teams_settings {
  // [P-OMP KMP] libomp's KMP_TEAMS_THREAD_LIMIT wins over OMP_TEAMS_THREAD_LIMIT, as in libomp
  std::atomic<unsigned> thread_limit{std::getenv("KMP_TEAMS_THREAD_LIMIT") != nullptr
                                         ? read_positive("KMP_TEAMS_THREAD_LIMIT")
                                         : read_positive("OMP_TEAMS_THREAD_LIMIT")};
  const unsigned proc_bind = read_teams_proc_bind();
};
kmp_teams_settings& kmp_teams() {
  static kmp_teams_settings s;
  return s;
}
std::atomic<unsigned>& teams_thread_limit_var() { return kmp_teams().thread_limit; }

// Host teams without num_teams and with nteams-var unset: as many as libgomp 12 makes.
constexpr unsigned k_default_host_teams = 3;

// [P-OMP Teams M4] a libomp program's host league on places: the encountering thread's place
// partition [lo, lo + len) and place (`home`, -1 when unbound; the league starts from `first`,
// home or, outside the partition, its first place), the policy, the league's size, and the
// CPU mask an unbound thread gets back after the last team.
struct league_binding {
  unsigned policy = 0;  // k_bind_primary, k_bind_close or k_bind_spread
  int lo = 0, len = 0;
  int home = -1, first = 0;
  unsigned teams = 1;
  bool has_home_mask = false;
  cpu_set_t home_mask{};
};

// Team k's place and partition: B2's rules of [P-OMP Bind] with the league's T teams as a
// team's T threads. primary: every team on the first place, over the whole partition; close:
// team k k places after it (k * P / T when T > P); spread: the partition cut into T
// sub-partitions [c * P / T, (c + 1) * P / T), team k on the first place of the k-th one after
// the first place's (team 0 keeps that place), which becomes its partition; with more teams
// than places, placed as close with a partition of their one place.
void league_place_of(const league_binding& b, unsigned k, int& place, int& lo, int& len) {
  const long P = b.len, T = b.teams, p = b.first - b.lo;
  lo = b.lo;
  len = b.len;
  if (b.policy == k_bind_primary) {
    place = b.first;
    return;
  }
  if (b.policy == k_bind_close || T > P) {
    place = static_cast<int>(b.lo + (p + (T <= P ? static_cast<long>(k) : static_cast<long>(k) * P / T)) % P);
    if (b.policy == k_bind_spread) {
      lo = place;
      len = 1;
    }
    return;
  }
  const auto chunk_start = [P, T](long c) { return c * P / T; };
  long home_chunk = p * T / P;  // the sub-partition holding p: c * P / T <= p < (c + 1) * P / T
  while (chunk_start(home_chunk + 1) <= p) ++home_chunk;
  while (chunk_start(home_chunk) > p) --home_chunk;
  const long c = (home_chunk + static_cast<long>(k)) % T;
  place = static_cast<int>(b.lo + (k == 0 ? p : chunk_start(c)));
  lo = static_cast<int>(b.lo + chunk_start(c));
  len = static_cast<int>(chunk_start(c + 1) - chunk_start(c));
}

// run_as_initial_thread ([P-OMP Teams M1]) with, for a placed host league (M4), team
// league_num's place: its partition and place become the team of one's, the thread is pinned
// there before the body ([P-OMP Bind B3]), and after the last team it goes back to its own
// place (or, unbound, to its own mask).
void run_initial(thread_state& ts, const icv& v, fn_t fn, void* data, bool fresh,
                 const league_binding* bound) noexcept {
  team& outer = *ts.cur_team;
  auto* t = new team(1);
  if (!fresh) {
    t->level = outer.level;
    t->active_level = outer.active_level;
    t->parent = outer.parent;
    t->parent_thread = outer.parent_thread;
  }
  if (bound != nullptr) {
    // a team of one keeps its one place and its whole partition under every policy (B2)
    t->bind_policy = bound->policy;
    league_place_of(*bound, v.league_num, t->bind_place, t->part_lo, t->part_len);
    bind_team_thread(*t, 0);
  }
  t->attached.owner = &ts;
  task& implicit = t->implicit_tasks[0];
  contention_group group;  // [P-OMP Limit] an initial thread starts a contention group
  implicit.icvs = v;
  implicit.icvs.cgroup = &group;
  implicit.children.owner = &ts;
  implicit.mark = ts.push_seq;
  const saved_state saved{ts.cur_team,    ts.id,       ts.cur_task, ts.ws_index,   ts.cur_ws,
                          ts.static_trip, ts.chunk_lo, ts.chunk_hi, ts.have_chunk, ts.single_index};
  ts.cur_team = t;
  ts.id = 0;
  ts.cur_task = &implicit;
  ts.ws_index = 0;
  ts.cur_ws = nullptr;
  ts.static_trip = 0;
  ts.have_chunk = false;
  ts.single_index = 0;
  fn(data);
  barrier(ts);  // a team of one: waits only while tasks are pending
  // [P-OMP Detach V3] a fulfiller that handed a task to this team may still touch it
  for (int round = 0; !t->attached.zero();) spin_pause(round < k_spin_rounds + k_yield_rounds ? round++ : round);
  ts.cur_team = saved.cur_team;
  ts.id = saved.id;
  ts.cur_task = saved.cur_task;
  ts.ws_index = saved.ws_index;
  ts.cur_ws = saved.cur_ws;
  ts.static_trip = saved.static_trip;
  ts.chunk_lo = saved.chunk_lo;
  ts.chunk_hi = saved.chunk_hi;
  ts.have_chunk = saved.have_chunk;
  ts.single_index = saved.single_index;
  if (bound != nullptr && v.league_num + 1 == bound->teams) {
    if (bound->home >= 0) {
      t->bind_policy = k_bind_primary;
      t->bind_place = bound->home;
      bind_team_thread(*t, 0);
    } else {
      unbind_thread();  // the process's initial mask, then the thread's own when it had one
      if (bound->has_home_mask) (void)sched_setaffinity(0, sizeof bound->home_mask, &bound->home_mask);
    }
  }
  delete t;
}

}  // namespace

// [P-OMP Teams M1] the calling thread becomes the initial thread of a new team of one, whose
// implicit task has the ICVs v, runs fn(data) there, waits for the tasks it left (detached
// ones can still be pending, [P-OMP Detach V5]) and returns to its own context. `fresh`: a
// target region's initial thread (level 0, outside every parallel region); else the teams of
// a host league, which keep the encountering thread's position.
void run_as_initial_thread(thread_state& ts, const icv& v, fn_t fn, void* data, bool fresh) noexcept {
  run_initial(ts, v, fn, data, fresh, nullptr);
}

int max_teams() noexcept { return static_cast<int>(nteams_var().load(std::memory_order_relaxed)); }

// [P-OMP Teams M2] host teams: the league's teams run one after another on the calling thread,
// team k's initial task answering omp_get_team_num() == k (and so do the parallel regions
// and tasks it starts: the league travels with the ICVs). A libomp program's league is placed
// by KMP_TEAMS_PROC_BIND (M4) when bind-var is on and there are places; libgomp places none.
void teams_reg(fn_t fn, void* data, unsigned num_teams, unsigned thread_limit, unsigned) {
  thread_state& ts = self();
  icv v = ts.cur_task->icvs;
  if (thread_limit == 0) thread_limit = teams_thread_limit_var().load(std::memory_order_relaxed);
  if (thread_limit != 0) v.thread_limit = thread_limit;
  if (num_teams == 0) num_teams = nteams_var().load(std::memory_order_relaxed);
  if (num_teams == 0) num_teams = k_default_host_teams;
  v.league_size = num_teams;
  league_binding bound;
  const bool placed = kmpc_program() && v.bind != 0 && num_places() > 0 && kmp_teams().proc_bind != 0;
  if (placed) {
    bound.policy = kmp_teams().proc_bind;
    partition_of(*ts.cur_team, ts.id, bound.lo, bound.len);
    bound.home = current_place();
    bound.first = bound.home >= bound.lo && bound.home < bound.lo + bound.len ? bound.home : bound.lo;
    bound.teams = num_teams;
    bound.has_home_mask = bound.home < 0 && sched_getaffinity(0, sizeof bound.home_mask, &bound.home_mask) == 0;
  }
  for (unsigned k = 0; k < num_teams; ++k) {
    v.league_num = k;
    run_initial(ts, v, fn, data, false, placed ? &bound : nullptr);
  }
}

// [P-OMP Teams M3] teams inside a target region: gcc loops `while (teams4(..., first))`
// over the body, first == true the first time; the teams run one after another in the
// target region's initial task, num_teams_lo of them (the lower bound of the clause).
bool teams4(unsigned num_teams_lo, unsigned, unsigned thread_limit, bool first) {
  icv& v = self().cur_task->icvs;
  if (first) {
    if (thread_limit != 0) v.thread_limit = thread_limit;
    v.league_size = num_teams_lo != 0 ? num_teams_lo : 1;
    v.league_num = 0;
    return true;
  }
  if (v.league_num + 1 >= v.league_size) {
    v.league_size = 1;
    v.league_num = 0;
    return false;
  }
  ++v.league_num;
  return true;
}

// gcc < 9 inside target regions: a league of one team
void teams_legacy(unsigned, unsigned thread_limit) {
  if (thread_limit != 0) self().cur_task->icvs.thread_limit = thread_limit;
}

void set_max_teams(int n) noexcept {
  if (n > 0) nteams_var().store(static_cast<unsigned>(n), std::memory_order_relaxed);
}
void set_teams_thread_limit(int n) noexcept {
  if (n > 0) teams_thread_limit_var().store(static_cast<unsigned>(n), std::memory_order_relaxed);
}
int teams_thread_limit() noexcept { return static_cast<int>(teams_thread_limit_var().load(std::memory_order_relaxed)); }

}  // namespace forkjoin::omp
