#!/usr/bin/env bash
# Installs the Debian packages shmcoll needs to build and test, when missing.
# Idempotent: does nothing (and needs no network) when everything is present.
set -euo pipefail

# shellcheck source=scripts/lib/apt.sh
. "$(dirname "$0")/lib/apt.sh"
have_cmd() { command -v "$1" >/dev/null 2>&1; }

# dpkg-dev: dpkg-source unpacks the MPICH sources of the conformance tests.
install_missing install-deps build-essential cmake ninja-build pkg-config libhwloc-dev hwloc \
    mpich libmpich-dev openmpi-bin libopenmpi-dev gfortran clang-format \
    python3 python3-dev python3-venv python3-pip python3-matplotlib \
    iproute2 util-linux shellcheck dpkg-dev
# gdb: the MPI tests print the stacks of a job that hangs (tests/mpi/run_mpi.py); they run without.
install_missing install-deps gdb ||
    echo "install-deps: gdb not installed: a hung MPI test will not print its stacks" >&2

for cmd in mpicc.mpich mpiexec.mpich mpicc.openmpi mpiexec.openmpi cmake clang-format; do
    have_cmd "$cmd" || { echo "install-deps: $cmd still missing" >&2; exit 1; }
done
