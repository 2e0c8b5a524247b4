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
from the environment (--env overrides it). With --defaults no library knob is set at all: the
library runs as shipped, as a new user gets it (see below).

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
  --check-served      runs with SHMCOLL_STATS=1 and requires the line "shmcoll: handled N calls"
                      with N > 0: the library was loaded and served calls (for runs whose program
                      prints no "expect:" lines, e.g. preloaded ones)
  --expect-config-warning KNOB
                      exactly one line "shmcoll[0]: warning: ..." naming the variable KNOB, and no
                      warning naming it from another rank: ranks configured differently are told
                      so once (repeatable)

Environment:
  --env KEY=VALUE     for every rank
  --rank-env RANKS:KEY=VALUE
                      for some ranks only (RANKS: R or R-S), through the launcher's MPMD syntax
                      (MPICH: -n 1 -env K V prog : -n 1 prog; Open MPI: -n 1 -x K=V prog : ...)
  --defaults          no library knob of the tests' own (SHMCOLL_COLLS_THRESHOLD, SHMCOLL_CALIBRATE,
                      SHMCOLL_HEAP) and none inherited from the caller's environment: the shipped
                      defaults. Only the private segment and tuning directories remain (where the
                      files go, not how calls are served; the empty tuning directory stands for a
                      machine where no tuning file was written), and what a check needs
                      (SHMCOLL_STATS), and what --env and --rank-env give.

A run that exceeds --timeout is ended with its launcher and every process the launcher started,
after the stacks of every thread of its ranks are printed (gdb, where installed): a hang that
comes once in hundreds of runs then says where each rank waited.

With --cluster NODESxPPN the job runs across the simulated cluster (scripts/cluster.sh up first)
through scripts/cluster-run.sh: NODES x PPN ranks, in blocks or, with --cyclic, round-robin; each
node then has its own /dev/shm, so the segment directory is made, and checked, in every node.
"""
import argparse
import os
import re
import shutil
import signal
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
RANK_ENV_RE = re.compile(r"^(\d+)(?:-(\d+))?:([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
WARNING_RE = re.compile(r"^shmcoll\[(\d+)\]: warning: (.*)$")


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


def rank_env(spec):
    """--rank-env R[-S]:KEY=VALUE as (first, last, key, value)."""
    m = RANK_ENV_RE.match(spec)
    if not m:
        raise argparse.ArgumentTypeError(f"--rank-env takes R[-S]:KEY=VALUE, not {spec!r}")
    first = int(m.group(1))
    last = int(m.group(2)) if m.group(2) is not None else first
    if last < first:
        raise argparse.ArgumentTypeError(f"--rank-env: empty range in {spec!r}")
    return first, last, m.group(3), m.group(4)


def segments(n, rank_envs):
    """The ranks 0..n-1 as runs of consecutive ranks with the same extra environment:
    [(count, {key: value})]."""
    extras = [{} for _ in range(n)]
    for first, last, key, value in rank_envs:
        for rank in range(first, last + 1):
            extras[rank][key] = value
    runs = []
    for extra in extras:
        if runs and runs[-1][1] == extra:
            runs[-1][0] += 1
        else:
            runs.append([1, extra])
    return [(count, extra) for count, extra in runs]


def launcher(args, env, program):
    """The whole command line: the launcher, the ranks' environment, the program (once per MPMD
    segment where some ranks have an environment of their own)."""
    if args.cluster:
        nodes, ppn = args.cluster
        cmd = ["bash", os.path.join(CLUSTER_SCRIPTS, "cluster-run.sh"), args.flavour, str(nodes),
               str(ppn), "--timeout", str(int(args.timeout))]
        if args.cyclic:
            cmd.append("--cyclic")
        cmd += args.cluster_arg
        for key, value in env.items():
            cmd += ["--env", f"{key}={value}"]
        return cmd + ["--"] + program
    parts = segments(args.n, args.rank_env)
    if args.flavour == "openmpi":
        # Open MPI applies -x to the segment it is given in: every segment gets all of its own.
        cmd = [args.mpiexec, "--allow-run-as-root", "--oversubscribe"]
        for i, (count, extra) in enumerate(parts):
            cmd += [":"] if i else []
            cmd += ["-n", str(count)]
            for key, value in {**env, **extra}.items():
                cmd += ["-x", f"{key}={value}"]
            cmd += program
        return cmd
    cmd = [args.mpiexec]
    for key, value in env.items():
        cmd += ["-genv", key, value]
    for i, (count, extra) in enumerate(parts):
        cmd += [":"] if i else []
        cmd += ["-n", str(count)]
        for key, value in extra.items():
            cmd += ["-env", key, value]
        cmd += program
    return cmd


def descendants(root):
    """The pids of every process below `root` (from /proc), deepest first."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found[::-1]


class Terminated(Exception):
    """SIGTERM (e.g. from ctest past its own timeout): the job is ended as at --timeout."""


def on_sigterm(signum, frame):
    raise Terminated()


STACKS_SECONDS = 25  # the stacks of a hung job's ranks (print_stacks): at most this long


