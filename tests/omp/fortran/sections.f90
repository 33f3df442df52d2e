! sections: each section of a sections construct runs exactly once (many rounds, orphaned and
! combined forms), lastprivate takes the last section's value, and nowait sections.
program sections_test
  use omp_lib
  implicit none
  integer :: ran(5), k, last, bad

  bad = 0
  do k = 1, 200
    ran = 0
!$omp parallel
    call five_sections()
!$omp end parallel
    if (any(ran /= 1)) bad = bad + 1
  end do
  call check(bad == 0, 'orphaned sections: each once')

  ran = 0
!$omp parallel sections lastprivate(last)
!$omp section
  ran(1) = ran(1) + 1
  last = 1
!$omp section
  ran(2) = ran(2) + 1
  last = 2
!$omp section
  ran(3) = ran(3) + 1
  last = 3
!$omp end parallel sections
  call check(all(ran(1:3) == 1), 'parallel sections: each once')
  call check(last == 3, 'lastprivate: the last section''s value')

  ran = 0
!$omp parallel
!$omp sections
!$omp section
!$omp atomic
  ran(1) = ran(1) + 1
!$omp section
!$omp atomic
  ran(2) = ran(2) + 1
!$omp end sections nowait
!$omp sections
!$omp section
!$omp atomic
  ran(3) = ran(3) + 1
!$omp end sections
!$omp end parallel
  call check(all(ran(1:3) == 1), 'nowait sections')
contains
  subroutine five_sections()
!$omp sections
!$omp section
    ran(1) = ran(1) + 1
!$omp section
    ran(2) = ran(2) + 1
!$omp section
    ran(3) = ran(3) + 1
!$omp section
    ran(4) = ran(4) + 1
!$omp section
    ran(5) = ran(5) + 1
!$omp end sections
  end subroutine five_sections
  include 'check.inc'
end program sections_test
