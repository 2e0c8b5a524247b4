# Installation of one MPI flavour (docs/INSTALL.md). Both flavours can share one prefix:
#
#   lib/libshmcoll-<mpi>.so.<version>        the library (SONAME libshmcoll-<mpi>.so.<major>)
#   lib/libshmcoll-<mpi>.so                  link name (-lshmcoll-<mpi>, LD_PRELOAD)
#   include/shmcoll.h, include/shmcoll_mpi.h the public headers (the same for every flavour)
#   libexec/shmcoll/<mpi>/shmcoll-{bench,info,tune}   the tools, side by side as in a build tree
#   bin/shmcoll-{bench,info,tune}-<mpi>      links to them
#   bin/shmcoll-bench-plot                   the benchmark's plot (no MPI; the same for every flavour)
#   share/man/man1/*.1                       each tool's --help as a manual page
#   lib/pkgconfig/shmcoll-<mpi>.pc           pkg-config
#   lib/cmake/shmcoll/                       find_package(shmcoll COMPONENTS <mpi>) -> shmcoll::<mpi>
#
# The build tree keeps lib/libshmcoll.so (a link to the flavour's library) and bin/shmcoll-* as
# before, so existing commands keep working there.
include(GNUInstallDirs)

set(SHMCOLL_LIBEXEC_DIR ${CMAKE_INSTALL_LIBEXECDIR}/shmcoll/${SHMCOLL_MPI})
set(SHMCOLL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/shmcoll)

# ---- the library ------------------------------------------------------------------------------
set_target_properties(shmcoll PROPERTIES
  OUTPUT_NAME shmcoll-${SHMCOLL_MPI}
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  EXPORT_NAME ${SHMCOLL_MPI})
add_custom_command(TARGET shmcoll POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_LINKER_FILE_NAME:shmcoll>
          ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/libshmcoll.so
  VERBATIM)
install(TARGETS shmcoll EXPORT shmcoll-${SHMCOLL_MPI}-targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/shmcoll.h ${PROJECT_SOURCE_DIR}/include/shmcoll_mpi.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# ---- the tools: libexec/shmcoll/<mpi>/, linked from bin/ with the flavour as suffix ------------
# They find the library relative to themselves, wherever the prefix is moved.
file(RELATIVE_PATH _shmcoll_to_lib /p/${SHMCOLL_LIBEXEC_DIR} /p/${CMAKE_INSTALL_LIBDIR})
set_target_properties(shmcoll-bench shmcoll-info PROPERTIES
  INSTALL_RPATH "\$ORIGIN/${_shmcoll_to_lib};${CMAKE_INSTALL_RPATH}")
install(TARGETS shmcoll-bench shmcoll-info RUNTIME DESTINATION ${SHMCOLL_LIBEXEC_DIR})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/tune/shmcoll-tune DESTINATION ${SHMCOLL_LIBEXEC_DIR})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/bench/shmcoll-bench-plot
  DESTINATION ${CMAKE_INSTALL_BINDIR})

file(RELATIVE_PATH _shmcoll_to_libexec /p/${CMAKE_INSTALL_BINDIR} /p/${SHMCOLL_LIBEXEC_DIR})
set(_shmcoll_links ${CMAKE_CURRENT_BINARY_DIR}/install-links)
file(MAKE_DIRECTORY ${_shmcoll_links})
set(_shmcoll_link_files)
foreach(tool shmcoll-bench shmcoll-info shmcoll-tune)
  file(CREATE_LINK ${_shmcoll_to_libexec}/${tool} ${_shmcoll_links}/${tool}-${SHMCOLL_MPI}
    SYMBOLIC)
  list(APPEND _shmcoll_link_files ${_shmcoll_links}/${tool}-${SHMCOLL_MPI})
endforeach()
install(FILES ${_shmcoll_link_files} DESTINATION ${CMAKE_INSTALL_BINDIR})

