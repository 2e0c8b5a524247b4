#!/usr/bin/env python3
"""Runs one MPI integration test under mpiexec and checks what it printed.

The launcher follows the MPI flavour the build was configured with (MPICH's hydra or Open MPI's
mpirun, which needs --allow-run-as-root and --oversubscribe on small machines). Environment
variables for the ranks, including LD_PRELOAD, are passed through the launcher so that the
launcher itself runs without them. Every run gets a private segment directory (SHMCOLL_SHM_DIR),
which must be empty afterwards: a run that leaves a shared segment behind fails. Runs set
SHMCOLL_COLLS_THRESHOLD=1 (shared memory from a communicator's first collective) and
SHMCOLL_CALIBRATE=0 (every call that shmcoll can serve is served by its algorithms, which is what
the tests test; test_calibrate turns it on) unless --env says otherwise, and pass SHMCOLL_HEAP on
from the environment (--env overrides it).

Checks, by option:
  (default)           exit status 0 and a "PASS" line from the program
  --check-stats       runs with SHMCOLL_STATS=1 and compares the library's statistics lines with
                      the "expect:" lines the program printed (see tests/mpi/mpi_check.h), the
                      shared heap's line too when the program said how many calls took it
  --disabled          with --check-stats: SHMCOLL_DISABLE=1 is set, so nothing may be handled
  --all-fallback      with --check-stats: nothing may be handled (e.g. shared memory unavailable)
  --expect-failure    the job must fail (non-zero exit), within --max-seconds
  --output-contains   text that must appear in the job's output (repeatable)
  --output-once       text that must appear exactly once (repeatable)
  --output-lacks      text that must not appear (repeatable)
  --error-names-rank  R: one of shmcoll's error lines ("shmcoll...error:") names rank R, as
                      "rank R" or by its pid, which the program printed as "... rank R is pid P"
                      (the library names a node team's members by their node rank and pid)

With --cluster NODESxPPN the job runs across the simulated cluster (scripts/cluster.sh up first)
through scripts/cluster-run.sh: NODES x PPN ranks, in blocks or, with --cyclic, round-robin; each
node then has its own /dev/shm, so the segment directory is made, and checked, in every node.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

BLOCKING = ("barrier", "bcast", "reduce", "allreduce", "reduce_scatter_block", "reduce_scatter",
            "scan", "exscan", "allgather", "allgatherv", "gather", "gatherv", "scatter", "scatterv",
            "alltoall", "alltoallv")
# In the library's order: the blocking forms, the non-blocking ones, the persistent ones (whose
# lines add starts=, the shared-memory runs their algorithms count).
COLLS = BLOCKING + tuple("i" + c for c in BLOCKING) + tuple(c + "_init" for c in BLOCKING)
HANDLED_RE = re.compile(r"^shmcoll: handled (\d+) calls, fell back (\d+)$")
COLL_RE = re.compile(
    r"^shmcoll: (\w+) calls=(\d+)(?: starts=(\d+))? bytes=(\d+) dav=(\d+)(?: net=\d+)? "
    r"algo=([\w.+-]+:\d+(?:,[\w.+-]+:\d+)*)$")
EXPECT_HANDLED_RE = re.compile(r"^expect: handled=(\d+) fellback=(\d+)$")
EXPECT_COLL_RE = re.compile(r"^expect: (\w+) calls=(\d+) bytes=(\d+) pmpi=(\d+)$")
EXPECT_DAV_RE = re.compile(r"^expect: (\w+) dav>=(\d+) dav<=(\d+)$")
HEAP_RE = re.compile(r"^shmcoll: heap: mode=\S+ calls=(\d+) ")
EXPECT_HEAP_RE = re.compile(r"^expect: heap calls=(\d+)$")


CLUSTER_SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                               "scripts")


def cluster_layout(spec):
    m = re.fullmatch(r"(\d+)x(\d+)", spec or "")
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise argparse.ArgumentTypeError(f"--cluster takes NODESxPPN, e.g. 2x2, not {spec!r}")
    return int(m.group(1)), int(m.group(2))


def in_cluster_nodes(nodes, *cmd):
    """Runs cmd inside each of the first `nodes` nodes; returns their outputs."""
    script = os.path.join(CLUSTER_SCRIPTS, "cluster.sh")
    return [subprocess.run(["bash", script, "exec", str(i), *cmd], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, check=False).stdout
            for i in range(nodes)]


def launcher(args, env):
    if args.cluster:
        nodes, ppn = args.cluster
        cmd = ["bash", os.path.join(CLUSTER_SCRIPTS, "cluster-run.sh"), args.flavour, str(nodes),
               str(ppn), "--timeout", str(int(args.timeout))]
        if args.cyclic:
            cmd.append("--cyclic")
        cmd += args.cluster_arg
        for key, value in env.items():
            cmd += ["--env", f"{key}={value}"]
        return cmd + ["--"]
    if args.flavour == "openmpi":
        cmd = [args.mpiexec, "--allow-run-as-root", "--oversubscribe", "-n", str(args.n)]
        for key, value in env.items():
            cmd += ["-x", f"{key}={value}"]
    else:
        cmd = [args.mpiexec, "-n", str(args.n)]
        for key, value in env.items():
            cmd += ["-genv", key, value]
    return cmd


def parse_stats(lines):
    handled, colls = None, {}
    for line in lines:
        m = HANDLED_RE.match(line)
        if m:
            if handled is not None:
                return None, None, "the 'handled' line appears more than once"
            handled = (int(m.group(1)), int(m.group(2)))
            continue
        m = COLL_RE.match(line)
        if m:
            name = m.group(1)
            if name not in COLLS or name in colls:
                return None, None, f"unexpected or repeated statistics line: {line}"
            algos = {}
            for item in m.group(6).split(","):
                algo, count = item.rsplit(":", 1)
                algos[algo] = int(count)
            colls[name] = dict(calls=int(m.group(2)), bytes=int(m.group(4)),
                               dav=int(m.group(5)), algos=algos,
                               runs=int(m.group(3)) if m.group(3) is not None else None)
        elif line.startswith("shmcoll: ") and re.match(r"^shmcoll: \w+ calls=", line):
            return None, None, f"malformed statistics line: {line}"
    if handled is None:
        return None, None, "no 'shmcoll: handled N calls, fell back M' line"
    order = [c for c in COLLS if c in colls]
    printed = [l.split()[1] for l in lines if COLL_RE.match(l)]
    if printed != order:
        return None, None, f"statistics lines out of order: {printed}"
    return handled, colls, None


def check_stats(stdout_lines, stderr_lines, disabled):
    errors = []
    handled, colls, error = parse_stats(stderr_lines)
    if error:
        return [error]
    expect_handled, expect_colls, expect_dav = None, {}, {}
    for line in stdout_lines:
        m = EXPECT_HANDLED_RE.match(line)
        if m:
            expect_handled = (int(m.group(1)), int(m.group(2)))
        m = EXPECT_COLL_RE.match(line)
        if m:
            expect_colls[m.group(1)] = dict(calls=int(m.group(2)), bytes=int(m.group(3)),
                                            pmpi=int(m.group(4)))
        m = EXPECT_DAV_RE.match(line)
        if m:
            expect_dav[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    if expect_handled is None:
        return ["the program printed no 'expect:' lines"]
    # Operations that took the shared-heap path (the program may say how many it expects).
    expect_heap = [int(m.group(1)) for m in map(EXPECT_HEAP_RE.match, stdout_lines) if m]
    heap = [int(m.group(1)) for m in map(HEAP_RE.match, stderr_lines) if m]
    if expect_heap:
        want_heap = 0 if disabled else expect_heap[-1]
        if heap != [want_heap]:
            errors.append(f"heap calls {heap or 'not reported'}, expected {want_heap}")
    if disabled:
        expect_handled = (0, expect_handled[0] + expect_handled[1])
        for e in expect_colls.values():
            e["pmpi"] = e["calls"]
    if handled != expect_handled:
        errors.append(f"handled/fell back {handled}, expected {expect_handled}")
    for name in COLLS:
        got, want = colls.get(name), expect_colls.get(name)
        if want is None:
            if got is not None:
                errors.append(f"{name}: reported {got['calls']} calls, the program made none")
            continue
        if got is None:
            errors.append(f"{name}: no statistics line, expected {want['calls']} calls")
            continue
        for key in ("calls", "bytes"):
            if got[key] != want[key]:
                errors.append(f"{name}: {key}={got[key]}, expected {want[key]}")
        runs = got["calls"] if got["runs"] is None else got["runs"] + got["algos"].get("pmpi", 0)
        if sum(got["algos"].values()) != runs:
            errors.append(f"{name}: algorithm counts {got['algos']} do not add up to calls")
        if got["algos"].get("pmpi", 0) != want["pmpi"]:
            errors.append(f"{name}: pmpi:{got['algos'].get('pmpi', 0)}, expected {want['pmpi']}")
        if disabled and got["dav"] != 0:
            errors.append(f"{name}: dav={got['dav']} although nothing was handled")
        if name in expect_dav and not disabled:
            low, high = expect_dav[name]
            if not low <= got["dav"] <= high:
                errors.append(f"{name}: dav={got['dav']} outside [{low}, {high}]")
    return errors


def names_rank(output, rank):
    """Whether an error line of shmcoll names `rank`: "rank R" (not followed by a digit) or the
    pid the program reported for it ("rank R is pid P")."""
    pids = set(re.findall(rf"\brank {rank} is pid (\d+)\b", output))
    names = [rf"\brank {rank}(?!\d)"] + [rf"\bpid {pid}\b" for pid in pids]
    lines = [line for line in output.splitlines() if re.match(r"^shmcoll(\[\d+\])?: error:", line)]
    return any(re.search(name, line) for line in lines for name in names)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flavour", required=True, choices=("mpich", "openmpi"))
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("-n", type=int, help="number of ranks (with --cluster: NODES x PPN)")
    parser.add_argument("--cluster", type=cluster_layout, metavar="NODESxPPN",
                        help="run across the simulated cluster (scripts/cluster-run.sh)")
    parser.add_argument("--cyclic", action="store_true",
                        help="with --cluster: rank r on node r mod NODES")
    parser.add_argument("--cluster-arg", action="append", default=[],
                        help="one more option for cluster-run.sh (repeatable)")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the ranks")
    parser.add_argument("--preload", help="library to LD_PRELOAD into the ranks")
    parser.add_argument("--check-stats", action="store_true")
    parser.add_argument("--disabled", action="store_true")
    parser.add_argument("--all-fallback", action="store_true")
    parser.add_argument("--expect-failure", action="store_true")
    parser.add_argument("--max-seconds", type=float)
    parser.add_argument("--output-contains", action="append", default=[])
    parser.add_argument("--output-once", action="append", default=[])
    parser.add_argument("--output-lacks", action="append", default=[])
    parser.add_argument("--output-matches", action="append", default=[],
                        help="a line of the output must match this regular expression")
    parser.add_argument("--error-names-rank", type=int, action="append", default=[])
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        parser.error("no program given")
    if args.cluster:
        if args.n not in (None, args.cluster[0] * args.cluster[1]):
            parser.error("-n differs from NODES x PPN of --cluster")
        args.n = args.cluster[0] * args.cluster[1]
    elif args.n is None:
        parser.error("-n is required (or --cluster)")

    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    shm_dir = tempfile.mkdtemp(prefix="shmcoll-test-", dir=base)
    if args.cluster:  # each node has a /dev/shm of its own
        in_cluster_nodes(args.cluster[0], "mkdir", "-m", "700", "-p", shm_dir)
    # No tuning file of the machine's: the tests choose their algorithms themselves. Shared
    # memory from a communicator's first collective (the library waits for its fifth), so that
    # the tests see every call served; a test of the threshold sets it with --env.
    env = {"SHMCOLL_SHM_DIR": shm_dir, "SHMCOLL_TUNE_DIR": shm_dir, "SHMCOLL_COLLS_THRESHOLD": "1",
           "SHMCOLL_CALIBRATE": "0"}
    # Where the buffers come from (SHMCOLL_HEAP=malloc: every large allocation from the shared
    # heap) is the caller's to choose for every test (make test sets it for one MPI library).
    if os.environ.get("SHMCOLL_HEAP"):
        env["SHMCOLL_HEAP"] = os.environ["SHMCOLL_HEAP"]
    if args.check_stats:
        env["SHMCOLL_STATS"] = "1"
    if args.disabled:
        env["SHMCOLL_DISABLE"] = "1"
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value
    if args.preload:
        env["LD_PRELOAD"] = os.path.abspath(args.preload)
    cmd = launcher(args, env) + program
    print("run:", " ".join(cmd), flush=True)

    start = time.monotonic()
    try:
        # cluster-run.sh bounds the job itself and then cleans up the nodes: give it that time.
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              errors="replace",
                              timeout=args.timeout + (30 if args.cluster else 0))
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        rc = None
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout or ""
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr or ""
    elapsed = time.monotonic() - start
    sys.stdout.write(out)
    sys.stdout.write(err)
    print(f"exit status {rc}, {elapsed:.1f} s", flush=True)

    errors = []
    if rc is None:
        errors.append(f"no exit within {args.timeout:.0f} s")
    elif args.expect_failure:
        if rc == 0:
            errors.append("the job succeeded, a failure was expected")
    else:
        if rc != 0:
            errors.append(f"exit status {rc}")
        if not re.search(r"^PASS ", out, re.M):
            errors.append("no PASS line")
    if args.max_seconds is not None and elapsed > args.max_seconds:
        errors.append(f"took {elapsed:.1f} s, more than {args.max_seconds:.0f} s")
    for text in args.output_contains:
        if text not in out + err:
            errors.append(f"output does not contain {text!r}")
    for text in args.output_once:
        if (out + err).count(text) != 1:
            errors.append(f"output contains {text!r} {(out + err).count(text)} times, not once")
    for text in args.output_lacks:
        if text in out + err:
            errors.append(f"output contains {text!r}")
    for pattern in args.output_matches:
        if not re.search(pattern, out + err, re.M):
            errors.append(f"no output line matches {pattern!r}")
    for rank in args.error_names_rank:
        if not names_rank(out + err, rank):
            errors.append(f"no error line of shmcoll names rank {rank} (nor its pid)")
    if args.check_stats and rc == 0:
        errors += check_stats(out.splitlines(), err.splitlines(),
                              args.disabled or args.all_fallback)

    left = os.listdir(shm_dir)
    shutil.rmtree(shm_dir, ignore_errors=True)
    if args.cluster:
        for i, out in enumerate(in_cluster_nodes(args.cluster[0], "sh", "-c",
                                                 'ls -A "$1"; rm -rf "$1"', "-", shm_dir)):
            left += [f"node{i}:{name}" for name in out.split()]
    if left:
        errors.append(f"segment(s) left behind: {left}")

    for e in errors:
        print("ERROR:", e)
    print("run_mpi: " + ("FAILED" if errors else "OK"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
