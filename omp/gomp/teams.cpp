// gomp/teams.cpp: libgomp's teams entry points, calls into core/teams.cpp ([P-OMP Teams]).
#include "../abi/export.hpp"
#include "../core/task.hpp"
#include "../core/team.hpp"
#include "../core/work_share.hpp"

using namespace forkjoin::omp;
using forkjoin::omp::ull;

FORKJOIN_OMP_EXPORT void GOMP_teams_reg(fn_t fn, void* data, unsigned num_teams, unsigned thread_limit, unsigned a4) {
  teams_reg(fn, data, num_teams, thread_limit, a4);
}
FORKJOIN_OMP_EXPORT bool GOMP_teams4(unsigned num_teams_lo, unsigned a1, unsigned thread_limit, bool first) {
  return teams4(num_teams_lo, a1, thread_limit, first);
}
FORKJOIN_OMP_EXPORT void GOMP_teams(unsigned a0, unsigned thread_limit) { teams_legacy(a0, thread_limit); }
