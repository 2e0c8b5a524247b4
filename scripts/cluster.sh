#!/usr/bin/env bash
# A simulated multi-node cluster on one machine, for running MPI jobs across "hosts" that the MPI
# libraries treat as separate: shared memory inside a node, TCP between nodes. See docs/CLUSTER.md.
#
#   cluster.sh up N [--rate RATE]  N nodes node0..nodeN-1 (RATE: tc tbf shaping, e.g. 1gbit)
#   cluster.sh down                remove everything `up` made (idempotent)
#   cluster.sh status              nodes, holder pids, addresses
#   cluster.sh nodes               the number of nodes (0 when down)
#   cluster.sh exec NODE CMD...    run CMD inside NODE (index, hostname or address), keeping the
#                                  working directory and the environment
#   cluster.sh agent [SSH-OPTS] HOST [CMD...]
#                                  the launchers' remote shell (used as if it were ssh)
#   cluster.sh bytes NODE          bytes and packets NODE sent and received on its network interface
#   cluster.sh shape RATE|off      tc tbf shaping of every node's link, both directions
#   cluster.sh reap                kill every process left inside the nodes (not the holders)
#   cluster.sh sweep-shm           list (node<i>:NAME) and remove what is in the nodes' own /dev/shm
#   cluster.sh skip-reason         why a cluster cannot be made here, or nothing
#
# A node is a set of network, UTS, IPC and mount namespaces held by one long-lived process (the
# "holder", a `sleep infinity` renamed shmc-<node>). Each node has:
#   - hostname node<i> (UTS namespace);
#   - its own IPC namespace (UCX decides that two processes can share memory from the boot id and
#     the IPC namespace, so without it MPICH would use shared memory between "nodes");
#   - its own /dev/shm (a private tmpfs) and an /etc/hosts naming every node (mount namespace);
#   - loopback and one interface, "shmc0" (same name in every node), address 10.213.0.(10+i)/24,
#     one end of a veth pair whose other end, shmch<i>, is a port of the bridge shmcbr0 in the
#     root namespace; the bridge has 10.213.0.1 ("shmc-head"), where the launchers listen.
# State (holder pids, the hosts file, the agent wrapper, the test shim) lives in $SHMC_CLUSTER_DIR
# (default /run/shmc-cluster). One cluster per machine.
set -euo pipefail

STATE=${SHMC_CLUSTER_DIR:-/run/shmc-cluster}
NET=${SHMC_CLUSTER_NET:-10.213.0} # a private /24, given as its first three octets
HEAD_ADDR=$NET.1
BRIDGE=shmcbr0
NODE_IF=shmc0 # the node's interface, inside its namespace
MAX_NODES=64

die() {
    echo "cluster.sh: $*" >&2
    exit 1
}
node_addr() { echo "$NET.$((10 + $1))"; }
host_if() { echo "shmch$1"; } # root-namespace end of node i's veth pair

# Number of nodes the state records, alive or not.
recorded_nodes() {
    if [ -f "$STATE/nodes" ]; then cat "$STATE/nodes"; else echo 0; fi
}

# Number of nodes of the running cluster (0 when there is none). A cluster none of whose holders
# is alive any more (the machine restarted, /run survived) is stale: what is left of it (state,
# bridge) is removed first, so that it neither blocks a new one nor counts as up.
node_count() {
    local n i
    n=$(recorded_nodes)
    [ "$n" -gt 0 ] || {
        echo 0
        return
    }
    for ((i = 0; i < n; i++)); do
        if (holder_pid "$i") >/dev/null 2>&1; then
            echo "$n"
            return
        fi
    done
    echo "cluster.sh: removing a stale cluster state (no holder of its $n node(s) is alive)" >&2
    cmd_down >/dev/null 2>&1 || true
    echo 0
}

# Pid of node i's holder, verified: it must still be the renamed sleep this script started.
holder_pid() {
    local i=$1 pid
    [ -f "$STATE/node$i.pid" ] || die "node$i: no such node (is the cluster up?)"
    pid=$(cat "$STATE/node$i.pid")
    [ "$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")" = "shmc-node$i infinity " ] ||
        die "node$i: holder process $pid is gone"
    echo "$pid"
}

