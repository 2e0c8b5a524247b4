#!/usr/bin/env python3
"""Runs one Fortran MPI test program through run_mpi.py with SHMCOLL_STATS=1 and checks that its
collectives reached shmcoll.

run_mpi.py launches the job and checks the exit status, the program's PASS line and leftover
segments. The program (collectives.inc) prints how many calls of each collective every rank made:

    fortran-calls: barrier=2 bcast=6 reduce=2 ...

Every call is made on MPI_COMM_WORLD, so by the counting rule of SHMCOLL_STATS the library reports
exactly that many calls for each collective it serves. This script requires:
  - "shmcoll: handled N calls, fell back M" with N > 0;
  - for every collective with a statistics line: as many calls as the program made (each Fortran
    call passed through shmcoll's C entry point), and a program that made that collective;
  - a statistics line for each collective named by --require (those shmcoll serves for sure).
Collectives the program made but the library does not report are listed: their calls went to the
MPI library's own C entry points (shmcoll does not wrap them).

Usage: run_fortran.py [--require barrier,bcast,...] -- <run_mpi.py arguments>
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
import run_mpi  # noqa: E402  (its statistics formats)

CALLS_RE = re.compile(r"^fortran-calls:((?: \w+=\d+)+)$")
STATS_LINE_RE = re.compile(r"^shmcoll: (\w+) calls=(\d+) ")


def check(output, required):
    errors = []
    lines = output.splitlines()
    made = None
    for line in lines:
        m = CALLS_RE.match(line)
        if m:
            made = {k: int(v) for k, v in (item.split("=") for item in m.group(1).split())}
    if made is None:
        return ["the program printed no 'fortran-calls:' line"]

    handled = None
    reported = {}
    for line in lines:
        m = run_mpi.HANDLED_RE.match(line)
        if m:
            handled = (int(m.group(1)), int(m.group(2)))
            continue
        m = STATS_LINE_RE.match(line)
        if m:
            reported[m.group(1)] = int(m.group(2))
    if handled is None:
        return ["no 'shmcoll: handled N calls, fell back M' line: MPI_FINALIZE did not reach "
                "shmcoll, or SHMCOLL_STATS is off"]
    if handled[0] == 0:
        errors.append("shmcoll handled no call: the Fortran collectives did not reach it")

    for name, calls in sorted(reported.items()):
        if name not in made:
            errors.append(f"{name}: reported {calls} calls, the program made none")
        elif calls != made[name]:
            errors.append(f"{name}: reported {calls} calls, the program made {made[name]}")
    for name in required:
        if name not in reported:
            errors.append(f"{name}: no statistics line, the program made {made.get(name, 0)} calls")
    unserved = [name for name in made if made[name] and name not in reported]
    if unserved:
        print("run_fortran: not wrapped by shmcoll (served by the MPI library):",
              " ".join(unserved))
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--require", default="barrier,bcast,reduce,allreduce",
                        help="comma-separated collectives that must be reported")
    parser.add_argument("run_mpi_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    forwarded = args.run_mpi_args[1:] if args.run_mpi_args[:1] == ["--"] else args.run_mpi_args
    if not forwarded:
        parser.error("no run_mpi.py arguments given")

    cmd = [sys.executable, run_mpi.__file__, "--env", "SHMCOLL_STATS=1"] + forwarded
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace")
    sys.stdout.write(proc.stdout)
    errors = [] if proc.returncode == 0 else ["run_mpi.py failed"]
    if proc.returncode == 0:
        errors += check(proc.stdout, [n for n in args.require.split(",") if n])
    for e in errors:
        print("ERROR:", e)
    print("run_fortran: " + ("FAILED" if errors else "OK"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
