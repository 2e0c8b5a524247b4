#!/usr/bin/env python3
"""Checks the "nodes" section of shmcoll-info (--nodes) for one layout.

    check_info_nodes.py SHMCOLL_INFO blocks|cyclic|uneven

Runs the tool on an injected machine (one package of 8 cores) with the layout's options and
SHMCOLL_NET_* knobs (every other SHMCOLL_* variable removed) and checks that the section (from
the line "nodes:" to the end) holds the expected lines, in order, white space folded: the nodes,
each node's ranks and leaders, the leader count's cap, and the allreduce rows (form and bytes per
node and channel, worked out by hand from group/compose_allreduce.c). Also that the output before
the section is the output without --nodes (the other sections do not change), which has no
section, and that a malformed --nodes, or one that disagrees with --ranks, exits 2."""
import os
import subprocess
import sys

TOPOLOGY = ["--topology", "pack:1 core:8 pu:1"]

# layout: [(options, knobs, expected lines of the section)]
LAYOUTS = {
    "blocks": [
        (["--ranks", "8", "--nodes", "2"], {"SHMCOLL_NET_LEADERS": "2"}, [
            "nodes: 8 ranks on 2 nodes, in blocks (--nodes 2)",
            "leaders per node: 2 (SHMCOLL_NET_LEADERS=2, at most 8 and the smallest node's 4 "
            "ranks)",
            "node 0: 4 ranks 0-3, leaders rank 0 (channel 0), rank 1 (channel 1)",
            "node 1: 4 ranks 4-7, leaders rank 4 (channel 0), rank 5 (channel 1)",
            "allreduce of doubles across the nodes (SHMCOLL_NET_SPLIT=65536, "
            "SHMCOLL_NET_SEGMENT=1048576, network steps {steps}):",
            "non-commutative ops: the same (each node holds consecutive ranks)",
            "8 one leader 8 (channel 0: 8)",
            "65528 one leader 65528 (channel 0: 65528)",
            {"blocking": "65536 shares 65536 (channel 0: 32768, channel 1: 32768)",
             "non-blocking": "65536 segments, 1 65536 (channel 0: 32768, channel 1: 32768)"},
            {"blocking": "16777216 shares 16777216 (channel 0: 8388608, channel 1: 8388608)",
             "non-blocking": "16777216 segments, 16 16777216 (channel 0: 8388608, "
                             "channel 1: 8388608)"},
        ]),
    ],
    "cyclic": [
        # 20008-byte segments: 2501 doubles, shares of 1250 and 1251; 1 MiB is 52 of them and
        # 1020 doubles (510 + 510).
        (["--ranks", "6", "--nodes", "3:cyclic"],
         {"SHMCOLL_NET_LEADERS": "2", "SHMCOLL_NET_SPLIT": "4k", "SHMCOLL_NET_SEGMENT": "20008"}, [
             "nodes: 6 ranks on 3 nodes, round-robin (--nodes 3:cyclic)",
             "leaders per node: 2 (SHMCOLL_NET_LEADERS=2, at most 8 and the smallest node's 2 "
             "ranks)",
             "node 0: 2 ranks 0,3, leaders rank 0 (channel 0), rank 3 (channel 1)",
             "node 1: 2 ranks 1,4, leaders rank 1 (channel 0), rank 4 (channel 1)",
             "node 2: 2 ranks 2,5, leaders rank 2 (channel 0), rank 5 (channel 1)",
             "allreduce of doubles across the nodes (SHMCOLL_NET_SPLIT=4096, "
             "SHMCOLL_NET_SEGMENT=20008, network steps {steps}):",
             "non-commutative ops: the MPI library (a node's ranks are not consecutive)",
             "4088 one leader 4088 (channel 0: 4088)",
             {"blocking": "4096 shares 4096 (channel 0: 2048, channel 1: 2048)",
              "non-blocking": "4096 segments, 1 4096 (channel 0: 2048, channel 1: 2048)"},
             {"blocking": "1048576 shares 1048576 (channel 0: 524288, channel 1: 524288)",
              "non-blocking": "1048576 segments, 53 1048576 (channel 0: 524080, "
                              "channel 1: 524496)"},
         ]),
        (["--ranks", "8", "--nodes", "2:cyclic"], {}, [
            "nodes: 8 ranks on 2 nodes, round-robin (--nodes 2:cyclic)",
            "node 0: 4 ranks 0,2,...,6, leaders rank 0 (channel 0), rank 2 (channel 1)",
            "node 1: 4 ranks 1,3,...,7, leaders rank 1 (channel 0), rank 3 (channel 1)",
        ]),
    ],
    "uneven": [
        # --ranks from the list; leaders capped by the node of one rank.
        (["--nodes", "3,1"], {"SHMCOLL_NET_LEADERS": "4"}, [
            "nodes: 4 ranks on 2 nodes, in blocks of the sizes given (--nodes 3,1)",
            "leaders per node: 1 (SHMCOLL_NET_LEADERS=4, at most 8 and the smallest node's 1 rank)",
            "node 0: 3 ranks 0-2, leader rank 0 (channel 0)",
            "node 1: 1 rank 3, leader rank 3 (channel 0)",
            "non-commutative ops: the same (each node holds consecutive ranks)",
            "65536 one leader 65536 (channel 0: 65536)",
        ]),
        # 5 ranks in 2 blocks, as SHMCOLL_SIM_NODES=2 places them (the MPI tests' p=5 runs).
        (["--ranks", "5", "--nodes", "2"], {"SHMCOLL_NET_LEADERS": "3"}, [
            "nodes: 5 ranks on 2 nodes, in blocks (--nodes 2)",
            "leaders per node: 2 (SHMCOLL_NET_LEADERS=3, at most 8 and the smallest node's 2 "
            "ranks)",
            "node 0: 3 ranks 0-2, leaders rank 0 (channel 0), rank 1 (channel 1)",
            "node 1: 2 ranks 3-4, leaders rank 3 (channel 0), rank 4 (channel 1)",
        ]),
    ],
}

