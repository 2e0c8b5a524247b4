#!/usr/bin/env python3
"""cg_fft.py: a small, realistic mpi4py program for `make apps` (docs/APPS.md).

Two phases, each the communication pattern of a common kind of parallel code, on numpy buffers
(mpi4py's upper-case methods, no pickling):

  cg   conjugate gradients for the 2-D Poisson equation (5-point Laplacian, Dirichlet boundary)
       on an N x N grid distributed by rows: a halo exchange with the neighbours (Sendrecv) and
       two 8-byte MPI_Allreduce dot products per iteration, a fixed number of iterations;
  fft  a distributed 2-D FFT of an M x M complex array distributed by rows, forward and back,
       several times: local FFTs along the rows and a transposition through MPI_Alltoall between
       them (the pattern of plane-wave and spectral codes), and a checksum by MPI_Allreduce.

It prints its results as `result: <name> <value>` lines with all the digits of a double
(repr), so runs with and without shmcoll can be compared digit by digit, and the time it spent
in each kind of call as `timer: <name> <seconds>` lines (rank 0's MPI.Wtime around the calls).

usage: cg_fft.py [--cg-n N] [--cg-iters K] [--fft-m M] [--fft-reps R]
"""
import argparse
import sys

import numpy as np
from mpi4py import MPI


class Timers:
    """Seconds spent in named kinds of calls on this rank."""

    def __init__(self):
        self.t = {}

    def add(self, name, seconds):
        self.t[name] = self.t.get(name, 0.0) + seconds


def allreduce_sum(comm, value, timers):
    send = np.array([value], dtype=np.float64)
    recv = np.empty(1, dtype=np.float64)
    t0 = MPI.Wtime()
    comm.Allreduce(send, recv, op=MPI.SUM)
    timers.add("allreduce", MPI.Wtime() - t0)
    return recv[0]


def rows_of(n, rank, size):
    """First row and row count of this rank's block of n rows."""
    base, extra = divmod(n, size)
    first = rank * base + min(rank, extra)
    return first, base + (1 if rank < extra else 0)


def cg(comm, n, iters, timers):
    """CG on -Laplace(u) = f, f = 1 inside the unit square; returns the residual norms."""
    rank, size = comm.Get_rank(), comm.Get_size()
    _, nrows = rows_of(n, rank, size)
    up = rank - 1 if rank > 0 else MPI.PROC_NULL
    down = rank + 1 if rank < size - 1 else MPI.PROC_NULL

    def apply(p):
        """The 5-point Laplacian of p (nrows x n), with the neighbours' rows as halo."""
        halo = np.zeros((nrows + 2, n))
        halo[1:-1] = p
        t0 = MPI.Wtime()
        comm.Sendrecv(p[0], dest=up, recvbuf=halo[-1], source=down)
        comm.Sendrecv(p[-1], dest=down, recvbuf=halo[0], source=up)
        timers.add("halo", MPI.Wtime() - t0)
        q = 4.0 * p - halo[:-2] - halo[2:]
        q[:, 1:] -= p[:, :-1]
        q[:, :-1] -= p[:, 1:]
        return q

    x = np.zeros((nrows, n))
    r = np.full((nrows, n), 1.0 / (n + 1) ** 2)
    p = r.copy()
    rr = allreduce_sum(comm, float(np.vdot(r, r)), timers)
    norms = [rr ** 0.5]
    for _ in range(iters):
        q = apply(p)
        alpha = rr / allreduce_sum(comm, float(np.vdot(p, q)), timers)
        x += alpha * p
        r -= alpha * q
        rr_new = allreduce_sum(comm, float(np.vdot(r, r)), timers)
        p = r + (rr_new / rr) * p
        rr = rr_new
        norms.append(rr ** 0.5)
    xsum = allreduce_sum(comm, float(x.sum()), timers)
    return norms, xsum


def transpose(comm, a, m, timers):
    """The distributed transpose of an m x m array held as row blocks (m divisible by p)."""
    size = comm.Get_size()
    b = m // size
    send = np.ascontiguousarray(a.reshape(b, size, b).transpose(1, 0, 2))
    recv = np.empty_like(send)
    t0 = MPI.Wtime()
    comm.Alltoall(send, recv)
    timers.add("alltoall", MPI.Wtime() - t0)
    # Block j came from rank j: its rows j*b.., our columns; transpose each block into place.
    return np.ascontiguousarray(recv.transpose(2, 0, 1).reshape(b, m))


def fft2(comm, a, m, inverse, timers):
    f = np.fft.ifft if inverse else np.fft.fft
    a = f(a, axis=1)
    a = transpose(comm, a, m, timers)
    a = f(a, axis=1)
    return transpose(comm, a, m, timers)


def fft(comm, m, reps, timers):
    """Forward and back transforms of a known field; returns checksums of the spectrum and of the
    round trip's error."""
    rank, size = comm.Get_rank(), comm.Get_size()
    b = m // size
    rows = np.arange(rank * b, (rank + 1) * b)[:, None]
    cols = np.arange(m)[None, :]
    a0 = (np.sin(2 * np.pi * 3 * rows / m) * np.cos(2 * np.pi * 5 * cols / m)
          + 0.01 * ((rows * 7919 + cols * 104729) % 1000) / 1000.0).astype(np.complex128)
    a = a0
    power = error = 0.0
    for _ in range(reps):
        spectrum = fft2(comm, a, m, False, timers)
        power = allreduce_sum(comm, float(np.sum(np.abs(spectrum) ** 2)), timers)
        a = fft2(comm, spectrum, m, True, timers)
        error = allreduce_sum(comm, float(np.sum(np.abs(a - a0) ** 2)), timers)
    energy = allreduce_sum(comm, float(np.sum(np.abs(a0) ** 2)), timers)
    return power, energy, error


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cg-n", type=int, default=1024, help="grid points per side (1024)")
    ap.add_argument("--cg-iters", type=int, default=400, help="CG iterations (400)")
    ap.add_argument("--fft-m", type=int, default=1024, help="FFT array side, divisible by p")
    ap.add_argument("--fft-reps", type=int, default=10, help="forward and back transforms (10)")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    if args.fft_m % size:
        if rank == 0:
            print(f"cg_fft: --fft-m {args.fft_m} is not divisible by p={size}", file=sys.stderr)
        return 2
    timers = Timers()
    t0 = MPI.Wtime()
    norms, xsum = cg(comm, args.cg_n, args.cg_iters, timers)
    t_cg = MPI.Wtime() - t0
    t0 = MPI.Wtime()
    power, energy, error = fft(comm, args.fft_m, args.fft_reps, timers)
    t_fft = MPI.Wtime() - t0
    if rank == 0:
        print(f"cg_fft: p={size}, cg {args.cg_n}x{args.cg_n} {args.cg_iters} iterations, "
              f"fft {args.fft_m}x{args.fft_m} x{args.fft_reps}")
        for i in range(0, len(norms), 50):
            print(f"result: cg_residual_{i} {norms[i]!r}")
        print(f"result: cg_residual_final {norms[-1]!r}")
        print(f"result: cg_solution_sum {xsum!r}")
        print(f"result: fft_power {power!r}")
        print(f"result: fft_parseval_ratio {power / (energy * args.fft_m ** 2)!r}")
        print(f"result: fft_roundtrip_error {error!r}")
        print(f"timer: cg {t_cg:.6f}")
        print(f"timer: fft {t_fft:.6f}")
        for name in ("allreduce", "alltoall", "halo"):
            print(f"timer: {name} {timers.t.get(name, 0.0):.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
