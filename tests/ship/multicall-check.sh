#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ship: the daemon's binary is the operator CLI when started as
# nvme-swapguard-kmod (what the MachineConfig ships: one binary, the CLI's
# path a script running it under that name; `meson install`: a symlink).
# Started through a symlink of that name, and through the shipped wrapper
# (its daemon path pointed at this build's), it must answer exactly as the
# standalone CLI does (stdout, stderr, exit status byte for byte): --version,
# --help, a usage error, and status --json, check and plan on a fake node;
# under any other name it is the daemon.
#   multicall-check.sh DAEMON KMOD WRAPPER FAKE_NODE FAKE_KERNEL_SO
set -euo pipefail
daemon=$(realpath -m "$1") kmod=$(realpath -m "$2") wrapper=$3 fake_node=$4 fake_kernel=$5

for b in "$daemon" "$kmod" "$fake_node"; do
        [ -x "$b" ] || { echo "SKIP: $b is not built (yet)"; exit 77; }
done
[ -e "$fake_kernel" ] || { echo "SKIP: $fake_kernel is not built (yet)"; exit 77; }

tmp=$(mktemp -d /tmp/sg-multicall-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

mkdir "$tmp/link" "$tmp/other" "$tmp/wrapper"
ln -s "$daemon" "$tmp/link/nvme-swapguard-kmod"
ln -s "$daemon" "$tmp/other/nvme-swapguard"
ln -s "$daemon" "$tmp/other/nvme-swapguard-kmod.old"
# The shipped wrapper, running this build's daemon instead of the node's.
grep -q ' /usr/local/bin/nvme-swapguard "\$@"$' "$wrapper" || { echo "FAIL: $wrapper does not run /usr/local/bin/nvme-swapguard"; exit 1; }
sed "s| /usr/local/bin/nvme-swapguard \"| $daemon \"|" "$wrapper" > "$tmp/wrapper/nvme-swapguard-kmod"
chmod +x "$tmp/wrapper/nvme-swapguard-kmod"

# A fake node (tests/fakeroot/lib-fake-node.sh): Debian's in-tree stack,
# nvme holding one namespace with a partition (claimed: in use), another
# free one.
root=$tmp/root rel=6.1.0-fake-amd64
fn() { "$fake_node" "$root" "$@"; }
# shellcheck source=../fakeroot/lib-fake-node.sh
. "$(dirname "${BASH_SOURCE[0]}")/../fakeroot/lib-fake-node.sh"
fake_node_in_tree
fn namespace 1 1 multipath
fn claim nvme0n1p1   # in use: check and plan exit 3

# run NAME PROGRAM ARGS...: its stdout, stderr and exit status in $tmp/NAME.*
run() {
        local name=$1 rc=0; shift
        NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
                ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
                LD_PRELOAD=$fake_kernel "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
        echo "$rc" >"$tmp/$name.rc"
}

# same WHAT ARGS...: the standalone CLI and each multi-call form agree.
same() {
        local what=$1 form; shift
        run standalone "$kmod" "$@"
        [ -s "$tmp/standalone.out" ] || [ -s "$tmp/standalone.err" ] || fail "$what: the standalone CLI said nothing"
        for form in link wrapper; do
                run "$form" "$tmp/$form/nvme-swapguard-kmod" "$@"
                for part in out err rc; do
                        if ! cmp -s "$tmp/standalone.$part" "$tmp/$form.$part"; then
                                fail "$what through the $form: std$part (or exit status) differs from the standalone CLI's:"
                                diff "$tmp/standalone.$part" "$tmp/$form.$part" | head -20 || true
                                continue 2
                        fi
                done
                echo "ok: $what through the $form: as the standalone CLI (exit $(cat "$tmp/standalone.rc"), $(wc -c <"$tmp/standalone.out") bytes out)"
        done
}

same "--version" --version
grep -qx 'nvme-swapguard-kmod [0-9][^ ]*' "$tmp/link.out" || fail "--version through the link: $(cat "$tmp/link.out")"
same "--help" --help
same "an unknown command" frobnicate
same "status --json on the fake node" --root "$root" status --json
same "check on the fake node" --root "$root" check
same "plan --json on the fake node" --root "$root" plan --json

# Under any other name, the daemon.
run daemon "$daemon" --version
want=$(cat "$tmp/daemon.out")
grep -qx 'nvme-swapguard [0-9][^ ]*' <<<"$want" || fail "the daemon's --version: $want"
for name in nvme-swapguard nvme-swapguard-kmod.old; do
        run other "$tmp/other/$name" --version
        got=$(cat "$tmp/other.out")
        [ "$got" = "$want" ] && [ "$(cat "$tmp/other.rc")" = 0 ] && echo "ok: started as $name it is the daemon ($got)" ||
                fail "started as $name: '$got', expected the daemon's '$want'"
done
run other "$tmp/other/nvme-swapguard" --root "$root" --check-config --config /nonexistent.conf
grep -q 'nvme-swapguard-kmod\|COMMAND' "$tmp/other.out" "$tmp/other.err" &&
        fail "started as nvme-swapguard, --check-config reached the CLI: $(cat "$tmp/other.out" "$tmp/other.err")"

[ "$failures" -eq 0 ] || { echo "multicall-check: $failures failure(s)"; exit 1; }
echo "multicall-check: passed"
