# CMake package of shmcoll: MPI collectives over shared memory, one library per MPI flavour.
#
#   find_package(shmcoll 0.1 REQUIRED COMPONENTS mpich)     # or openmpi
#   target_link_libraries(app PRIVATE shmcoll::mpich)       # before the MPI library
#
# Imported targets: shmcoll::mpich (libshmcoll-mpich.so), shmcoll::openmpi (libshmcoll-openmpi.so),
# one per flavour installed in this prefix; each carries the include directory of shmcoll.h and
# shmcoll_mpi.h. The MPI library itself is not part of the target: compile with that flavour's
# compiler wrapper (CMAKE_C_COMPILER=mpicc.mpich, mpicc.openmpi), which links MPI after everything
# else, or link MPI::MPI_C of the same MPI after shmcoll::<mpi>. Never mix flavours in one program.
#
# Without COMPONENTS every installed flavour is loaded. Sets shmcoll_FLAVOURS (the flavours
# installed here) and shmcoll_<flavour>_FOUND.
cmake_minimum_required(VERSION 3.13)

set(shmcoll_FLAVOURS)
foreach(_shmcoll_flavour mpich openmpi)
  set(shmcoll_${_shmcoll_flavour}_FOUND FALSE)
  if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/shmcoll-${_shmcoll_flavour}-targets.cmake")
    list(APPEND shmcoll_FLAVOURS ${_shmcoll_flavour})
    if(NOT shmcoll_FIND_COMPONENTS OR _shmcoll_flavour IN_LIST shmcoll_FIND_COMPONENTS)
      if(NOT TARGET shmcoll::${_shmcoll_flavour})
        include("${CMAKE_CURRENT_LIST_DIR}/shmcoll-${_shmcoll_flavour}-targets.cmake")
      endif()
      set(shmcoll_${_shmcoll_flavour}_FOUND TRUE)
    endif()
  endif()
endforeach()

foreach(_shmcoll_component IN LISTS shmcoll_FIND_COMPONENTS)
  if(NOT _shmcoll_component MATCHES "^(mpich|openmpi)$")
    set(shmcoll_${_shmcoll_component}_FOUND FALSE)
  endif()
  if(NOT shmcoll_${_shmcoll_component}_FOUND AND shmcoll_FIND_REQUIRED_${_shmcoll_component})
    set(shmcoll_FOUND FALSE)
    string(CONCAT shmcoll_NOT_FOUND_MESSAGE "shmcoll for '${_shmcoll_component}' is not "
      "installed in ${CMAKE_CURRENT_LIST_DIR} (installed there: ${shmcoll_FLAVOURS}; components "
      "are mpich and openmpi)")
  endif()
endforeach()

if(NOT shmcoll_FLAVOURS)
  set(shmcoll_FOUND FALSE)
  set(shmcoll_NOT_FOUND_MESSAGE "no shmcoll flavour installed next to ${CMAKE_CURRENT_LIST_FILE}")
endif()
unset(_shmcoll_flavour)
unset(_shmcoll_component)
