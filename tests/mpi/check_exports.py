#!/usr/bin/env python3
"""Checks the dynamic symbol table of libshmcoll: only MPI_* (and Open MPI's MPIX_*) entry points,
the C library's allocator functions (SHMCOLL_HEAP=malloc) and the public shmcoll_* API are exported
(no PMPI_*, no internal symbols), and every interposed
entry point is there: the blocking collectives, their non-blocking and persistent forms (MPI-4's
MPI_*_init, or Open MPI 4's MPIX_*_init), the request calls, and the MPI-4 large-count twins when
the MPI library underneath has them."""
import re
import subprocess
import sys

COLLECTIVES = ["MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Reduce_scatter_block",
               "MPI_Reduce_scatter", "MPI_Scan", "MPI_Exscan", "MPI_Allgather", "MPI_Allgatherv",
               "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Alltoall",
               "MPI_Alltoallv"]
LARGE_COUNT = [name + "_c" for name in COLLECTIVES]
NONBLOCKING = ["MPI_I" + name[4].lower() + name[5:] for name in ["MPI_Barrier"] + COLLECTIVES]
PERSISTENT = [name + "_init" for name in ["MPI_Barrier"] + COLLECTIVES]
REQUESTS = ["MPI_Wait", "MPI_Test", "MPI_Waitall", "MPI_Testall", "MPI_Waitany", "MPI_Testany",
            "MPI_Waitsome", "MPI_Testsome", "MPI_Request_get_status", "MPI_Request_free",
            "MPI_Start", "MPI_Startall"]
# SHMCOLL_HEAP=malloc serves large allocations from the shared heap (src/mpi/heap_malloc.c).
ALLOCATOR = ["malloc", "free", "calloc", "realloc", "memalign", "aligned_alloc", "posix_memalign",
             "valloc", "pvalloc", "malloc_usable_size"]
# MPICH over UCX: the poll of its progress loop, where shmcoll's operations in flight move
# (src/mpi/library_progress.h).
PROGRESS_HOOK = ["ucp_worker_progress"]
REQUIRED = ["MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Barrier", "MPI_Alloc_mem",
            "MPI_Free_mem",
            "shmcoll_version", "shmcoll_stats_dav", "shmcoll_fingerprint"] + COLLECTIVES + \
    NONBLOCKING + REQUESTS + ALLOCATOR


def defined_symbols(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], check=True, text=True,
                         stdout=subprocess.PIPE).stdout
    symbols = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] not in ("A",):  # "A": version node names
            symbols.add(parts[2].split("@")[0])
    return symbols


def mpi_library(path):
    out = subprocess.run(["ldd", path], check=True, text=True, stdout=subprocess.PIPE).stdout
    for line in out.splitlines():
        m = re.match(r"\s*(libmpi\S*\.so\S*) => (\S+)", line)
        if m:
            return m.group(2)
    return None


def main():
    lib = sys.argv[1]
    exported = defined_symbols(lib)
    errors = [f"exported but not public: {s}" for s in sorted(exported)
              if not re.match(r"^(MPI_|MPIX_|mpi_|shmcoll_)", s) and s not in ALLOCATOR
              and s not in PROGRESS_HOOK]
    required = list(REQUIRED)
    mpi = mpi_library(lib)
    if mpi is None:
        errors.append("libshmcoll is not linked with an MPI library")
    else:
        library = defined_symbols(mpi)
        if "PMPI_Allreduce_c" in library:
            required += LARGE_COUNT + [name + "_c" for name in NONBLOCKING[1:] + PERSISTENT[1:]]
        if "PMPI_Allreduce_init" in library:
            required += PERSISTENT
        elif "PMPIX_Allreduce_init" in library:
            required += [name.replace("MPI_", "MPIX_", 1) for name in PERSISTENT]
    errors += [f"missing: {s}" for s in required if s not in exported]
    print(f"{lib}: {len(exported)} exported symbols: {' '.join(sorted(exported))}")
    for e in errors:
        print("ERROR:", e)
    print("PASS exports" if not errors else "FAIL exports")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
