# SPDX-License-Identifier: Apache-2.0
# Guest side of selftest-verdicts.sh: one failed check fails the test.
# shellcheck source=../lib.sh
. "$VM_LIB"
vm_pass "a check that passes"
assert_eq 1 2 "selftest: a check that fails on purpose"
