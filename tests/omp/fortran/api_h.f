! api_h: a fixed-form program with include 'omp_lib.h' (implicit interfaces, the
! FORTRAN 77 way): thread numbers, set/get calls, locks and nest locks, timers.
      program api_h_test
      implicit none
      include 'omp_lib.h'
      integer seen(0:63), tid, n, i, counter, depth, kind, chunk
      integer(omp_lock_kind) lk
      integer(omp_nest_lock_kind) nl
      double precision t0
      do i = 0, 63
        seen(i) = 0
      end do
      n = 0
!$omp parallel private(tid)
      tid = omp_get_thread_num()
!$omp atomic
      seen(tid) = seen(tid) + 1
!$omp master
      n = omp_get_num_threads()
!$omp end master
!$omp end parallel
      call check(n .eq. omp_get_max_threads(), 'team size')
      do i = 0, n - 1
        call check(seen(i) .eq. 1, 'each thread number once')
      end do
      call omp_set_num_threads(3)
      call check(omp_get_max_threads() .eq. 3, 'set_num_threads')
      call omp_set_schedule(omp_sched_static, 5)
      call omp_get_schedule(kind, chunk)
      call check(kind .eq. omp_sched_static .and. chunk .eq. 5,
     &           'schedule')
      call omp_set_dynamic(.true.)
      call check(omp_get_dynamic(), 'dynamic')
      call omp_set_dynamic(.false.)
      call omp_init_lock(lk)
      call omp_init_nest_lock(nl)
      counter = 0
!$omp parallel private(i, depth)
      do i = 1, 500
        call omp_set_lock(lk)
        counter = counter + 1
        call omp_unset_lock(lk)
        call omp_set_nest_lock(nl)
        depth = omp_test_nest_lock(nl)
        if (depth .ne. 2) counter = counter - 100000
        call omp_unset_nest_lock(nl)
        call omp_unset_nest_lock(nl)
      end do
!$omp end parallel
      call check(counter .eq. 500 * 3, 'locks and nest locks')
      call omp_destroy_lock(lk)
      call omp_destroy_nest_lock(nl)
      t0 = omp_get_wtime()
      call check(omp_get_wtime() .ge. t0, 'wtime')
      call check(.not. omp_in_parallel(), 'in_parallel')
      contains
      include 'check.inc'
      end program api_h_test
