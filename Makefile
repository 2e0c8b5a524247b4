# shmcoll front door. See README.md.
#   make bench          install what is missing, build (MPICH), run shmcoll-bench at p = cores
#   make test           build everything and run every test (unit, team, sanitizers, MPI, format)
#   make lib MPI=mpich  (or MPI=openmpi) build build/<mpi>/lib/libshmcoll-<mpi>.so (also reachable
#                       as build/<mpi>/lib/libshmcoll.so) and build/<mpi>/bin/
#   make install MPI=mpich PREFIX=/opt/shmcoll   build and install one flavour (docs/INSTALL.md);
#                       both flavours can share one prefix
#   make test-cluster   the MPI tests across a simulated cluster of namespaces (docs/CLUSTER.md)
#   make apps           Debian's MPI applications (CP2K, LAMMPS, Quantum ESPRESSO, mpi4py) natively
#                       and with shmcoll preloaded: times, collective profiles, answers (docs/APPS.md)
#   make test-conformance  MPICH's whole coll/, threads/ and errors/coll/ test suites and mpi4py's own tests,
#                       natively and with libshmcoll preloaded, under both MPI libraries
MPI    ?= mpich
PREFIX ?= /usr/local
NPROCS ?= $(shell nproc)
BENCH_ARGS ?=

.PHONY: all deps apps-deps lib install build-% build-mpich-asan build-mpich-tsan bench apps tune \
        test test-cluster test-cluster-run test-conformance conformance-build test-unit test-asan \
        test-mpi format format-check clean

all: lib

deps:
	@bash scripts/install-deps.sh

lib: deps build-$(MPI)

install: lib
	cmake --install build/$(MPI) --prefix $(PREFIX)

build-%:
	@cmake --preset $* >/dev/null
	@cmake --build build/$* -j $(NPROCS)

bench: deps build-mpich
	bash scripts/run-bench.sh mpich $(NPROCS) $(BENCH_ARGS)

# Real applications, natively and preloaded (scripts/run-apps.py; APPS_NP, APPS_ROUNDS, APPS,
# APPS_OVERSUB_NP, APPS_CLUSTER): the report on standard output and in build/apps.txt,
# build/apps.csv and build/apps.png. Builds both flavours: the applications' packages choose the MPI library.
apps-deps: deps
	@bash scripts/install-apps.sh

apps: apps-deps build-openmpi build-mpich
	/usr/bin/python3 scripts/run-apps.py

# Measures every candidate (the MPI library's own included) and writes the library's default
# tuning file, which it then uses on this machine and MPI library.
tune: deps build-mpich
	build/mpich/bin/shmcoll-tune --mpiexec mpiexec.mpich -n $(NPROCS)

test: deps format-check build-asan build-tsan build-mpich build-openmpi build-mpich-asan \
      build-mpich-tsan conformance-build
	bash scripts/run-tests.sh

# The sanitizer trees of the MPI layer build the library and the programs their test labels run
# (tests/mpi/CMakeLists.txt: mpi-asan, mpi-tsan).
MPI_ASAN_PROGRAMS = mpi_coll mpi_datatypes mpi_nonblocking mpi_repeat mpi_calibrate mpi_heap \
	mpi_fallback mpi_progress mpi_semantics mpi_threads_nb mpi_mixed_config mpi_scan mpi_shared_key \
	mpi_run_ahead mpi_express mpi_loop_check mpi_fuzz mpi_bad_args
MPI_TSAN_PROGRAMS = mpi_threads mpi_threads_nb mpi_nonblocking mpi_progress mpi_express mpi_fuzz
build-mpich-asan:
	@cmake --preset mpich-asan >/dev/null
	@cmake --build build/mpich-asan -j $(NPROCS) --target shmcoll $(MPI_ASAN_PROGRAMS)
build-mpich-tsan:
	@cmake --preset mpich-tsan >/dev/null
	@cmake --build build/mpich-tsan -j $(NPROCS) --target shmcoll $(MPI_TSAN_PROGRAMS)

# MPICH's own test suite (coll/, threads/ and errors/coll/ of Debian's mpich sources, fetched by apt) built
# against both MPI libraries, in build/conformance/<mpi> (scripts/build-mpich-tests.sh).
conformance-build: deps
	@bash scripts/build-mpich-tests.sh mpich
	@bash scripts/build-mpich-tests.sh openmpi

# Every test of MPICH's coll/, threads/ and errors/coll/ suites at p up to 8 and all of mpi4py's own tests, each
# natively and with libshmcoll preloaded at its defaults, under MPICH and Open MPI (make test runs
# a core list of them). Takes hours on 2 cores; reports in build/conformance/<mpi>/.
test-conformance: deps build-mpich build-openmpi conformance-build
	bash scripts/run-conformance.sh full

# The MPI test programs of both libraries across a simulated multi-node cluster (network, UTS, IPC
# and mount namespaces on this machine; needs root, skips with one line where it cannot run).
test-cluster:
	@reason=$$(bash scripts/cluster.sh skip-reason); \
	if [ -n "$$reason" ]; then echo "test-cluster: skipped: $$reason"; \
	else $(MAKE) --no-print-directory test-cluster-run; fi

test-cluster-run: deps build-mpich build-openmpi
	@bash scripts/run-cluster-tests.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check:
	@bash scripts/check-format.sh
	@python3 scripts/check-layers.py

clean:
	rm -rf build