def print_stacks(pids, program):
    """Prints the threads' stacks of every process of a hung job that runs `program` (gdb attached
    to each at once, bounded by STACKS_SECONDS), so that a hang that comes once in hundreds of
    runs says where each rank waited. Nothing where gdb is not installed."""
    gdb = shutil.which("gdb")
    if not gdb:
        return
    target = os.path.realpath(shutil.which(program) or program)
    # (a process gone meanwhile reads as its /proc path: no rank)
    ranks = [pid for pid in pids if os.path.realpath(f"/proc/{pid}/exe") == target]
    procs = [(pid, subprocess.Popen([gdb, "-batch", "-nx", "-p", str(pid), "-ex",
                                      "thread apply all bt"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     errors="replace", start_new_session=True))
             for pid in ranks]
    deadline = time.monotonic() + STACKS_SECONDS
    for pid, proc in procs:
        try:
            out, _ = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
            out += "\n(gdb did not finish in time)"
        stacks = [line for line in out.splitlines() if line.startswith(("Thread ", "#"))]
        print(f"stacks of process {pid} (hung):", flush=True)
        print("\n".join(stacks) or out, flush=True)


def run_bounded(cmd, timeout, env, program):
    """Runs cmd in a session of its own; past `timeout` (after printing the stacks of the processes
    that run `program`) or on SIGTERM, ends the launcher and every process below it (the ranks of
    a hung job would otherwise keep polling). Returns (rc or None, out, err)."""
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace",
                            start_new_session=True, env=env)
    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        print_stacks(descendants(proc.pid), program)
    except Terminated:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    pids = [proc.pid] + descendants(proc.pid)
    out = err = ""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            out, err = proc.communicate(timeout=5)
            break
        except subprocess.TimeoutExpired:
            continue
    else:  # something below kept the pipes open: leave its output unread
        err = f"(output lost: a process of the job outlived SIGKILL: {pids})"
    return None, out or "", err or ""


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


def check_served(stderr_lines):
    """The library was loaded and served at least one call."""
    handled = [HANDLED_RE.match(line) for line in stderr_lines]
    handled = [int(m.group(1)) for m in handled if m]
    if len(handled) != 1:
        return [f"{len(handled)} 'shmcoll: handled N calls' lines, expected one (library loaded?)"]
    if handled[0] == 0:
        return ["shmcoll handled no call: every call went to the MPI library"]
    return []


def check_config_warning(output, knob):
    """Exactly one warning of rank 0 names `knob` (as a whole word); no other rank's does."""
    name = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(knob)}(?![A-Za-z0-9_])")
    ranks = [int(m.group(1)) for m in map(WARNING_RE.match, output.splitlines())
             if m and name.search(m.group(2))]
    errors = []
    if ranks.count(0) != 1:
        errors.append(f"{ranks.count(0)} warning line(s) of rank 0 name {knob}, expected one")
    others = sorted(set(r for r in ranks if r != 0))
    if others:
        errors.append(f"rank(s) {others} also warn about {knob}")
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
    parser.add_argument("--rank-env", type=rank_env, action="append", default=[],
                        metavar="RANKS:KEY=VALUE", help="for ranks R or R-S only (repeatable)")
    parser.add_argument("--defaults", action="store_true",
                        help="no library knob set: the shipped defaults")
    parser.add_argument("--check-served", action="store_true",
                        help="the library was loaded and served at least one call")
    parser.add_argument("--expect-config-warning", action="append", default=[], metavar="KNOB",
                        help="rank 0 warns once that ranks differ in KNOB (repeatable)")
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
    if args.rank_env and args.cluster:
        parser.error("--rank-env is not available with --cluster")
    for first, last, key, _ in args.rank_env:
        if last >= args.n:
            parser.error(f"--rank-env {key}: rank {last} beyond the {args.n} ranks")

    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    shm_dir = tempfile.mkdtemp(prefix="shmcoll-test-", dir=base)
    if args.cluster:  # each node has a /dev/shm of its own
        in_cluster_nodes(args.cluster[0], "mkdir", "-m", "700", "-p", shm_dir)
    # No tuning file of the machine's: the tests choose their algorithms themselves. Shared
    # memory from a communicator's first collective (the library waits for its fifth), so that
    # the tests see every call served; a test of the threshold sets it with --env.
    env = {"SHMCOLL_SHM_DIR": shm_dir, "SHMCOLL_TUNE_DIR": shm_dir}
    if not args.defaults:
        env.update({"SHMCOLL_COLLS_THRESHOLD": "1", "SHMCOLL_CALIBRATE": "0"})
        # Where the buffers come from (SHMCOLL_HEAP=malloc: every large allocation from the shared
        # heap) is the caller's to choose for every test (make test sets it for one MPI library).
        if os.environ.get("SHMCOLL_HEAP"):
            env["SHMCOLL_HEAP"] = os.environ["SHMCOLL_HEAP"]
    if args.check_stats or args.check_served:
        env["SHMCOLL_STATS"] = "1"
    if args.disabled:
        env["SHMCOLL_DISABLE"] = "1"
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value
    if args.preload:
        env["LD_PRELOAD"] = os.path.abspath(args.preload)
    cmd = launcher(args, env, program)
    print("run:", " ".join(cmd), flush=True)
    # The launchers hand their own environment to the ranks: at the defaults it holds no knob.
    launch_env = dict(os.environ)
    if args.defaults:
        launch_env = {k: v for k, v in launch_env.items() if not k.startswith("SHMCOLL_")}

    start = time.monotonic()
    # cluster-run.sh bounds the job itself and then cleans up the nodes: give it that time.
    rc, out, err = run_bounded(cmd, args.timeout + (30 if args.cluster else 0), launch_env,
                               program[0])
    elapsed = time.monotonic() - start
    sys.stdout.write(out)
    sys.stdout.write(err)
    print(f"exit status {rc}, {elapsed:.1f} s", flush=True)

    errors = []
    if rc is None and elapsed < args.timeout:
        errors.append(f"terminated (SIGTERM) after {elapsed:.0f} s")
    elif rc is None:
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
    if args.check_served and rc == 0:
        errors += check_served(err.splitlines())
    for knob in args.expect_config_warning:
        errors += check_config_warning(out + err, knob)
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
