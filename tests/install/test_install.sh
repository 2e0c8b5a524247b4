#!/usr/bin/env bash
# Installs shmcoll from one or more build trees into one temporary prefix (both MPI flavours side
# by side) and uses the installed copy as a user would, per flavour:
#   - the layout: libshmcoll-<mpi>.so with its SONAME, headers, tools and their manual pages,
#     pkg-config and CMake package files;
#   - the tools through bin/: shmcoll-info-<mpi>, shmcoll-tune-<mpi> --help, shmcoll-bench-<mpi>
#     (a short run: the library found relative to the tool), shmcoll-bench-plot --help;
#   - a small MPI program (install_check.c) built without shmcoll and run with
#     LD_PRELOAD=<prefix>/lib/libshmcoll-<mpi>.so, linked through `pkg-config shmcoll-<mpi>`, and
#     linked through CMake's find_package(shmcoll COMPONENTS <mpi>) -> shmcoll::<mpi>; each run
#     must pass and shmcoll must have served its calls (SHMCOLL_STATS=1: "handled N calls", N > 0).
# Prints one "install: ..." line per check and ends with "install: N passed, N failed".
#
#   tests/install/test_install.sh build/mpich build/openmpi
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || {
    echo "usage: $0 BUILD_DIR..." >&2
    exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/shmcoll-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
passed=0 failed=0
ok() {
    echo "install: ok: $*"
    passed=$((passed + 1))
}
bad() {
    echo "install: FAILED: $*"
    failed=$((failed + 1))
}
check() { # description command...
    local what=$1 log=$work/check.log
    shift
    if "$@" >"$log" 2>&1; then ok "$what"; else
        bad "$what"
        sed 's/^/    /' "$log" | tail -40
    fi
}

# An MPI run of a program, through tests/mpi/run_mpi.py (private segment directory that must be
# empty afterwards, exit status, PASS line), with the statistics on; then "handled N > 0".
run_served() { # flavour preload-or-"" program
    local flavour=$1 preload=$2 program=$3 args=()
    [ -z "$preload" ] || args+=(--preload "$preload")
    python3 "$repo/tests/mpi/run_mpi.py" --flavour "$flavour" --mpiexec "mpiexec.$flavour" -n 2 \
        --timeout 60 --env SHMCOLL_STATS=1 "${args[@]}" -- "$program" || return 1
}
served() { # log
    grep -qE '^shmcoll: handled [1-9][0-9]* calls' "$1" || {
        echo "no 'shmcoll: handled N calls' line with N > 0"
        return 1
    }
}
run_and_check() { # description flavour preload program
    local what=$1 log=$work/run.log verdict=$work/verdict.log
    : >"$verdict"
    if run_served "$2" "$3" "$4" >"$log" 2>&1 && served "$log" >"$verdict" 2>&1; then
        ok "$what ($(grep -oE '^shmcoll: handled [0-9]+ calls' "$log"))"
    else
        bad "$what"
        cat "$log" "$verdict" 2>/dev/null | sed 's/^/    /' | tail -40
    fi
}

flavours=()
for dir in "$@"; do
    flavour=$(sed -n 's/^SHMCOLL_MPI:STRING=//p' "$dir/CMakeCache.txt" 2>/dev/null)
    case $flavour in
    mpich | openmpi) ;;
    *)
        bad "$dir: not a build tree of an MPI flavour (SHMCOLL_MPI=${flavour:-?})"
        continue
        ;;
    esac
    if cmake --install "$dir" --prefix "$prefix" >"$work/install-$flavour.log" 2>&1; then
        flavours+=("$flavour")
        ok "cmake --install $dir --prefix <tmp> ($flavour)"
    else
        bad "cmake --install $dir ($flavour)"
        tail -20 "$work/install-$flavour.log"
    fi
done

