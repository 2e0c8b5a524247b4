#!/usr/bin/env python3
"""Runs MPICH's own test suite (test/mpi/coll, test/mpi/threads and test/mpi/errors/coll, built
against one MPI library by scripts/build-mpich-tests.sh) natively and with libshmcoll preloaded, test by test, and
reports every test that passes natively but fails or hangs preloaded.

Why: these are the MPI implementors' conformance tests of the collectives; shmcoll replaces those
collectives under any unchanged program, so each of them must still pass with it.

The tests come from each directory's `testlist` (and `testlist.dtp`, the derived-datatype runs of
coll/), in MPICH's format: `program np [arg=A] [env=K=V] [timeLimit=S] [xfail=WHY] [mem=GB]
[strict=false] [mpiversion=X.Y] ...`; a line naming a directory reads that directory's list. A
test passes, as MPICH's runtests has it, when the job exits 0 and prints a line " No Errors".

  * np is capped at --max-np (8): more ranks than that only oversubscribe the machine further.
  * The preloaded runs pass LD_PRELOAD through the launcher (-genv for MPICH's mpiexec, -x for
    Open MPI's), twice (mpijob.PRELOADS), and the test passes when both do: at the library's
    shipped defaults, no SHMCOLL_* variable set (inherited ones are removed), as a user runs it;
    then with SHMCOLL_STATS=1 only, under which rank 0 prints "shmcoll: handled N calls, fell
    back M" at MPI_Finalize: a run that passes without that line fails (the preload did not
    take), and so does a suite in which shmcoll handled no call at all.
  * Every run is bounded: the test's timeLimit (MPICH's default 180 s, --default-time-limit),
    times np / cores when the ranks oversubscribe the cores (Debian's MPICH busy-polls); a
    preloaded run at least twice its native run's time plus 30 s. A run still going then is
    killed, with everything it started, and reported as a hang. A preloaded run that passes but
    takes more than twice as long as the native one is listed as slow (not a failure).
  * A test that fails natively is reported and skipped (it says nothing about shmcoll); so are
    xfail tests (MPICH's runtests skips them too), tests needing more memory than the machine
    has, and programs that did not build (under Open MPI: the MPICH extensions it lacks; under
    MPICH every program must build, so a missing one fails).

With --cluster NODES (NODESc: round-robin) every run, native and preloaded, spans that many
simulated nodes (scripts/cluster.sh up NODES first; docs/CLUSTER.md) through
scripts/cluster-run.sh at np of at least 2 x NODES (a rank alone on its node is left to the MPI
library): ceil(np / NODES) ranks per node, the first nodes filled first (or rank r on node r mod
NODES), shared memory inside a node and TCP between. A job cluster-run.sh ends as hung (its exit
124 or 125) is reported as a hang (under MPICH a hang inside MPICH's own MPI_Finalize after every
rank got there is accepted, as make test-cluster accepts it), and a preloaded run that leaves a
file in a node's own /dev/shm fails.

With --list FILE only the tests FILE names run: lines `dir/program np [arg=...] [flavour=F]
[cluster_np=N]`, each taking the options of that program's testlist line (the first one whose
args match, if args are given) and running at the np FILE gives (across the cluster at cluster_np
where given); a line with flavour=F runs under that MPI library only.

The last line printed is `<label>: N passed, M failed`.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import time

from mpijob import (HANDLED_RE, PRELOADS, first_lines, launcher, linked_mpi, preload_env,
                    run_job)

NO_ERRORS_RE = re.compile(r"^\s*No [Ee]rrors\s*$", re.M)
SUITE_DIRS = ("coll", "threads", "errors/coll")
TESTLISTS = ("testlist", "testlist.dtp")
DEFAULT_TIME_LIMIT = 180  # MPICH runtests' default, seconds


class Test:
    def __init__(self, directory, program, np, options, source):
        self.directory = directory  # relative to the suite's build tree, e.g. "coll"
        self.program = program
        self.np = np
        self.args = options.get("arg", [])
        self.env = [e.partition("=")[::2] for e in options.get("env", [])]
        self.mpiexec_args = options.get("mpiexecarg", [])
        self.time_limit = options.get("timeLimit")
        self.xfail = options.get("xfail")
        self.mem = options.get("mem")
        self.mpiversion = options.get("mpiversion")
        self.result_test = options.get("resultTest")
        self.source = source  # "file:line" of the testlist entry
        self.cluster_np = None  # --list's cluster_np=N: the np across the cluster

    @property
    def name(self):
        words = [f"{self.directory}/{self.program}", str(self.np)] + self.args
        words += [f"{k}={v}" for k, v in self.env]
        return " ".join(words)


def parse_line(line):
    """(program, np or None, {key: value or [values]}) of one testlist line, or None."""
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    words = line.split()
    program, np, options = words[0], None, {}
    rest = words[1:]
    if rest and re.fullmatch(r"\d+", rest[0]):
        np = int(rest.pop(0))
    for word in rest:
        key, sep, value = word.partition("=")
        if not sep:
            raise ValueError(f"not key=value: {word!r}")
        if key in ("arg", "env", "mpiexecarg"):
            options.setdefault(key, []).append(value)
        else:
            options[key] = value
    return program, np, options


def source_dir(root):
    """The suite's source directory (test/mpi) that the build tree `root` was configured from."""
    with open(os.path.join(root, "Makefile")) as f:
        m = re.search(r"^abs_top_srcdir = (.*)$", f.read(), re.M)
    if not m:
        raise SystemExit(f"{root}/Makefile names no abs_top_srcdir")
    return m.group(1).strip()


