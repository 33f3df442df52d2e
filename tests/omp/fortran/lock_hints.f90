! lock_hints: omp_init_lock_with_hint and omp_init_nest_lock_with_hint, which gfortran's omp_lib
! declares but libgomp 12 does not provide (so this test is only linked against
! libforkjoin-omp): the hinted locks exclude like any other.
program lock_hints_test
  use omp_lib
  implicit none
  integer(omp_lock_kind) :: hinted
  integer(omp_nest_lock_kind) :: nl
  integer :: counter, i, nthr

  nthr = omp_get_max_threads()
  call omp_init_lock_with_hint(hinted, omp_sync_hint_contended)
  counter = 0
!$omp parallel private(i)
  do i = 1, 1000
    do while (.not. omp_test_lock(hinted))
    end do
    counter = counter + 1
    call omp_unset_lock(hinted)
  end do
!$omp end parallel
  call check(counter == 1000 * nthr, 'lock with hint, taken by test_lock')
  call omp_destroy_lock(hinted)

  call omp_init_nest_lock_with_hint(nl, omp_sync_hint_uncontended)
  counter = 0
!$omp parallel private(i)
  do i = 1, 500
    call omp_set_nest_lock(nl)
    if (omp_test_nest_lock(nl) == 2) counter = counter + 1
    call omp_unset_nest_lock(nl)
    call omp_unset_nest_lock(nl)
  end do
!$omp end parallel
  call check(counter == 500 * nthr, 'nest lock with hint')
  call omp_destroy_nest_lock(nl)
contains
  include 'check.inc'
end program lock_hints_test
