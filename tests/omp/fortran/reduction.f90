! reduction: every Fortran reduction operator and intrinsic (+, *, -, max, min, iand, ior, ieor,
! .and., .or., .eqv., .neqv.) on integer, real(8) and logical variables, an array reduction,
! and reductions on parallel, do and sections, compared with the serial answers.
program reduction_test
  use omp_lib
  implicit none
  integer, parameter :: n = 2000
  integer :: i, isum, imin, imax, iand_r, ior_r, ieor_r, idiff, nthr, cnt(8)
  integer(8) :: prod
  real(8) :: dsum, dmax
  logical :: l_and, l_or, l_eqv, l_neqv

  isum = 0; idiff = 0; prod = 1; imin = huge(imin); imax = -huge(imax)
  iand_r = -1; ior_r = 0; ieor_r = 0; dsum = 0; dmax = -1
  l_and = .true.; l_or = .false.; l_eqv = .true.; l_neqv = .false.
!$omp parallel do reduction(+:isum, dsum) reduction(-:idiff) reduction(*:prod) &
!$omp&   reduction(min:imin) reduction(max:imax, dmax) reduction(iand:iand_r) &
!$omp&   reduction(ior:ior_r) reduction(ieor:ieor_r) reduction(.and.:l_and) &
!$omp&   reduction(.or.:l_or) reduction(.eqv.:l_eqv) reduction(.neqv.:l_neqv) schedule(dynamic, 13)
  do i = 1, n
    isum = isum + i
    idiff = idiff - i
    dsum = dsum + real(i, 8) * 0.5d0
    if (mod(i, 100) == 0) prod = prod * 2
    imin = min(imin, mod(i * 7919, 1009))
    imax = max(imax, mod(i * 7919, 1009))
    dmax = max(dmax, real(mod(i * 31, 997), 8))
    iand_r = iand(iand_r, not(ishft(1, mod(i, 20))))
    ior_r = ior(ior_r, ishft(1, mod(i, 20)))
    ieor_r = ieor(ieor_r, i)
    l_and = l_and .and. (i > 0)
    l_or = l_or .or. (i == 1234)
    l_eqv = l_eqv .eqv. (mod(i, 2) == 0)
    l_neqv = l_neqv .neqv. (mod(i, 3) == 0)
  end do
!$omp end parallel do
  call check(isum == n * (n + 1) / 2, '+')
  call check(idiff == -n * (n + 1) / 2, '-')
  call check(dsum == real(n, 8) * real(n + 1, 8) / 4d0, '+ real(8)')
  call check(prod == 2_8**(n / 100), '*')
  call check(imin == 0 .and. imax == 1008, 'min, max')
  call check(dmax == 996d0, 'max real(8)')
  call check(iand_r == not(ishft(1, 20) - 1), 'iand')
  call check(ior_r == ishft(1, 20) - 1, 'ior')
  call check(ieor_r == serial_xor(n), 'ieor')
  call check(l_and .and. l_or, '.and., .or.')
  ! .eqv. is true when the number of false terms is even (1000 odd i), .neqv. when the number
  ! of true terms is odd (666 multiples of 3)
  call check(l_eqv, '.eqv.')
  call check(.not. l_neqv, '.neqv.')

  ! an array reduction, on the region itself
  cnt = 0
!$omp parallel reduction(+:cnt)
  cnt(mod(omp_get_thread_num(), 8) + 1) = cnt(mod(omp_get_thread_num(), 8) + 1) + 1
!$omp end parallel
  nthr = omp_get_max_threads()
  call check(sum(cnt) == nthr, 'array reduction: one per thread')

  ! a reduction over sections
  isum = 0
!$omp parallel sections reduction(+:isum)
!$omp section
  isum = isum + 1
!$omp section
  isum = isum + 10
!$omp section
  isum = isum + 100
!$omp end parallel sections
  call check(isum == 111, 'sections reduction')
contains
  integer function serial_xor(m)
    integer, intent(in) :: m
    integer :: k
    serial_xor = 0
    do k = 1, m
      serial_xor = ieor(serial_xor, k)
    end do
  end function serial_xor
  include 'check.inc'
end program reduction_test