def read_suite(root, src, directory, lists=TESTLISTS, default_np=2):
    """Every test of `directory` (relative to root) and the directories its lists name. A list
    made by configure (from testlist.in) is in the build tree, the others in the sources, which
    is where MPICH's runtests reads them too."""
    tests = []
    for listname in lists:
        path = os.path.join(root, directory, listname)
        if not os.path.isfile(path):
            path = os.path.join(src, directory, listname)
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            for number, line in enumerate(f, 1):
                try:
                    parsed = parse_line(line)
                except ValueError as e:
                    raise SystemExit(f"{path}:{number}: {e}")
                if parsed is None:
                    continue
                program, np, options = parsed
                sub = os.path.join(directory, program)
                if os.path.isdir(os.path.join(root, sub)):
                    tests += read_suite(root, src, sub, lists, default_np)
                    continue
                where = os.path.relpath(path, root if path.startswith(root) else src)
                tests.append(Test(directory, program, np or default_np, options,
                                  f"{where}:{number}"))
    return tests


def select(tests, list_file, flavour):
    """The tests list_file names for this flavour, with its np (see the module's doc)."""
    chosen = []
    with open(list_file) as f:
        for number, line in enumerate(f, 1):
            parsed = parse_line(line)
            if parsed is None:
                continue
            path, np, options = parsed
            if options.get("flavour", flavour) != flavour:
                continue
            directory, _, program = path.rpartition("/")
            want_args = options.get("arg")
            candidates = [t for t in tests if t.directory == directory and t.program == program
                          and (want_args is None or t.args == want_args)]
            if not candidates:
                raise SystemExit(f"{list_file}:{number}: no testlist entry for {line.strip()!r}")
            base = candidates[0]
            test = Test(directory, program, np or base.np, {}, base.source)
            test.__dict__.update({k: v for k, v in base.__dict__.items()
                                  if k not in ("np", "directory", "program")})
            if "cluster_np" in options:
                test.cluster_np = int(options["cluster_np"])
            chosen.append(test)
    return chosen


def mpi_version(flavour):
    """(major, minor) of the MPI standard the library implements, from its header."""
    header = {"mpich": "/usr/include/x86_64-linux-gnu/mpich/mpi.h",
              "openmpi": "/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h"}[flavour]
    try:
        with open(header) as f:
            text = f.read()
        major = re.search(r"#define\s+MPI_VERSION\s+(\d+)", text).group(1)
        minor = re.search(r"#define\s+MPI_SUBVERSION\s+(\d+)", text).group(1)
        return int(major), int(minor)
    except (OSError, AttributeError):
        return None


