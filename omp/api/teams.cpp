// api/teams.cpp: the omp_* league queries and settings of the teams construct (the league
// itself: core/teams.cpp, [P-OMP Teams]).
#include "../abi/export.hpp"
#include "../core/task.hpp"
#include "../core/team.hpp"
#include "api.hpp"

using namespace forkjoin::omp;

FORKJOIN_OMP_EXPORT int omp_get_num_teams() { return static_cast<int>(self().cur_task->icvs.league_size); }
FORKJOIN_OMP_EXPORT int omp_get_team_num() { return static_cast<int>(self().cur_task->icvs.league_num); }
FORKJOIN_OMP_EXPORT void omp_set_num_teams(int n) { set_max_teams(n); }
FORKJOIN_OMP_EXPORT int omp_get_max_teams() { return max_teams(); }
FORKJOIN_OMP_EXPORT void omp_set_teams_thread_limit(int n) { set_teams_thread_limit(n); }
FORKJOIN_OMP_EXPORT int omp_get_teams_thread_limit() { return teams_thread_limit(); }
