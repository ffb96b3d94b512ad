# SPDX-License-Identifier: Apache-2.0
# Guest side of vm-reaction.sh's contention mode (BENCH_VM_BUSY): a VM that
# keeps its vCPU busy for SECONDS (a shell loop: under TCG the host thread
# that emulates it runs flat out), as a neighbour VM on a loaded node would.
# shellcheck source=../tests/vm/lib.sh
. "$VM_LIB"
end=$((SECONDS + ${1:-600}))
while [ $SECONDS -lt "$end" ]; do :; done
vm_pass "busy for ${1:-600} s"
