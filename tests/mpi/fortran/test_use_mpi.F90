! Every collective through `use mpi` (the body is collectives.inc).
program test_use_mpi
    use mpi
    implicit none
#define TEST_NAME "use_mpi"
#define HANDLE_DATATYPE integer
#include "collectives.inc"
end program test_use_mpi