# Node index from an index, a hostname (node3) or an address (10.213.0.13).
node_index() {
    local spec=$1 n i
    n=$(node_count)
    case $spec in
    node[0-9]*) i=${spec#node} ;;
    "$NET".*) i=$((${spec##*.} - 10)) ;;
    *) i=$spec ;;
    esac
    if ! [[ $i =~ ^[0-9]+$ ]] || [ "$i" -ge "$n" ]; then
        die "no node '$spec' (cluster has $n nodes)"
    fi
    echo "$((10#$i))"
}

# Why namespaces cannot be made here (prints nothing when they can).
skip_reason() {
    if [ "$EUID" -ne 0 ]; then
        echo "not root (network namespaces, veths and a bridge need root)"
        return
    fi
    local cmd
    for cmd in unshare nsenter ip tc flock setsid; do
        command -v "$cmd" >/dev/null 2>&1 || {
            echo "no '$cmd' command"
            return
        }
    done
    if ! unshare --net --uts --ipc --mount true 2>/dev/null; then
        echo "cannot create network, UTS, IPC and mount namespaces (unshare failed)"
        return
    fi
    if ! ip link add shmcprobe0 type veth peer name shmcprobe1 2>/dev/null; then
        echo "cannot create veth pairs"
        return
    fi
    ip link del shmcprobe0 2>/dev/null || true
    if ! ip link add shmcprobebr type bridge 2>/dev/null; then
        echo "cannot create a bridge"
        return
    fi
    ip link del shmcprobebr 2>/dev/null || true
}

# The /etc/hosts every node sees.
write_hosts() {
    local n=$1 i
    {
        echo "127.0.0.1 localhost"
        echo "$HEAD_ADDR shmc-head"
        for ((i = 0; i < n; i++)); do echo "$(node_addr "$i") node$i"; done
    } >"$STATE/hosts"
}

# Starts node i's holder: a new session (so that no job control or terminal signal reaches it)
# whose process unshares the namespaces, sets the node up from inside and becomes `sleep infinity`
# renamed shmc-node<i>; it writes its pid, then "ready", to files of the state directory.
start_holder() {
    local i=$1
    # shellcheck disable=SC2016 # expanded by the inner bash
    setsid unshare --net --uts --ipc --mount --propagation private -- bash -c '
        set -e
        hostname "node$1"
        mount --bind "$2/hosts" /etc/hosts
        mount -t tmpfs -o mode=1777 "shmc-node$1-shm" /dev/shm
        # /sys/class/net of the node'"'"'s own network namespace (UCX lists its TCP devices there):
        # a sysfs mounted in this namespace, of which the two network directories are bound
        # over the machine'"'"'s (the rest of /sys, cgroups included, stays as it is).
        sys=$2/node$1.sys
        mkdir -p "$sys"
        mount -t sysfs "shmc-node$1-sys" "$sys"
        mount --bind "$sys/class/net" /sys/class/net
        mount --bind "$sys/devices/virtual/net" /sys/devices/virtual/net
        umount -l "$sys"
        rmdir "$sys"
        ip link set lo up
        echo $$ >"$2/node$1.pid"
        touch "$2/node$1.ready"
        exec -a "shmc-node$1" sleep infinity' shmc-holder "$i" "$STATE" \
        </dev/null >/dev/null 2>"$STATE/node$i.log" &
    disown # no job notices from this shell when down kills it
    local waited=0
    until [ -f "$STATE/node$i.ready" ]; do
        sleep 0.05
        waited=$((waited + 1))
        [ "$waited" -lt 200 ] || die "node$i: holder did not start: $(cat "$STATE/node$i.log")"
    done
}

# The agent as one executable (hydra's -launcher-exec and Open MPI's plm_rsh_agent take a path).
write_agent_wrapper() {
    local self
    self=$(readlink -f "${BASH_SOURCE[0]}")
    printf '#!/bin/sh\n# ssh stand-in for the simulated cluster\nexec %q agent "$@"\n' "$self" \
        >"$STATE/ssh"
    chmod 755 "$STATE/ssh"
}

# IPv4 only: no IPv6 link-local chatter (router and neighbour solicitations, MLD) on the links,
# so that the byte counters show MPI traffic. /proc/sys/net is that of the caller's namespace.
no_ipv6() {
    local f=/proc/sys/net/ipv6/conf/$1/disable_ipv6
    [ ! -w "$f" ] || echo 1 >"$f"
}

cmd_up() {
    local n=${1:-} rate="" i pid
    shift || true
    while [ $# -gt 0 ]; do
        case $1 in
        --rate)
            rate=${2:?--rate needs a value}
            shift 2
            ;;
        *) die "up: unknown option $1" ;;
        esac
    done
    if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt $MAX_NODES ]; then
        die "up: give a number of nodes, 1..$MAX_NODES"
    fi
    local reason
    reason=$(skip_reason)
    [ -z "$reason" ] || die "cannot make a cluster here: $reason"
    [ "$(node_count)" -eq 0 ] || die "a cluster of $(node_count) nodes is up; run '$0 down' first"
    if ip link show "$BRIDGE" >/dev/null 2>&1; then
        # Left over by a cluster whose state is gone: removed, unless some holder still runs (a
        # cluster of another state directory).
        pgrep -f '^shmc-node[0-9]+ infinity' >/dev/null && die "$BRIDGE is in use by a running cluster"
        echo "cluster.sh: removing a left-over $BRIDGE" >&2
        cmd_down
    fi

    mkdir -p "$STATE"
    # From here on, a failure (or an interrupt) removes whatever was made.
    UP_DONE=0
    trap 'if [ "$UP_DONE" = 0 ]; then echo "cluster.sh: up failed, removing what was made" >&2;
          cmd_down; fi' EXIT
    trap 'exit 130' INT TERM
    write_hosts "$n"
    write_agent_wrapper
    ip link add "$BRIDGE" type bridge
    no_ipv6 "$BRIDGE"
    ip addr add "$HEAD_ADDR/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
    echo "$n" >"$STATE/nodes"
    for ((i = 0; i < n; i++)); do
        start_holder "$i"
        pid=$(holder_pid "$i")
        ip link add "$(host_if "$i")" type veth peer name "shmcn$i"
        ip link set "shmcn$i" netns "$pid"
        no_ipv6 "$(host_if "$i")"
        ip link set "$(host_if "$i")" master "$BRIDGE" up
        nsenter -t "$pid" -n ip link set "shmcn$i" name "$NODE_IF"
        nsenter -t "$pid" -n bash -c "$(declare -f no_ipv6); no_ipv6 $NODE_IF"
        nsenter -t "$pid" -n ip addr add "$(node_addr "$i")/24" dev "$NODE_IF"
        nsenter -t "$pid" -n ip link set "$NODE_IF" up
    done
    [ -z "$rate" ] || cmd_shape "$rate"
    # The bridge forwards once its ports are up; wait until every node reaches the head.
    for ((i = 0; i < n; i++)); do
        wait_reachable "$i"
    done
    UP_DONE=1
    echo "cluster: $n node(s) up on $NET.0/24 (head $HEAD_ADDR, bridge $BRIDGE)"
}

