// teams.cpp: the teams construct on the host, inside target regions (GOMP_teams4, GOMP_teams)
// and at the top level (GOMP_teams_reg), the league queries, the nteams-var and
// teams-thread-limit-var API, and the "initial thread" context that target regions and the
// teams of a league run in. [P-OMP Teams]
#include <atomic>
#include <climits>
#include <cstdlib>

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
std::atomic<unsigned>& teams_thread_limit_var() {
  // [P-OMP KMP] libomp's KMP_TEAMS_THREAD_LIMIT wins over OMP_TEAMS_THREAD_LIMIT, as in libomp
  static std::atomic<unsigned> v{std::getenv("KMP_TEAMS_THREAD_LIMIT") != nullptr
                                     ? read_positive("KMP_TEAMS_THREAD_LIMIT")
                                     : read_positive("OMP_TEAMS_THREAD_LIMIT")};
  return v;
}

// Host teams without num_teams and with nteams-var unset: as many as libgomp 12 makes.
constexpr unsigned k_default_host_teams = 3;

}  // namespace

// [P-OMP Teams M1] the calling thread becomes the initial thread of a new team of one, whose
// implicit task has the ICVs v, runs fn(data) there, waits for the tasks it left (detached
// ones can still be pending, [P-OMP Detach V5]) and returns to its own context. `fresh`: a
// target region's initial thread (level 0, outside every parallel region); else the teams of
// a host league, which keep the encountering thread's position.
void run_as_initial_thread(thread_state& ts, const icv& v, fn_t fn, void* data, bool fresh) noexcept {
  team& outer = *ts.cur_team;
  auto* t = new team(1);
  if (!fresh) {
    t->level = outer.level;
    t->active_level = outer.active_level;
    t->parent = outer.parent;
    t->parent_thread = outer.parent_thread;
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
  delete t;
}

int max_teams() noexcept { return static_cast<int>(nteams_var().load(std::memory_order_relaxed)); }

// [P-OMP Teams M2] host teams: the league's teams run one after another on the calling thread,
// team k's initial task answering omp_get_team_num() == k (and so do the parallel regions
// and tasks it starts: the league travels with the ICVs).
void teams_reg(fn_t fn, void* data, unsigned num_teams, unsigned thread_limit, unsigned) {
  thread_state& ts = self();
  icv v = ts.cur_task->icvs;
  if (thread_limit == 0) thread_limit = teams_thread_limit_var().load(std::memory_order_relaxed);
  if (thread_limit != 0) v.thread_limit = thread_limit;
  if (num_teams == 0) num_teams = nteams_var().load(std::memory_order_relaxed);
  if (num_teams == 0) num_teams = k_default_host_teams;
  v.league_size = num_teams;
  for (unsigned k = 0; k < num_teams; ++k) {
    v.league_num = k;
    run_as_initial_thread(ts, v, fn, data, false);
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
