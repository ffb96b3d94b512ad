# SPDX-License-Identifier: Apache-2.0
# Guest side of selftest-verdicts.sh: a skip must say why and exit 77.
# shellcheck source=../lib.sh
. "$VM_LIB"
vm_skip "selftest: skipping on purpose"
