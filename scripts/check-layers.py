#!/usr/bin/env python3
"""Checks the structure of src/ from its own #include lines.

1. Layers: a file may include only headers of its own layer or of layers below it:
       base < {heap, kernels, patterns, shm, topo} < core < coll < select < group < mpi
   (the five in braces are siblings: none includes another).
2. No cycle between modules, a module being a .c file and its .h (src/x/y.c with src/x/y.h):
   module A depends on module B when A's .c or .h includes B's .h.
Prints every violation and exits 1 if there is any; prints a one-line summary otherwise."""
import os
import re
import sys

RANK = {"base": 0, "heap": 1, "kernels": 1, "patterns": 1, "shm": 1, "topo": 1,
        "core": 2, "coll": 3, "select": 4, "group": 5, "mpi": 6}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([A-Za-z0-9_]+)\.h"', re.M)


def main():
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    deps = {}  # module -> set of modules
    problems = []
    for layer in sorted(os.listdir(src)):
        if layer not in RANK:
            problems.append(f"src/{layer}: not a known layer (add it to scripts/check-layers.py)")
            continue
        for name in sorted(os.listdir(os.path.join(src, layer))):
            stem, ext = os.path.splitext(name)
            if ext not in (".c", ".h"):
                continue
            module = f"{layer}/{stem}"
            deps.setdefault(module, set())
            with open(os.path.join(src, layer, name), encoding="utf-8") as f:
                text = f.read()
            for inc_layer, inc_stem in INCLUDE.findall(text):
                if inc_layer not in RANK:
                    continue
                if RANK[inc_layer] > RANK[layer] or (
                        RANK[inc_layer] == RANK[layer] and inc_layer != layer):
                    problems.append(f"src/{layer}/{name} includes {inc_layer}/{inc_stem}.h: "
                                    f"{inc_layer} is not below {layer}")
                target = f"{inc_layer}/{inc_stem}"
                if target != module:
                    deps[module].add(target)

    # Cycles: depth-first search with colours.
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {m: WHITE for m in deps}
    stack = []

    def visit(m):
        colour[m] = GREY
        stack.append(m)
        for d in sorted(deps.get(m, ())):
            if colour.get(d, BLACK) == GREY:
                cycle = stack[stack.index(d):] + [d]
                problems.append("cycle: " + " -> ".join(cycle))
            elif colour.get(d, BLACK) == WHITE:
                visit(d)
        stack.pop()
        colour[m] = BLACK

    for m in sorted(deps):
        if colour[m] == WHITE:
            visit(m)

    for p in problems:
        print("check-layers: " + p)
    if problems:
        return 1
    print(f"check-layers: {len(deps)} modules, every include points down, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
