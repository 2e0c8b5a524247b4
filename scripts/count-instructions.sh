#!/usr/bin/env bash
# Instructions one call of a collective costs on each rank, counted by callgrind (the same count
# whatever else the machine does, unlike its time): shmcoll-bench of build/<mpi> at p=2, one
# collective at one size in fixed loops of the same call (--iters), one rank under callgrind, the
# entry point's instructions counted over two loop lengths and differenced, so that MPI_Init, the
# communicator's setup and calibration do not count.
#   shmcoll's way:      SHMCOLL_CALIBRATE=0 (the node team's choice, unmeasured)
#   --theirs:           every band's verdict the MPI library's (SHMCOLL_CALIBRATE_MARGIN=-100000):
#                       what the wrapper costs on top of the MPI library's collective
#   --pmpi:             the MPI library's collective called directly, for comparison
# usage: scripts/count-instructions.sh mpich|openmpi [--theirs|--pmpi] [--bytes N] [coll ...]
#   (default: bcast reduce allreduce gather scatter gatherv allgather alltoall exscan, 8 bytes)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || { [ "$1" != mpich ] && [ "$1" != openmpi ]; }; then
    echo "usage: $0 mpich|openmpi [--theirs|--pmpi] [--bytes N] [coll ...]" >&2
    exit 2
fi
mpi=$1
shift
way=ours bytes=8
while [ $# -gt 0 ]; do
    case $1 in
    --theirs | --pmpi) way=${1#--} ;;
    --bytes) bytes=$2 && shift ;;
    *) break ;;
    esac
    shift
done
colls=("$@")
[ ${#colls[@]} -gt 0 ] || colls=(bcast reduce allreduce gather scatter gatherv allgather alltoall exscan)
bench=$PWD/build/$mpi/bin/shmcoll-bench
if [ ! -x "$bench" ]; then
    echo "count-instructions: $bench not found; build it with: make lib MPI=$mpi" >&2
    exit 1
fi
command -v valgrind >/dev/null || { echo "count-instructions: valgrind is not installed" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The wrapper runs one rank under callgrind (the launcher's rank variable: Open MPI's or Hydra's).
cat >"$work/one-rank.sh" <<'EOF'
#!/bin/sh
rank=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}
[ "$rank" = "$COUNT_RANK" ] || exec "$@"
exec valgrind --tool=callgrind --callgrind-out-file="$COUNT_OUT" "$@" 2>/dev/null
EOF
chmod +x "$work/one-rank.sh"
launch=("mpiexec.$mpi" -n 2)
[ "$mpi" = openmpi ] && launch+=(--allow-run-as-root --oversubscribe)
prefix= knobs=()
case $way in
ours) knobs=(SHMCOLL_CALIBRATE=0) ;;
theirs) knobs=(SHMCOLL_CALIBRATE_MARGIN=-100000) ;;
pmpi) prefix=P ;; # the benchmark's column of the MPI library's own collective
esac
# Inclusive instructions of the entry point MPI_<Coll> (or PMPI_<Coll>) on `rank` in a run of
# `iters` timed calls per column.
count() {
    local coll=$1 rank=$2 iters=$3 out=$work/cg.out name
    name=${prefix}MPI_$(echo "${coll:0:1}" | tr a-z A-Z)${coll:1}
    local args=() k
    for k in COUNT_RANK="$rank" COUNT_OUT="$out" "${knobs[@]}"; do
        if [ "$mpi" = openmpi ]; then args+=(-x "$k"); else args+=(-genv "${k%%=*}" "${k#*=}"); fi
    done
    "${launch[@]}" "${args[@]}" "$work/one-rank.sh" "$bench" --coll "$coll" --min-size "$bytes" \
        --max-size "$bytes" --iters "$iters" --rounds 1 --no-copy --no-cache-bust-rows >/dev/null
    callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
        awk -v f="$name" '!n { for (i = 2; i <= NF; i++) if ($i ~ ":" f "$") { gsub(",", "", $1); n = $1 } }
            END { print n + 0 }'
}
# Each column makes a warm-up loop of a tenth of --iters, then the timed loop (--rounds 1).
calls() { echo $(($1 + ($1 + 9) / 10)); }
short=20000 long=120000
printf "%-10s %6s %10s %10s   (%s, %s, %d bytes, p=2: instructions per call)\n" collective way \
    "rank 0" "rank 1" "$mpi" "$way" "$bytes"
for coll in "${colls[@]}"; do
    per=()
    for rank in 0 1; do
        a=$(count "$coll" $rank $short) b=$(count "$coll" $rank $long)
        per+=($(( (${b:-0} - ${a:-0}) / ($(calls $long) - $(calls $short)) )))
    done
    printf "%-10s %6s %10d %10d\n" "$coll" "$way" "${per[0]}" "${per[1]}"
done
