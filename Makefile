# shmcoll front door. See README.md.
#   make bench          install what is missing, build (MPICH), run shmcoll-bench at p = cores
#   make test           build everything and run every test (unit, team, sanitizers, MPI, format)
#   make lib MPI=mpich  (or MPI=openmpi) build build/<mpi>/lib/libshmcoll.so and build/<mpi>/bin/
MPI    ?= mpich
NPROCS ?= $(shell nproc)
BENCH_ARGS ?=

.PHONY: all deps lib build-% bench test test-unit test-asan test-mpi format format-check clean

all: lib

deps:
	@bash scripts/install-deps.sh

lib: deps build-$(MPI)

build-%:
	@cmake --preset $* >/dev/null
	@cmake --build build/$* -j $(NPROCS)

bench: deps build-mpich
	bash scripts/run-bench.sh mpich $(NPROCS) $(BENCH_ARGS)

test: deps format-check build-asan build-mpich build-openmpi
	bash scripts/run-tests.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check:
	@bash scripts/check-format.sh
	@python3 scripts/check-layers.py

clean:
	rm -rf build
