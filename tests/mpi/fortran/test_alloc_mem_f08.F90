! MPI_ALLOC_MEM and MPI_FREE_MEM from `use mpi_f08` (a TYPE(C_PTR) turned into a Fortran array):
! the memory must come from shmcoll's shared heap (src/mpi/fortran_alloc_mem.c: both MPI
! libraries' Fortran layers would call PMPI_Alloc_mem directly), and an allreduce on it must take
! the heap path. run_mpi.py checks the heap line of the statistics for both.
program test_alloc_mem_f08
    use mpi_f08
    use, intrinsic :: iso_c_binding
    implicit none
    integer, parameter :: n = 655360 ! 5 MiB of doubles: allreduce takes the heap row from 4 MiB
    integer(kind=MPI_ADDRESS_KIND) :: bytes
    type(c_ptr) :: p_send, p_recv
    real(8), pointer :: send(:), recv(:)
    integer :: ierr, rank, nprocs, i, r, failures, total
    real(8) :: want

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    bytes = 8_MPI_ADDRESS_KIND * n
    call MPI_Alloc_mem(bytes, MPI_INFO_NULL, p_send, ierr)
    call MPI_Alloc_mem(bytes, MPI_INFO_NULL, p_recv)
    call c_f_pointer(p_send, send, [n])
    call c_f_pointer(p_recv, recv, [n])
    do i = 1, n
        send(i) = real(mod(rank * 7919 + i * 31, 1000), 8)
    end do
    call MPI_Allreduce(send, recv, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    failures = 0
    do i = 1, n
        want = 0
        do r = 0, nprocs - 1
            want = want + real(mod(r * 7919 + i * 31, 1000), 8)
        end do
        if (recv(i) /= want) failures = failures + 1
    end do
    call MPI_Free_mem(send, ierr)
    call MPI_Free_mem(recv)
    call MPI_Reduce(failures, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        if (total == 0) then
            print '(a, i0, a)', 'PASS test_alloc_mem_f08: 0 failure(s) on ', nprocs, ' ranks'
        else
            print '(a, i0, a)', 'FAIL test_alloc_mem_f08: ', total, ' failure(s)'
        end if
    end if
    call MPI_Finalize(ierr)
end program test_alloc_mem_f08
