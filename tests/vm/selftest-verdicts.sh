#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Host-side self-test of run-vm.sh's verdicts: a skip is 77 with its reason,
# a failed check is a failure, and a guest that hangs or cannot boot is a
# FAILURE (exit 1), never a pass or a skip.  Four short VM boots.
set -u
here=$(cd "$(dirname "$0")" && pwd)
failed=0

expect() { # expect RC GREP-PATTERN DESCRIPTION -- run-vm.sh args...
	local want=$1 pattern=$2 what=$3 out rc
	shift 4
	out=$("$here/run-vm.sh" "$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$pattern" <<<"$out"; then
		echo "ok - $what (exit $rc)"
	else
		echo "not ok - $what: exit $rc (want $want), pattern '$pattern'"
		tail -n 25 <<<"$out" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
	# Failed runs are kept for debugging; these failures are on purpose.
	local kept
	kept=$(sed -n 's/^run-vm: FAILED, kept \([^ ]*\) .*/\1/p' <<<"$out")
	[ -n "$kept" ] && [ -d "$kept/results" ] && rm -rf "$kept"
	return 0
}

expect 77 "SKIP: selftest: skipping on purpose" "skip is 77 with its reason" \
	-- -l none -- "$here/selftest/skip.sh"
expect 1 "FAIL: 1 of 2 checks failed" "a failed check fails the test" \
	-- -l none -- "$here/selftest/fail.sh"
expect 1 "VM TIMED OUT" "a hung guest fails" \
	-- -l none -t 15 -- "$here/selftest/hang.sh"
expect 1 "never reached the harness" "a guest that cannot boot fails" \
	-- -l none --append swapguard.mode=no-such-mode -- "$here/selftest/pass.sh"

[ $failed = 0 ] && echo "PASS: run-vm.sh verdicts" || echo "FAIL: $failed verdict checks"
[ $failed = 0 ]
