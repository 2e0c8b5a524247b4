#!/usr/bin/env bash
# Runs shmcoll-bench of build/<mpi> under that MPI's launcher.
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
echo "run-bench: $bin, p=$np"
exec "${launch[@]}" "$bin" "$@"
