#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real CRI-O 1.27.8 (lib-crio.sh), the shipped unit; one boot for a crash
# loop: ATTEMPTS (the first argument, default 3) attempts of
# mofed-container in one pod with RESTORE_DRIVER_ON_POD_TERMINATION=true,
# each killed (a crash) and restarted by kubelet at once: each attempt is a
# new swap to its own build (not the pod's end: a new container came), and
# kubelet's earlier attempt waiting for its garbage collection is not "two
# privileged driver containers". Kubelet's container GC is played too: it
# keeps one dead container per container name and pod
# (--maximum-dead-containers-per-container, default 1; kubernetes
# pkg/kubelet/kuberuntime/kuberuntime_gc.go, evictableContainers), so the
# attempt before the previous one is removed from the store (CRI-O's
# RemoveContainer) while the next runs. The daemon's RssAnon and open fds
# after each swap go to the log ("daemon after attempt N's swap: ..."):
# bench/vm-restart-memory.sh runs 50 attempts and tabulates them.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-crio.sh"
crio_case_begin

attempts=${1:-3}

# the daemon's memory and fds, for docs/BENCHMARKS.md
mem() { vm_log "daemon after $1: $(grep -E '^(VmRSS|RssAnon)' "/proc/$(sg_main_pid)/status" | tr -s ' \t' ' ' | tr '\n' ' ')fds $(ls "/proc/$(sg_main_pid)/fd" | wc -l)"; }

export CRIO_RESTORE_ON_TERMINATION=true
sg_step "a crash loop: $attempts attempts in one pod"
crio_driver_pod
cids=("$CRIO_CID")
crio_swapped_to "$CRIO_CID"
mem "attempt 0's swap"
for ((attempt = 1; attempt < attempts; attempt++)); do
	kill -KILL "$CRIO_CPID"
	crio_wait_ctr_state CONTAINER_EXITED 60 "${cids[-1]}" || vm_fail "attempt $((attempt - 1)) did not exit"
	crio_ctr_create mofed-container "$attempt"
	crio_ctr_start || vm_fatal "mofed-container attempt $attempt did not start"
	cids+=("$CRIO_CID")
	# kubelet's container GC: one dead mofed-container is kept.
	if [ ${#cids[@]} -ge 3 ]; then
		crictl rm "${cids[-3]}" >/dev/null 2>&1 || vm_fail "crictl rm of attempt $((attempt - 2)) ${cids[-3]:0:12}"
	fi
	crio_swapped_to "$CRIO_CID"
	mem "attempt $attempt's swap"
done
assert_eq "$(printf '%s\n' "${cids[@]}" | sort -u | wc -l)" "$attempts" "$attempts attempts, $attempts container ids"
assert_not_contains "$(sg_journal_text)" "Two privileged driver containers match" "a restart in the same pod"
sg_show_journal
