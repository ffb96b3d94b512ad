#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# nvme-swapguard-kmod status and check under valgrind on a fake node: no
# error, no leak. Usage: valgrind-cli.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
cli=$build/kmod-helper/nvme-swapguard-kmod
fake_node=$build/tests/fakeroot/fake-node
if ! command -v valgrind >/dev/null; then echo "SKIP: valgrind not installed"; exit 77; fi
[ -x "$cli" ] && [ -x "$fake_node" ] || { echo "valgrind-cli: build $build first" >&2; exit 1; }

tmp=$(mktemp -d /tmp/sg-valgrind-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
"$fake_node" "$root" init
"$fake_node" "$root" module nvme_core -1 nvme
"$fake_node" "$root" module nvme 0 -
"$fake_node" "$root" namespace 0 1 partitions=2
"$fake_node" "$root" namespace 1 1 multipath
"$fake_node" "$root" mount nvme0n1p1 /data xfs
"$fake_node" "$root" swap nvme0n1p2
"$fake_node" "$root" process 777 fio nvme1n1
"$fake_node" "$root" fabrics 2 tcp 127.0.0.1 4420 nqn.2026-12.test:sub 1:0123456789abcdef0123456789abcdef

for cmd in "status" "status --json" "check" "check --json"; do
  set +e
  # shellcheck disable=SC2086
  valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    "$cli" --root "$root" $cmd >"$tmp/out" 2>"$tmp/err"
  rc=$?
  set -e
  if [ "$rc" -eq 99 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; }; then
    echo "valgrind-cli: '$cmd' exit $rc"; cat "$tmp/err"; exit 1
  fi
  echo "valgrind-cli: '$cmd' clean (exit $rc)"
done
