#!/usr/bin/env python3
"""run-apps.py: do real MPI applications run faster with shmcoll, with the same answers?

`make apps` runs this after scripts/install-apps.sh has installed Debian's packaged applications
and both flavours of shmcoll are built. Each application runs a small standard input natively and
with shmcoll preloaded (the flavour of the MPI library the package is linked against, found with
ldd), in alternating order (native first in odd rounds, preloaded first in even ones), several
rounds, at p = APPS_NP. Every run has libshmcoll-profile preloaded in front (tools/profile), so
the collectives' calls, bytes and time by size band are known both ways; the timed preloaded runs
set no knob of shmcoll's (the shipped defaults, as a user runs it). One more preloaded run with
SHMCOLL_VERBOSE=1 and SHMCOLL_STATS=1, not timed, gives shmcoll's statistics and the reasons of
the fallbacks; one round at an oversubscribed p (APPS_OVERSUB_NP) checks that answers agree and
nothing hangs there too. The results each application prints (energies, thermodynamic output,
checksums) are compared digit by digit with the first native run's.

Output: a report on standard output (also build/apps.txt), every run's files under build/apps/,
the table as CSV in build/apps.csv and a picture of it in build/apps.png. docs/APPS.md explains
the inputs and how to read all of it.

Environment: APPS_NP (default: cores), APPS_ROUNDS (3), APPS_OVERSUB_NP (2 x APPS_NP; 0 skips),
APPS (comma-separated subset of: cp2k, lammps-melt, lammps-pppm, lammps-pppm-coll, qe, mpi4py,
hpcc), APPS_TIMEOUT (seconds per run, 1800), APPS_SHMCOLL_ENV (more environment for the preloaded
runs, e.g. "SHMCOLL_SHM_BUDGET=64M SHMCOLL_CALIBRATE=0"), APPS_OUTPUT (the name of the outputs in
build/ instead of "apps": build/<name>/, build/<name>.csv ...), APPS_CLUSTER (NODESxPPN, e.g. 2x2,
or 2x2c for round-robin placement: every run spans that many simulated nodes of
scripts/cluster.sh, brought up for the run when none is and taken down after it; p = NODES x PPN;
APPS_NP and the oversubscribed round are not used).
"""
import csv
import gzip
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
NAME = os.environ.get("APPS_OUTPUT", "").strip() or "apps"
if not re.fullmatch(r"[\w.-]+", NAME):
    sys.exit(f"run-apps: APPS_OUTPUT={NAME!r}: a file name in build/, without a directory")
OUT = os.path.join(BUILD, NAME)
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eEdD][-+]?\d+)?"


def cluster_layout():
    """APPS_CLUSTER's (nodes, ppn, cyclic), or None for runs on this machine alone."""
    value = os.environ.get("APPS_CLUSTER", "").strip()
    if not value:
        return None
    m = re.fullmatch(r"([1-9]\d*)x([1-9]\d*)(c?)", value)
    if not m:
        sys.exit(f"run-apps: APPS_CLUSTER={value!r}: NODESxPPN, e.g. 2x2 (2x2c: round-robin)")
    return int(m.group(1)), int(m.group(2)), m.group(3) == "c"


CLUSTER = cluster_layout()
CLUSTER_SH = os.path.join(ROOT, "scripts", "cluster.sh")


def env_int(name, default):
    value = os.environ.get(name, "")
    try:
        return int(value) if value.strip() else default
    except ValueError:
        sys.exit(f"run-apps: {name}={value!r} is not a number")


# ---- the applications ---------------------------------------------------------------------------


class App:
    """One application and input: how to prepare and launch it, and how to read its output.

    name      the row's name; binary: the executable whose libraries tell the MPI flavour
    prepare   prepare(run_dir, p): writes the input files into run_dir
    argv      argv(run_dir, p): the command mpiexec launches
    output    the file (in run_dir) with the results and timers; None: standard output
    results   results(text): {name: value as printed}, the answers to compare
    timers    timers(text): [(name, seconds)], the application's own timers; the first is its
              time in communication (the column "app comm")
    """

    def __init__(self, name, binary, prepare, argv, output, results, timers, note):
        self.name, self.binary, self.prepare, self.argv = name, binary, prepare, argv
        self.output, self.results, self.timers, self.note = output, results, timers, note


# CP2K: the input of CP2K's own H2O-32 benchmark (32 water molecules, coordinates from the packaged
# example H2O-32_ewald.inp) for one Quickstep (GPW) energy with the packaged GTH basis sets and
# potentials, and 10 OT steps instead of the benchmark's 20 (a fixed amount of work either way:
# the SCF does not reach EPS_SCF in them) to keep a run near a minute at p = 2.
CP2K_INPUT = """&GLOBAL
  PROJECT H2O-32
  RUN_TYPE ENERGY
  PRINT_LEVEL LOW
  &TIMINGS
    THRESHOLD 0.0
  &END TIMINGS
&END GLOBAL
&FORCE_EVAL
  METHOD QS
  &DFT
    BASIS_SET_FILE_NAME BASIS_SET
    POTENTIAL_FILE_NAME POTENTIAL
    &MGRID
      CUTOFF 280
    &END MGRID
    &QS
      EPS_DEFAULT 1.0E-12
    &END QS
    &SCF
      SCF_GUESS ATOMIC
      MAX_SCF 10
      EPS_SCF 1.0E-6
      &OT ON
        MINIMIZER DIIS
      &END OT
      &PRINT
        &RESTART OFF
        &END RESTART
      &END PRINT
    &END SCF
    &XC
      &XC_FUNCTIONAL Pade
      &END XC_FUNCTIONAL
    &END XC
  &END DFT
  &SUBSYS
    &CELL
      ABC 9.865 9.865 9.865
    &END CELL
    &COORD
@INCLUDE coords.inc
    &END COORD
    &KIND H
      BASIS_SET DZV-GTH-PADE
      POTENTIAL GTH-PADE-q1
    &END KIND
    &KIND O
      BASIS_SET DZVP-GTH-PADE
      POTENTIAL GTH-PADE-q6
    &END KIND
  &END SUBSYS
&END FORCE_EVAL
"""
CP2K_COORDS = "/usr/share/doc/cp2k/examples/H2O-32_ewald.inp.gz"
# CP2K's message-passing routines that are collectives (mp_sum_d, mp_bcast_b, mp_alltoall_z22v,
# mp_sync ...), against its point-to-point ones (mp_isend, mp_waitall, mp_sendrecv ...) and
# communicator management (mp_comm_dup, mp_cart_create ...).
CP2K_COLLECTIVE = re.compile(
    r"mp_(sum|max|min|prod|maxloc|minloc|bcast|alltoall|allgather|gather|scatter|sync|isum|"
    r"ibcast|iallgather|ialltoall|iscatter|sum_scatter|sum_partial|shift)")


