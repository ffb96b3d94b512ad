#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The project's test command: what a user runs and what CI runs.
#   1. installs what is missing (Debian 12, as root),
#   2. builds and runs every suite: unit, fakeroot, daemon, ship, vm (real
#      kernel under QEMU),
#   3. rebuilds with ASan+UBSan and reruns the unit and fake-root suites,
#   4. runs the CLI's status and check under valgrind on a fake node.
# Build dirs: build/ and build-asan/ (override with BUILD_DIR / ASAN_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build}
asan_build=${ASAN_BUILD_DIR:-build-asan}

bash tests/install-deps.sh

step() { printf '\n==== %s ====\n' "$*"; }

step "build ($build)"
[ -d "$build" ] || meson setup "$build"
meson compile -C "$build"

step "all suites"
meson test -C "$build" --print-errorlogs --num-processes 2

step "sanitizers: unit and fakeroot suites under ASan+UBSan ($asan_build)"
[ -d "$asan_build" ] || meson setup "$asan_build" -Dsanitize=true -Dvm_tests=disabled
meson compile -C "$asan_build"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  meson test -C "$asan_build" --print-errorlogs --suite unit --suite fakeroot

step "valgrind: nvme-swapguard-kmod status and check on a fake node"
bash tests/fakeroot/valgrind-cli.sh "$build"

echo
echo "run-tests: all steps passed"
