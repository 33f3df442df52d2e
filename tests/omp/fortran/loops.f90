! loops: worksharing do loops with every schedule (static, static with a chunk, dynamic, guided,
! runtime under several run-sched-var values, auto), collapse(2), negative and non-unit steps,
! integer(8) iteration variables, nowait, lastprivate, ordered, and the combined parallel do:
! every iteration runs exactly once.
program loops_test
  use omp_lib
  implicit none
  integer, parameter :: n = 1000
  integer :: hits(n), grid(40, 30), order(n), i, j, last, pos, k
  integer(8) :: i8, hits8(n)

  call sweep(1, 'static')
  call sweep(2, 'static,7')
  call sweep(3, 'dynamic,3')
  call sweep(4, 'guided')
  call sweep(5, 'guided,5')
  call sweep(6, 'auto')
  call omp_set_schedule(omp_sched_dynamic, 4)
  call sweep(7, 'runtime dynamic,4')
  call omp_set_schedule(omp_sched_guided, 2)
  call sweep(7, 'runtime guided,2')
  call omp_set_schedule(omp_sched_static, 0)
  call sweep(7, 'runtime static')

  ! collapse(2) over a 40 x 30 grid
  grid = 0
!$omp parallel do collapse(2) schedule(dynamic, 7)
  do j = 1, 30
    do i = 1, 40
!$omp atomic
      grid(i, j) = grid(i, j) + 1
    end do
  end do
!$omp end parallel do
  call check(all(grid == 1), 'collapse(2)')

  ! negative step of 3, every third element from the top
  hits = 0
!$omp parallel do schedule(guided, 2)
  do i = n, 1, -3
!$omp atomic
    hits(i) = hits(i) + 1
  end do
!$omp end parallel do
  do i = 1, n
    call check(hits(i) == merge(1, 0, mod(n - i, 3) == 0), 'negative step')
  end do

  ! integer(8) iteration variable beyond 2**31
  hits8 = 0
!$omp parallel do schedule(dynamic, 11)
  do i8 = 5000000000_8, 5000000000_8 + n - 1
!$omp atomic
    hits8(i8 - 5000000000_8 + 1) = hits8(i8 - 5000000000_8 + 1) + 1
  end do
!$omp end parallel do
  call check(all(hits8 == 1), 'integer(8) iteration variable')

  ! two nowait loops then a barrier; lastprivate
  hits = 0
  last = -1
!$omp parallel
!$omp do schedule(static)
  do i = 1, n / 2
!$omp atomic
    hits(i) = hits(i) + 1
  end do
!$omp end do nowait
!$omp do schedule(dynamic, 5) lastprivate(last)
  do i = n / 2 + 1, n
!$omp atomic
    hits(i) = hits(i) + 1
    last = i
  end do
!$omp end do
!$omp end parallel
  call check(all(hits == 1), 'nowait loops')
  call check(last == n, 'lastprivate is the last iteration''s value')

  ! ordered: the ordered blocks run in iteration order
  pos = 0
  order = 0
!$omp parallel do ordered schedule(dynamic, 3)
  do i = 1, n
!$omp ordered
    pos = pos + 1
    order(pos) = i
!$omp end ordered
  end do
!$omp end parallel do
  call check(pos == n, 'ordered: every block ran')
  do k = 1, n
    call check(order(k) == k, 'ordered: in iteration order')
  end do
contains
  subroutine sweep(kind, what)
    integer, intent(in) :: kind
    character(len=*), intent(in) :: what
    integer :: i
    hits = 0
!$omp parallel
    select case (kind)
    case (1)
!$omp do schedule(static)
      do i = 1, n
!$omp atomic
        hits(i) = hits(i) + 1
      end do
    case (2)
!$omp do schedule(static, 7)
      do i = 1, n
!$omp atomic
        hits(i) = hits(i) + 1
      end do
    case (3)
!$omp do schedule(dynamic, 3)
      do i = 1, n
!$omp atomic
        hits(i) = hits(i) + 1
      end do
    case (4)
!$omp do schedule(guided)
      do i = 1, n
!$omp atomic
        hits(i) = hits(i) + 1
      end do
    case (5)
!$omp do schedule(guided, 5)
      do i = 1, n
!$omp atomic
        hits(i) = hits(i) + 1
      end do
    case (6)
!$omp do schedule(auto)
      do i = 1, n
!$omp atomic
        hits(i) = hits(i) + 1
      end do
    case default
!$omp do schedule(runtime)
      do i = 1, n
!$omp atomic
        hits(i) = hits(i) + 1
      end do
    end select
!$omp end parallel
    call check(all(hits == 1), what)
  end subroutine sweep
  include 'check.inc'
end program loops_test
