! api8: the integer(8) and logical(8) forms of the omp_lib routines (the module's generic
! interfaces call the omp_*_8_ entry points), each against its integer(4) form; run with and
! without OMP_PLACES so that the place arrays have contents.
program api8_test
  use omp_lib
  implicit none
  integer(8) :: n8, chunk8, lvl8, ids8(0:1023), nums8(0:1023), big
  integer :: kind, chunk4, p, np, ids4(0:1023), nums4(0:1023), bad
  logical(8) :: yes8, no8

  yes8 = .true.
  no8 = .false.
  n8 = 3
  call omp_set_num_threads(n8)
  call check(omp_get_max_threads() == 3, 'set_num_threads(integer(8))')
  big = 5000000000_8
  call omp_set_num_threads(big)  ! saturated to the largest int, not wrapped
  call check(omp_get_max_threads() > 3, 'set_num_threads(huge integer(8)) saturates')
  call omp_set_num_threads(2_8)
  call omp_set_dynamic(yes8)
  call check(omp_get_dynamic(), 'set_dynamic(logical(8) true)')
  call omp_set_dynamic(no8)
  call check(.not. omp_get_dynamic(), 'set_dynamic(logical(8) false)')
  call omp_set_nested(yes8)
  call check(omp_get_nested(), 'set_nested(logical(8))')
  call omp_set_nested(no8)
  call omp_set_max_active_levels(4_8)
  call check(omp_get_max_active_levels() == 4, 'set_max_active_levels(integer(8))')

  chunk8 = 6
  call omp_set_schedule(omp_sched_dynamic, chunk8)
  call omp_get_schedule(kind, chunk8)
  call check(kind == omp_sched_dynamic .and. chunk8 == 6_8, 'schedule with an integer(8) chunk')
  call omp_get_schedule(kind, chunk4)
  call check(chunk4 == 6, 'the same schedule read with integer(4)')

  lvl8 = 0
  call check(omp_get_ancestor_thread_num(lvl8) == 0 .and. omp_get_team_size(lvl8) == 1, 'level 0 (integer(8))')
  bad = 0
!$omp parallel num_threads(2)
  if (omp_get_ancestor_thread_num(1_8) /= omp_get_thread_num() .or. omp_get_team_size(1_8) /= 2) then
!$omp atomic
    bad = bad + 1
  end if
!$omp end parallel
  call check(bad == 0, 'ancestor and team size with integer(8) levels')

  call omp_set_num_teams(5_8)
  call check(omp_get_max_teams() == 5, 'set_num_teams(integer(8))')
  call omp_set_teams_thread_limit(2_8)
  call check(omp_get_teams_thread_limit() == 2, 'set_teams_thread_limit(integer(8))')
  call omp_set_default_device(0_8)
  call check(omp_get_default_device() == 0, 'set_default_device(integer(8))')

  ! places: the integer(8) arrays hold what the integer(4) ones do
  np = omp_get_num_places()
  do p = 0, np - 1
    call check(omp_get_place_num_procs(int(p, 8)) == omp_get_place_num_procs(p), 'place_num_procs(integer(8))')
    ids4 = -1
    ids8 = -1
    call omp_get_place_proc_ids(p, ids4)
    call omp_get_place_proc_ids(int(p, 8), ids8)
    call check(all(ids8 == int(ids4, 8)), 'place_proc_ids(integer(8))')
    call check(ids4(0) >= 0, 'place_proc_ids filled')
  end do
  bad = 0
!$omp parallel num_threads(2) private(nums4, nums8)
  nums4 = -1
  nums8 = -1
  call omp_get_partition_place_nums(nums4)
  call omp_get_partition_place_nums(nums8)
  if (any(nums8 /= int(nums4, 8))) then
!$omp atomic
    bad = bad + 1
  end if
  if (omp_get_partition_num_places() > 0) then
    if (nums4(0) < 0) then
!$omp atomic
      bad = bad + 1
    end if
  end if
!$omp end parallel
  call check(bad == 0, 'partition_place_nums(integer(8))')
  call omp_display_env(no8)
contains
  include 'check.inc'
end program api8_test