def cp2k_prepare(run_dir, p):
    with gzip.open(CP2K_COORDS, "rt") as f:
        text = f.read()
    block = text.split("&COORD", 1)[1].split("&END COORD", 1)[0]
    coords = [" ".join(line.split()[:4]) for line in block.splitlines() if line.strip()]
    write(run_dir, "coords.inc", "\n".join(coords) + "\n")
    write(run_dir, "h2o32.inp", CP2K_INPUT)


def cp2k_results(text):
    """The SCF steps' convergence and total energy, the charges, the energy terms and the final
    energy (ENERGY| Total FORCE_EVAL ...)."""
    out = {}
    for m in re.finditer(r"^\s+(\d+) OT \w+\s+\S+\s+\S+\s+(\S+)\s+(\S+)", text, re.M):
        out[f"scf{m.group(1)}_convergence"], out[f"scf{m.group(1)}_energy"] = m.groups()[1:]
    for m in re.finditer(r"^\s+([A-Z][^:\n]*(?:energy|density)[^:\n]*):\s+(" + NUMBER
                         + r")\s*$", text, re.M):
        out[re.sub(r"\W+", "_", m.group(1).strip()).strip("_").lower()] = m.group(2)
    return out


def cp2k_timers(text):
    """Self time (mean over ranks) of the collective mp_ routines, and of the rest of mp_."""
    report = text.split("T I M I N G", 1)[-1]
    coll = other = 0.0
    total = None
    for m in re.finditer(r"^ (\w+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$",
                         report, re.M):
        name, self_avg, total_max = m.group(1), float(m.group(4)), float(m.group(7))
        if name == "CP2K":
            total = total_max
        elif name.startswith("mp_"):
            if CP2K_COLLECTIVE.match(name):
                coll += self_avg
            else:
                other += self_avg
    timers = [("mp_ collectives", coll), ("mp_ point-to-point etc.", other)]
    if total is not None:
        timers.append(("CP2K total", total))
    return timers if "T I M I N G" in text else []


# LAMMPS: the packaged 3-d Lennard-Jones melt (examples/melt/in.melt) on a 20^3 lattice instead of
# 10^3 (32000 atoms), its 250 steps; the packaged solvated peptide (examples/peptide, PPPM
# long-range electrostatics) as it is, 300 steps, with PPPM's FFT remaps as point-to-point
# messages (LAMMPS's default) and as MPI_Alltoallv (kspace_modify collective yes).
LAMMPS_EXAMPLES = "/usr/share/lammps/examples"


def lammps_melt_prepare(run_dir, p):
    text = read(os.path.join(LAMMPS_EXAMPLES, "melt", "in.melt"))
    text = text.replace("region\t\tbox block 0 10 0 10 0 10", "region\t\tbox block 0 20 0 20 0 20")
    if "0 20 0 20 0 20" not in text:
        raise RuntimeError("the packaged in.melt is not as expected (region box block 0 10 ...)")
    write(run_dir, "in.lammps", text)


def lammps_peptide_prepare(collective):
    def prepare(run_dir, p):
        text = read(os.path.join(LAMMPS_EXAMPLES, "peptide", "in.peptide"))
        if collective:
            text = re.sub(r"^(kspace_style.*)$", r"\1\nkspace_modify\tcollective yes", text,
                          flags=re.M)
        write(run_dir, "in.lammps", text)
        shutil.copy(os.path.join(LAMMPS_EXAMPLES, "peptide", "data.peptide"), run_dir)
    return prepare


def lammps_argv(run_dir, p):
    return ["lmp", "-in", "in.lammps", "-log", "log.lammps", "-screen", "none"]


def lammps_results(text):
    """Every thermodynamic value printed: the one-line table (thermo_style one/custom) and the
    multi-line blocks (thermo_style multi), keyed by step and column."""
    out = {}
    lines = text.splitlines()
    header = None
    for line in lines:
        fields = line.split()
        if fields[:1] == ["Step"] and len(fields) > 1:
            header = fields
            continue
        if header and len(fields) == len(header) and re.fullmatch(r"\d+", fields[0]):
            for name, value in zip(header[1:], fields[1:]):
                out[f"step{fields[0]}_{name}"] = value
            continue
        header = None if not fields or not re.match(NUMBER, fields[0]) else header
    step = None
    for line in lines:
        m = re.match(r"-+ Step\s+(\d+)", line)
        if m:
            step = m.group(1)
            continue
        if step is not None:
            pairs = re.findall(r"(\w+)\s+=\s+(" + NUMBER + ")", line)
            if not pairs:
                step = None
            for name, value in pairs:
                out[f"step{step}_{name}"] = value
    return out


def lammps_timers(text):
    timers = {}
    for m in re.finditer(r"^(\w+)\s+\|\s+(\S+)\s+\|\s+(\S+)\s+\|\s+(\S+)", text, re.M):
        try:
            timers[m.group(1)] = float(m.group(3))
        except ValueError:
            continue
    m = re.search(r"Loop time of (\S+) on", text)
    out = [(f"{name} (avg)", timers[name]) for name in ("Comm", "Kspace") if name in timers]
    if m:
        out.append(("Loop time", float(m.group(1))))
    return out


