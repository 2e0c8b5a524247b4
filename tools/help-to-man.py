#!/usr/bin/env python3
"""Writes a manual page (roff, man(7) macros) from a tool's --help text.

    help-to-man.py --name NAME --version V --output FILE.1 -- PROGRAM [ARGS...]

runs `PROGRAM [ARGS...] --help` and turns its text into sections: the "usage:" lines become the
SYNOPSIS (with the program's name replaced by NAME, the installed name), the first line after them
the NAME line's summary, the text up to the first heading the DESCRIPTION, and every line of the
form "heading:" (lower case words, nothing after the colon) a section of that name. The text
inside a section is kept as it is laid out (no filling), so the page reads like --help.

When the program cannot run (e.g. no MPI singleton start where the page is built), the page says
so and points to --help, and the script still succeeds: a manual page never breaks a build.
"""
import argparse
import os
import re
import subprocess
import sys

HEADING = re.compile(r"^([a-z][a-z ]*[a-z]):$")


def roff_line(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def help_text(program):
    # Defaults that depend on who builds the page (paths under the home directory) read as "~".
    env = dict(os.environ, HOME="~", COLUMNS="80")
    for name in ("XDG_CACHE_HOME", "SHMCOLL_TUNE_DIR"):
        env.pop(name, None)
    try:
        run = subprocess.run(program + ["--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, timeout=60, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if run.returncode != 0 or not run.stdout.strip():
        return None, (run.stderr.strip() or f"exit status {run.returncode}")[-300:]
    return run.stdout, None


def parse(text, name):
    """(synopsis lines, summary, [(section, lines)])."""
    lines = text.rstrip("\n").splitlines()
    synopsis, i = [], 0
    if lines and lines[0].startswith("usage: "):
        first = lines[0][len("usage: "):]
        words = first.split(None, 1)
        program = words[0] if words else ""
        indent = len("usage: ") + len(program)
        synopsis.append(name + (" " + words[1] if len(words) > 1 else ""))
        i = 1
        # Continuation lines are indented under the program's name.
        while i < len(lines) and lines[i].startswith(" ") and lines[i].strip():
            synopsis.append(" " * len(name) + lines[i][indent:] if len(lines[i]) > indent
                            else lines[i].strip())
            i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    summary = lines[i].strip() if i < len(lines) else ""
    if summary:
        i += 1  # the NAME line says it; the description goes on after it
    sections, current = [], ("DESCRIPTION", [])
    for line in lines[i:]:
        m = HEADING.match(line)
        if m:
            sections.append(current)
            current = (m.group(1).upper(), [])
        else:
            current[1].append(line)
    sections.append(current)
    return synopsis, summary, [(title, body) for title, body in sections if any(
        l.strip() for l in body)]


def page(name, version, synopsis, summary, sections):
    out = [f'.TH "{name.upper()}" 1 "" "shmcoll {version}" "shmcoll manual"',
           ".SH NAME", roff_line(f"{name} - {summary.rstrip('.')}")]
    if synopsis:
        out += [".SH SYNOPSIS", ".nf"] + [roff_line(l) for l in synopsis] + [".fi"]
    for title, body in sections:
        while body and not body[0].strip():
            body = body[1:]
        while body and not body[-1].strip():
            body = body[:-1]
        out += [f".SH {title}", ".nf"]
        out += [roff_line(l) if l.strip() else "" for l in body]
        out += [".fi"]
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--name", required=True, help="the installed name of the tool")
    p.add_argument("--version", required=True)
    p.add_argument("--output", required=True)
    p.add_argument("program", nargs=argparse.REMAINDER)
    args = p.parse_args()
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        p.error("no program given")
    text, error = help_text(program)
    if text is None:
        print(f"help-to-man: {args.name} --help did not run ({error}); writing a short page",
              file=sys.stderr)
        body = page(args.name, args.version, [args.name + " [options]"],
                    "a tool of shmcoll", [("DESCRIPTION", [f"Run: {args.name} --help"])])
    else:
        body = page(args.name, args.version, *parse(text, args.name))
    with open(args.output, "w") as f:
        f.write(body)


if __name__ == "__main__":
    main()
