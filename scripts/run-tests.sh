#!/usr/bin/env bash
# Runs every test tier after `make test` has built build/asan, build/tsan, build/mpich,
# build/openmpi, build/mpich-asan and build/mpich-tsan.
# Each tier prints its own summary; the script ends with one "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

# shellcheck source=scripts/lib/tally.sh
. scripts/lib/tally.sh
run_tier() { # build-dir label-regex description
    local dir=$1 labels=$2 what=$3 log
    echo "=== $what ($dir, labels $labels)"
    log=$(mktemp)
    (cd "$dir" && ctest -L "$labels" --output-on-failure -j 1) 2>&1 | tee "$log"
    local p
    p=$(sed -n 's/.* tests passed, \([0-9]*\) tests failed out of \([0-9]*\)/\2 \1/p' "$log" | tail -1)
    if [ -n "$p" ]; then
        # shellcheck disable=SC2086 # two numbers
        set -- $p
        passed=$((passed + $1 - $2))
        failed=$((failed + $2))
    else
        failed=$((failed + 1))
    fi
    rm -f "$log"
}

# Segment files are named shmcoll-<32 hex digits>; the tests' private directories are not counted
# (each test checks its own directory is empty).
count_segments() { find /dev/shm -maxdepth 1 -regextype egrep -regex '/dev/shm/shmcoll-[0-9a-f]{32}' | wc -l; }
shm_before=$(count_segments)
run_tier build/asan 'unit|team|fault' "unit, team and fault tests under ASan+UBSan"
run_tier build/tsan 'tsan' "threads of a process under ThreadSanitizer"
run_tier build/mpich 'unit|team' "unit and team tests, release build"
# Large allocations from the shared heap (SHMCOLL_HEAP=malloc, docs/HEAP.md) under one MPI library,
# the default (MPI_Alloc_mem only) under the other.
SHMCOLL_HEAP=malloc run_tier build/mpich 'mpi' "MPI integration tests, MPICH, SHMCOLL_HEAP=malloc"
run_tier build/openmpi 'mpi' "MPI integration tests, Open MPI"
SHMCOLL_HEAP=malloc run_tier build/openmpi 'malloc' \
    "MPI integration tests, Open MPI, SHMCOLL_HEAP=malloc (a subset)"
run_tier build/mpich-asan 'mpi-asan' "the MPI layer under ASan+UBSan, MPICH (a subset)"
run_tier build/mpich-tsan 'mpi-tsan' "threaded MPI tests under ThreadSanitizer, MPICH"
tally_part "installation: both flavours into one prefix, used by preload, pkg-config and CMake" \
    bash tests/install/test_install.sh build/mpich build/openmpi
# MPICH's own collective and thread tests (a core list) and mpi4py's collective test modules,
# each natively and with libshmcoll preloaded at its defaults, under both MPI libraries
# (scripts/run-conformance.sh; `make test-conformance` runs the whole suites).
tally_part "conformance: MPICH's test suite (core list) and mpi4py's tests, native against preloaded" \
    bash scripts/run-conformance.sh core

shm_after=$(count_segments)
if [ "$shm_after" -gt "$shm_before" ]; then
    echo "leak check: $((shm_after - shm_before)) shmcoll segment(s) left in /dev/shm"
    failed=$((failed + 1))
else
    echo "leak check: no shmcoll segment left in /dev/shm"
    passed=$((passed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
