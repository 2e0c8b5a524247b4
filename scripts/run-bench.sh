#!/usr/bin/env bash
# Runs shmcoll-bench of build/<mpi> under that MPI's launcher: the table on standard output, the
# same rows as CSV in build/bench.csv (shmcoll-bench --csv-file), and their picture, speedup
# against size per collective, in build/bench.png (tools/bench/shmcoll-bench-plot, matplotlib).
# usage: scripts/run-bench.sh mpich|openmpi <nprocs> [shmcoll-bench options]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
    echo "usage: $0 mpich|openmpi <nprocs> [shmcoll-bench options]" >&2
    exit 2
fi
mpi=$1 np=$2
shift 2
bin=$PWD/build/$mpi/bin/shmcoll-bench
if [ ! -x "$bin" ]; then
    echo "run-bench: $bin not found; build it with: make lib MPI=$mpi" >&2
    exit 1
fi
launch=("mpiexec.$mpi" -n "$np")
[ "$mpi" = openmpi ] && launch+=(--allow-run-as-root --oversubscribe)
if [ "$np" -gt "$(nproc)" ]; then
    echo "run-bench: warning: $np ranks on $(nproc) cores; MPICH busy-polls when oversubscribed"
fi
csv=$PWD/build/bench.csv png=$PWD/build/bench.png
# Said first: the table's summary lines stay the last lines of the output.
echo "run-bench: $bin, p=$np; rows also in build/bench.csv, picture in build/bench.png"
rm -f "$csv" "$png"
status=0
"${launch[@]}" "$bin" --csv-file "$csv" "$@" || status=$?
[ -s "$csv" ] || exit $status # --help, --fingerprint or a failure before the first row
tools/bench/shmcoll-bench-plot "$csv" -o "$png" >/dev/null ||
    echo "run-bench: no picture: shmcoll-bench-plot failed on build/bench.csv" >&2
exit $status
