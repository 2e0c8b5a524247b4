"""Launching one MPI job of a conformance suite, natively or with libshmcoll preloaded, bounded in
time, and ending everything it started: shared by run_mpich_suite.py and run_mpi4py_suite.py.

A job's processes are found as the launcher's Unix session (setsid) and its descendants,
remembered at every poll, so that ranks whose launcher died are still ended. The ranks'
environment goes through the launcher (-genv for MPICH's mpiexec, -x for Open MPI's), so that
the launcher itself never runs with LD_PRELOAD. The job starts from the caller's environment less
LD_PRELOAD and every SHMCOLL_* variable: a suite runs the library at its shipped defaults, and
only what the caller passes reaches the ranks.
"""
import os
import re
import signal
import subprocess
import tempfile
import time

# What rank 0 prints at MPI_Finalize under SHMCOLL_STATS=1.
HANDLED_RE = re.compile(r"^shmcoll: handled (\d+) calls, fell back (\d+)\s*$", re.M)


def launcher(flavour, mpiexec, np, env):
    """The launch command's words before the program, with env ((key, value) pairs) for the
    ranks. Open MPI runs as root, oversubscribed, and yields when idle (8 ranks on 2 cores)."""
    if flavour == "openmpi":
        cmd = [mpiexec, "--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle",
               "1", "-n", str(np)]
        for key, value in env:
            cmd += ["-x", f"{key}={value}"]
    else:
        cmd = [mpiexec, "-n", str(np)]
        for key, value in env:
            cmd += ["-genv", key, value]
    return cmd


# The preloaded runs of every test, each of which must pass: the library at its shipped defaults
# (no SHMCOLL_* variable: what a user runs, with the repeated-call shortcut, the express path of a
# run on the MPI library's way and calibration's loop checks), then with its statistics at exit
# (SHMCOLL_STATS=1, whose "handled N calls" line shows that the preload took; under it every call
# takes the whole path, none of those shortcuts).
PRELOADS = (("defaults", ()), ("statistics", (("SHMCOLL_STATS", "1"),)))


def preload_env(lib, settings):
    """The ranks' environment of a preloaded run: the library, and `settings` (of PRELOADS)."""
    return [("LD_PRELOAD", os.path.abspath(lib))] + list(settings)


def processes():
    """{pid: (parent pid, session id, start time)} of every process but zombies."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()  # state ppid pgrp session ... starttime
        if fields[0] != "Z":
            table[int(entry)] = (int(fields[1]), int(fields[3]), int(fields[19]))
    return table


def job_processes(root, table=None):
    """{pid: start time} of the processes of the job whose launcher is `root`: its session
    and every descendant (MPICH's proxy starts each rank in a session of its own)."""
    table = processes() if table is None else table
    members = {pid for pid, (_, sid, _) in table.items() if sid == root}
    members.add(root)
    grew = True
    while grew:
        grew = False
        for pid, (ppid, _, _) in table.items():
            if ppid in members and pid not in members:
                members.add(pid)
                grew = True
    return {pid: table[pid][2] for pid in members if pid in table}


def kill_job(known):
    """Ends the processes in `known` ({pid: start time}) that still run (a pid reused by another
    process since is left alone): SIGTERM, then SIGKILL to what is left after 5 s."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        table = processes()
        alive = [pid for pid, start in known.items() if pid in table and table[pid][2] == start]
        if not alive:
            return
        for pid in alive:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            table = processes()
            if not any(pid in table and table[pid][2] == start for pid, start in known.items()):
                return
            time.sleep(0.1)


def run_job(cmd, cwd=None, timeout=None, progress=None, stall=None):
    """Runs cmd in a session of its own. Returns (exit status, or None when it was killed,
    stdout, stderr, seconds). It is killed, with every process of its session, after `timeout`
    seconds, or when `progress()` (polled every second) has not changed for `stall` seconds,
    or when the runner itself is interrupted or terminated. Ranks a launcher that returned left
    behind (seen at a poll) are ended too."""
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("SHMCOLL_") and k != "LD_PRELOAD"}
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=cwd, env=clean, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        rc, known = None, {}
        try:
            rc = _watch(proc, start, timeout, progress, stall, known)
        finally:  # also when the runner itself is interrupted or terminated
            # The launcher first (it takes its ranks down with it), then whatever is left.
            if rc is None:
                known.update(job_processes(proc.pid))
                launcher_start = known.get(proc.pid) or processes().get(proc.pid, (0, 0, 0))[2]
                kill_job({proc.pid: launcher_start})
                proc.wait()
            kill_job(known)
        out.seek(0)
        err.seek(0)
        return (rc, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                time.monotonic() - start)


def _watch(proc, start, timeout, progress, stall, known):
    """Waits for the job; its exit status, or None when it is to be killed."""
    last, last_change = None, start
    while True:
        try:
            return proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass
        known.update(job_processes(proc.pid))
        now = time.monotonic()
        if timeout is not None and now - start > timeout:
            return None
        if progress is not None and stall is not None:
            state = progress()
            if state != last:
                last, last_change = state, now
            elif now - last_change > stall:
                return None


def _terminated(signum, _frame):
    raise SystemExit(128 + signum)


# A runner that is terminated ends its job too (run_job's finally), as on Ctrl-C.
signal.signal(signal.SIGTERM, _terminated)


# The launchers' own banner around an abnormal end (the program's lines come before or after it).
LAUNCHER_NOISE_RE = re.compile(
    r"^(=+|=   .*|YOUR APPLICATION TERMINATED .*|This typically refers to a problem .*|"
    r"Please see the FAQ page .*|-{20,}|\s*)$")


def first_lines(text, count=12):
    """The first `count` lines of a job's output that are not the launcher's banner."""
    lines = [line for line in text.splitlines() if not LAUNCHER_NOISE_RE.match(line)]
    more = len(lines) - count
    return lines[:count] + ([f"... ({more} more lines)"] if more > 0 else [])


def linked_mpi(path):
    """The MPI libraries (libmpi*) a program or module is linked with, as ldd names them."""
    out = subprocess.run(["ldd", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout
    return " ".join(re.findall(r"^\s*(libmpi\S*)", out, re.M))
