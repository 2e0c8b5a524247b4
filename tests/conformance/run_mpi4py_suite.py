#!/usr/bin/env python3
"""Runs mpi4py's own unit tests (test/ of the sdist of the mpi4py version built in the venv) at
p = 2, natively and with libshmcoll preloaded, and checks that every test that passes natively
passes preloaded.

Why: mpi4py's suite calls every collective, in every form, with many buffer kinds, datatypes
and communicators (COMM_SELF, duplicates, splits), from a real application's point of view.

mpi4py is built against the MPI library under test in a virtual environment in the build
directory (tests/python/run_mpi4py.py, shared with the mpi4py integration test); its sdist is
downloaded with pip into the build directory. Each rank records its tests as they start and
end (mpi4py_driver.py), so a job that crashes or hangs inside a test still says which tests
completed: the test(s) in progress are marked crashed (or hung: no rank recorded anything for
--stall seconds) and the job runs again without them and without the tests already done, until
it ends normally. The suite runs preloaded twice (mpijob.PRELOADS), and each run is compared with
the native one: at the library's shipped defaults (no SHMCOLL_* variable), then with
SHMCOLL_STATS=1 only, where a job that ends normally must print shmcoll's "handled N calls"
line, and the whole run must have handled some calls, or the preload did not take.

A test counts as passed natively when it succeeded (or was an expected failure) on every rank;
only those are compared. The last line printed is `<label>: N passed, M failed`, N and M
counting the natively passing tests that passed and failed in each preloaded run (plus the checks
of the preload itself).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from mpijob import (HANDLED_RE, PRELOADS, first_lines, launcher, preload_env,  # noqa: E402
                    run_job)
from run_mpi4py import ensure_venv, venv_python  # noqa: E402

DRIVER = os.path.join(HERE, "mpi4py_driver.py")
GOOD = ("ok", "xfail")
BANNER_RE = re.compile(r"^\[\d+@\S+\] ")
BAD = ("fail", "error", "xpass")


def mpi4py_tests(venv, dest):
    """The test/ directory of the sdist of the mpi4py version installed in venv."""
    python = venv_python(venv)
    version = subprocess.run([python, "-c", "import mpi4py; print(mpi4py.__version__)"],
                             stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    testdir = os.path.join(dest, f"mpi4py-{version}", "test")
    if os.path.isfile(os.path.join(testdir, "main.py")):
        return version, testdir
    os.makedirs(dest, exist_ok=True)
    cmd = [python, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", dest,
           f"mpi4py=={version}"]
    print("run:", " ".join(cmd), flush=True)
    if subprocess.run(cmd).returncode != 0:
        raise SystemExit(f"pip could not download the mpi4py {version} sdist from PyPI")
    sdist = glob.glob(os.path.join(dest, f"mpi4py-{version}.tar.gz"))
    if not sdist:
        raise SystemExit(f"no mpi4py-{version}.tar.gz in {dest}")
    with tarfile.open(sdist[0]) as tar:
        members = [m for m in tar.getmembers()
                   if m.name.startswith(f"mpi4py-{version}/test/") and m.isfile()]
        tar.extractall(dest, members=members)
    if not os.path.isfile(os.path.join(testdir, "main.py")):
        raise SystemExit(f"the mpi4py {version} sdist has no test/main.py")
    return version, testdir


def read_records(outdir):
    """{rank: [(what, test id)]} from the driver's files."""
    records = {}
    for path in glob.glob(os.path.join(outdir, "rank-*.txt")):
        rank = int(re.search(r"rank-(\d+)\.txt$", path).group(1))
        with open(path, encoding="utf-8", errors="replace") as f:
            records[rank] = [tuple(line.rstrip("\n").split(" ", 1)) for line in f
                             if " " in line]
    return records