# Options that must be refused (exit status 2).
BAD = [["--nodes", "3,1", "--ranks", "5"], ["--nodes", "0"], ["--nodes", "2:blocks"],
       ["--nodes", "3,,1"]]


def run(tool, options, knobs):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHMCOLL_")}
    env.update(knobs)
    proc = subprocess.run([tool] + TOPOLOGY + options, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def fold(line):
    return " ".join(line.split())


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in LAYOUTS:
        sys.exit(__doc__)
    tool, layout = sys.argv[1], sys.argv[2]
    errors = []
    for options, knobs, expected in LAYOUTS[layout]:
        what = " ".join(f"{k}={v}" for k, v in knobs.items()) + " " + " ".join(options)
        rc, out, err = run(tool, options, knobs)
        print(f"$ {what.strip()}\n{out}{err}", end="")
        if rc != 0:
            errors.append(f"{what}: exit status {rc}")
            continue
        lines = out.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("nodes:")]
        if len(starts) != 1:
            errors.append(f"{what}: {len(starts)} 'nodes:' lines, not one")
            continue
        section = [fold(line) for line in lines[starts[0]:]]
        # Network steps are the MPI library's blocking collectives with Open MPI, non-blocking
        # with MPICH (src/mpi/net.c): the tool says which, and the forms follow.
        steps = "non-blocking" if any("network steps non-blocking" in l for l in section) \
            else "blocking"
        at = 0
        for line in expected:
            line = line[steps] if isinstance(line, dict) else line.format(steps=steps)
            try:
                at = section.index(line, at) + 1
            except ValueError:
                errors.append(f"{what}: no line {line!r} (in order) in the nodes section")
        # The sections before it are those of the same run without --nodes.
        plain = options[:options.index("--nodes")] + options[options.index("--nodes") + 2:]
        if "--ranks" not in plain:
            plain += ["--ranks", section[0].split()[1]]
        rc, out_plain, _ = run(tool, plain, knobs)
        if rc != 0 or out_plain.splitlines() != lines[:starts[0]]:
            errors.append(f"{what}: the output before the section differs from the output "
                          f"without --nodes ({' '.join(plain)})")
        if any(line.startswith("nodes:") for line in out_plain.splitlines()):
            errors.append(f"{' '.join(plain)}: a nodes section without --nodes")
    if layout == "uneven":
        for options in BAD:
            rc, _, err = run(tool, options, {})
            if rc != 2 or "--nodes" not in err:
                errors.append(f"{' '.join(options)}: exit status {rc}, not 2 with a message "
                              f"naming --nodes ({err.strip()!r})")
    print("".join(f"ERROR: {e}\n" for e in errors), end="")
    print(f"check_info_nodes: {'FAILED' if errors else 'OK'}")
    return int(bool(errors))


if __name__ == "__main__":
    sys.exit(main())
