# SPDX-License-Identifier: Apache-2.0
# Guest side of selftest-verdicts.sh: must never report anything but a
# failure when the guest cannot boot.
# shellcheck source=../lib.sh
. "$VM_LIB"
vm_pass "should not run"
