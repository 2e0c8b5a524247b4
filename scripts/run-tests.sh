#!/usr/bin/env bash
# Runs every test tier after `make test` has built build/asan, build/mpich and build/openmpi.
# Each tier prints its own summary; the script ends with one "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
run_tier() { # build-dir label-regex description
    local dir=$1 labels=$2 what=$3 log
    echo "=== $what ($dir, labels $labels)"
    log=$(mktemp)
    (cd "$dir" && ctest -L "$labels" --output-on-failure -j 1) 2>&1 | tee "$log"
    local p f
    p=$(sed -n 's/.* tests passed, \([0-9]*\) tests failed out of \([0-9]*\)/\2 \1/p' "$log" | tail -1)
    if [ -n "$p" ]; then
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
count_segments() { ls /dev/shm | grep -cE '^shmcoll-[0-9a-f]{32}$' || true; }
shm_before=$(count_segments)
run_tier build/asan 'unit|team|fault' "unit, team and fault tests under ASan+UBSan"
run_tier build/mpich 'unit|team' "unit and team tests, release build"
run_tier build/mpich 'mpi' "MPI integration tests, MPICH"
run_tier build/openmpi 'mpi' "MPI integration tests, Open MPI"

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
