#!/usr/bin/env python3
"""shmcoll-bench across the simulated cluster, against the MPI library's default collectives and
its node-aware ones (Open MPI's coll/han, MPICH's "smp" algorithms).

    scripts/cluster.sh up 4
    scripts/cluster-bench.py [--mpi mpich,openmpi] [--shape 2x2,4x2] [--cyclic]
                             [--coll allreduce,bcast] [--min-size 8] [--max-size 16M] [--factor 8]
                             [--rounds 3] [--repeat 1] [--csv FILE]

For each library and shape it runs shmcoll-bench (build/<mpi>/bin) twice in the cluster: once as
the MPI library comes, once with its node-aware collectives selected. Each run times the MPI
library and shmcoll side by side, alternating, in the same job, so each speedup is a ratio from
one run; the table shows both and the lower of the two ("vs best"). With --repeat N each
configuration runs N times and the median of each column is shown.
"""
import argparse
import csv
import io
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# How each library's node-aware collectives are selected (environment of the ranks).
NODE_AWARE = {
    "openmpi": {"OMPI_MCA_coll_han_priority": "100"},
    "mpich": {
        "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": "smp",
        "MPIR_CVAR_BCAST_INTRA_ALGORITHM": "smp",
        "MPIR_CVAR_REDUCE_INTRA_ALGORITHM": "smp",
        "MPIR_CVAR_BARRIER_INTRA_ALGORITHM": "smp",
    },
}
NODE_AWARE_NAME = {"openmpi": "han", "mpich": "smp"}


def run_bench(mpi, nodes, ppn, cyclic, bench_args, env, timeout):
    cmd = [os.path.join(HERE, "cluster-run.sh"), mpi, str(nodes), str(ppn), "--timeout", str(timeout)]
    if mpi == "mpich":
        cmd += ["--accept-finalize-hang", "--finalize-grace", "3"]
    if cyclic:
        cmd.append("--cyclic")
    for k, v in env.items():
        cmd += ["--env", f"{k}={v}"]
    cmd += ["--", os.path.join(REPO, "build", mpi, "bin", "shmcoll-bench"), "--csv"] + bench_args
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rows = {}
    lines = [l for l in out.stdout.splitlines() if l and not l.startswith("#")]
    start = next((i for i, l in enumerate(lines) if l.startswith("collective,")), None)
    if start is None:
        sys.stderr.write(f"cluster-bench: no rows from {' '.join(cmd)}:\n{out.stdout}\n")
        return rows
    for r in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        if not r.get("bytes") or not r.get("shmcoll_us"):
            continue
        key = (r["collective"] + ("+cb" if r.get("cache_bust") == "1" else ""), int(r["bytes"]))
        rows[key] = (float(r["mpi_us"]), float(r["shmcoll_us"]))
    return rows


def median_rows(runs):
    keys = sorted({k for run in runs for k in run}, key=lambda k: (k[0], k[1]))
    out = {}
    for k in keys:
        vals = [run[k] for run in runs if k in run]
        out[k] = (statistics.median(v[0] for v in vals), statistics.median(v[1] for v in vals),
                  statistics.median(v[0] / v[1] for v in vals))
    return out


def size_text(n):
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return f"{n}B"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpi", default="openmpi,mpich")
    ap.add_argument("--shape", default="2x2,4x2")
    ap.add_argument("--cyclic", action="store_true")
    ap.add_argument("--coll", default="allreduce,bcast,reduce,allgather,reduce_scatter_block,alltoall")
    ap.add_argument("--min-size", default="8")
    ap.add_argument("--max-size", default="16M")
    ap.add_argument("--factor", default="8")
    ap.add_argument("--rounds", default="3")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--env", action="append", default=[], help="KEY=VALUE for the ranks")
    ap.add_argument("--csv", help="also write the rows as CSV to this file")
    a = ap.parse_args()
    bench_args = ["--coll", a.coll, "--min-size", a.min_size, "--max-size", a.max_size,
                  "--factor", a.factor, "--rounds", a.rounds, "--no-cache-bust-rows", "--no-copy"]
    extra = dict(e.split("=", 1) for e in a.env)
    table = []
    worst = None
    for mpi in a.mpi.split(","):
        for shape in a.shape.split(","):
            nodes, ppn = (int(x) for x in shape.split("x"))
            default = median_rows([run_bench(mpi, nodes, ppn, a.cyclic, bench_args, extra, a.timeout)
                                   for _ in range(a.repeat)])
            aware = median_rows([run_bench(mpi, nodes, ppn, a.cyclic, bench_args,
                                           {**extra, **NODE_AWARE[mpi]}, a.timeout)
                                 for _ in range(a.repeat)])
            place = "cyclic" if a.cyclic else "blocks"
            print(f"\n{mpi} {nodes}x{ppn} {place}: time per call (us); speedup = MPI / shmcoll in "
                  f"the same run; {NODE_AWARE_NAME[mpi]} = the library's node-aware collectives")
            print(f"{'collective':22} {'size':>6} {'default':>10} {'shmcoll':>10} {'x':>6} "
                  f"{NODE_AWARE_NAME[mpi]:>10} {'shmcoll':>10} {'x':>6} {'vs best':>8}")
            for key in sorted(default, key=lambda k: (a.coll.split(",").index(k[0].split("+")[0])
                                                       if k[0].split("+")[0] in a.coll.split(",")
                                                       else 99, k[1])):
                d = default[key]
                h = aware.get(key)
                best = min(d[2], h[2]) if h else d[2]
                hs = f"{h[0]:10.1f} {h[1]:10.1f} {h[2]:5.2f}x" if h else f"{'-':>10} {'-':>10} {'-':>6}"
                print(f"{key[0]:22} {size_text(key[1]):>6} {d[0]:10.1f} {d[1]:10.1f} {d[2]:5.2f}x "
                      f"{hs} {best:7.2f}x")
                table.append([mpi, shape, place, key[0], key[1], d[0], d[1], d[2],
                              h[0] if h else "", h[1] if h else "", h[2] if h else "", best])
                if worst is None or best < worst[0]:
                    worst = (best, f"{mpi} {shape} {key[0]} {size_text(key[1])}")
    if worst:
        print(f"\nworst speedup vs best: {worst[0]:.2f}x ({worst[1]})")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["mpi", "shape", "placement", "collective", "bytes", "default_us",
                        "shmcoll_us", "speedup", "nodeaware_us", "shmcoll2_us", "speedup2",
                        "speedup_vs_best"])
            w.writerows(table)


if __name__ == "__main__":
    main()
