! sync: single (one thread runs it, the others wait at its end; nowait), single copyprivate
! (the value reaches every thread), master and masked (only the chosen thread), critical
! (unnamed and named, plain read-modify-write counters), atomic update/read/write/capture, and
! barrier (every thread sees every other's write after it).
program sync_test
  use omp_lib
  implicit none
  integer, parameter :: rounds = 300
  integer :: nthr, singles, masters, maskeds, bad, crit_a, crit_b, at, captured(0:63), k
  integer :: phase(0:63)
  real(8) :: shared_value

  nthr = omp_get_max_threads()
  singles = 0; masters = 0; maskeds = 0; bad = 0; crit_a = 0; crit_b = 0; at = 0
  captured = -1; phase = 0
!$omp parallel private(k, shared_value)
  do k = 1, rounds
!$omp single
    singles = singles + 1
!$omp end single
    ! the single's end is a barrier: its write is visible to every thread
    if (singles /= k) then
!$omp atomic
      bad = bad + 1
    end if
!$omp barrier
  end do
!$omp single
  shared_value = 3.25d0
!$omp end single copyprivate(shared_value)
  if (shared_value /= 3.25d0) then
!$omp atomic
    bad = bad + 1
  end if
!$omp master
  masters = masters + 1
  if (omp_get_thread_num() /= 0) bad = bad + 100
!$omp end master
!$omp masked filter(nthr - 1)
  maskeds = maskeds + 1
  if (omp_get_thread_num() /= nthr - 1) bad = bad + 100
!$omp end masked
  do k = 1, rounds
!$omp critical
    crit_a = crit_a + 1
!$omp end critical
!$omp critical (other)
    crit_b = crit_b + 2
!$omp end critical (other)
  end do
!$omp atomic capture
  at = at + 1
  captured(omp_get_thread_num()) = at
!$omp end atomic
  ! barrier: each thread writes its own phase, then reads everyone's
  phase(omp_get_thread_num()) = 1
!$omp barrier
  if (any(phase(0:omp_get_num_threads() - 1) /= 1)) then
!$omp atomic
    bad = bad + 1
  end if
!$omp end parallel
  call check(bad == 0, 'single barrier, copyprivate, master/masked thread, barrier visibility')
  call check(singles == rounds, 'single: once per encounter')
  call check(masters == 1 .and. maskeds == 1, 'master and masked: once')
  call check(crit_a == rounds * nthr .and. crit_b == 2 * rounds * nthr, 'critical counters')
  call check(at == nthr, 'atomic update')
  ! atomic capture: the captured values are 1..nthr, each once
  do k = 1, nthr
    call check(count(captured(0:nthr - 1) == k) == 1, 'atomic capture: distinct values')
  end do
contains
  include 'check.inc'
end program sync_test
