#!/usr/bin/env bash
# Builds MPICH's own collective and thread tests (test/mpi/coll and test/mpi/threads of the
# installed Debian mpich package's sources, with the mtest and dtpools support they link) against
# one installed MPI library, for tests/conformance/run_mpich_suite.py. MPICH itself is not built:
# the test suite's own configure runs with the library's compiler wrapper (mpicc.mpich or
# mpicc.openmpi). Some tests use MPICH extensions that Open MPI lacks; they fail to build there,
# and the build goes on without them (make -k): the runner lists every test it finds no program
# for. Everything lives in the build directory; a finished build is reused.
#
# usage: scripts/build-mpich-tests.sh mpich|openmpi [BUILD_ROOT]   (default build/conformance)
set -euo pipefail
cd "$(dirname "$0")/.."

mpi=${1:?usage: build-mpich-tests.sh mpich|openmpi [BUILD_ROOT]}
root=${2:-build/conformance}
case $mpi in
mpich | openmpi) ;;
*) echo "build-mpich-tests: unknown MPI library '$mpi' (mpich or openmpi)" >&2; exit 2 ;;
esac
jobs=${CONFORMANCE_JOBS:-2}

src=$(bash scripts/fetch-mpich-tests.sh "$root/src" | tail -1)
mkdir -p "$root"
out="$(cd "$root" && pwd)/$mpi"
log="$out/build.log"

# The suite's configure, restricted to what the C tests of coll/, threads/ and errors/coll/ need. The compiler
# is the flavour's own wrapper, given as MPICC: configure replaces CC with the first "mpicc" on
# the PATH otherwise, /usr/bin/mpicc, whichever MPI the system's alternatives point at.
# Open MPI 4 hides the MPI-1 functions MPI-3 removed (MPI_Type_hvector ...) that dtpools, the
# suite's datatype library, still calls, although libmpi exports them: its documented switch
# OMPI_OMIT_MPI1_COMPAT_DECLS=0 declares them again. Its persistent collectives have their
# pre-standard names: tests/conformance/ompi4_persistent.h maps MPI-4's to them.
cppflags=""
if [ "$mpi" = openmpi ]; then
    cppflags="-DOMPI_OMIT_MPI1_COMPAT_DECLS=0 -include $PWD/tests/conformance/ompi4_persistent.h"
fi
stamp="$src mpicc.$mpi $cppflags"
if [ ! -f "$out/.configured" ] || [ "$(cat "$out/.configured")" != "$stamp" ]; then
    echo "build-mpich-tests: configuring $src/test/mpi for $mpi in $out (about a minute)"
    # A build of other sources or flags starts afresh (without dependency tracking, objects
    # would otherwise be kept whatever the flags).
    rm -rf "$out"
    mkdir -p "$out"
    (cd "$out" && nice -n 5 "$src/test/mpi/configure" \
        MPICC="$(command -v "mpicc.$mpi")" MPIEXEC="$(command -v "mpiexec.$mpi")" \
        CPPFLAGS="$cppflags" \
        --enable-threads=multiple --disable-fortran --disable-cxx --disable-romio \
        --disable-ft-tests --disable-checkpointing --disable-dependency-tracking) >"$log" 2>&1 || {
        tail -30 "$log"
        echo "build-mpich-tests: configure failed for $mpi (log: $log)" >&2
        exit 1
    }
    echo "$stamp" >"$out/.configured"
fi

# Support libraries first (their failure is the build's), then every test program that builds.
for dir in dtpools util; do
    nice -n 5 make -j "$jobs" -C "$out/$dir" >>"$log" 2>&1 || {
        tail -30 "$log"
        echo "build-mpich-tests: $dir does not build for $mpi (log: $log)" >&2
        exit 1
    }
done
status=0
for dir in coll threads errors/coll; do
    nice -n 5 make -k -j "$jobs" -C "$out/$dir" >>"$log" 2>&1 || status=$?
done
if [ "$status" -ne 0 ]; then
    echo "build-mpich-tests: some test programs did not build for $mpi (log: $log);" \
        "the runner lists them"
fi
echo "build-mpich-tests: $mpi tests in $out"
