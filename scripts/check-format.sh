#!/usr/bin/env bash
# Fails when any tracked C file differs from what clang-format makes of it.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$( (git ls-files '*.c' '*.h'; git ls-files --others --exclude-standard '*.c' '*.h') | sort -u)
bad=0
for f in $files; do
    [ -f "$f" ] || continue
    if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
        echo "format: $f differs from clang-format (run: make format)"
        bad=1
    fi
done
[ $bad -eq 0 ] && echo "format: all C files clean"
exit $bad