# Quantum ESPRESSO: silicon as in its PW example01 (Si.pz-vbc.UPF, celldm 10.20, ecutwfc 18 Ry),
# as a 64-atom cubic supercell at the Gamma point (k-point code), so that plane-wave FFTs over
# the ranks carry the work.
QE_PSEUDO = "/usr/share/espresso/pseudo"


def qe_prepare(run_dir, p):
    basis = [(0, 0, 0), (0, .5, .5), (.5, 0, .5), (.5, .5, 0),
             (.25, .25, .25), (.25, .75, .75), (.75, .25, .75), (.75, .75, .25)]
    atoms = [((x + i) / 2, (y + j) / 2, (z + k) / 2)
             for i in range(2) for j in range(2) for k in range(2) for x, y, z in basis]
    positions = "".join(f" Si {x:.4f} {y:.4f} {z:.4f}\n" for x, y, z in atoms)
    write(run_dir, "si64.in", f""" &control
    calculation = 'scf'
    prefix = 'si64'
    pseudo_dir = '{QE_PSEUDO}/'
    outdir = './qe-tmp/'
    tprnfor = .true.
    tstress = .true.
 /
 &system
    ibrav = 1, celldm(1) = 20.40, nat = {len(atoms)}, ntyp = 1,
    ecutwfc = 18.0,
 /
 &electrons
    mixing_beta = 0.7
    conv_thr = 1.0d-8
 /
ATOMIC_SPECIES
 Si  28.086  Si.pz-vbc.UPF
ATOMIC_POSITIONS crystal
{positions}K_POINTS automatic
 1 1 1 0 0 0
""")


def qe_results(text):
    out = {}
    for i, m in enumerate(re.finditer(r"^\s+total energy\s+=\s+(\S+) Ry", text, re.M)):
        out[f"iteration{i + 1}_total_energy"] = m.group(1)
    for i, m in enumerate(re.finditer(r"estimated scf accuracy\s+<\s+(\S+) Ry", text)):
        out[f"iteration{i + 1}_scf_accuracy"] = m.group(1)
    m = re.search(r"^!\s+total energy\s+=\s+(\S+) Ry", text, re.M)
    if m:
        out["final_total_energy"] = m.group(1)
    for m in re.finditer(r"^\s+(one-electron|hartree|xc|ewald) contribution\s+=\s+(\S+)", text,
                         re.M):
        out[m.group(1) + "_contribution"] = m.group(2)
    m = re.search(r"Total force =\s+(\S+)\s+Total SCF correction =\s+(\S+)", text)
    if m:
        out["total_force"], out["scf_correction"] = m.group(1), m.group(2)
    m = re.search(r"P=\s*(\S+)", text)
    if m:
        out["pressure_kbar"] = m.group(1)
    m = re.search(r"convergence has been achieved in\s+(\d+) iterations", text)
    if m:
        out["scf_iterations"] = m.group(1)
    return out


def qe_timers(text):
    def wall(name):
        m = re.search(r"^\s+" + re.escape(name) + r"\s*:.*?(\S+)s WALL", text, re.M)
        return qe_seconds(m.group(1)) if m else None
    scatter = [wall("fft_scatt_xy"), wall("fft_scatt_yz")]
    out = []
    if any(s is not None for s in scatter):
        out.append(("fft_scatt_xy+yz (wall)", sum(s or 0.0 for s in scatter)))
    total = wall("PWSCF")
    if total is not None:
        out.append(("PWSCF (wall)", total))
    return out


def qe_seconds(text):
    """QE's clock format: 12.34, 1m23.45 or 1h 2m."""
    m = re.fullmatch(r"(?:(\d+)h)?\s*(?:(\d+)m)?\s*([\d.]+)?", text.strip())
    if not m:
        return None
    h, mi, s = m.groups()
    return int(h or 0) * 3600 + int(mi or 0) * 60 + float(s or 0)


