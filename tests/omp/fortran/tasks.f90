! tasks: recursive fib with task + taskwait, many tasks from one producer (each runs once),
! taskgroup waiting for descendants, depend(out/in) ordering, taskloop with grainsize, final and
! omp_in_final, and detach with omp_fulfill_event (the event fulfilled by another task: the
! taskwait returns only after it).
program tasks_test
  use omp_lib
  implicit none
  integer, parameter :: ntasks = 2000
  integer :: ran(ntasks), i, f, total, stage, order_bad, finals, leaves, fulfilled, body
  integer(kind=omp_event_handle_kind) :: ev

  f = 0
!$omp parallel
!$omp single
  f = fib(20)
!$omp end single
!$omp end parallel
  call check(f == 6765, 'fib(20) with tasks')

  ran = 0
!$omp parallel
!$omp single
  do i = 1, ntasks
!$omp task firstprivate(i)
!$omp atomic
    ran(i) = ran(i) + 1
!$omp end task
  end do
!$omp end single
!$omp end parallel
  call check(all(ran == 1), 'each task once')

  total = 0
!$omp parallel
!$omp single
!$omp taskgroup
  do i = 1, 50
!$omp task
    call spawn_children(total)
!$omp end task
  end do
!$omp end taskgroup
  ! the taskgroup waited for the children of the children
  if (total /= 50 * 10) total = -total
!$omp end single
!$omp end parallel
  call check(total == 500, 'taskgroup waits for descendants')

  stage = 0
  order_bad = 0
!$omp parallel
!$omp single
  do i = 1, 100
!$omp task depend(inout: stage) firstprivate(i) shared(stage, order_bad)
    if (stage /= i - 1) order_bad = order_bad + 1
    stage = i
!$omp end task
  end do
!$omp task depend(in: stage) shared(stage, order_bad)
  if (stage /= 100) order_bad = order_bad + 1
!$omp end task
!$omp end single
!$omp end parallel
  call check(order_bad == 0 .and. stage == 100, 'depend chain in order')

  ran = 0
!$omp parallel
!$omp single
!$omp taskloop grainsize(37)
  do i = 1, ntasks
!$omp atomic
    ran(i) = ran(i) + 1
  end do
!$omp end taskloop
!$omp end single
!$omp end parallel
  call check(all(ran == 1), 'taskloop: each iteration once')

  finals = 0
  leaves = 0
!$omp parallel
!$omp single
!$omp task final(.true.)
  if (omp_in_final()) finals = finals + 1
!$omp task
  ! a task created in a final task is included, and final too
  if (omp_in_final()) finals = finals + 1
!$omp end task
!$omp end task
!$omp task if(.false.)
  if (.not. omp_in_final()) leaves = leaves + 1
!$omp end task
!$omp end single
!$omp end parallel
  call check(finals == 2 .and. leaves == 1, 'final, omp_in_final, if(.false.)')

  fulfilled = 0
  body = 0
!$omp parallel
!$omp single
!$omp task detach(ev) shared(body)
  body = 1
!$omp end task
!$omp task shared(fulfilled) firstprivate(ev)
  call spin_a_while()
!$omp atomic write
  fulfilled = 1
  call omp_fulfill_event(ev)
!$omp end task
!$omp taskwait
  if (fulfilled /= 1 .or. body /= 1) fulfilled = -1
!$omp end single
!$omp end parallel
  call check(fulfilled == 1, 'detach: taskwait waits for the event')
contains
  recursive integer function fib(k) result(r)
    integer, intent(in) :: k
    integer :: a, b
    if (k < 2) then
      r = k
      return
    end if
!$omp task shared(a) firstprivate(k)
    a = fib(k - 1)
!$omp end task
!$omp task shared(b) firstprivate(k)
    b = fib(k - 2)
!$omp end task
!$omp taskwait
    r = a + b
  end function fib

  subroutine spawn_children(counter)
    integer, intent(inout) :: counter
    integer :: j
    do j = 1, 10
!$omp task shared(counter)
!$omp atomic
      counter = counter + 1
!$omp end task
    end do
  end subroutine spawn_children

  subroutine spin_a_while()
    real(8) :: t0
    t0 = omp_get_wtime()
    do while (omp_get_wtime() - t0 < 0.01d0)
    end do
  end subroutine spin_a_while
  include 'check.inc'
end program tasks_test
