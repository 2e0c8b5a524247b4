#!/usr/bin/env bash
# Installs the Debian-packaged MPI applications that `make apps` runs (scripts/run-apps.sh), when
# missing: CP2K, LAMMPS with its examples, Quantum ESPRESSO with its documentation package (which
# carries its examples and pseudopotentials, if any), HPC Challenge (hpcc) and mpi4py. All of them
# are built against Open MPI in Debian; the measurements preload build/openmpi's shmcoll.
# Idempotent: does nothing (and needs no network) when everything is present.
set -euo pipefail

# shellcheck source=scripts/lib/apt.sh
. "$(dirname "$0")/lib/apt.sh"

install_missing install-apps cp2k cp2k-data lammps lammps-examples quantum-espresso \
    quantum-espresso-data hpcc python3-mpi4py python3-numpy python3-matplotlib openmpi-bin

for cmd in cp2k.psmp lmp pw.x hpcc mpiexec.openmpi; do
    command -v "$cmd" >/dev/null 2>&1 || { echo "install-apps: $cmd still missing" >&2; exit 1; }
done
/usr/bin/python3 -c 'import mpi4py, numpy' || { echo "install-apps: mpi4py or numpy missing" >&2; exit 1; }
