! parallel: team sizes and thread numbers (each thread number exactly once), num_threads and
! if clauses, omp_in_parallel, threadprivate data with copyin kept between regions, and nested
! regions (levels, ancestors, team sizes).
module tp_data
  implicit none
  integer :: tp_value = -1
  !$omp threadprivate(tp_value)
end module tp_data

program parallel_test
  use omp_lib
  use tp_data
  implicit none
  integer, parameter :: max_t = 64
  integer :: seen(0:max_t - 1), n, nmax, tid, bad, inner_bad, i

  nmax = omp_get_max_threads()
  call check(nmax >= 1 .and. nmax <= max_t, 'max threads in range')
  call check(.not. omp_in_parallel(), 'not in parallel outside')
  call check(omp_get_num_threads() == 1 .and. omp_get_thread_num() == 0, 'initial thread')

  ! every thread number once, the team as large as nthreads-var
  seen = 0
  n = 0
  bad = 0
!$omp parallel private(tid)
  tid = omp_get_thread_num()
  if (tid < 0 .or. tid >= max_t) then
!$omp atomic
    bad = bad + 1
  else
!$omp atomic
    seen(tid) = seen(tid) + 1
  end if
  if (.not. omp_in_parallel() .and. omp_get_num_threads() > 1) then
!$omp atomic
    bad = bad + 1
  end if
!$omp master
  n = omp_get_num_threads()
!$omp end master
!$omp end parallel
  call check(bad == 0, 'thread numbers in range, in parallel')
  call check(n == nmax, 'team of nthreads-var threads')
  call check(all(seen(0:n - 1) == 1) .and. all(seen(n:) == 0), 'each thread number once')

  ! num_threads(3) gives 3 threads, if(.false.) one
  seen = 0
!$omp parallel num_threads(3) private(tid)
  tid = omp_get_thread_num()
!$omp atomic
  seen(tid) = seen(tid) + 1
!$omp end parallel
  call check(all(seen(0:2) == 1) .and. sum(seen) == 3, 'num_threads(3)')
  n = -1
!$omp parallel if(.false.)
  n = omp_get_num_threads()
!$omp end parallel
  call check(n == 1, 'if(.false.) runs one thread')

  ! threadprivate: copyin copies the primary's value, each thread's own value survives
  tp_value = 42
  bad = 0
!$omp parallel copyin(tp_value)
  if (tp_value /= 42) then
!$omp atomic
    bad = bad + 1
  end if
  tp_value = 1000 + omp_get_thread_num()
!$omp end parallel
!$omp parallel
  if (tp_value /= 1000 + omp_get_thread_num()) then
!$omp atomic
    bad = bad + 1
  end if
!$omp end parallel
  call check(bad == 0, 'threadprivate values with copyin')

  ! nested: levels, ancestors and team sizes
  call omp_set_max_active_levels(2)
  inner_bad = 0
  n = 0
!$omp parallel num_threads(2) private(tid)
  tid = omp_get_thread_num()
!$omp parallel num_threads(2)
  if (omp_get_level() /= 2 .or. omp_get_active_level() /= 2) then
!$omp atomic
    inner_bad = inner_bad + 1
  end if
  if (omp_get_ancestor_thread_num(1) /= tid .or. omp_get_ancestor_thread_num(0) /= 0) then
!$omp atomic
    inner_bad = inner_bad + 1
  end if
  if (omp_get_team_size(1) /= 2 .or. omp_get_team_size(2) /= 2 .or. omp_get_num_threads() /= 2) then
!$omp atomic
    inner_bad = inner_bad + 1
  end if
!$omp atomic
  n = n + 1
!$omp end parallel
!$omp end parallel
  call check(inner_bad == 0, 'nested levels, ancestors, team sizes')
  call check(n == 4, 'nested: 2 x 2 threads')

  ! many short regions: the thread numbers stay exact
  do i = 1, 200
    seen = 0
!$omp parallel private(tid)
    tid = omp_get_thread_num()
!$omp atomic
    seen(tid) = seen(tid) + 1
!$omp end parallel
    call check(all(seen(0:nmax - 1) == 1) .and. sum(seen) == nmax, 'repeated regions')
  end do
contains
  include 'check.inc'
end program parallel_test
