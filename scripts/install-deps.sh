#!/usr/bin/env bash
# Installs the Debian packages shmcoll needs to build and test, when missing.
# Idempotent: does nothing (and needs no network) when everything is present.
set -euo pipefail

need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

for pkg in build-essential cmake ninja-build pkg-config libhwloc-dev hwloc \
           mpich libmpich-dev openmpi-bin libopenmpi-dev gfortran clang-format \
           python3 python3-dev python3-venv python3-pip python3-matplotlib \
           iproute2 util-linux shellcheck \
           dpkg-dev; do  # dpkg-dev: dpkg-source unpacks the MPICH sources of the conformance tests
    have_pkg "$pkg" || need+=("$pkg")
done

if [ ${#need[@]} -gt 0 ]; then
    echo "install-deps: installing ${need[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi

for cmd in mpicc.mpich mpiexec.mpich mpicc.openmpi mpiexec.openmpi cmake clang-format; do
    have_cmd "$cmd" || { echo "install-deps: $cmd still missing" >&2; exit 1; }
done
