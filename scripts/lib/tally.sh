# shellcheck shell=bash
# Tallies test parts for the scripts that run several (run-tests.sh, run-conformance.sh): each
# part prints its own output and ends with a line "<what>: N passed, M failed"; `passed` and
# `failed` sum them (a part without that line counts as one failure).
passed=0
failed=0
tally_part() { # description command...
    local what=$1 log p
    shift
    echo "=== $what"
    log=$(mktemp)
    "$@" 2>&1 | tee "$log"
    p=$(tail -1 "$log" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
    if [ -n "$p" ]; then
        # shellcheck disable=SC2086 # two numbers
        set -- $p
        passed=$((passed + $1))
        failed=$((failed + $2))
    else
        failed=$((failed + 1))
    fi
    rm -f "$log"
}
