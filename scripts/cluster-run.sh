#!/usr/bin/env bash
# Runs an MPI program across the simulated cluster (scripts/cluster.sh up N first).
#
#   cluster-run.sh mpich|openmpi NODES PPN [options] -- PROGRAM [ARGS...]
#
# launches NODES x PPN ranks on node0..node<NODES-1>, PPN per node: in blocks (ranks 0..PPN-1 on
# node0, the next PPN on node1, ...) or, with --cyclic, round-robin (rank r on node r mod NODES).
#
# Options:
#   --cyclic                rank r on node r mod NODES
#   --np N                  N ranks instead of NODES x PPN (at most that many): the first nodes
#                           fill (in blocks) or the round-robin stops early (--cyclic)
#   --env KEY=VALUE         environment variable for the ranks (repeatable); an LD_PRELOAD given
#                           here comes after the test shim
#   --timeout SECONDS       hard limit for the whole job (default 120)
#   --finalize-grace SEC    how long a job may take once every rank is in MPI_Finalize (default 10)
#   --failure-grace SEC     how long the launcher may take to end once a rank failed (an abort, an
#                           assertion, a signal caught; default 10)
#   --fail-pattern REGEX    output (extended regex) that also counts as a rank's failure, e.g.
#                           '^FAIL rank' for the tests' failed checks (repeatable)
#   --accept-finalize-hang  a job that hangs only inside the MPI library's own MPI_Finalize, after
#                           every rank got there, exits 0 with a warning (MPICH 4.0.2 over UCX TCP
#                           is known to; see docs/CLUSTER.md)
#   --no-yield              no yielding in MPICH's progress loop (the shim's) nor Open MPI's
#                           (mpi_yield_when_idle): busy-polling as the libraries do by default
#   --tag-output            prefix every output line with its rank
#   --show-markers          keep the shim's finalize markers in the output
#   --launcher-arg ARG      one more option for mpiexec/mpirun (repeatable)
#   --dry-run               print the launcher command and exit
#
# Every rank's stdout and stderr are collected by the launcher and printed when the job ends.
# Exit status: the launcher's (0 when every rank exited 0); 124 when the job hit --timeout before
# every rank reached MPI_Finalize (a hang in the program, e.g. in a collective); 125 when it hung
# in MPI_Finalize after every rank got there; 1 when a rank failed and the launcher did not end
# within --failure-grace (hydra does not always bring the other nodes down; they were killed);
# 2 for usage errors, 3 when the cluster is not up.
# Whatever the outcome, no process is left inside the nodes afterwards.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
cluster=$here/cluster.sh

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}
say() { echo "cluster-run: $*" >&2; }

[ $# -ge 3 ] || usage
flavour=$1 nodes=$2 ppn=$3
shift 3
case $flavour in mpich | openmpi) ;; *) usage ;; esac
[[ $nodes =~ ^[1-9][0-9]*$ && $ppn =~ ^[1-9][0-9]*$ ]] || usage

np=0 cyclic=0 timeout=120 grace=10 failure_grace=10 accept_finalize_hang=0 yield=1 tag=0 show_markers=0 dry_run=0
envs=() launcher_args=() user_preload="" fail_patterns=()
while [ $# -gt 0 ]; do
    case $1 in
    --cyclic) cyclic=1 ;;
    --np) np=${2:?} && shift ;;
    --env)
        [[ ${2:-} == *=* ]] || usage
        if [[ $2 == LD_PRELOAD=* ]]; then user_preload=${2#LD_PRELOAD=}; else envs+=("$2"); fi
        shift
        ;;
    --timeout) timeout=${2:?} && shift ;;
    --finalize-grace) grace=${2:?} && shift ;;
    --failure-grace) failure_grace=${2:?} && shift ;;
    --fail-pattern) fail_patterns+=("${2:?}") && shift ;;
    --accept-finalize-hang) accept_finalize_hang=1 ;;
    --no-yield) yield=0 ;;
    --tag-output) tag=1 ;;
    --show-markers) show_markers=1 ;;
    --launcher-arg) launcher_args+=("${2:?}") && shift ;;
    --dry-run) dry_run=1 ;;
    --) shift && break ;;
    *) usage ;;
    esac
    shift
