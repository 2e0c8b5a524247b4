#!/usr/bin/env python3
"""Checks the Fortran entry points libshmcoll exports (src/mpi/fortran.h).

MPI_INIT and MPI_INIT_THREAD in the five spellings below, each its own forwarder. For
MPI_FINALIZE, MPI_ALLOC_MEM, MPI_FREE_MEM and every collective: the four spellings mpi_x,
mpi_x_, mpi_x__ and MPI_X, all at one address (one body; MPI_ALLOC_MEM's C_PTR variant
mpi_alloc_mem_cptr too); the mpi_f08 spelling mpi_x_f08_ where the MPI library's mpi_f08 procedure
takes plain addresses (Open MPI: all of them; MPICH: only MPI_Barrier, MPI_Finalize and
MPI_Alloc_mem, whose mpi_f08 procedures call PMPI_* directly; its others call the C entry points
themselves). No
profiling spelling (pmpi_x, PMPI_X) and no other lower-case mpi_ symbol may be exported, but for
MPICH the mpi_f08 request calls (mpi_wait_f08_ ...), which its mpi_f08 binds to PMPI_* too.

Usage: check_fortran_exports.py <libshmcoll.so> <mpich|openmpi>
"""
import subprocess
import sys

PROCEDURES = ["finalize", "barrier", "bcast", "reduce", "allreduce", "reduce_scatter_block",
              "reduce_scatter", "allgather", "allgatherv", "gather", "gatherv", "scatter",
              "scatterv", "alltoall", "alltoallv", "scan", "exscan", "alloc_mem", "free_mem"]
MPICH_F08 = ["finalize", "barrier", "alloc_mem"]
# MPI_ALLOC_MEM's TYPE(C_PTR) variant of mpif.h and `use mpi`: the same body (src/mpi/fortran_alloc_mem.c).
CPTR = {"alloc_mem": "alloc_mem_cptr"}
# MPICH's mpi_f08 request calls call PMPI_* directly; libshmcoll defines them (mpi_x_f08_ only).
MPICH_F08_REQUESTS = ["wait", "waitall", "waitany", "waitsome", "test", "testall", "testany",
                      "testsome", "request_get_status"]
# MPI_INIT and MPI_INIT_THREAD forward to the MPI library's own procedure of each spelling, so
# each spelling is a body of its own (src/mpi/fortran_init.c), mpi_f08's included.
INIT = ["init", "init_thread"]


def exported(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], check=True, text=True,
                         stdout=subprocess.PIPE).stdout
    symbols = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] != "A":
            symbols[parts[2].split("@")[0]] = parts[0]
    return symbols


def main():
    lib, flavour = sys.argv[1], sys.argv[2]
    symbols = exported(lib)
    errors = []
    expected = set()
    for proc in PROCEDURES:
        lower = "mpi_" + proc
        names = [lower, lower + "_", lower + "__", lower.upper()]
        if flavour == "openmpi" or proc in MPICH_F08:
            names.append(lower + "_f08_")
        if proc in CPTR:
            cptr = "mpi_" + CPTR[proc]
            names += [cptr, cptr + "_", cptr + "__", cptr.upper()]
        expected.update(names)
        missing = [n for n in names if n not in symbols]
        if missing:
            errors.append(f"{proc}: missing {' '.join(missing)}")
            continue
        addresses = {symbols[n] for n in names}
        if len(addresses) != 1:
            errors.append(f"{proc}: the spellings are not one body: "
                          + " ".join(f"{n}@{symbols[n]}" for n in names))
    for proc in INIT:
        lower = "mpi_" + proc
        names = [lower, lower + "_", lower + "__", lower.upper(), lower + "_f08_"]
        expected.update(names)
        missing = [n for n in names if n not in symbols]
        if missing:
            errors.append(f"{proc}: missing {' '.join(missing)}")
    if flavour == "mpich":
        for proc in MPICH_F08_REQUESTS:
            name = "mpi_" + proc + "_f08_"
            expected.add(name)
            if name not in symbols:
                errors.append(f"{proc}: missing {name}")
    for name in sorted(symbols):
        if name.lower().startswith("pmpi_"):
            errors.append(f"profiling entry point exported: {name}")
        elif name.startswith("mpi_") and name not in expected:
            errors.append(f"unexpected Fortran symbol exported: {name}")
    print(f"{lib}: {len(expected)} Fortran entry points expected for {flavour}")
    for e in errors:
        print("ERROR:", e)
    print("PASS fortran exports" if not errors else "FAIL fortran exports")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
