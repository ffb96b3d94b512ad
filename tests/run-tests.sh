#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The project's test command: what a user runs and what CI runs (.ci/run).
#   1. installs what is missing (Debian 12, as root),
#   2. builds (warnings as errors: -Dwerror=true) and runs every suite: unit,
#      fakeroot (with hostile), daemon, faults,
#      ship, fleet, monitoring, vm (the real kernel under QEMU),
#   3. rebuilds with ASan+UBSan and reruns the unit, fakeroot and faults suites,
#   4. runs the CLI's status and check under valgrind on a fake node,
#   5. builds the libFuzzer harnesses with clang and runs each for a bounded time.
# Every step runs even if an earlier one failed; the last line counts the
# tests of all steps and the exit code is non-zero if any failed.
# Build dirs: build/, build-asan/, build-fuzz/ (BUILD_DIR, ASAN_BUILD_DIR, FUZZ_BUILD_DIR).
set -uo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build}
asan_build=${ASAN_BUILD_DIR:-build-asan}
fuzz_build=${FUZZ_BUILD_DIR:-build-fuzz}
logs=()
failed_steps=()

step() { printf '\n==== %s ====\n' "$*"; }
fail() { failed_steps+=("$1"); echo "run-tests: step failed: $1" >&2; }

setup() { # setup DIR [meson options...]
  local dir=$1; shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" "$@"
  fi
}

bash tests/install-deps.sh || { echo "run-tests: could not install dependencies" >&2; exit 1; }

step "build ($build) and every suite"
if setup "$build" -Dwerror=true && meson compile -C "$build"; then
  meson test -C "$build" --print-errorlogs --num-processes 2 || fail "suites ($build)"
  logs+=("$build/meson-logs/testlog.json")
else
  fail "build ($build)"
fi

step "sanitizers: unit, fakeroot and faults suites and the daemon leak check under ASan+UBSan ($asan_build)"
if setup "$asan_build" -Dwerror=true -Db_sanitize=address,undefined -Db_lto=false -Dvm_tests=disabled \
   && meson compile -C "$asan_build"; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    meson test -C "$asan_build" --print-errorlogs --num-processes 2 \
      --suite unit --suite fakeroot --suite faults || fail "sanitizers"
  logs+=("$asan_build/meson-logs/testlog.json")
  # The daemon's leak check over a node's life (driver pods started and
  # ended): LeakSanitizer, since Debian 12's valgrind 3.19 cannot run it (no
  # pidfd_open), so the plain build's run of this test skips.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    meson test -C "$asan_build" --print-errorlogs --logbase leaks daemon-valgrind-fakeroot || fail "leak check"
  logs+=("$asan_build/meson-logs/leaks.json")
else
  fail "build ($asan_build)"
fi

step "valgrind: nvme-swapguard-kmod status and check on a fake node"
bash tests/fakeroot/valgrind-cli.sh "$build" || fail "valgrind"

step "fuzzers: each libFuzzer harness for a bounded time ($fuzz_build)"
if CC=clang setup "$fuzz_build" -Dwerror=true -Db_lto=false -Dfuzzers=true -Dvm_tests=disabled -Dtests=disabled \
   && meson compile -C "$fuzz_build"; then
  meson test -C "$fuzz_build" --print-errorlogs --num-processes 2 --suite fuzz || fail "fuzzers"
  logs+=("$fuzz_build/meson-logs/testlog.json")
else
  fail "build ($fuzz_build)"
fi

# One closing line over every step: N passed, N failed, N skipped.
python3 - "${logs[@]}" <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        result = json.loads(line).get("result")
        if result in ("OK", "EXPECTEDFAIL"):
            counts["passed"] += 1
        elif result == "SKIP":
            counts["skipped"] += 1
        else:
            counts["failed"] += 1
print(f'\nrun-tests: {counts["passed"]} passed, {counts["failed"]} failed, {counts["skipped"]} skipped')
PY

if [ ${#failed_steps[@]} -gt 0 ]; then
  echo "run-tests: FAILED steps: ${failed_steps[*]}"
  exit 1
fi
echo "run-tests: all steps passed"
