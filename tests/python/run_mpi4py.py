#!/usr/bin/env python3
"""mpi4py with libshmcoll preloaded: builds mpi4py from PyPI against the MPI under test, in a
virtual environment kept in the build directory (one per MPI flavour, reused by later runs), then
runs test_mpi4py.py with 2 and 3 ranks under LD_PRELOAD and SHMCOLL_STATS=1 and compares the
statistics with what the script did (via tests/mpi/run_mpi.py).

Without network access to PyPI the test fails, loudly: it never skips."""
import argparse
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_MPI = os.path.join(HERE, "..", "mpi", "run_mpi.py")


def fail(message):
    print(f"ERROR: {message}")
    print("run_mpi4py: FAILED")
    sys.exit(1)


def venv_python(venv):
    return os.path.join(venv, "bin", "python")


def mpi4py_module(python):
    """Path of mpi4py's compiled MPI module, or None when mpi4py is not importable."""
    proc = subprocess.run([python, "-c", "import mpi4py.MPI as m; print(m.__file__)"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def linked_mpi(module):
    out = subprocess.run(["ldd", module], stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r"(libmpi\S*\.so\S*) =>", out)
    return m.group(1) if m else ""


def ensure_venv(venv, mpicc, flavour):
    """Creates the venv and builds mpi4py in it unless a build for this MPI is already there."""
    want = "libmpich" if flavour == "mpich" else "libmpi.so"
    python = venv_python(venv)
    stamp = os.path.join(venv, "shmcoll-mpicc")
    if os.path.exists(python) and os.path.exists(stamp):
        with open(stamp) as f:
            built_with = f.read().strip()
        module = mpi4py_module(python)
        if built_with == mpicc and module and want in linked_mpi(module):
            print(f"reusing {venv} (mpi4py built with {mpicc})")
            return module
    print(f"creating {venv} and building mpi4py with MPICC={mpicc}; this takes a few minutes",
          flush=True)
    if subprocess.run([sys.executable, "-m", "venv", "--clear", venv]).returncode != 0:
        fail("python3 -m venv failed (is the python3-venv package installed?)")
    # mpi4py's generated MPI.c is huge: building it without optimisation or debug info takes a
    # fraction of the time, and the test does not measure mpi4py's own speed.
    env = dict(os.environ, MPICC=mpicc, CFLAGS="-O0 -g0")
    # --no-cache-dir: a wheel cached from a build against the other MPI flavour must not be used.
    cmd = [python, "-m", "pip", "install", "--no-cache-dir", "--no-binary=mpi4py", "mpi4py"]
    print("run:", " ".join(cmd), flush=True)
    if subprocess.run(cmd, env=env).returncode != 0:
        fail("pip could not install mpi4py from PyPI (network access to PyPI is required)")
    module = mpi4py_module(python)
    if not module:
        fail("mpi4py was installed but does not import")
    if want not in linked_mpi(module):
        fail(f"mpi4py's {module} is not linked with {want}: {linked_mpi(module)}")
    with open(stamp, "w") as f:
        f.write(mpicc + "\n")
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flavour", required=True, choices=("mpich", "openmpi"))
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--mpicc", required=True)
    parser.add_argument("--lib", required=True, help="libshmcoll.so to preload")
    parser.add_argument("--venv", required=True)
    args = parser.parse_args()

    module = ensure_venv(args.venv, args.mpicc, args.flavour)
    undefined = subprocess.run(["nm", "-D", "--undefined-only", module], stdout=subprocess.PIPE,
                               text=True).stdout
    large = [s for s in ("MPI_Allreduce_c", "MPI_Reduce_c", "MPI_Bcast_c") if s in undefined]
    print(f"{os.path.basename(module)} uses large-count entry points: {' '.join(large) or 'none'}")

    failed = False
    for n in (2, 3):
        cmd = [sys.executable, RUN_MPI, "--flavour", args.flavour, "--mpiexec", args.mpiexec,
               "-n", str(n), "--check-stats", "--preload", args.lib, "--timeout", "300",
               # the Alloc_mem allreduce (2.4 MB) on the heap path: from 4 MiB by default
               "--env", "SHMCOLL_HEAP_CHUNKS=0", "--",
               venv_python(args.venv), os.path.join(HERE, "test_mpi4py.py")]
        failed |= subprocess.run(cmd).returncode != 0
    print("run_mpi4py: " + ("FAILED" if failed else "OK"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
