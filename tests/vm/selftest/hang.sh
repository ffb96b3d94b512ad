# SPDX-License-Identifier: Apache-2.0
# Guest side of selftest-verdicts.sh: a guest that never reports back.
# shellcheck source=../lib.sh
. "$VM_LIB"
echo "selftest: hanging on purpose"
sleep 100000
