#!/bin/sh
# Installs the Debian packages chaindata needs to build, test and run,
# when they are missing.  As root it runs apt-get; otherwise it prints the
# exact command and fails.  Usage: tools/deps.sh [build|test|fuzz|bench|deb]
#
# What the build needs is debian/control's Build-Depends, read from there
# (debhelper-compat, a virtual package, comes with nginx-dev); the other
# steps add their own tools.

set -eu

control="$(dirname "$0")/../debian/control"

# Build-Depends: package names only, without versions, architectures or
# alternatives, and without debhelper-compat
build_depends() {
    awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, "") }
         on && /^[^ \t]/ && !/^Build-Depends:/ { on = 0 }
         on { print }' "$control" \
    | tr ',' '\n' \
    | sed -e 's/|.*//' -e 's/[([<].*//' -e 's/[[:space:]]//g' \
    | grep -v -e '^$' -e '^debhelper-compat$'
}

need="gcc make nginx $(build_depends | tr '\n' ' ')"

case "${1:-build}" in
    build) ;;
    # nats-server: a test and bench dependency only (the fan-out tests);
    # prometheus: the alert rules' test (promtool, a scrape)
    # openssl: t/78 makes its Ed25519 keys as doc/operations.md tells operators
    # time: /usr/bin/time, the peak memory of t/87 and t/89
    # curl: bench/runes-routes, which t/45 runs at CI's size
    test)  need="$need perl lmdb-utils python3-jsonschema valgrind wrk
                 nats-server prometheus openssl time curl" ;;
    fuzz)  need="$need clang libclang-rt-14-dev" ;;
    # linux-perf: bench/gzip's profiles; python3, curl: bench/gzip-runes
    bench) need="$need perl lmdb-utils wrk nodejs nats-server linux-perf
                 python3 curl" ;;
    deb)   need="$need build-essential dpkg-dev debhelper lintian" ;;
    *)     echo "usage: $0 [build|test|fuzz|bench|deb]" >&2; exit 2 ;;
esac

missing=
for pkg in $need; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $pkg" ;;
    esac
done

[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"

if [ "$(id -u)" -ne 0 ]; then
    echo "chaindata: missing Debian packages:$missing" >&2
    echo "chaindata: run as root: apt-get update && $cmd" >&2
    exit 1
fi

echo "chaindata: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# the nginx package starts a default server on port 80 where an init
# system exists; chaindata does not need it, and a policy of 101 keeps
# package scripts from starting services during this install
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy"
    chmod 755 "$policy"
    trap 'rm -f "$policy"' EXIT
fi
# another apt-get (a fresh machine's unattended-upgrades at first boot)
# may hold dpkg's or the lists' lock: wait for it, up to 10 minutes
wait_lock="-o DPkg::Lock::Timeout=600"
tries=0
# shellcheck disable=SC2086
until apt-get $wait_lock update -qq; do
    tries=$((tries + 1))
    if [ "$tries" -ge 20 ]; then
        echo "chaindata: apt-get update keeps failing" >&2
        exit 1
    fi
    echo "chaindata: apt-get update failed (another apt holds its lock?);" \
         "trying again in 30 s" >&2
    sleep 30
done
# shellcheck disable=SC2086
apt-get $wait_lock install -y -qq --no-install-recommends $missing >/dev/null