# ---- manual pages: each tool's --help (tools/help-to-man.py) ----------------------------------
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(_shmcoll_man ${CMAKE_CURRENT_BINARY_DIR}/man)
set(_shmcoll_pages)
foreach(tool shmcoll-bench shmcoll-info shmcoll-tune shmcoll-bench-plot)
  if(tool STREQUAL "shmcoll-tune")
    set(program ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/tune/shmcoll-tune)
    set(depends ${PROJECT_SOURCE_DIR}/tools/tune/shmcoll-tune)
  elseif(tool STREQUAL "shmcoll-bench-plot")
    set(program ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/bench/shmcoll-bench-plot)
    set(depends ${PROJECT_SOURCE_DIR}/tools/bench/shmcoll-bench-plot)
  else()
    set(program $<TARGET_FILE:${tool}>)
    set(depends ${tool})
  endif()
  set(page ${tool}-${SHMCOLL_MPI})
  if(tool STREQUAL "shmcoll-bench-plot")
    set(page ${tool})
  endif()
  add_custom_command(OUTPUT ${_shmcoll_man}/${page}.1
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/help-to-man.py
            --name ${page} --version ${PROJECT_VERSION} --output ${_shmcoll_man}/${page}.1
            -- ${program}
    DEPENDS ${depends} ${PROJECT_SOURCE_DIR}/tools/help-to-man.py
    COMMENT "Manual page ${page}.1 from ${tool} --help"
    VERBATIM)
  list(APPEND _shmcoll_pages ${_shmcoll_man}/${page}.1)
endforeach()
add_custom_target(shmcoll-man ALL DEPENDS ${_shmcoll_pages})
install(FILES ${_shmcoll_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# ---- pkg-config: lib/pkgconfig/shmcoll-<mpi>.pc ------------------------------------------------
# Relocatable (paths from the .pc file's own place). Requires the MPI library's own .pc when it
# has one here (MPICH: mpich, Open MPI: ompi-c), so that `cc $(pkg-config --libs ...)` links
# shmcoll first and the MPI library after it.
set(SHMCOLL_PC_MPI_MODULE "")
if(SHMCOLL_MPI STREQUAL "mpich")
  set(_shmcoll_pc_candidate mpich)
  set(SHMCOLL_PC_MPI_NAME "MPICH")
else()
  set(_shmcoll_pc_candidate ompi-c)
  set(SHMCOLL_PC_MPI_NAME "Open MPI")
endif()
pkg_check_modules(_SHMCOLL_PC_MPI QUIET ${_shmcoll_pc_candidate})
if(_SHMCOLL_PC_MPI_FOUND)
  set(SHMCOLL_PC_MPI_MODULE ${_shmcoll_pc_candidate})
  set(SHMCOLL_PC_MPI_VERSION ${_SHMCOLL_PC_MPI_VERSION})
else()
  set(SHMCOLL_PC_MPI_VERSION "unknown")
endif()
get_filename_component(SHMCOLL_PC_MPICC ${CMAKE_C_COMPILER} NAME)
set(SHMCOLL_PC_MPIEXEC mpiexec.${SHMCOLL_MPI})
if(SHMCOLL_BENCH_MPIEXEC)
  get_filename_component(SHMCOLL_PC_MPIEXEC ${SHMCOLL_BENCH_MPIEXEC} NAME)
endif()
file(RELATIVE_PATH SHMCOLL_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" SHMCOLL_PC_TO_PREFIX "${SHMCOLL_PC_TO_PREFIX}")
set(SHMCOLL_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR})
set(SHMCOLL_PC_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/shmcoll.pc.in
  ${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/shmcoll-${SHMCOLL_MPI}.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/shmcoll-${SHMCOLL_MPI}.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ---- CMake: find_package(shmcoll [COMPONENTS mpich openmpi]) ----------------------------------
include(CMakePackageConfigHelpers)
install(EXPORT shmcoll-${SHMCOLL_MPI}-targets NAMESPACE shmcoll:: DESTINATION ${SHMCOLL_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/shmcollConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/shmcollConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/shmcollConfigVersion.cmake DESTINATION ${SHMCOLL_CMAKE_DIR})
