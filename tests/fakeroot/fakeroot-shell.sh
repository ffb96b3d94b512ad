#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Shell-level checks of nvme-swapguard-kmod on a node built with the
# `fake-node` command: argument handling, exit codes, and that the text
# output names what an operator needs. Env (set by meson): SWAPGUARD_KMOD,
# FAKE_KERNEL_SO, FAKE_NODE.
set -euo pipefail

for v in SWAPGUARD_KMOD FAKE_KERNEL_SO FAKE_NODE; do
  if [ -z "${!v:-}" ] || [ ! -e "${!v}" ]; then
    echo "SKIP: $v is not set or missing (run through meson test)"; exit 77
  fi
done

tmp=$(mktemp -d /tmp/sg-fakeroot-sh-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
rel=6.1.0-fake-amd64
tree=/lib/modules/$rel
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

kmod() {
  # run the CLI under the fake kernel; sets $rc, $out, $log
  rm -f "$tmp/kernel.log"
  set +e
  out=$(NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
        LD_PRELOAD=$FAKE_KERNEL_SO "$SWAPGUARD_KMOD" --root "$root" "$@" 2>&1)
  rc=$?
  set -e
  log=$(cat "$tmp/kernel.log" 2>/dev/null || true)
}

expect_rc() { [ "$rc" -eq "$1" ] || fail "$2: exit $rc, expected $1; output: $out"; }
expect_out() { grep -qF -- "$1" <<<"$out" || fail "$2: output does not contain '$1': $out"; }

fn() { "$FAKE_NODE" "$root" "$@"; }

fn init $rel
fn ko $tree kernel/block/t10-pi.ko t10_pi - -
fn ko $tree kernel/drivers/nvme/host/nvme-core.ko nvme_core t10-pi -
fn ko $tree kernel/drivers/nvme/host/nvme.ko nvme nvme-core -
fn modules-dep $tree
fn module t10_pi -1 nvme_core
fn module nvme_core -1 nvme
fn module nvme 0 -
fn namespace 0 1 partitions=1
fn namespace 1 1 multipath

kmod --help;            expect_rc 0 "--help"; expect_out "unload" "--help"
kmod;                   expect_rc 1 "no command"
kmod frobnicate;        expect_rc 1 "unknown command"; expect_out "frobnicate" "unknown command"
kmod load;              expect_rc 1 "load without --from"; expect_out "--from" "load without --from"
kmod load --from rel/x; expect_rc 1 "relative --from"
kmod load --from /nonexistent/tree; expect_rc 1 "missing tree"; expect_out "/nonexistent/tree" "missing tree"
[ -z "$log" ] || fail "argument errors reached the kernel: $log"

kmod status;            expect_rc 0 "status"; expect_out "nvme_core" "status"; expect_out "nvme1n1" "status"
kmod check;             expect_rc 0 "check free"

# a multipath head mounted: the case where rmmod nvme would lose data
fn mount nvme1n1 /var/lib/kubelet xfs
kmod check;             expect_rc 3 "check multipath mounted"; expect_out "/var/lib/kubelet" "check multipath"
kmod unload;            expect_rc 3 "unload multipath mounted"; expect_out "nvme1n1" "unload multipath"
grep -q delete_module <<<"$log" && fail "unload refused but called delete_module: $log"
fn loaded nvme || fail "nvme unloaded although a namespace is mounted"

# the daemon's state file, shown by status (text and JSON); none, then one, then garbage
kmod status;            expect_out "has not run since boot" "status without a daemon state file"
mkdir -p "$root/run/nvme-swapguard"
cat >"$root/run/nvme-swapguard/state.json" <<'JSON'
{ "state": "blocked", "message": "nvme1n1 is mounted on /var/lib/kubelet (xfs)",
  "container": { "id": "0123abcd", "pod": "mofed-rhcos4.16-abcde-ds-xyz12", "pid": 4242 } }
JSON
kmod status;            expect_rc 0 "status with state file"; expect_out "Daemon: blocked: nvme1n1 is mounted on /var/lib/kubelet" "status daemon line"
expect_out "mofed-rhcos4.16-abcde-ds-xyz12" "status daemon container"
kmod status --json;     expect_rc 0 "status --json with state file"
python3 -c 'import json,sys; d=json.load(sys.stdin)["daemon"]; assert d["state"]=="blocked" and d["container"]["pid"]==4242, d' <<<"$out" \
  || fail "status --json: daemon state missing or wrong: $out"
echo "not json" >"$root/run/nvme-swapguard/state.json"
kmod status;            expect_rc 0 "status with a malformed state file"; expect_out "nvme_core" "status with a malformed state file"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"; exit 1
fi
echo "fakeroot-shell: all checks passed"