for flavour in "${flavours[@]}"; do
    lib=$prefix/lib/libshmcoll-$flavour.so
    soname() { objdump -p "$lib" | awk '$1 == "SONAME" {print $2}'; }
    check "$flavour: $(basename "$lib") -> $(readlink "$lib"), SONAME $(soname)" \
        test "$(soname)" = "libshmcoll-$flavour.so.0" -a -f "$(readlink -f "$lib")"
    check "$flavour: headers, pkg-config and CMake files, manual pages" \
        ls "$prefix/include/shmcoll.h" "$prefix/include/shmcoll_mpi.h" \
        "$prefix/lib/pkgconfig/shmcoll-$flavour.pc" \
        "$prefix/lib/cmake/shmcoll/shmcollConfig.cmake" \
        "$prefix/lib/cmake/shmcoll/shmcoll-$flavour-targets.cmake" \
        "$prefix/share/man/man1/shmcoll-bench-$flavour.1" \
        "$prefix/share/man/man1/shmcoll-info-$flavour.1" \
        "$prefix/share/man/man1/shmcoll-tune-$flavour.1" \
        "$prefix/share/man/man1/shmcoll-bench-plot.1"
    check "$flavour: bin/shmcoll-info-$flavour --ranks 4" \
        "$prefix/bin/shmcoll-info-$flavour" --ranks 4
    check "$flavour: bin/shmcoll-tune-$flavour --help" \
        bash -c "'$prefix/bin/shmcoll-tune-$flavour' --help | grep -q -- --mpiexec"
    bench_args=(-n 2)
    [ "$flavour" = openmpi ] && bench_args+=(--allow-run-as-root --oversubscribe)
    check "$flavour: bin/shmcoll-bench-$flavour, a short run" \
        env SHMCOLL_SHM_DIR="$work" SHMCOLL_TUNE_DIR="$work" "mpiexec.$flavour" "${bench_args[@]}" \
        "$prefix/bin/shmcoll-bench-$flavour" --coll allreduce,bcast --max-size 4k --iters 3 \
        --rounds 1 --no-copy

    # Preload: a program that knows nothing of shmcoll (the header only, for its version).
    plain=$work/plain-$flavour
    check "$flavour: build a plain MPI program" \
        "mpicc.$flavour" -O2 -I"$prefix/include" "$here/install_check.c" -o "$plain" -ldl
    run_and_check "$flavour: LD_PRELOAD=<prefix>/lib/$(basename "$lib")" "$flavour" "$lib" "$plain"

    # pkg-config: shmcoll before the MPI library.
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    pc_libs=$(pkg-config --libs "shmcoll-$flavour")
    check "$flavour: pkg-config --libs shmcoll-$flavour puts shmcoll first: $pc_libs" \
        bash -c "[[ '$pc_libs' == -L*' -lshmcoll-$flavour'* ]]"
    linked=$work/pkgconfig-$flavour
    # shellcheck disable=SC2046 # word splitting of pkg-config's flags is intended
    check "$flavour: build with pkg-config" \
        "mpicc.$flavour" -O2 -DSHMCOLL_LINKED "$here/install_check.c" -o "$linked" \
        $(pkg-config --cflags --libs "shmcoll-$flavour") \
        -Wl,-rpath,"$(pkg-config --variable=libdir "shmcoll-$flavour")" -ldl
    run_and_check "$flavour: linked via pkg-config" "$flavour" "" "$linked"
    unset PKG_CONFIG_PATH

    # CMake: find_package(shmcoll COMPONENTS <flavour>), target shmcoll::<flavour>.
    consumer=$work/cmake-$flavour
    check "$flavour: configure and build with find_package(shmcoll COMPONENTS $flavour)" \
        bash -c "cmake -S '$here/consumer' -B '$consumer' -DCMAKE_PREFIX_PATH='$prefix' \
            -DCMAKE_C_COMPILER=mpicc.$flavour -DFLAVOUR=$flavour -DCMAKE_BUILD_TYPE=Release && \
            cmake --build '$consumer'"
    run_and_check "$flavour: linked via CMake shmcoll::$flavour" "$flavour" "" \
        "$consumer/install_check"
done

# Both flavours in one prefix: the CMake package knows them both.
if [ ${#flavours[@]} -ge 2 ]; then
    want=$(IFS=';' && echo "${flavours[*]}")
    check "one prefix holds every flavour: find_package(shmcoll) lists $want" \
        grep -qx "$want" "$work/cmake-${flavours[0]}/flavours.txt"
fi
check "bin/shmcoll-bench-plot --help" bash -c "'$prefix/bin/shmcoll-bench-plot' --help | grep -q CSV"

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
