# shellcheck shell=bash
# Installs Debian packages that are missing, for the project's install scripts.
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

install_missing() { # label package...
    local label=$1 need=() pkg
    shift
    for pkg in "$@"; do
        have_pkg "$pkg" || need+=("$pkg")
    done
    [ ${#need[@]} -gt 0 ] || return 0
    echo "$label: installing ${need[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${need[@]}"
}
