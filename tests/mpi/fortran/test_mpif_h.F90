! Every collective through `include 'mpif.h'` (the body is collectives.inc).
program test_mpif_h
    implicit none
    include 'mpif.h'
#define TEST_NAME "mpif_h"
#define HANDLE_DATATYPE integer
#include "collectives.inc"
end program test_mpif_h