done
[ $# -ge 1 ] || usage
if ! [[ $np =~ ^[0-9]+$ ]] || [ "$np" -gt $((nodes * ppn)) ]; then usage; fi
[ "$np" -gt 0 ] || np=$((nodes * ppn))

have=$(bash "$cluster" nodes)
if [ "$have" -lt "$nodes" ]; then
    say "the cluster has $have node(s), $nodes needed: run scripts/cluster.sh up $nodes"
    exit 3
fi
state=$(bash "$cluster" state-dir)
head_addr=$(bash "$cluster" head-address)
subnet=$(bash "$cluster" subnet)

# One job at a time: the clean-up afterwards kills whatever runs inside the nodes.
exec 9>"$state/job.lock"
flock 9

# The test shim (tests/cluster/cluster_shim.c): finalize markers, yielding in UCX's progress.
shim=$state/shmc-shim.so
src=$repo/tests/cluster/cluster_shim.c
if [ ! -f "$shim" ] || [ "$src" -nt "$shim" ]; then
    cc -O2 -Wall -shared -fPIC -o "$shim.tmp" "$src" -ldl
    mv "$shim.tmp" "$shim"
fi
preload=$shim${user_preload:+:$user_preload}
[ "$yield" -eq 0 ] || [ "$flavour" != mpich ] || envs+=("SHMC_SHIM_YIELD=1")

hostnames=()
for ((i = 0; i < nodes; i++)); do hostnames+=("node$i"); done

if [ "$flavour" = mpich ]; then
    # Hydra: our agent as its ssh; proxies reach the launcher at the head's address.
    slots=$ppn
    [ "$cyclic" -eq 0 ] || slots=1 # hydra fills each host's slots, then wraps round the list
    hostlist=$(printf "%s:$slots," "${hostnames[@]}")
    cmd=(mpiexec.mpich -launcher ssh -launcher-exec "$state/ssh" -localhost "$head_addr"
        -hosts "${hostlist%,}" -n "$np")
    [ "$tag" -eq 0 ] || cmd+=(-prepend-rank)
    cmd+=(-genv LD_PRELOAD "$preload")
    for kv in "${envs[@]}"; do cmd+=(-genv "${kv%%=*}" "${kv#*=}"); done
else
    # Open MPI: our agent as its rsh agent, one orted per node launched from the head, TCP
    # (control and data) on the cluster's subnet only, shared memory (vader) inside a node.
    hostfile=$state/hostfile.$$
    printf "%s slots=$ppn\n" "${hostnames[@]}" >"$hostfile"
    # shellcheck disable=SC2054 # the commas are Open MPI's list syntax
    cmd=(mpirun.openmpi --allow-run-as-root --hostfile "$hostfile" -n "$np" --bind-to none
        --map-by "$([ "$cyclic" -eq 1 ] && echo node || echo slot)"
        --mca plm_rsh_agent "$state/ssh" --mca plm_rsh_no_tree_spawn 1
        --mca oob_tcp_if_include "$subnet" --mca btl_tcp_if_include "$subnet"
        --mca pml ob1 --mca btl self,vader,tcp)
    [ "$yield" -eq 0 ] || cmd+=(--mca mpi_yield_when_idle 1)
    [ "$tag" -eq 0 ] || cmd+=(--tag-output)
    cmd+=(-x "LD_PRELOAD=$preload")
    for kv in "${envs[@]}"; do cmd+=(-x "$kv"); done
fi
cmd+=("${launcher_args[@]}" "$@")

if [ "$dry_run" -eq 1 ]; then
    printf '%q ' "${cmd[@]}"
    echo
    exit 0
fi

out=$(mktemp)
err=$(mktemp)
lpid=""
# Whatever happens (end, timeout, interrupt): stop the launcher's process group, kill what is
# left inside the nodes, print what the ranks wrote, remove temporary files.
# shellcheck disable=SC2317 # called by the traps
finish() {
    if [ -n "$lpid" ] && kill -0 "$lpid" 2>/dev/null; then
        kill -TERM -- "-$lpid" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 "$lpid" 2>/dev/null || break
            sleep 0.2
        done
    fi
    bash "$cluster" reap || true
    [ -z "$lpid" ] || kill -KILL -- "-$lpid" 2>/dev/null || true
    cat "$out"
    if [ "$show_markers" -eq 1 ]; then cat "$err" >&2; else grep -v 'shmc-shim: rank ' "$err" >&2 || true; fi
    rm -f "$out" "$err" "${hostfile:-}"
}
trap 'finish; trap - EXIT; exit 130' INT TERM
trap finish EXIT

# What the MPI libraries (and UCX) print when a rank dies or aborts.
FATAL='Abort\([0-9]+\)|Assertion failed|Caught signal|BAD TERMINATION|MPI_ABORT was invoked|An error occurred in MPI_|exited on signal'
for pattern in "${fail_patterns[@]}"; do FATAL+="|$pattern"; done

# Ranks that printed a marker (see cluster_shim.c).
ranks_at() { { grep -aoE "shmc-shim: rank [0-9]+ on [^:]*: $1\$" "$err" || true; } | sort -u | wc -l; }

start=$SECONDS
# Its own session and process group (setsid does not fork here: a background job is no group
# leader), so the whole launcher tree can be signalled at once.
setsid "${cmd[@]}" <"/dev/null" >"$out" 2>"$err" &
lpid=$!
all_in_finalize_at=""
failed_at=""
status=""
# Looked at twice a second: the ranks share the machine's cores with this loop, and every look
# runs a few processes (timings of the job would carry their cost).
while kill -0 "$lpid" 2>/dev/null; do
    if [ -z "$failed_at" ] && grep -qaE "$FATAL" "$err" "$out"; then
        failed_at=$SECONDS
    fi
    if [ -n "$failed_at" ] && [ $((SECONDS - failed_at)) -ge "$failure_grace" ]; then
        status=failed
        break
    fi
    if [ -z "$all_in_finalize_at" ] && [ "$(ranks_at MPI_Finalize)" -ge "$np" ]; then
        all_in_finalize_at=$SECONDS
    fi
    if [ -n "$all_in_finalize_at" ] && [ $((SECONDS - all_in_finalize_at)) -ge "$grace" ]; then
        status=finalize
        break
    fi
    if [ $((SECONDS - start)) -ge "$timeout" ]; then
        status=timeout
        break
    fi
    sleep 0.5
done

if [ -z "$status" ]; then
    rc=0
    wait "$lpid" || rc=$?
    lpid=""
    exit "$rc"
fi

if [ "$status" = failed ]; then
    say "FAILED: a rank failed and the launcher did not end within ${failure_grace} s; killed"
    exit 1
fi
in_mpi=$(ranks_at MPI_Finalize)
in_lib=$(ranks_at "library finalize")
done_lib=$(ranks_at finalized)
detail="$in_mpi/$np ranks called MPI_Finalize, $in_lib/$np entered the MPI library's finalize, $done_lib/$np returned from it"
if [ "$status" = timeout ] && [ "$in_mpi" -lt "$np" ]; then
    say "TIMEOUT after ${timeout} s before every rank reached MPI_Finalize ($detail)"
    exit 124
fi
if [ "$in_lib" -ge "$np" ] && [ "$accept_finalize_hang" -eq 1 ]; then
    say "WARNING: the job hung in the MPI library's MPI_Finalize after every rank got there ($detail); accepted (--accept-finalize-hang)"
    exit 0
fi
where="in the MPI library's own MPI_Finalize"
[ "$in_lib" -ge "$np" ] || where="in MPI_Finalize, before the MPI library's own finalize"
say "HANG $where, killed after $((SECONDS - start)) s ($detail)"
exit 125
