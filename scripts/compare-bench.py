#!/usr/bin/env python3
"""Compares shmcoll-bench runs of two libraries (before, after) on the same machine: the check
"no row that was faster loses more than 5%" as geometric means over the rows below 4 KiB and from
4 KiB, and the columns' absolute times, which show how much of a change is the machine's.

    # alternate the two libraries in one window, the same bench binary for both:
    mpiexec.mpich -n 2 -env LD_PRELOAD $OLD/libshmcoll.so build/mpich/bin/shmcoll-bench > b1.log
    mpiexec.mpich -n 2 -env LD_PRELOAD $NEW/libshmcoll.so build/mpich/bin/shmcoll-bench > a1.log
    ... (b2.log, a2.log)
    scripts/compare-bench.py b1.log,b2.log a1.log,a2.log

Each run's speedup of a row is the MPI library's time over shmcoll's from that run; a row's value
over several runs is their geometric mean. The MPI library's column is not a fixed reference
between libraries: the preloaded library changes the process (its shared heap, the MPI library's
progress hook), and the machine's state drifts between runs, so the absolute columns are printed
too.
"""
import math
import re
import sys

ROW = re.compile(r"^(\S+)\s+(\S+)\s+\d+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x")
UNITS = {"B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def rows(path):
    """{"collective size": (MPI us, shmcoll us, speedup)} of one shmcoll-bench output."""
    found = {}
    with open(path) as f:
        for line in f:
            m = ROW.match(line)
            if m:
                found[m.group(1) + " " + m.group(2)] = tuple(float(m.group(i)) for i in (3, 4, 5))
    return found


def size(key):
    text = key.split()[1]
    return int(text[:-1]) * UNITS[text[-1]] if text[:-1].isdigit() else 0


def gmean(values):
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before = [rows(p) for p in sys.argv[1].split(",")]
    after = [rows(p) for p in sys.argv[2].split(",")]
    keys = [k for k in before[0] if all(k in run for run in before + after)]
    if not keys:
        sys.exit("compare-bench: no row common to every run")

    def row(runs, k, i):
        return gmean(run[k][i] for run in runs)

    for name, chosen in (("below 4 KiB", lambda k: size(k) < 4096),
                         ("from 4 KiB", lambda k: size(k) >= 4096)):
        ks = [k for k in keys if chosen(k)]
        faster = [k for k in ks if row(before, k, 2) > 1.0]
        kept = gmean(row(after, k, 2) / row(before, k, 2) for k in faster)
        print(f"{name}: {len(ks)} rows; speedup geomean before {gmean(row(before, k, 2) for k in ks):.3f}"
              f", after {gmean(row(after, k, 2) for k in ks):.3f}; the {len(faster)} rows faster "
              f"before: after/before {kept:.3f}")
        print(f"  absolute time after/before: the MPI library's column "
              f"{gmean(row(after, k, 0) / row(before, k, 0) for k in ks):.3f}, shmcoll's "
              f"{gmean(row(after, k, 1) / row(before, k, 1) for k in ks):.3f}")
    for label, runs in (("before", before), ("after", after)):
        print(f"{label}: rows below 0.95x per run {[sum(r[k][2] < 0.95 for k in keys) for r in runs]}"
              f", worst {[min(r[k][2] for k in keys) for r in runs]}")
    losses = sorted((row(after, k, 2) / row(before, k, 2), k) for k in keys
                    if row(before, k, 2) > 1.0)
    print("largest losses among the rows faster before (after/before speedup):")
    for ratio, k in losses[:10]:
        print(f"  {ratio:.2f}  {k:<28} before {[r[k][2] for r in before]} after "
              f"{[r[k][2] for r in after]}")


if __name__ == "__main__":
    main()
