#!/usr/bin/env bash
# Fetches the MPICH sources of the installed Debian mpich package (its test suite, test/mpi/, is
# what the conformance runs build against both MPI libraries) into DEST, by apt from the same
# Debian archive the machine installs from: the machine lists only binary packages, so a deb-src
# entry mirroring each Debian "deb" entry is added first. Idempotent: a tree already extracted
# for this version is kept, and nothing is fetched.
#
# usage: scripts/fetch-mpich-tests.sh DEST     (prints the extracted source directory last)
set -euo pipefail

dest=${1:?usage: fetch-mpich-tests.sh DEST}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# The source package the installed binary package was built from, and its version.
srcpkg=$(dpkg-query -W -f='${source:Package}' mpich)
version=$(dpkg-query -W -f='${source:Version}' mpich)
upstream=${version#*:}
upstream=${upstream%-*}
tree="$dest/$srcpkg-$upstream"
stamp="$tree/.fetched-$version"
if [ -f "$stamp" ] && [ -d "$tree/test/mpi/coll" ]; then
    echo "fetch-mpich-tests: $srcpkg $version already in $tree" >&2
    echo "$tree"
    exit 0
fi

# Prints, for each stanza of a deb822 .sources file whose Types include "deb" and whose URIs are
# Debian's, the same stanza as Types: deb-src (comments dropped).
deb822_src_twins() {
    local line word stanza="" is_deb=0 is_debian=0
    while IFS= read -r line || [ -n "$line" ]; do
        if [ -z "${line//[[:space:]]/}" ]; then
            [ $is_deb = 1 ] && [ $is_debian = 1 ] && printf '%s\n' "$stanza"
            stanza="" is_deb=0 is_debian=0
            continue
        fi
        case $line in
        "#"*) continue ;;
        Types:*)
            for word in ${line#Types:}; do [ "$word" = deb ] && is_deb=1; done
            line="Types: deb-src" ;;
        URIs:*debian*) is_debian=1 ;;
        esac
        stanza+="$line"$'\n'
    done <"$1"
    [ $is_deb = 1 ] && [ $is_debian = 1 ] && printf '%s\n' "$stanza"
    return 0
}

# deb-src twins of the Debian archive's deb entries (deb822 .sources files and one-line lists).
srcfile=/etc/apt/sources.list.d/debian-src.sources
if ! apt-get source --print-uris "$srcpkg=$version" >/dev/null 2>&1; then
    entries=$(
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] || continue
            [ "$f" = "$srcfile" ] && continue
            deb822_src_twins "$f"
        done
        for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
            [ -f "$f" ] || continue
            # "deb [options] URI SUITE COMPONENT..." (options, rare, are not carried over)
            sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*debian[^[:space:]]*\)[[:space:]]\+\([^[:space:]]\+\)[[:space:]]\+\(.*\)$/Types: deb-src\nURIs: \2\nSuites: \3\nComponents: \4\n/p' "$f"
        done
    )
    if [ -z "$entries" ]; then
        echo "fetch-mpich-tests: no Debian 'deb' entry in the apt sources to mirror as deb-src" >&2
        exit 1
    fi
    echo "fetch-mpich-tests: adding $srcfile" >&2
    printf '%s\n' "$entries" | $SUDO tee "$srcfile" >/dev/null
    $SUDO apt-get update -q >&2
fi

# apt-get source checks the files against the archive's signed index; dpkg-source (dpkg-dev)
# unpacks them and applies Debian's patches, giving the sources the package was built from.
command -v dpkg-source >/dev/null || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
    --no-install-recommends dpkg-dev >&2
download="$dest/download"
mkdir -p "$download"
(cd "$download" && apt-get source --download-only -q "$srcpkg=$version" >&2)
dsc=$(find "$download" -maxdepth 1 -name "${srcpkg}_*.dsc" | head -1)
[ -n "$dsc" ] || { echo "fetch-mpich-tests: no .dsc downloaded" >&2; exit 1; }
rm -rf "$tree"
# --no-check: the signature of the .dsc needs Debian's developer keyring, which apt's check of
# the archive index makes unnecessary.
dpkg-source --no-check -x "$dsc" "$tree" >&2
[ -d "$tree/test/mpi/coll" ] || { echo "fetch-mpich-tests: $tree has no test/mpi/coll" >&2; exit 1; }
touch "$stamp"
echo "$tree"
