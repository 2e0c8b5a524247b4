# Spack recipe for shmcoll (see docs/INSTALL.md, "Spack").
#
# Use it from a repository of your own:
#   spack repo create myrepo && mkdir -p myrepo/packages/shmcoll
#   cp packaging/spack/package.py myrepo/packages/shmcoll/ && spack repo add myrepo
#   spack install shmcoll ^mpich        # libshmcoll-mpich.so
#   spack install shmcoll ^openmpi      # libshmcoll-openmpi.so
# or build a checkout in place: spack develop --path <checkout> shmcoll@main && spack install.
# Set `git` below to where your copy of the repository lives.
#
# Written against Spack's CMakePackage API (v0.23 and later); checked for syntax and against a stub
# of that API, not by a Spack build (none was available where it was written).

from spack.package import *


class Shmcoll(CMakePackage):
    """Intra-node MPI collectives over shared memory, for any MPI program unchanged: interposed
    through the MPI profiling interface, by LD_PRELOAD or by linking before the MPI library.
    One library per MPI flavour (libshmcoll-mpich.so, libshmcoll-openmpi.so)."""

    homepage = "https://github.com/OWNER/shmcoll"
    git = "https://github.com/OWNER/shmcoll.git"

    version("main", branch="main")

    variant("fortran", default=True,
            description="Build the tests of the Fortran bindings (the bindings are always built)")

    depends_on("c", type="build")
    depends_on("fortran", type="build", when="+fortran")
    depends_on("cmake@3.20:", type="build")
    depends_on("ninja", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("python@3.8:", type="build")  # manual pages from --help; test runner
    # bin/shmcoll-bench-plot needs Python with matplotlib at run time; not a dependency here
    # (a large tree for one optional tool): `spack load py-matplotlib` where it is wanted.
    depends_on("hwloc@2:")
    depends_on("mpi")
    # The two MPI ABIs shmcoll is built and tested against; the library is named after the one
    # it was built with.
    requires("^[virtuals=mpi] mpich", "^[virtuals=mpi] openmpi", policy="one_of",
             msg="shmcoll is built against MPICH or Open MPI")

    generator("ninja")

    @property
    def flavour(self):
        return "openmpi" if self.spec["mpi"].name == "openmpi" else "mpich"

    @property
    def libs(self):
        return find_libraries(f"libshmcoll-{self.flavour}", root=self.prefix, recursive=True)

    def cmake_args(self):
        mpi = self.spec["mpi"]
        mpiexec = join_path(mpi.prefix.bin, "mpiexec")
        args = [
            self.define("SHMCOLL_MPI", self.flavour),
            # The MPI compiler wrapper, as the project's own presets use it.
            self.define("CMAKE_C_COMPILER", mpi.mpicc),
            # Spack's MPI installs `mpiexec`, not Debian's mpiexec.<flavour> the build looks for.
            self.define("SHMCOLL_MPIEXEC", mpiexec),
            self.define("SHMCOLL_BENCH_MPIEXEC", mpiexec),
        ]
        if self.spec.satisfies("+fortran"):
            args.append(self.define("CMAKE_Fortran_COMPILER", mpi.mpifc))
        return args

    def check(self):
        # The MPI-free tests (no launcher needed in a build sandbox); the MPI ones need the
        # launcher: ctest -L mpi in a kept build directory (spack install --keep-stage).
        with working_dir(self.build_directory):
            ctest("-L", "unit", "--output-on-failure")

    def setup_run_environment(self, env):
        # For LD_PRELOAD=$SHMCOLL_LIB mpiexec ... after `module load shmcoll` / `spack load`.
        env.set("SHMCOLL_LIB", self.libs.libraries[0])