# Waits until node i's link is up and it has a neighbour entry for the head (proves L2 works).
wait_reachable() {
    local i=$1 pid tries
    pid=$(holder_pid "$i")
    for ((tries = 0; tries < 100; tries++)); do
        # A TCP connection attempt to the head's discard port: connected or refused = reachable.
        local out
        if out=$(nsenter -t "$pid" -n timeout 1 bash -c "exec 3<>/dev/tcp/$HEAD_ADDR/9" 2>&1) ||
            [[ $out == *refused* ]]; then
            return 0
        fi
        sleep 0.1
    done
    die "node$i cannot reach $HEAD_ADDR"
}

# Every pid (other than the holders) inside a node's network namespace.
pids_in_node() {
    local hpid=$1 ns p
    ns=$(readlink "/proc/$hpid/ns/net") || return 0
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        [ "$p" != "$hpid" ] || continue
        [ "$(readlink "/proc/$p/ns/net" 2>/dev/null)" = "$ns" ] && echo "$p"
    done
    return 0
}

# Kills every process left inside the nodes: TERM, then KILL after 2 s. Prints how many.
cmd_reap() {
    local n i hpid pids=() p count=0
    n=$(recorded_nodes)
    for ((i = 0; i < n; i++)); do
        hpid=$(holder_pid "$i" 2>/dev/null) || continue
        # shellcheck disable=SC2207 # pids are words without spaces
        pids+=($(pids_in_node "$hpid"))
    done
    [ ${#pids[@]} -gt 0 ] || return 0
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for ((i = 0; i < 20; i++)); do
        count=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && count=$((count + 1)); done
        [ "$count" -gt 0 ] || break
        sleep 0.1
    done
    [ "$count" -eq 0 ] || kill -KILL "${pids[@]}" 2>/dev/null || true
    echo "cluster.sh: killed ${#pids[@]} process(es) left inside the nodes" >&2
}

# What a job left in the nodes' own /dev/shm (each an empty tmpfs when the node came up): one line
# node<i>:NAME per entry, then the entries are removed.
cmd_sweep_shm() {
    local n i pid name
    n=$(recorded_nodes)
    for ((i = 0; i < n; i++)); do
        pid=$(holder_pid "$i")
        nsenter -t "$pid" --mount -- ls -A /dev/shm | while read -r name; do echo "node$i:$name"; done
        nsenter -t "$pid" --mount -- find /dev/shm -mindepth 1 -delete
    done
}

cmd_down() {
    local n i pid
    n=$(recorded_nodes)
    cmd_reap || true
    for ((i = 0; i < n; i++)); do
        pid=$(holder_pid "$i" 2>/dev/null) || continue
        kill -KILL "$pid" 2>/dev/null || true
    done
    # Holders may have been started without a "nodes" file (an interrupted up): any pid file.
    for pid in "$STATE"/node*.pid; do
        [ -f "$pid" ] || continue
        i=${pid##*/node}
        i=${i%.pid}
        pid=$(cat "$pid")
        if [ "$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")" = "shmc-node$i infinity " ]; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    # A node's namespaces, and its end of the veth with them, go when its last process exits;
    # delete whatever shmc links are left in the root namespace.
    for i in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' |
        grep -E '^(shmch[0-9]+|shmcbr0|shmcn[0-9]+)$' || true); do
        ip link del "$i" 2>/dev/null || true
    done
    rm -rf "$STATE"
}

cmd_status() {
    local n i pid
    n=$(node_count)
    if [ "$n" -eq 0 ]; then
        echo "cluster: down"
        return 0
    fi
    echo "cluster: $n node(s), head $HEAD_ADDR on $BRIDGE, state in $STATE"
    for ((i = 0; i < n; i++)); do
        pid=$(holder_pid "$i")
        echo "node$i $(node_addr "$i") holder $pid processes $(pids_in_node "$pid" | wc -l)"
    done
}

cmd_exec() {
    local i pid
    [ $# -ge 2 ] || die "usage: exec NODE CMD..."
    i=$(node_index "$1")
    shift
    pid=$(holder_pid "$i")
    exec nsenter -t "$pid" --net --uts --ipc --mount --wd="$PWD" -- "$@"
}

# The launchers' remote shell: `agent [ssh options] [user@]HOST [CMD...]`. Like ssh, the command
# words are joined with spaces and run by the login shell of the user; unlike ssh, the working
# directory and the environment are those of the caller (same machine, same file system).
cmd_agent() {
    local host="" shell
    while [ $# -gt 0 ]; do
        case $1 in
        --) shift; break ;;
        # ssh options with an argument, separate (-o X) or attached (-oX)
        -[BbcDEeFIiJLlmOopQRSWw])
            shift 2 || die "agent: option without its argument"
            ;;
        -[BbcDEeFIiJLlmOopQRSWw]?*) shift ;;
        -*) shift ;; # flags: -x -q -t -T -n -N -4 -6 -A -a -C ... (combined too)
        *) break ;;
        esac
    done
    [ $# -ge 1 ] || die "agent: no host given"
    host=${1#*@}
    shift
    shell=$(getent passwd "$(id -un)" | cut -d: -f7)
    [ -x "${shell:-}" ] || shell=/bin/sh
    if [ $# -eq 0 ]; then
        cmd_exec "$host" "$shell" -l
    else
        cmd_exec "$host" "$shell" -c "$*"
    fi
}

cmd_bytes() {
    local i dir
    [ $# -eq 1 ] || die "usage: bytes NODE"
    i=$(node_index "$1")
    # What the node sends is what its peer end in the root namespace receives, and vice versa.
    dir=/sys/class/net/$(host_if "$i")/statistics
    echo "node$i tx_bytes=$(cat "$dir/rx_bytes") rx_bytes=$(cat "$dir/tx_bytes")" \
        "tx_packets=$(cat "$dir/rx_packets") rx_packets=$(cat "$dir/tx_packets")"
}

cmd_shape() {
    local rate=${1:?usage: shape RATE|off} n i pid
    n=$(node_count)
    [ "$n" -gt 0 ] || die "no cluster is up"
    for ((i = 0; i < n; i++)); do
        pid=$(holder_pid "$i")
        if [ "$rate" = off ]; then
            tc qdisc del dev "$(host_if "$i")" root 2>/dev/null || true
            nsenter -t "$pid" -n tc qdisc del dev "$NODE_IF" root 2>/dev/null || true
        else
            # Both directions: the node's egress inside it, its ingress as the bridge port's egress.
            tc qdisc replace dev "$(host_if "$i")" root tbf rate "$rate" burst 256kb latency 50ms
            nsenter -t "$pid" -n tc qdisc replace dev "$NODE_IF" root tbf rate "$rate" \
                burst 256kb latency 50ms
        fi
    done
}

main() {
    local cmd=${1:-}
    shift || true
    case $cmd in
    up) cmd_up "$@" ;;
    down) cmd_down ;;
    status) cmd_status ;;
    nodes) node_count ;;
    exec) cmd_exec "$@" ;;
    agent) cmd_agent "$@" ;;
    bytes) cmd_bytes "$@" ;;
    shape) cmd_shape "$@" ;;
    reap) cmd_reap ;;
    sweep-shm) cmd_sweep_shm ;;
    skip-reason) skip_reason ;;
    head-address) echo "$HEAD_ADDR" ;;
    subnet) echo "$NET.0/24" ;;
    state-dir) echo "$STATE" ;;
    *)
        sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
        exit 2
        ;;
    esac
}

main "$@"