def memory_gb():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 2**20
    return 0.0


CLUSTER_SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts")


def cluster_spec(spec):
    """--cluster's (nodes, cyclic)."""
    m = re.fullmatch(r"([1-9]\d*)(c?)", spec)
    if not m:
        raise argparse.ArgumentTypeError(f"--cluster takes NODES or NODESc, not {spec!r}")
    return int(m.group(1)), m.group(2) == "c"


def cluster_launcher(flavour, cluster, np, env, timeout, mpiexec_args):
    """The words before the program of a run across the simulated cluster (cluster-run.sh bounds
    it itself, `timeout` seconds)."""
    nodes, cyclic = cluster
    cmd = ["bash", os.path.join(CLUSTER_SCRIPTS, "cluster-run.sh"), flavour, str(nodes),
           str(-(-np // nodes)), "--np", str(np), "--timeout", str(int(timeout) + 1)]
    cmd += ["--cyclic"] if cyclic else []
    # MPICH 4.0.2 over UCX's TCP often hangs in its own MPI_Finalize once every rank got there
    # (docs/CLUSTER.md): accepted, as make test-cluster accepts it.
    if flavour == "mpich":
        cmd += ["--finalize-grace", "3", "--accept-finalize-hang"]
    for key, value in env:
        cmd += ["--env", f"{key}={value}"]
    for word in mpiexec_args:
        cmd += ["--launcher-arg", word]
    return cmd + ["--"]


def cluster_shm_files(cluster):
    """Files in the nodes' own /dev/shm ('node<i>:name'), which are removed; none without a
    cluster."""
    if not cluster:
        return []
    return subprocess.run(["bash", os.path.join(CLUSTER_SCRIPTS, "cluster.sh"), "sweep-shm"],
                          capture_output=True, text=True).stdout.split()


def verdict(rc, out, err, timeout, cluster=None):
    """None if the run passed, else why not."""
    if rc is None or (cluster and rc in (124, 125)):
        return f"hang: no exit within {timeout:.0f} s (killed)"
    if rc != 0:
        return f"exit status {rc}" + ("" if NO_ERRORS_RE.search(out + err) else
                                      ", no ' No Errors'")
    if not NO_ERRORS_RE.search(out + err):
        return "exit status 0 but no ' No Errors' line"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flavour", required=True, choices=("mpich", "openmpi"))
    parser.add_argument("--tests", required=True,
                        help="the suite's build tree (build/conformance/<mpi>)")
    parser.add_argument("--lib", required=True, help="libshmcoll.so to preload")
    parser.add_argument("--mpiexec", help="launcher (default mpiexec.<flavour>)")
    parser.add_argument("--list", help="run only the tests this file names")
    parser.add_argument("--dirs", default=",".join(SUITE_DIRS),
                        help="suite directories (default coll,threads,errors/coll)")
    parser.add_argument("--max-np", type=int, default=8)
    parser.add_argument("--default-time-limit", type=float, default=DEFAULT_TIME_LIMIT)
    parser.add_argument("--only", action="append", default=[],
                        help="regular expression on 'dir/program np args' (repeatable)")
    parser.add_argument("--label", help="name in the final line (default mpich-suite-<flavour>)")
    parser.add_argument("--report", help="also write the failures' report to this file")
    parser.add_argument("--logs", help="directory for the whole output of each preloaded run")
    parser.add_argument("--cluster", type=cluster_spec, metavar="NODES[c]",
                        help="every run across the simulated cluster (see above)")
    args = parser.parse_args()

    mpiexec = args.mpiexec or f"mpiexec.{args.flavour}"
    label = args.label or f"mpich-suite-{args.flavour}"
    lib = os.path.abspath(args.lib)
    root = os.path.abspath(args.tests)
    if not os.path.isfile(lib):
        print(f"ERROR: {lib} does not exist (make build-{args.flavour})")
        print(f"{label}: 0 passed, 1 failed")
        return 1
    tests = []
    src = source_dir(root)
    for directory in args.dirs.split(","):
        if not any(os.path.isfile(os.path.join(top, directory, "testlist")) for top in (root, src)):
            print(f"ERROR: no {directory}/testlist in {root} "
                  f"(scripts/build-mpich-tests.sh {args.flavour})")
            print(f"{label}: 0 passed, 1 failed")
            return 1
        tests += read_suite(root, src, directory)
    # The suite must have been built against the library under test (mpicc.<flavour>).
    want = "libmpich" if args.flavour == "mpich" else "libmpi.so"
    built = [os.path.join(root, t.directory, t.program) for t in tests]
    built = [p for p in built if os.access(p, os.X_OK)]
    if not built or want not in linked_mpi(built[0]):
        print(f"ERROR: the suite in {root} is not built against {args.flavour} "
              f"({built[0] if built else 'no program'}: {linked_mpi(built[0]) if built else ''})")
        print(f"{label}: 0 passed, 1 failed")
        return 1
    if args.logs:
        os.makedirs(args.logs, exist_ok=True)
    if args.list:
        tests = select(tests, args.list, args.flavour)
    if args.only:
        tests = [t for t in tests if any(re.search(p, t.name) for p in args.only)]

    def np_of(test):
        """The ranks a test runs at: its np up to --max-np; across the cluster at least two a
        node (a rank alone on its node is left to the MPI library)."""
        np = test.np
        if args.cluster:
            np = test.cluster_np or max(test.np, 2 * args.cluster[0])
        return min(np, args.max_np)

    cores = os.cpu_count() or 1
    memory = memory_gb()
    version = mpi_version(args.flavour)
    passed, failed, skipped, slow = [], [], [], []
    handled_total = 0
    suite_start = time.monotonic()
    print(f"{label}: {len(tests)} tests from {root}, preloading {lib}; np capped at "
          f"{args.max_np}, {cores} cores", flush=True)
    for index, test in enumerate(tests, 1):
        np = np_of(test)
        tag = f"[{index}/{len(tests)}] {test.name}" + (f" (np {np})" if np != test.np else "")
        program = os.path.join(root, test.directory, test.program)
        why_skip = None
        if test.xfail:
            why_skip = f"xfail={test.xfail} (MPICH's runtests skips these)"
        elif test.mem and float(test.mem) > memory:
            why_skip = f"needs {test.mem} GB, the machine has {memory:.0f}"
        elif test.mpiversion and version and \
                tuple(int(x) for x in test.mpiversion.split(".")) > version:
            why_skip = f"needs MPI {test.mpiversion}, the library implements " \
                       f"{version[0]}.{version[1]}"
        elif test.result_test:
            why_skip = f"resultTest={test.result_test}: a check this runner does not implement"
        elif not os.access(program, os.X_OK):
            if args.flavour == "mpich":
                failed.append((test, "not built: the program did not build against MPICH", ""))
                print(f"FAIL {tag}: not built", flush=True)
                continue
            why_skip = "not built: does not compile or link against this MPI library"
        if why_skip:
            skipped.append((test, why_skip))
            print(f"SKIP {tag}: {why_skip}", flush=True)
            continue

        limit = float(test.time_limit) if test.time_limit else args.default_time_limit
        timeout = limit * max(1.0, np / cores)

        def launch(env, timeout):
            """The command of one run; the runner's own bound, a little past the cluster's."""
            if args.cluster:
                return (cluster_launcher(args.flavour, args.cluster, np, env, timeout,
                                         test.mpiexec_args) + [program] + test.args,
                        timeout + 30)
            return (launcher(args.flavour, mpiexec, np, env) + test.mpiexec_args + [program]
                    + test.args, timeout)

        cluster_shm_files(args.cluster)
        native_cmd, bound = launch(test.env, timeout)
        rc, out, err, secs = run_job(native_cmd, os.path.dirname(program), bound)
        why = verdict(rc, out, err, timeout, args.cluster)
        if why:
            skipped.append((test, f"fails natively ({why})"))
            print(f"SKIP {tag}: fails natively ({why}, {secs:.1f} s)", flush=True)
            for line in first_lines(err + out, 4):
                print(f"    native| {line}")
            continue
        native_secs = secs

        # A preloaded run gets the same bound, and at least twice the native run's time: a test
        # near its limit natively is not called a hang for being slower (that is reported).
        timeout = max(timeout, 2 * native_secs + 30)
        outcome = []  # (settings, why or None, seconds, stats note) of each preloaded run
        for settings, values in PRELOADS:
            env = list(test.env) + preload_env(lib, values)
            cluster_shm_files(args.cluster)
            preload_cmd, bound = launch(env, timeout)
            rc, out, err, secs = run_job(preload_cmd, os.path.dirname(program), bound)
            why = verdict(rc, out, err, timeout, args.cluster)
            left = cluster_shm_files(args.cluster)
            if not why and left:
                why = f"file(s) left in the nodes' /dev/shm: {' '.join(left)}"
            stats = HANDLED_RE.findall(out + err)
            if args.logs:
                name = re.sub(r"[^\w.=-]+", "_", test.name)
                with open(os.path.join(args.logs, f"{name}.{settings}.log"), "w") as f:
                    f.write(f"run: {shlex.join(preload_cmd)}\nexit status {rc}, {secs:.1f} s\n"
                            f"--- stderr\n{err}--- stdout\n{out}")
            if not why and values and not stats:
                why = "no 'shmcoll: handled N calls' line: the preload did not take"
            if stats:
                handled_total += sum(int(h) for h, _ in stats)
            note = (f"handled {stats[-1][0]}, fell back {stats[-1][1]}" if stats
                    else "no stats line" if values else "")
            outcome.append((settings, why, secs, note))
            if why:
                failed.append((test, f"{why} (at {settings})", err + out,
                               shlex.join(preload_cmd)))
                print(f"FAIL {tag} at {settings}: {why} ({secs:.1f} s preloaded, "
                      f"{native_secs:.1f} s native; {note or 'no stats asked'})", flush=True)
                for line in first_lines(err + out):
                    print(f"    | {line}")
        if all(why is None for _, why, _, _ in outcome):
            passed.append(test)
            slowest = max(secs for _, _, secs, _ in outcome)
            if slowest > 2 * native_secs and slowest > 5:
                slow.append((test, slowest, native_secs))
            print(f"ok   {tag}: " + ", ".join(f"{s:.1f} s at {settings}"
                                              for settings, _, s, _ in outcome)
                  + f", {native_secs:.1f} s native; " + outcome[-1][3], flush=True)

    elapsed = time.monotonic() - suite_start
    harness_failures = []
    if passed and handled_total == 0:
        harness_failures.append("shmcoll handled no call in the whole suite: the preload did "
                                "not take")
    report = [f"{label}: {len(passed)} passed, {len(failed)} failed (shmcoll), "
              f"{len(skipped)} skipped, {elapsed:.0f} s; shmcoll handled {handled_total} calls"]
    for entry in failed:
        test, why, output = entry[0], entry[1], entry[2]
        report.append(f"FAILED preloaded: {test.name} (np {np_of(test)}; "
                      f"{test.source}): {why}")
        if len(entry) > 3:
            report.append(f"    run: {entry[3]}")
        report += [f"    | {line}" for line in first_lines(output)]
    for test, secs, native_secs in slow:
        report.append(f"SLOW preloaded (passed): {test.name}: {secs:.1f} s, native "
                      f"{native_secs:.1f} s")
    skips = {}
    for test, why in skipped:
        skips.setdefault(why.split(" (")[0] if why.startswith("fails natively") else why,
                         []).append(test.name)
    for why, names in skips.items():
        report.append(f"SKIPPED ({why}): " + "; ".join(names))
    report += [f"ERROR: {e}" for e in harness_failures]
    print("\n".join(["", "== summary"] + report))
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(report) + "\n")
    print(f"{label}: {len(passed)} passed, {len(failed) + len(harness_failures)} failed")
    return 1 if failed or harness_failures else 0


if __name__ == "__main__":
    sys.exit(main())
