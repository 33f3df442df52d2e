! api: the omp_lib module's routines called from Fortran, each checked against what it must
! answer (the C API's semantics through the by-reference binding): thread counts, dynamic,
! nested, schedule (the monotonic bit masked off for Fortran), active levels, levels and
! ancestors, places, devices, teams, timers, allocators, and the affinity format with
! blank-padded character results.
program api_test
  use omp_lib
  implicit none
  character(len=16) :: env
  character(len=64) :: buf, expect
  character(len=3) :: short
  integer :: env_len, env_status, n, kind, chunk, bad, tid, i, nteams, team_seen(0:3)
  real(8) :: t0, t1

  call get_environment_variable('OMP_NUM_THREADS', env, env_len, env_status)
  if (env_status == 0) then
    read (env, *) n
    call check(omp_get_max_threads() == n, 'max threads = OMP_NUM_THREADS')
  end if
  call check(omp_get_num_procs() >= 1, 'num_procs')
  call check(omp_get_thread_limit() >= omp_get_max_threads(), 'thread_limit')

  call omp_set_num_threads(5)
  call check(omp_get_max_threads() == 5, 'set_num_threads(5)')
  n = 0
!$omp parallel
!$omp single
  n = omp_get_num_threads()
!$omp end single
!$omp end parallel
  call check(n == 5, 'a team of 5 after set_num_threads(5)')

  call omp_set_dynamic(.true.)
  call check(omp_get_dynamic(), 'set_dynamic(.true.)')
  call omp_set_dynamic(.false.)
  call check(.not. omp_get_dynamic(), 'set_dynamic(.false.)')
  call omp_set_nested(.true.)
  call check(omp_get_nested() .and. omp_get_max_active_levels() > 1, 'set_nested(.true.)')
  call omp_set_nested(.false.)
  call check(.not. omp_get_nested() .and. omp_get_max_active_levels() == 1, 'set_nested(.false.)')
  call omp_set_max_active_levels(3)
  call check(omp_get_max_active_levels() == 3, 'set_max_active_levels(3)')
  call check(omp_get_supported_active_levels() >= 3, 'supported active levels')

  call omp_set_schedule(omp_sched_guided, 4)
  call omp_get_schedule(kind, chunk)
  call check(kind == omp_sched_guided .and. chunk == 4, 'schedule guided,4')
  call omp_set_schedule(ior(omp_sched_dynamic, ishft(1, 31)), 9)  ! monotonic:dynamic,9
  call omp_get_schedule(kind, chunk)
  call check(kind == omp_sched_dynamic .and. chunk == 9, 'schedule monotonic:dynamic,9 reads dynamic')

  call check(omp_get_level() == 0 .and. omp_get_active_level() == 0, 'level 0')
  call check(omp_get_ancestor_thread_num(0) == 0 .and. omp_get_ancestor_thread_num(1) == -1, 'ancestors at level 0')
  call check(omp_get_team_size(0) == 1 .and. omp_get_team_size(1) == -1, 'team sizes at level 0')
  call check(.not. omp_in_final() .and. .not. omp_get_cancellation(), 'in_final, cancellation')
  bad = 0
!$omp parallel num_threads(2) private(tid)
  tid = omp_get_thread_num()
  if (omp_get_level() /= 1 .or. omp_get_team_size(1) /= 2 .or. omp_get_ancestor_thread_num(1) /= tid) then
!$omp atomic
    bad = bad + 1
  end if
!$omp end parallel
  call check(bad == 0, 'level, team size and ancestor in a region')

  call check(omp_get_proc_bind() == omp_proc_bind_false, 'proc_bind false')
  call check(omp_get_num_places() == 0 .and. omp_get_place_num() == -1, 'no places')
  call check(omp_get_partition_num_places() == 0 .and. omp_get_place_num_procs(0) == 0, 'no partition')

  call omp_set_default_device(0)
  call check(omp_get_default_device() == 0 .and. omp_get_num_devices() == 0, 'devices')
  call check(omp_is_initial_device(), 'is_initial_device')
  call check(omp_get_initial_device() == omp_get_num_devices(), 'initial device')
  call check(omp_get_device_num() == omp_get_initial_device(), 'device_num on the host')
  call check(omp_get_max_task_priority() == 0, 'max_task_priority')

  call omp_set_num_teams(4)
  call check(omp_get_max_teams() == 4, 'set_num_teams(4)')
  call omp_set_teams_thread_limit(3)
  call check(omp_get_teams_thread_limit() == 3, 'set_teams_thread_limit(3)')
  call check(omp_get_num_teams() == 1 .and. omp_get_team_num() == 0, 'league of one outside teams')
  team_seen = 0
  nteams = 0
!$omp teams num_teams(3)
  i = omp_get_team_num()
  team_seen(i) = team_seen(i) + 1
  if (i == 0) nteams = omp_get_num_teams()
!$omp end teams
  call check(nteams == 3 .and. all(team_seen(0:2) == 1), 'host teams: numbers and league size')

  t0 = omp_get_wtime()
  t1 = omp_get_wtime()
  call check(t1 >= t0 .and. omp_get_wtick() > 0 .and. omp_get_wtick() < 1, 'wtime, wtick')

  call check(omp_get_default_allocator() == omp_default_mem_alloc, 'default allocator')
  call omp_set_default_allocator(omp_default_mem_alloc)
  i = omp_pause_resource_all(omp_pause_soft)

  ! affinity format: results blank-padded; the length is the format's whatever the buffer
  call omp_set_affinity_format('T%n/%N')
  call check(omp_get_affinity_format(buf) == 6 .and. buf == 'T%n/%N', 'get_affinity_format')
  call check(omp_get_affinity_format(short) == 6 .and. short == 'T%n', 'get_affinity_format truncated')
  call check(omp_capture_affinity(buf, '') == 4 .and. buf == 'T0/1', 'capture with the format var')
  call check(omp_capture_affinity(buf, '%0.3L|%.4n|%N|%a') == 13 .and. buf == '000|   0|1|-1', 'capture widths')
  bad = 0
!$omp parallel num_threads(2) private(tid, buf, expect)
  tid = omp_get_thread_num()
  write (expect, '(a,i0,a)') 'thread ', tid, ' of 2 at level 1, ancestor 0'
  if (omp_capture_affinity(buf, 'thread %{thread_num} of %{num_threads} at level %L, ancestor %a') &
      /= len_trim(expect) .or. buf /= expect) then
!$omp atomic
    bad = bad + 1
  end if
!$omp end parallel
  call check(bad == 0, 'capture in a region')
  call omp_display_affinity('display %n')
  call omp_display_env(.false.)
contains
  include 'check.inc'
end program api_test
