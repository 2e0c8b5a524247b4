"""shmcoll under mpi4py: Allreduce, Reduce, Bcast and Barrier on buffers (array module, no
numpy, and MPI.Alloc_mem's, which come from shmcoll's shared heap), their non-blocking forms (Iallreduce, Ibcast, completed by Wait and Waitall) and, where
the library has them, the persistent Allreduce_init (Start, Wait), checked against values computed
locally. Rank 0 prints the "expect:" lines of the
SHMCOLL_STATS check (each operation once, as the library counts it) and a PASS/FAIL line; the
driver, run_mpi4py.py, compares them with the library's statistics. With an MPI-4 library
mpi4py calls the large-count entry points (MPI_Allreduce_c, ...), so this reaches them too."""
import array
import os
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []
tally = {"barrier": [0, 0], "bcast": [0, 0], "reduce": [0, 0], "allreduce": [0, 0],
         "iallreduce": [0, 0], "ibcast": [0, 0], "allreduce_init": [0, 0]}


def expect(coll, nbytes):
    if rank == 0:
        tally[coll][0] += 1
        tally[coll][1] += nbytes


def check(cond, what):
    if not cond:
        failures.append(what)


def value(r, i):
    return (r * 7919 + i * 31) % 1000 - 500


for n in (1, 7, 1000, 300000):
    send = array.array("d", (float(value(rank, i)) for i in range(n)))
    recv = array.array("d", bytes(8 * n))
    comm.Allreduce([send, MPI.DOUBLE], [recv, MPI.DOUBLE], op=MPI.SUM)
    expect("allreduce", 8 * n)
    want = [float(sum(value(r, i) for r in range(size))) for i in range(n)]
    check(list(recv) == want, f"Allreduce SUM n={n}")

    ints = array.array("i", (value(rank, i) for i in range(n)))
    comm.Allreduce(MPI.IN_PLACE, [ints, MPI.INT], op=MPI.MAX)
    expect("allreduce", 4 * n)
    check(list(ints) == [max(value(r, i) for r in range(size)) for i in range(n)],
          f"Allreduce MAX in place n={n}")

    for root in range(size):
        out = array.array("d", bytes(8 * n))
        comm.Reduce([send, MPI.DOUBLE], [out, MPI.DOUBLE] if rank == root else None,
                    op=MPI.SUM, root=root)
        expect("reduce", 8 * n)
        if rank == root:
            check(list(out) == want, f"Reduce SUM n={n} root={root}")

        buf = array.array("i", (value(root, i) if rank == root else 0 for i in range(n)))
        comm.Bcast([buf, MPI.INT], root=root)
        expect("bcast", 4 * n)
        check(list(buf) == [value(root, i) for i in range(n)], f"Bcast n={n} root={root}")

# Buffers from MPI.Alloc_mem: shmcoll serves them from its shared heap, where the allreduce moves
# each block once (the heap path, counted in the heap line of the statistics).
heap_calls = 0
n = 300000
smem, rmem = MPI.Alloc_mem(8 * n), MPI.Alloc_mem(8 * n)
sview, rview = memoryview(smem).cast("B").cast("d"), memoryview(rmem).cast("B").cast("d")
for i in range(n):
    sview[i] = float(value(rank, i))
comm.Allreduce([smem, MPI.DOUBLE], [rmem, MPI.DOUBLE], op=MPI.SUM)
expect("allreduce", 8 * n)
heap_calls += size > 1
check(list(rview) == [float(sum(value(r, i) for r in range(size))) for i in range(n)],
      "Allreduce on MPI.Alloc_mem buffers")
sview.release(), rview.release()
MPI.Free_mem(smem), MPI.Free_mem(rmem)

for n in (1, 1000, 300000):
    send = array.array("d", (float(value(rank, i)) for i in range(n)))
    recv = array.array("d", bytes(8 * n))
    comm.Iallreduce([send, MPI.DOUBLE], [recv, MPI.DOUBLE], op=MPI.SUM).Wait()
    expect("iallreduce", 8 * n)
    want = [float(sum(value(r, i) for r in range(size))) for i in range(n)]
    check(list(recv) == want, f"Iallreduce n={n}")

    ints = array.array("i", (value(rank, i) for i in range(n)))
    buf = array.array("i", (value(0, i) if rank == 0 else 0 for i in range(n)))
    requests = [comm.Iallreduce(MPI.IN_PLACE, [ints, MPI.INT], op=MPI.MAX),
                comm.Ibcast([buf, MPI.INT], root=0)]
    expect("iallreduce", 4 * n)
    expect("ibcast", 4 * n)
    MPI.Request.Waitall(requests)
    check(list(ints) == [max(value(r, i) for r in range(size)) for i in range(n)],
          f"Iallreduce MAX in place n={n}")
    check(list(buf) == [value(0, i) for i in range(n)], f"Ibcast n={n}")

if hasattr(comm, "Allreduce_init"):
    x = array.array("d", [0.0])
    y = array.array("d", [0.0])
    try:
        persistent = comm.Allreduce_init([x, MPI.DOUBLE], [y, MPI.DOUBLE], op=MPI.SUM)
    except NotImplementedError:
        persistent = None
    if persistent is not None:
        expect("allreduce_init", 0)
        for k in range(100):
            x[0] = float(rank + k)
            persistent.Start()
            persistent.Wait()
            if rank == 0:
                tally["allreduce_init"][1] += 8
            check(y[0] == size * k + size * (size - 1) / 2, f"Allreduce_init start {k}")
        persistent.Free()

for _ in range(3):
    comm.Barrier()
    expect("barrier", 0)

count = array.array("l", [len(failures)])
comm.Allreduce(MPI.IN_PLACE, [count, MPI.LONG], op=MPI.SUM)
expect("allreduce", 8)
total = count[0]
for what in failures[:10]:
    print(f"FAIL rank {rank}: {what}", file=sys.stderr)
if rank == 0:
    calls = sum(t[0] for t in tally.values())
    print(f"expect: handled={calls} fellback=0")
    if os.environ.get("SHMCOLL_HEAP", "alloc-mem") == "alloc-mem":  # malloc: array buffers too
        print(f"expect: heap calls={heap_calls}")
    for coll, (n_calls, n_bytes) in tally.items():
        if n_calls:  # Allreduce_init: not with every library
            print(f"expect: {coll} calls={n_calls} bytes={n_bytes} pmpi=0")
    print(f"{'FAIL' if total else 'PASS'} test_mpi4py: {total} failure(s) on {size} ranks",
          flush=True)
sys.exit(1 if total else 0)
