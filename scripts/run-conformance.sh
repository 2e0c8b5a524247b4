#!/usr/bin/env bash
# Runs the conformance suites against libshmcoll, preloaded at its shipped defaults, each test
# compared with a native run of the same test: MPICH's own collective and thread tests
# (test/mpi/coll and test/mpi/threads of Debian's mpich sources, built against each MPI library
# by scripts/build-mpich-tests.sh) and mpi4py's own unit tests. Why: they are written by the MPI
# implementors, not by us, and every test that passes natively must pass with shmcoll.
#
#   core   the core list (tests/conformance/core.list, p <= 4) and mpi4py's collective test
#          modules (test_cco_*): what `make test` runs (scripts/run-tests.sh calls each part)
#   full   every test of coll/, threads/ and errors/coll/ at p up to 8, and all of mpi4py's tests
#          (`make test-conformance`)
#   cluster  MPICH's core list across two simulated nodes (scripts/cluster.sh, which must be up
#          with 2 nodes; docs/CLUSTER.md), ranks round-robin (rank r on node r mod 2): the node
#          phases and the network steps that shmcoll composes, under the implementors' tests
#          (`make test-cluster` runs it)
#
# usage: scripts/run-conformance.sh core|full|cluster [mpich] [openmpi]   (default: both)
# Expects build/<mpi>/lib/libshmcoll.so (make build-<mpi>); builds the suites when missing.
# Reports and the output of each failed preloaded run go to build/conformance/<mpi>/; the last
# line is "conformance: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

mode=${1:?usage: run-conformance.sh core|full|cluster [mpich] [openmpi]}
shift
case $mode in
core | full | cluster) ;;
*) echo "run-conformance: unknown mode '$mode' (core, full or cluster)" >&2; exit 2 ;;
esac
mpis=("$@")
[ ${#mpis[@]} -gt 0 ] || mpis=(mpich openmpi)

# shellcheck source=scripts/lib/tally.sh
. "$(dirname "$0")/lib/tally.sh"

start=$SECONDS
for mpi in "${mpis[@]}"; do
    if ! bash scripts/build-mpich-tests.sh "$mpi"; then
        echo "run-conformance: MPICH's test suite could not be built against $mpi"
        failed=$((failed + 1))
        continue
    fi
    suite=(--flavour "$mpi" --tests "build/conformance/$mpi" --lib "build/$mpi/lib/libshmcoll.so"
           --report "build/conformance/$mpi/report-$mode.txt"
           --logs "build/conformance/$mpi/logs-$mode")
    mpi4py=(--flavour "$mpi" --lib "build/$mpi/lib/libshmcoll.so" --venv "build/$mpi/python-venv"
            --work "build/conformance/mpi4py-$mpi")
    # Under MPICH mpi4py's tests must run natively; under Open MPI they are compared where they do.
    [ "$mpi" = mpich ] && mpi4py+=(--required)
    [ "$mode" = full ] && mpi4py+=(--max-restarts 30)
    if [ "$mode" != full ]; then
        suite+=(--list tests/conformance/core.list --default-time-limit 60)
        mpi4py+=(-i test_cco_ --stall 30 --max-restarts 6)
    fi
    [ "$mode" != cluster ] || suite+=(--cluster 2c)
    tally_part "MPICH's coll/, threads/ and errors/coll/ tests, $mode, $mpi" \
        nice -n 5 python3 tests/conformance/run_mpich_suite.py "${suite[@]}"
    # At p = 2 across two nodes every rank is alone on its node: mpi4py's tests would test the
    # MPI library alone.
    [ "$mode" != cluster ] || continue
    tally_part "mpi4py's own tests at p = 2, $mode, $mpi" \
        nice -n 5 python3 tests/conformance/run_mpi4py_suite.py "${mpi4py[@]}"
done
echo "run-conformance: $mode done in $((SECONDS - start)) s"
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