def outcomes(records, np):
    """({test id: outcome}, the test a job that stopped early stopped in, or None).

    A test has ended when every one of the np ranks recorded its stop; its outcome is the worst
    over ranks: fail/error/xpass, then skip, then ok/xfail. The tests run in the same order on
    every rank, so of those started and not stopped somewhere the first in that order is where
    the job went wrong (the later ones wait for a rank that is gone)."""
    order, started, stopped, whats = [], {}, {}, {}
    for rank, lines in sorted(records.items()):
        for what, tid in lines:
            if what == "start":
                if tid not in started:
                    order.append(tid)
                started.setdefault(tid, set()).add(rank)
            elif what == "stop":
                stopped.setdefault(tid, set()).add(rank)
            else:
                whats.setdefault(tid, []).append(what)
    result = {}
    for tid, outcome_list in whats.items():
        if tid in started and len(stopped.get(tid, ())) < np:
            continue
        if any(w in BAD for w in outcome_list):
            result[tid] = "error" if "error" in outcome_list else "fail"
        elif "skip" in outcome_list:
            result[tid] = "skip"
        else:
            result[tid] = "ok"
    unfinished = [tid for tid in order if started[tid] - stopped.get(tid, set())]
    return result, unfinished[0] if unfinished else None


def run_suite(args, testdir, python, preload, workdir, skipped_classes):
    """Runs the suite until a job ends without a test in progress. Returns
    ({test id: outcome}, {test id: (why, output, log) of the job it crashed or hung in}, notes,
    calls shmcoll handled, jobs that ended normally). `preload`: None (native) or an entry of
    PRELOADS."""
    results, broken, notes, handled, normal_ends = {}, {}, [], 0, 0
    preloaded = preload is not None
    env = preload_env(args.lib, preload[1]) if preloaded else []
    kind = f"preloaded-{preload[0]}" if preloaded else "native"
    counted = preloaded and bool(preload[1])  # with statistics: the "handled" line is due
    for attempt in range(1, args.max_restarts + 2):
        outdir = tempfile.mkdtemp(prefix=f"{kind}-{attempt}-", dir=workdir)
        xfile = os.path.join(outdir, "exclude.txt")
        with open(xfile, "w") as f:
            # "*ID" matches ID exactly (main.py wraps a pattern without '*' in '*...*')
            f.write("".join(f"*{tid}\n" for tid in list(results) + list(broken)
                            if " " not in tid))
            f.write("".join(f"*{cls}.*\n" for cls in skipped_classes))
        suite_args = ["--xfile", xfile] + [a for m in args.include for a in ("-i", m)]
        suite_args += [a for m in args.exclude for a in ("-e", m)]
        cmd = launcher(args.flavour, args.mpiexec, args.n, env) + [
            python, DRIVER, testdir, outdir] + suite_args

        def progress():
            sizes = tuple(os.path.getsize(p) for p in
                          sorted(glob.glob(os.path.join(outdir, "rank-*.txt"))))
            if sizes:
                return sizes
            # Until a rank records its first test the job starts up (MPI, Python, numpy): that
            # counts as progress for --startup seconds (every later step gets --stall seconds).
            elapsed = time.monotonic() - started
            return elapsed if elapsed < args.startup else "starting"

        started = time.monotonic()
        rc, out, err, secs = run_job(cmd, cwd=testdir, timeout=args.timeout, progress=progress,
                                     stall=args.stall)
        with open(os.path.join(outdir, "output.txt"), "w") as f:
            f.write(f"run: {' '.join(cmd)}\nexit status {rc}, {secs:.1f} s\n--- stderr\n{err}"
                    f"--- stdout\n{out}")
        done, culprit = outcomes(read_records(outdir), args.n)
        progressed = bool(set(done) - set(results))
        results.update(done)
        stats = HANDLED_RE.findall(out + err)
        handled += sum(int(h) for h, _ in stats)
        if rc == 0:
            normal_ends += 1
        print(f"{kind} job {attempt}: exit status {rc}, {secs:.0f} s, {len(done)} tests ended"
              + (f", stopped in {culprit}" if culprit else "")
              + (f"; shmcoll handled {stats[-1][0]}, fell back {stats[-1][1]}" if stats else ""),
              flush=True)
        if counted and rc == 0 and not stats:
            notes.append(f"{kind} job {attempt} ended normally without shmcoll's 'handled' "
                         "line: the preload did not take")
        if rc == 0:
            break
        if culprit is None:
            # It ended badly outside any test (start-up, a class's set-up, MPI_Finalize): run
            # the rest again while that gets some tests done, else give up on them.
            notes.append(f"{kind} job {attempt} ended with status {rc} outside any test "
                         f"(output: {outdir}/output.txt): "
                         + " / ".join(first_lines(err + out, 6)[-6:]))
            if progressed:
                continue
            break
        why = "hang" if rc is None else f"crash (exit status {rc})"
        broken[culprit] = (why, err + out, os.path.join(outdir, "output.txt"))
        if not preloaded and rc is None:
            # A test that hangs natively says nothing about shmcoll, and its class's other tests
            # tend to hang alike (mpi4py.util.sync's under MPICH with more ranks than cores):
            # the class is left out rather than waited for test by test.
            skipped_classes.append(culprit.rsplit(".", 1)[0])
    else:
        notes.append(f"{kind}: still crashing after {args.max_restarts} restarts; "
                     "the rest of the suite did not run")
    return results, broken, notes, handled, normal_ends


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flavour", required=True, choices=("mpich", "openmpi"))
    parser.add_argument("--mpiexec", help="launcher (default mpiexec.<flavour>)")
    parser.add_argument("--mpicc", help="compiler wrapper mpi4py is built with "
                        "(default mpicc.<flavour>)")
    parser.add_argument("--lib", required=True, help="libshmcoll.so to preload")
    parser.add_argument("--venv", required=True, help="virtual environment with mpi4py")
    parser.add_argument("--work", required=True,
                        help="directory for the sdist and the runs' records")
    parser.add_argument("-n", type=int, default=2)
    parser.add_argument("-i", "--include", action="append", default=[],
                        help="test modules matching this regular expression only (repeatable)")
    parser.add_argument("-e", "--exclude", action="append", default=[],
                        help="not the test modules matching this (repeatable)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per job")
    parser.add_argument("--stall", type=float, default=60,
                        help="seconds without any rank starting or ending a test: a hang")
    parser.add_argument("--startup", type=float, default=180,
                        help="seconds a job may take to start its first test (plus --stall)")
    parser.add_argument("--max-restarts", type=int, default=10)
    parser.add_argument("--label", help="name in the final line")
    parser.add_argument("--required", action="store_true",
                        help="fail when no test passes natively (else that skips the suite)")
    args = parser.parse_args()
    for name in ("lib", "venv", "work"):
        setattr(args, name, os.path.abspath(getattr(args, name)))
    args.mpiexec = args.mpiexec or f"mpiexec.{args.flavour}"
    args.mpicc = args.mpicc or f"mpicc.{args.flavour}"
    label = args.label or f"mpi4py-suite-{args.flavour}"
    if not os.path.isfile(args.lib):
        print(f"ERROR: {args.lib} does not exist (make build-{args.flavour})")
        print(f"{label}: 0 passed, 1 failed")
        return 1

    ensure_venv(args.venv, args.mpicc, args.flavour)
    python = venv_python(args.venv)
    version, testdir = mpi4py_tests(args.venv, os.path.join(args.work, "sdist"))
    workdir = os.path.join(args.work, "runs")
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    print(f"{label}: mpi4py {version}'s tests ({testdir}) at p = {args.n}"
          + (f", modules {' '.join(args.include)}" if args.include else "")
          + (f", without {' '.join(args.exclude)}" if args.exclude else ""), flush=True)

    # Classes with a test that hangs natively are left out of every run (see run_suite).
    skipped_classes = []
    native, native_broken, native_notes, _, _ = run_suite(args, testdir, python, None, workdir,
                                                          skipped_classes)
    # Tests of a class left out (a test of it hung natively) are not run preloaded, so the ones
    # that passed natively before that are not compared either.
    passing = sorted(tid for tid, outcome in native.items() if outcome in GOOD
                     and tid.rsplit(".", 1)[0] not in skipped_classes)
    if not passing and not args.required:
        print(f"SKIPPED: mpi4py's tests do not run natively under {args.flavour}: "
              + " / ".join(native_notes))
        print(f"{label}: 0 passed, 0 failed")
        return 0

    counts = {}
    for outcome in native.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    summary = [f"native: {len(native)} tests ended: "
               + ", ".join(f"{n} {o}" for o, n in sorted(counts.items()))]
    for tid, (why, _, log) in sorted(native_broken.items()):
        summary.append(f"SKIPPED (fails natively: {why}; {log}): {tid}")
    for tid, outcome in sorted(native.items()):
        if outcome in ("fail", "error"):
            summary.append(f"SKIPPED (fails natively: {outcome}): {tid}")
    for cls in skipped_classes:
        summary.append(f"SKIPPED (a test of it hangs natively): the rest of {cls}")
    summary += [f"note (native): {note}" for note in native_notes]
    if not passing:
        summary.append("ERROR: no test passed natively: nothing to compare")
    total_passed, total_failed = 0, 0 if passing else 1
    for preload in PRELOADS:
        passed, failed, errors = compare(args, testdir, python, preload, workdir,
                                         skipped_classes, passing, summary)
        total_passed += passed
        total_failed += failed + errors
    print("\n== summary\n" + "\n".join(summary))
    print(f"{label}: {total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


def compare(args, testdir, python, preload, workdir, skipped_classes, passing, summary):
    """Runs the suite preloaded with `preload` (an entry of PRELOADS) and compares each natively
    passing test; appends the outcome to `summary`. Returns (passed, failed, errors)."""
    results, broken, errors, handled, normal_ends = run_suite(
        args, testdir, python, preload, workdir, skipped_classes)
    kind = f"preloaded at {preload[0]}"
    passed, failed = [], []
    for tid in passing:
        if results.get(tid) in GOOD:
            passed.append(tid)
        elif tid in broken:
            failed.append((tid, *broken[tid]))
        else:
            failed.append((tid, results.get(tid, "did not run"), "", ""))
    if preload[1] and passing and normal_ends and handled == 0:
        errors.append(f"shmcoll handled no call in the whole run {kind}: the preload did not "
                      "take")
    summary.append(f"{kind}: {len(passed)} of the {len(passing)} natively passing tests passed"
                   + (f"; shmcoll handled {handled} calls" if preload[1] else ""))
    not_run = {}
    for tid, why, output, log in failed:
        if why == "did not run":
            cls = tid.rsplit(".", 1)[0]
            not_run[cls] = not_run.get(cls, 0) + 1
            continue
        summary.append(f"FAILED {kind}: {tid}: {why}" + (f" (output: {log})" if log else ""))
        # without main.py's banner ("[rank@host] Python 3.11 ...")
        output = "\n".join(l for l in output.splitlines() if not BANNER_RE.match(l))
        summary += [f"    | {line}" for line in (first_lines(output, 10) if output else [])]
    if not_run:
        summary.append(f"FAILED {kind}: {sum(not_run.values())} natively passing tests did not "
                       "run (the job ended outside a test, see the notes): "
                       + ", ".join(f"{cls} ({n})" for cls, n in sorted(not_run.items())))
    summary += [f"ERROR ({kind}): {error}" for error in errors]
    return len(passed), len(failed), len(errors)


if __name__ == "__main__":
    sys.exit(main())
