#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The privilege probe against a fake root where every path it tries is open
# to this user: as itself it must see each one open (so a closed line means
# something), and as the parser child each one closed, with no capability
# (as root too: the child then drops to the overflow uid). Then on the real
# host, as the parser child only (as itself it would write there).
# Env (set by meson): PRIVILEGE_PROBE.
set -uo pipefail
probe=${PRIVILEGE_PROBE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root"/{run/modprobe.d,etc/modprobe.d,run/systemd/system,run/udev/rules.d,dev,proc/1} \
         "$root"/{run/nvme-swapguard-secrets,run/nvme-swapguard-fabrics,sys/class/nvme/nvme0}
for f in run/nvme-swapguard-secrets/secrets.json run/nvme-swapguard-fabrics/secrets.json proc/1/environ \
         proc/1/mem sys/class/nvme/nvme0/dhchap_secret sys/class/nvme/nvme0/dhchap_ctrl_secret; do
  echo secret > "$root/$f"
done
fail=0
expected_paths=12

NVME_SWAPGUARD_ROOT=$root "$probe" > "$tmp/self.out" 2>&1
rc=$?
cat "$tmp/self.out"
n_open=$(grep -c ': open$' "$tmp/self.out")
if [ $rc -ne 1 ] || [ "$n_open" -ne $expected_paths ]; then
  echo "FAIL: as itself on the fake root the probe must see all $expected_paths paths open and exit 1" \
       "(saw $n_open open, exit $rc)"
  fail=1
fi
leftover=$(find "$root" -name 'zz-privilege-probe*' | head -1)
[ -z "$leftover" ] || { echo "FAIL: the probe left $leftover behind"; fail=1; }

NVME_SWAPGUARD_ROOT=$root "$probe" --as-parser > "$tmp/parser.out" 2>&1
rc=$?
cat "$tmp/parser.out"
n_closed=$(grep -c ': closed (' "$tmp/parser.out")
if [ $rc -ne 0 ] || [ "$n_closed" -ne $expected_paths ] || grep -q ': open$' "$tmp/parser.out"; then
  echo "FAIL: as the parser child every one of the $expected_paths paths must be closed (saw $n_closed closed, exit $rc)"
  fail=1
fi
if ! grep -q '^# as the parser child: .*CapEff=0000000000000000 CapPrm=0000000000000000 CapInh=0000000000000000' \
     "$tmp/parser.out"; then
  echo "FAIL: the parser child holds capabilities"
  fail=1
fi
if [ "$(id -u)" = 0 ] && ! grep -q '^# as the parser child: uid=65534 gid=65534 ' "$tmp/parser.out"; then
  echo "FAIL: started as root, the parser child must run as the overflow uid/gid 65534"
  fail=1
fi

"$probe" --as-parser > "$tmp/host.out" 2>&1
rc=$?
cat "$tmp/host.out"
if [ $rc -ne 0 ] || grep -q ': open$' "$tmp/host.out"; then
  echo "FAIL: as the parser child on the real host a path opened (exit $rc)"
  fail=1
fi
[ $fail = 0 ] && echo "PASS: $expected_paths paths open to the probe itself, closed to the parser child"
exit $fail
