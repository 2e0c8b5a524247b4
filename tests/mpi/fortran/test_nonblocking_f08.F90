! Non-blocking collectives from mpi_f08 (Neko's pipelined CG calls MPI_Iallreduce with
! MPI_IN_PLACE from mpi_f08): requests completed by MPI_Wait, MPI_Waitall, MPI_Test,
! MPI_Testall, MPI_Waitany, MPI_Waitsome, MPI_Testsome and MPI_Request_get_status, mixed with
! point-to-point requests. Under MPICH these request calls of mpi_f08 call PMPI_* directly, so
! shmcoll defines them (src/mpi/fortran_request.c); without that a request of shmcoll's would
! complete at once and the results below would be garbage. Rank 0 prints one PASS or FAIL line.
program test_nonblocking_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, round, i, failures, all_failures, idx, outcount, ring
  integer :: x, y, w, b, indices(3)
  double precision :: v(1000)
  logical :: flag
  type(MPI_Request) :: req(3)
  type(MPI_Status) :: statuses(3), status

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  failures = 0
  do round = 1, 12 ! past the communicator's first uses, which go to the MPI library
    x = rank + round
    call MPI_Iallreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(1))
    call MPI_Wait(req(1), status)
    if (y /= nprocs * (nprocs - 1) / 2 + nprocs * round) failures = failures + 1

    v = rank + 1
    call MPI_Iallreduce(MPI_IN_PLACE, v, size(v), MPI_DOUBLE_PRECISION, MPI_SUM, &
                        MPI_COMM_WORLD, req(1))
    b = merge(round, -1, rank == 0)
    call MPI_Ibcast(b, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req(2))
    call MPI_Irecv(ring, 1, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 5, MPI_COMM_WORLD, &
                   req(3))
    call MPI_Send(rank, 1, MPI_INTEGER, mod(rank + 1, nprocs), 5, MPI_COMM_WORLD)
    select case (mod(round, 4))
    case (0)
      call MPI_Waitall(3, req, statuses)
    case (1)
      flag = .false.
      do while (.not. flag)
        call MPI_Testall(3, req, flag, MPI_STATUSES_IGNORE)
      end do
    case (2)
      do i = 1, 3
        call MPI_Waitany(3, req, idx, status)
        if (idx < 1 .or. idx > 3) failures = failures + 1
      end do
    case default
      outcount = 0
      do while (outcount /= MPI_UNDEFINED)
        call MPI_Waitsome(3, req, outcount, indices, statuses)
      end do
    end select
    if (any(v /= nprocs * (nprocs + 1) / 2)) failures = failures + 1
    if (b /= round) failures = failures + 1
    if (ring /= mod(rank + nprocs - 1, nprocs)) failures = failures + 1

    call MPI_Iallreduce(rank, w, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, req(1))
    flag = .false.
    do while (.not. flag)
      call MPI_Request_get_status(req(1), flag, status)
    end do
    flag = .false.
    do while (.not. flag)
      call MPI_Test(req(1), flag, status)
    end do
    if (w /= nprocs - 1) failures = failures + 1
  end do
  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (all_failures == 0) then
      print '(a,i0,a)', 'PASS nonblocking_f08: ', nprocs, ' ranks'
    else
      print '(a,i0,a)', 'FAIL nonblocking_f08: ', all_failures, ' failure(s)'
    end if
  end if
  call MPI_Finalize()
end program
