! Every collective through `use mpi_f08` (the body is collectives.inc), also without the optional
! ierror argument.
program test_mpi_f08
    use mpi_f08
    implicit none
#define TEST_NAME "mpi_f08"
#define HANDLE_DATATYPE type(MPI_Datatype)
#define TEST_F08
#include "collectives.inc"
end program test_mpi_f08