# mpi4py: tools/apps/cg_fft.py, CG with 8-byte MPI_Allreduce dot products and a distributed 2-D
# FFT whose transpositions are MPI_Alltoall of 8 MiB blocks at p = 2.
def mpi4py_argv(run_dir, p):
    m = max(p, 2048 // p * p)  # the FFT's side must divide among the ranks
    return ["/usr/bin/python3", os.path.join(ROOT, "tools", "apps", "cg_fft.py"),
            "--cg-n", "1024", "--cg-iters", "300", "--fft-m", str(m), "--fft-reps", "4"]


def mpi4py_results(text):
    return dict(re.findall(r"^result: (\S+) (\S+)$", text, re.M))


def mpi4py_timers(text):
    t = {k: float(v) for k, v in re.findall(r"^timer: (\S+) (\S+)$", text, re.M)}
    if not t:
        return []
    return [("allreduce+alltoall", t.get("allreduce", 0) + t.get("alltoall", 0)),
            ("halo (Sendrecv)", t.get("halo", 0)), ("cg+fft", t.get("cg", 0) + t.get("fft", 0))]


def mpi4py_binary():
    try:
        out = subprocess.run(["/usr/bin/python3", "-c", "import mpi4py.MPI as m; print(m.__file__)"],
                             capture_output=True, text=True, check=True).stdout.strip()
        return out
    except (OSError, subprocess.CalledProcessError):
        return None


# HPC Challenge (hpcc 1.5): HPL, DGEMM, STREAM, PTRANS, RandomAccess, FFT and the network tests
# in one run, each checking its own result. Its packaged example input with HPL on a 4000 x 4000
# matrix (blocks of 80) on the squarest P x Q grid of the ranks; the other tests size themselves
# from it. The answers: the checks' verdicts (every PASSED/FAILED line counted, the errors and
# residuals of the summary) and HPL's norms, which are deterministic at a fixed p.
HPCC_INPUT = "/usr/share/doc/hpcc/examples/_hpccinf.txt"
HPCC_ANSWERS = ("Success", "HPL_RnormI", "HPL_Anorm1", "HPL_AnormI", "HPL_Xnorm1", "HPL_XnormI",
                "HPL_BnormI", "PTRANS_residual", "MPIRandomAccess_LCG_Errors",
                "MPIRandomAccess_Errors", "MPIFFT_maxErr")


def hpcc_prepare(run_dir, p):
    rows = max(r for r in range(1, int(p ** 0.5) + 1) if p % r == 0)
    lines = read(HPCC_INPUT).splitlines()
    values = {"Ns": 4000, "Ps": rows, "Qs": p // rows}  # lines "<value> <name>"
    for i, words in enumerate(line.split() for line in lines):
        if len(words) == 2 and words[1] in values:
            lines[i] = f"{values[words[1]]:<13}{words[1]}"
    write(run_dir, "hpccinf.txt", "\n".join(lines) + "\n")


def hpcc_summary(text):
    """The "name=value" lines of the output's summary section."""
    return dict(re.findall(r"^(\w+)=(\S+)$", text, re.M))


def hpcc_results(text):
    summary = hpcc_summary(text)
    out = {k: summary[k] for k in HPCC_ANSWERS if k in summary}
    if out:
        out["checks_passed"] = str(len(re.findall(r"\bPASSED\b|\(passed\)", text)))
        out["checks_failed"] = str(len(re.findall(r"\bFAILED\b|\(failed\)", text)))
    return out


def hpcc_timers(text):
    """MPIFFT's phases (MPIFFT_time0-4 summed: its transpositions are MPI_Alltoall), then HPL's,
    PTRANS's and MPIRandomAccess's times."""
    summary = hpcc_summary(text)
    if "HPL_time" not in summary:
        return []
    fft = sum(float(summary.get(f"MPIFFT_time{i}", 0)) for i in range(5))
    return [("MPIFFT (phases summed)", fft)] + [
        (k, float(summary[k])) for k in ("HPL_time", "PTRANS_time", "MPIRandomAccess_time")
        if k in summary]


APPS = [
    App("cp2k", "/usr/bin/cp2k.psmp", cp2k_prepare,
        lambda d, p: ["cp2k.psmp", "-i", "h2o32.inp", "-o", "cp2k.out"], "cp2k.out",
        cp2k_results, cp2k_timers, "H2O-32 benchmark input, GPW energy, 10 OT steps"),
    App("lammps-melt", "/usr/bin/lmp", lammps_melt_prepare, lammps_argv, "log.lammps",
        lammps_results, lammps_timers, "LJ melt, 32000 atoms, 250 steps"),
    App("lammps-pppm", "/usr/bin/lmp", lammps_peptide_prepare(False), lammps_argv, "log.lammps",
        lammps_results, lammps_timers, "peptide, PPPM, remaps point-to-point, 300 steps"),
    App("lammps-pppm-coll", "/usr/bin/lmp", lammps_peptide_prepare(True), lammps_argv,
        "log.lammps", lammps_results, lammps_timers,
        "peptide, PPPM, kspace_modify collective yes, 300 steps"),
    App("qe", "/usr/bin/pw.x", qe_prepare, lambda d, p: ["pw.x", "-in", "si64.in"], None,
        qe_results, qe_timers, "pw.x, Si64 supercell, Gamma, 18 Ry"),
    App("mpi4py", None, lambda d, p: None, mpi4py_argv, None, mpi4py_results, mpi4py_timers,
        "tools/apps/cg_fft.py: CG + 2-D FFT (Alltoall)"),
    App("hpcc", "/usr/bin/hpcc", hpcc_prepare, lambda d, p: ["hpcc"], "hpccoutf.txt", hpcc_results,
        hpcc_timers, "HPC Challenge, HPL N = 4000, every test with its own check"),
]


# ---- running ------------------------------------------------------------------------------------


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def write(directory, name, text):
    with open(os.path.join(directory, name), "w") as f:
        f.write(text)


def flavour_of(binary):
    """'openmpi' or 'mpich': the MPI library the binary (or Python module) is linked against."""
    if not binary or not os.path.exists(binary):
        return None
    libs = subprocess.run(["ldd", os.path.realpath(binary)], capture_output=True,
                          text=True).stdout
    if "libmpi.so.40" in libs:
        return "openmpi"
    if "libmpich" in libs or "libmpi.so.12" in libs:
        return "mpich"
    return None


class Run:
    """One launch: its files, wall time, exit, and what the output said."""

    def __init__(self, app, flavour, p, mode, tag):
        self.app, self.flavour, self.p, self.mode, self.tag = app, flavour, p, mode, tag
        self.dir = os.path.join(OUT, app.name, tag)
        self.wall = None
        self.rc = None
        self.timed_out = False
        self.leftover_shm = 0
        self.results, self.timers, self.profile, self.stats = {}, [], [], []
        self.stderr = ""


def shmcoll_env():
    """APPS_SHMCOLL_ENV's NAME=VALUE words."""
    out = {}
    for word in os.environ.get("APPS_SHMCOLL_ENV", "").split():
        name, eq, value = word.partition("=")
        if not eq or not re.fullmatch(r"SHMCOLL_\w+", name):
            sys.exit(f"run-apps: APPS_SHMCOLL_ENV: {word!r} is not SHMCOLL_NAME=VALUE")
        out[name] = value
    return out


def launch(app, flavour, p, mode, tag, timeout, extra_env=None):
    run = Run(app, flavour, p, mode, tag)
    shutil.rmtree(run.dir, ignore_errors=True)
    os.makedirs(run.dir)
    app.prepare(run.dir, p)
    lib = os.path.join(BUILD, flavour, "lib")
    profile_file = os.path.join(run.dir, "profile.txt")
    shm_base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    shm_dir = tempfile.mkdtemp(prefix="shmcoll-apps-", dir=shm_base)
    env = {"OMP_NUM_THREADS": "1", "SHMCOLL_PROFILE_FILE": profile_file,
           "LD_PRELOAD": os.path.join(lib, "libshmcoll-profile.so")}
    if mode != "native":
        env["LD_PRELOAD"] += " " + os.path.join(lib, "libshmcoll.so")
        if not CLUSTER:  # a node's /dev/shm is its own: the segments go to its default place
            env["SHMCOLL_SHM_DIR"] = shm_dir
        env.update(shmcoll_env())
    env.update(extra_env or {})
    if CLUSTER:
        # cluster-run.sh bounds the job itself (exit 124: a hang before MPI_Finalize, 125: in
        # it) and leaves no process inside the nodes; the ranks start in this run's directory.
        nodes, ppn, cyclic = CLUSTER
        cmd = ["bash", os.path.join(ROOT, "scripts", "cluster-run.sh"), flavour, str(nodes),
               str(ppn), "--timeout", str(timeout)] + (["--cyclic"] if cyclic else [])
        if flavour == "mpich":  # MPICH 4.0.2's own hang in MPI_Finalize over TCP (CLUSTER.md)
            cmd += ["--finalize-grace", "3", "--accept-finalize-hang"]
        for k, v in env.items():
            cmd += ["--env", f"{k}={v}"]
        cmd.append("--")
    elif flavour == "openmpi":
        cmd = ["mpiexec.openmpi", "-n", str(p), "--oversubscribe", "--mca", "mpi_yield_when_idle",
               "1", "--mca", "btl_vader_backing_directory", shm_dir]
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
        for k, v in env.items():
            cmd += ["-x", f"{k}={v}"]
    else:
        cmd = ["mpiexec.mpich", "-n", str(p)]
        for k, v in env.items():
            cmd += ["-genv", k, v]
    cmd += app.argv(run.dir, p)
    write(run.dir, "command", " ".join(cmd) + "\n")
    with open(os.path.join(run.dir, "stdout"), "w") as out, \
            open(os.path.join(run.dir, "stderr"), "w") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=run.dir, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            run.rc = proc.wait(timeout=timeout + (60 if CLUSTER else 0))
            run.timed_out = bool(CLUSTER) and run.rc in (124, 125)
        except subprocess.TimeoutExpired:
            run.timed_out = True
        finally:  # a timeout, or this script interrupted: end the launcher and its ranks
            if run.rc is None:
                os.killpg(proc.pid, signal.SIGKILL)
                run.rc = proc.wait()
                shutil.rmtree(shm_dir, ignore_errors=True)
        run.wall = time.monotonic() - t0
    leftovers = []
    for base, _, files in os.walk(shm_dir):
        leftovers += [os.path.join(base, f) for f in files]
    run.leftover_shm = len(leftovers) + cluster_leftovers()
    shutil.rmtree(shm_dir, ignore_errors=True)
    shutil.rmtree(os.path.join(run.dir, "qe-tmp"), ignore_errors=True)
    stdout = read(os.path.join(run.dir, "stdout"))
    run.stderr = read(os.path.join(run.dir, "stderr"))
    text = read(os.path.join(run.dir, app.output)) if app.output and os.path.exists(
        os.path.join(run.dir, app.output)) else stdout
    run.results = app.results(text)
    run.timers = app.timers(text)
    if os.path.exists(profile_file):
        run.profile = parse_profile(read(profile_file))
    run.stats = [line for line in run.stderr.splitlines() if line.startswith("shmcoll: ")]
    state = "TIMEOUT" if run.timed_out else f"exit {run.rc}"
    print(f"run-apps: {app.name:17} {tag:14} p={p} {run.wall:8.2f} s  {state}"
          f"{'' if run.results else '  (no results found)'}", flush=True)
    return run


def cluster_leftovers():
    """Files a run left in the simulated nodes' own /dev/shm, removed; 0 without a cluster."""
    if not CLUSTER:
        return 0
    return len(subprocess.run(["bash", CLUSTER_SH, "sweep-shm"], capture_output=True,
                              text=True).stdout.split())


def cluster_up():
    """Brings up APPS_CLUSTER's nodes unless enough are up; returns whether it did (and so must
    take them down)."""
    if not CLUSTER:
        return False
    have = int(subprocess.run(["bash", CLUSTER_SH, "nodes"], capture_output=True,
                              text=True).stdout.strip() or 0)
    if have >= CLUSTER[0]:
        return False
    if have:
        sys.exit(f"run-apps: a simulated cluster of {have} node(s) is up, {CLUSTER[0]} needed: "
                 "scripts/cluster.sh down first")
    reason = subprocess.run(["bash", CLUSTER_SH, "skip-reason"], capture_output=True,
                            text=True).stdout.strip()
    if reason:
        sys.exit(f"run-apps: APPS_CLUSTER: no simulated cluster here: {reason}")
    subprocess.run(["bash", CLUSTER_SH, "up", str(CLUSTER[0])], check=True)
    return True


def parse_profile(text):
    """[(collective, band, calls, bytes, time_s, max_s)] from libshmcoll-profile's table."""
    rows = []
    for line in text.splitlines():
        f = line.split()
        if len(f) == 8 and f[0] == "profile:" and re.fullmatch(r"\d+", f[3]):
            rows.append((f[1], f[2], int(f[3]), int(f[4]), float(f[5]), float(f[6])))
    return rows


def handled(run):
    """(handled, fell back) from the run's SHMCOLL_STATS line, or (None, None)."""
    for line in run.stats:
        m = re.match(r"shmcoll: handled (\d+) calls, fell back (\d+)", line)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None, None


def profile_total(rows):
    for coll, band, _, _, t, _ in rows:
        if coll == "total":
            return t
    return None


# ---- comparing answers --------------------------------------------------------------------------


def significant(text):
    """Significant digits printed in a number."""
    mantissa = re.split(r"[eEdD]", text.lstrip("+-"))[0].replace(".", "")
    return max(len(mantissa.lstrip("0")), 1)


def agreeing_digits(a, b):
    """Leading significant digits in which two printed numbers agree (all printed when equal)."""
    if a == b:
        return significant(a)
    try:
        x, y = float(a.replace("D", "e").replace("d", "e")), float(b.replace("D", "e").replace(
            "d", "e"))
    except ValueError:
        return 0
    if x == y:
        return min(significant(a), significant(b))
    scale = max(abs(x), abs(y))
    return max(0, min(significant(a), int(math.floor(-math.log10(abs(x - y) / scale)))))


def compare(reference, results):
    """(values compared, values differing, worst (name, ref, value, digits, printed) or None,
    names missing)."""
    differing, worst, missing = 0, None, []
    for name, ref in reference.items():
        if name not in results:
            missing.append(name)
            continue
        value = results[name]
        if value == ref:
            continue
        differing += 1
        d = agreeing_digits(ref, value)
        if worst is None or d < worst[3] or (d == worst[3] and significant(ref) > worst[4]):
            worst = (name, ref, value, d, significant(ref))
    missing += [name for name in results if name not in reference]
    return len(reference), differing, worst, missing


def agreement_text(reference, runs):
    """One line: how the answers of `runs` compare with `reference`'s."""
    if not reference.results:
        return "no results to compare (reference run printed none)"
    n, differing, worst, missing, failed = 0, 0, None, set(), 0
    for run in runs:
        if not run.results:
            failed += 1
            continue
        n, d, w, m = compare(reference.results, run.results)
        differing = max(differing, d)
        missing.update(m)
        if w and (worst is None or w[3] < worst[3]):
            worst = w
    parts = []
    if failed:
        parts.append(f"{failed} run(s) printed no results")
    if differing == 0 and not failed:
        parts.append(f"identical ({n} values, as printed)")
    elif worst:
        name, ref, value, d, sig = worst
        parts.append(f"{differing} of {n} values differ; worst {name}: {ref} vs {value} "
                     f"({d} of {sig} digits agree)")
    if missing:
        parts.append(f"values present in one run only: {len(missing)}")
    return "; ".join(parts)


# ---- shmcoll's view -----------------------------------------------------------------------------


def fallback_reasons(stderr):
    """What SHMCOLL_VERBOSE=1 said: {(function, reason): lines} of the calls passed to the MPI
    library (every rank logs its own), {reason: communicators} not handled (counted at their
    rank 0), calibration's verdicts, and the lines about the shared-memory budget (chunks shrunk,
    communicators refused)."""
    calls, comms, verdicts, budget = {}, {}, [], []
    for line in stderr.splitlines():
        m = re.match(r"shmcoll\[\d+\]: (\S+): passed to the MPI library: (.*)$", line)
        if m:
            key = (m.group(1), m.group(2))
            calls[key] = calls.get(key, 0) + 1
            continue
        m = re.match(r"shmcoll\[\d+\]: communicator of (\d+) processes \(rank (\d+)\) not "
                     r"handled: (.*)$", line)
        if m:
            if m.group(2) == "0":
                key = f"{m.group(3)} (p={m.group(1)})"
                comms[key] = comms.get(key, 0) + 1
            continue
        if ": calibrated: " in line:
            verdicts.append(line.split(": ", 1)[1].strip())
        elif "no shared memory for a communicator" in line or "SHMCOLL_SHM_BUDGET" in line:
            budget.append(line.strip())
    return calls, comms, verdicts, budget


# ---- report -------------------------------------------------------------------------------------


def median_spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None, None, None
    return statistics.median(values), min(values), max(values)


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def timer_median(runs, index=0):
    values = [r.timers[index][1] for r in runs if len(r.timers) > index]
    return median_spread(values)[0]


def profile_lines(rows, indent="    ", top=8):
    """The rows that carry the time, largest first, and the total."""
    body = [r for r in rows if r[0] != "total" and r[1] != "all"]
    body.sort(key=lambda r: -r[4])
    out = [f"{indent}{'collective':22} {'size':7} {'calls':>9} {'bytes':>14} {'time_s':>9} "
           f"{'max_s':>9}"]
    for coll, band, calls, nbytes, t, mx in body[:top] + [r for r in rows if r[0] == "total"]:
        out.append(f"{indent}{coll:22} {band:7} {calls:9d} {nbytes:14d} {t:9.3f} {mx:9.3f}")
    if len(body) > top:
        out.insert(-1, f"{indent}... {len(body) - top} more rows in the run's profile.txt")
    return out


def main():
    # SIGTERM ends a run like Ctrl-C: through launch's cleanup of the run in progress.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    np_ = CLUSTER[0] * CLUSTER[1] if CLUSTER else env_int("APPS_NP", os.cpu_count() or 1)
    rounds = max(1, env_int("APPS_ROUNDS", 3))
    over_np = 0 if CLUSTER else env_int("APPS_OVERSUB_NP", 2 * np_)
    timeout = env_int("APPS_TIMEOUT", 1800)
    wanted = [a for a in os.environ.get("APPS", "").split(",") if a.strip()]
    unknown = [a for a in wanted if a not in {app.name for app in APPS}]
    if unknown:
        sys.exit(f"run-apps: unknown application(s) {', '.join(unknown)}; known: "
                 + ", ".join(app.name for app in APPS))
    apps = [app for app in APPS if not wanted or app.name in wanted]
    os.makedirs(OUT, exist_ok=True)
    load = os.getloadavg()[0]
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    print(f"run-apps: p={np_}{where()}, {rounds} round(s), oversubscribed p="
          f"{over_np or 'skipped'}, {os.cpu_count()} cores, load average {load:.2f} at the start; "
          f"runs under build/{NAME}/", flush=True)
    took_up = cluster_up()
    try:
        summary = run_all(apps, np_, rounds, over_np, timeout, load, started)
    finally:
        if took_up:
            subprocess.run(["bash", CLUSTER_SH, "down"])
    failed = [r for s in summary for r in s[2] + s[3] + [s[4]] + s[5]
              if r.rc != 0 or r.timed_out]
    return 1 if failed else 0


def where():
    """How the ranks are placed, for the report's first lines."""
    if not CLUSTER:
        return ""
    nodes, ppn, cyclic = CLUSTER
    return (f" across {nodes} simulated nodes x {ppn} ranks "
            f"({'round-robin' if cyclic else 'in blocks'}; scripts/cluster.sh)")


def run_all(apps, np_, rounds, over_np, timeout, load, started):
    """Every application's rounds; the report after each (an interrupted run keeps the finished
    ones). Returns the summary rows."""
    summary = []
    for app in apps:
        binary = app.binary or mpi4py_binary()
        flavour = flavour_of(binary)
        if flavour is None:
            print(f"run-apps: {app.name}: {binary or 'mpi4py'} not found or not linked against "
                  "an MPI library; skipped (scripts/install-apps.sh installs it)")
            continue
        for lib in ("libshmcoll.so", "libshmcoll-profile.so"):
            if not os.path.exists(os.path.join(BUILD, flavour, "lib", lib)):
                sys.exit(f"run-apps: build/{flavour}/lib/{lib} missing: make build-{flavour}")
        native, preloaded = [], []
        for r in range(1, rounds + 1):
            order = ("native", "shmcoll") if r % 2 else ("shmcoll", "native")
            for mode in order:
                run = launch(app, flavour, np_, mode, f"{mode}-{r}", timeout)
                (native if mode == "native" else preloaded).append(run)
        # Statistics and reasons from a run of their own: with SHMCOLL_STATS every call takes
        # the whole path (no repeated-call shortcut), which the timed runs must not measure.
        verbose = launch(app, flavour, np_, "shmcoll", "verbose", timeout,
                         {"SHMCOLL_VERBOSE": "1", "SHMCOLL_STATS": "1"})
        over = []
        if over_np > 0:
            over = [launch(app, flavour, over_np, mode, f"p{over_np}-{mode}", timeout)
                    for mode in ("native", "shmcoll")]
        summary.append((app, flavour, native, preloaded, verbose, over))
        # Written after every application: an interrupted run keeps the finished ones.
        text = "\n".join(report(summary, np_, rounds, over_np, load, started)) + "\n"
        write(BUILD, f"{NAME}.txt", text)
        write_csv(summary, np_, rounds, load, started)
        plot(np_, rounds)

    if summary:
        print(text, end="")
    return summary


def report(summary, np_, rounds, over_np, load, started):
    extra = " ".join(f"{k}={v}" for k, v in shmcoll_env().items())
    out = ["", f"apps: p={np_}{where()}, {rounds} round(s) alternating native/preloaded, started "
           f"{started}, {os.cpu_count()} cores, load average {load:.2f} at the start (the machine "
           "may be shared: see the spreads)"
           + (f"; preloaded runs with {extra}" if extra else ""),
           "apps: wall s = median [min-max] over rounds of the launch (mpiexec) wall time; speedup "
           "= native / preloaded; app comm = the application's own timer of its communication "
           "(median); profile = time in collectives, mean over ranks (libshmcoll-profile)", ""]
    head = (f"{'application':17} {'MPI':8} {'native wall s':>22} {'shmcoll wall s':>22} "
            f"{'speedup':>7} {'app comm n/s':>15} {'profile n/s':>13} {'handled/fell':>13}  "
            "answers (preloaded vs native)")
    out += [head, "-" * len(head)]
    for app, flavour, native, preloaded, verbose, over in summary:
        n_med, n_min, n_max = median_spread([r.wall for r in native])
        s_med, s_min, s_max = median_spread([r.wall for r in preloaded])
        speed = n_med / s_med if n_med and s_med else None
        prof_n = median_spread([profile_total(r.profile) for r in native])[0]
        prof_s = median_spread([profile_total(r.profile) for r in preloaded])[0]
        agree = agreement_text(native[0], preloaded)
        done, fell = handled(verbose)
        out.append(f"{app.name:17} {flavour:8} {fmt(n_med):>8} [{fmt(n_min)}-{fmt(n_max)}] "
                   f"{fmt(s_med):>8} [{fmt(s_min)}-{fmt(s_max)}] {fmt(speed, 3):>7} "
                   f"{fmt(timer_median(native)):>7}/{fmt(timer_median(preloaded)):<7} "
                   f"{fmt(prof_n):>6}/{fmt(prof_s):<6} {f'{done}/{fell}':>13}  {agree}")
    for app, flavour, native, preloaded, verbose, over in summary:
        out += ["", f"== {app.name}: {app.note}; {flavour}, p={np_}"]
        out.append("  wall s, native:    " + " ".join(fmt(r.wall) for r in native))
        out.append("  wall s, preloaded: " + " ".join(fmt(r.wall) for r in preloaded))
        for i, (name, _) in enumerate(native[0].timers if native[0].timers else []):
            out.append(f"  app timer {name}: native {fmt(timer_median(native, i))} s, "
                       f"preloaded {fmt(timer_median(preloaded, i))} s (medians)")
        out.append("  answers, native runs among themselves: "
                   + agreement_text(native[0], native[1:]) if len(native) > 1 else
                   "  answers: one native run only")
        out.append("  answers, preloaded against the first native run: "
                   + agreement_text(native[0], preloaded))
        for label, runs in (("native", native), ("preloaded", preloaded)):
            mid = sorted(runs, key=lambda r: r.wall)[len(runs) // 2]
            out.append(f"  collective profile, {label} (run {mid.tag}, {fmt(mid.wall)} s):")
            out += profile_lines(mid.profile) if mid.profile else ["    (no profile written)"]
        stats = verbose.stats
        out.append(f"  shmcoll's view (SHMCOLL_STATS=1, run {verbose.tag}):")
        out += [f"    {line}" for line in stats if not line.startswith("shmcoll: heap:")] or [
            "    (no statistics printed)"]
        calls, comms, verdicts, budget = fallback_reasons(verbose.stderr)
        out.append("  fallbacks by reason (SHMCOLL_VERBOSE=1 run, lines of all ranks):")
        for (function, reason), n in sorted(calls.items(), key=lambda kv: -kv[1]):
            out.append(f"    {n:7d}  {function}: {reason}")
        if not calls:
            out.append("    none")
        out.append("  communicators not handled (counted at their rank 0):")
        for reason, n in sorted(comms.items(), key=lambda kv: -kv[1]):
            out.append(f"    {n:7d}  {reason}")
        if not comms:
            out.append("    none")
        out.append(f"  calibration's verdicts (same run; the bands settled on the MPI library's "
                   f"are served by it without a log line): {len(verdicts)}")
        out += [f"    {v}" for v in verdicts]
        out.append(f"  shared-memory budget (same run): {len(budget)} line(s)")
        out += [f"    {b}" for b in budget[:10]]
        if len(budget) > 10:
            out.append(f"    ... {len(budget) - 10} more in {app.name}/verbose/stderr")
        leftovers = sum(r.leftover_shm for r in native + preloaded + [verbose] + over)
        bad = [r for r in native + preloaded + [verbose] + over if r.rc != 0 or r.timed_out]
        out.append(f"  runs failed or timed out: {len(bad)}"
                   + "".join(f"; {r.tag}: {'timeout' if r.timed_out else 'exit ' + str(r.rc)}"
                             for r in bad) + f"; files left in the shared-memory dirs: {leftovers}")
        if over:
            o_native, o_pre = over
            out.append(f"  oversubscribed p={over_np}: native {fmt(o_native.wall)} s, preloaded "
                       f"{fmt(o_pre.wall)} s; answers: " + agreement_text(o_native, [o_pre]))
            out.append(f"  oversubscribed p={over_np} against p={np_} native: "
                       + agreement_text(native[0], [o_native]))
    return out


def write_csv(summary, np_, rounds, load, started):
    path = os.path.join(BUILD, f"{NAME}.csv")
    with open(path, "w", newline="") as f:
        extra = " ".join(f"{k}={v}" for k, v in shmcoll_env().items())
        f.write(f"# make apps: p={np_}{where()}, rounds={rounds}, started {started}, "
                f"{os.cpu_count()} cores, load average {load:.2f} at the start"
                + (f", preloaded with {extra}" if extra else "") + "\n")
        w = csv.writer(f)
        w.writerow(["application", "mpi", "np", "mode", "rounds", "median_s", "min_s", "max_s",
                    "walls_s", "app_comm_s", "app_comm_timer", "profile_coll_s", "speedup",
                    "answers"])
        for app, flavour, native, preloaded, _, _ in summary:
            n_med = median_spread([r.wall for r in native])[0]
            s_med = median_spread([r.wall for r in preloaded])[0]
            for mode, runs in (("native", native), ("shmcoll", preloaded)):
                med, lo, hi = median_spread([r.wall for r in runs])
                timer = runs[0].timers[0][0] if runs[0].timers else ""
                w.writerow([app.name, flavour, np_, mode, len(runs), fmt(med, 3), fmt(lo, 3),
                            fmt(hi, 3), ";".join(fmt(r.wall, 3) for r in runs),
                            fmt(timer_median(runs), 3), timer,
                            fmt(median_spread([profile_total(r.profile) for r in runs])[0], 3),
                            fmt(n_med / s_med, 3) if mode == "shmcoll" and n_med and s_med
                            else "", agreement_text(native[0], runs if mode == "shmcoll"
                                                    else runs[1:]) if len(runs) else ""])


def plot(np_, rounds):
    """build/apps.png: wall time per application, native against preloaded (median, min-max)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("run-apps: no picture: needs matplotlib (Debian: python3-matplotlib)",
              file=sys.stderr)
        return
    rows = {}
    with open(os.path.join(BUILD, f"{NAME}.csv")) as f:
        header = f.readline().lstrip("# ").strip()
        for r in csv.DictReader(f):
            if r["median_s"] != "-":
                rows.setdefault(r["application"], {})[r["mode"]] = r
    names = list(rows)
    if not names:
        return
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(names)), 4.5))
    width = 0.38
    for i, (mode, colour) in enumerate((("native", "#888888"), ("shmcoll", "#1f77b4"))):
        xs, med, lo, hi = [], [], [], []
        for j, name in enumerate(names):
            r = rows[name].get(mode)
            if not r:
                continue
            xs.append(j + (i - 0.5) * width)
            m = float(r["median_s"])
            med.append(m)
            lo.append(m - float(r["min_s"]))
            hi.append(float(r["max_s"]) - m)
        ax.bar(xs, med, width, yerr=[lo, hi], capsize=3, color=colour,
               label="native" if mode == "native" else "shmcoll preloaded")
    for j, name in enumerate(names):
        s = rows[name].get("shmcoll", {}).get("speedup")
        top = max(float(rows[name][m]["max_s"]) for m in rows[name])
        if s:
            ax.text(j, top * 1.03, f"{float(s):.2f}x", ha="center", fontsize=9)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=15)
    ax.set_ylabel("wall time, s (median; bars: min-max)")
    ax.set_title(f"MPI applications, native against shmcoll preloaded\n{header}", fontsize=9)
    ax.legend(loc="best")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.08)
    fig.tight_layout()
    fig.savefig(os.path.join(BUILD, f"{NAME}.png"), dpi=110)


if __name__ == "__main__":
    sys.exit(main())
