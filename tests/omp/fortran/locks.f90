! locks: omp_lock_kind locks guarding a plain counter, omp_test_lock, and nest locks
! (omp_nest_lock_kind, a handle the runtime allocates): the depth counts up from the owner,
! other threads cannot take it meanwhile, and it is free again at depth zero. (The *_with_hint
! forms, which libgomp 12 lacks, are in lock_hints.f90.)
program locks_test
  use omp_lib
  implicit none
  integer(omp_lock_kind) :: lk
  integer(omp_nest_lock_kind) :: nl
  integer :: counter, i, nthr, bad, depth, taken

  nthr = omp_get_max_threads()
  call omp_init_lock(lk)
  counter = 0
!$omp parallel private(i)
  do i = 1, 3000
    call omp_set_lock(lk)
    counter = counter + 1
    call omp_unset_lock(lk)
  end do
!$omp end parallel
  call check(counter == 3000 * nthr, 'omp_set_lock/omp_unset_lock')
  call check(omp_test_lock(lk), 'test_lock takes a free lock')
  call check(.not. omp_test_lock(lk), 'test_lock fails on a held lock')
  call omp_unset_lock(lk)
  call omp_destroy_lock(lk)

  call omp_init_nest_lock(nl)
  call check(nl /= 0, 'nest lock handle set')
  bad = 0
  counter = 0
!$omp parallel private(i, depth)
  do i = 1, 500
    call omp_set_nest_lock(nl)
    call omp_set_nest_lock(nl)
    depth = omp_test_nest_lock(nl)
    if (depth /= 3) bad = bad + 1
    counter = counter + 1
    call omp_unset_nest_lock(nl)
    call omp_unset_nest_lock(nl)
    call omp_unset_nest_lock(nl)
  end do
!$omp end parallel
  call check(bad == 0, 'nest lock depth 3 from the owner')
  call check(counter == 500 * nthr, 'nest lock counter')

  ! held by thread 0: no other thread can take it; free after the last unset
  taken = 0
  call omp_set_nest_lock(nl)
!$omp parallel
  if (omp_get_thread_num() /= 0) then
    if (omp_test_nest_lock(nl) /= 0) then
!$omp atomic
      taken = taken + 1
    end if
  end if
!$omp end parallel
  call omp_unset_nest_lock(nl)
  call check(taken == 0, 'a held nest lock refuses other threads')
!$omp parallel num_threads(2)
  if (omp_get_thread_num() == 1) then
    if (omp_test_nest_lock(nl) == 1) then
      taken = 1
      call omp_unset_nest_lock(nl)
    end if
  end if
!$omp end parallel
  call check(taken == 1 .or. omp_get_max_threads() == 1, 'a free nest lock is taken by another thread')
  call omp_destroy_nest_lock(nl)
  call check(nl == 0, 'destroy clears the handle')

contains
  include 'check.inc'
end program locks_test
