# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# sequence.sh CASE...: several real-kernel cases in one boot (run-vm.sh
# -- tests/vm/sequence.sh CASE...). The cases must share the boot's kernel,
# layout, mode and stand-in. Each runs as it would alone (its own bash, its
# own checks and verdict); between two cases the node is put back as it was
# at boot and that reset is itself checked:
#   - no process of the case left (its session), no driver container
#     (no crio-*.scope unit; in a real CRI-O, which stays up, no pod, no
#     container, no image and no conmon; an empty CRI-O store, no simulated
#     container's root),
#   - no daemon configuration file the case wrote (Mode=, Modules=),
#   - no nvme-swapguard unit left active or failed, its /run and log
#     directories and /run/mellanox (the ready file) gone, the unit's
#     journal emptied (the next case asserts on the journal from its start),
#   - nothing on an NVMe namespace (mounts, swap, device-mapper),
#   - no reload block (/run/modprobe.d/nvme-swapguard.conf),
#   - the in-tree stack back (nvme loaded without taint O, no mlx_compat),
#     every namespace of the layout present, its uevents handled (udevadm
#     settle), and every mount's propagation as at boot (/ private here).
# A reset that fails its check ends the sequence (what follows would run on
# a node the case did not expect). Verdict: FAIL if any case failed or a
# reset did; SKIP only if every case skipped; PASS otherwise, the skipped
# cases named with their reasons.
. "$VM_LIB"

[ $# -ge 1 ] || vm_fatal "usage: sequence.sh CASE..."

_seq_unit_globs=('nvme-swapguard*.service' 'nvme-swapguard*.path' 'crio-*.scope')
# A real CRI-O (tests/daemon/vm-crio/lib-crio.sh) keeps its pods across cases.
_seq_crictl=("$VM_BUILD_ROOT/crio-bin/crictl" --runtime-endpoint unix:///var/run/crio/crio.sock --timeout 120s)
# _seq_units: the units of those names systemd knows (loaded, any state).
_seq_units() {
	systemctl list-units --all --plain --no-legend "${_seq_unit_globs[@]}" 2>/dev/null |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /\.(service|path|scope)$/) { print $i; break } }'
}
_seq_crio_up() { [ -S /var/run/crio/crio.sock ] && [ -x "${_seq_crictl[0]}" ]; }

# _seq_kill_session SID: every process of the case's session (its
# background holders, sleeps, unshare'd namespaces), but never this one.
_seq_kill_session() {
	local sid=$1 pids p
	for _ in 1 2 3; do
		pids=$(ps -eo pid=,sid= | awk -v s="$sid" -v me=$$ '$2 == s && $1 != me { print $1 }')
		[ -n "$pids" ] || return 0
		for p in $pids; do kill -KILL "$p" 2>/dev/null; done
		vm_nap 0.2
	done
}

# _seq_on_nvme SOURCE: whether a mount or swap source lives on NVMe (or on
# a device-mapper device, which in these layouts sits on one).
_seq_on_nvme() { [[ $1 =~ ^/dev/(nvme|dm-|mapper/) ]]; }

_seq_stack_modules() {
	awk '$1 ~ /^(nvme|nvme_core|nvme_fabrics|nvme_tcp|nvme_rdma|nvme_fc|nvme_auth|nvme_keyring|mlx_compat|nvidia_fs.*)$/ { print $1 }' /proc/modules
}

# _seq_unload_stack: every stack module out, holders first (no force).
_seq_unload_stack() {
	local pass m progress
	for ((pass = 0; pass < 10; pass++)); do
		progress=0
		for m in $(_seq_stack_modules); do
			[ -z "$(module_holders "$m")" ] || continue
			rmmod "$m" 2>/dev/null && progress=1
		done
		[ -n "$(_seq_stack_modules)" ] || return 0
		[ $progress = 1 ] || return 1
	done
	return 1
}

# _seq_reset SID: the node back to its boot state after the case of session SID.
_seq_reset() {
	local t src
	# the daemon first (it must not react to what follows), then the case's
	# processes, then the driver containers
	if [ "$VM_MODE" = systemd ]; then
		for t in $(_seq_units); do
			case $t in nvme-swapguard*) systemctl stop "$t" 2>/dev/null ;; esac
		done
	fi
	for t in $(pidof nvme-swapguard); do kill -KILL "$t"; done
	[ -n "$1" ] && _seq_kill_session "$1"
	# a real CRI-O removes its own pods, containers and images (never behind
	# its back); it stays up for the next case, whose setup imports its
	# images again as it would after a boot. kubepods.slice goes as at a
	# node's shutdown (what CRI-O's systemd cgroup manager made for the pods).
	if _seq_crio_up; then
		"${_seq_crictl[@]}" rmp -af >/dev/null 2>&1
		"${_seq_crictl[@]}" rm -af >/dev/null 2>&1
		"${_seq_crictl[@]}" rmi -a >/dev/null 2>&1
		[ "$VM_MODE" = systemd ] && systemctl stop kubepods.slice 2>/dev/null
		rm -f /var/tmp/pod-*.json /var/tmp/termination-*
		local i
		for ((i = 0; i < 300; i++)); do pidof conmon >/dev/null || break; vm_nap 0.2; done
	else
		rm -rf /run/containers/storage/overlay-containers/*
	fi
	if [ "$VM_MODE" = systemd ]; then
		for t in $(_seq_units); do
			systemctl stop "$t" 2>/dev/null
		done
		systemctl reset-failed 2>/dev/null
	fi
	# the simulated containers' roots and logs (lib-swapguard.sh:
	# /var/tmp/ctr-<id>, /var/log/pods/..., named after the container id,
	# which a later case may reuse) and lib.sh's fake container roots
	rm -rf /var/tmp/ctr-* /tmp/fake-container.* /var/log/pods /var/log/containers
	rm -rf /run/mellanox \
		/run/nvme-swapguard /run/nvme-swapguard-fabrics /var/log/nvme-swapguard /var/lib/nvme-swapguard
	# nothing on a namespace
	findmnt -rn -o TARGET,SOURCE | sort -r | while read -r t src; do
		_seq_on_nvme "$src" && { umount "$t" 2>/dev/null || umount -l "$t"; }
	done
	awk 'NR > 1 { print $1 }' /proc/swaps | while read -r src; do
		_seq_on_nvme "$src" && swapoff "$src"
	done
	command -v vgchange >/dev/null && vgchange -an >/dev/null 2>&1
	command -v dmsetup >/dev/null && dmsetup remove_all >/dev/null 2>&1
	rm -f /run/modprobe.d/nvme-swapguard.conf
	# a case's own daemon configuration (Mode=, Modules=): the next case
	# starts on the shipped defaults, as after a boot
	[ -n "$_seq_conf_at_boot" ] || rm -f "$_seq_conf"
	# the in-tree stack as at boot
	if ! module_loaded nvme || [[ $(module_taint nvme) == *O* ]] || module_loaded mlx_compat; then
		_seq_unload_stack || vm_log "reset: could not unload: $(_seq_stack_modules | tr '\n' ' ')"
		modprobe nvme || vm_log "reset: modprobe nvme failed"
	fi
	local deadline=$((SECONDS + 120))
	while [ "$(nvme_namespaces | wc -l)" -lt "$VM_EXPECT_NS" ] && [ $SECONDS -lt $deadline ]; do vm_nap 0.2; done
	# the reload's uevents handled, as at boot after coldplug: the next
	# case's daemon must not start into them
	[ "$VM_MODE" = systemd ] && udevadm settle --timeout=120
	_seq_propagation_back
	if [ "$VM_MODE" = systemd ]; then
		journalctl --rotate >/dev/null 2>&1
		sleep 1.1
		journalctl --vacuum-time=1s >/dev/null 2>&1
	fi
}

# _seq_check_reset: the reset's own checks; each prints ok/not ok.
_seq_check_reset() {
	local left src t
	if [ "$VM_MODE" = systemd ]; then
		left=
		for t in $(_seq_units); do
			case $(systemctl show -P ActiveState "$t") in inactive) ;; *) left+="$t " ;; esac
		done
		assert_eq "" "$left" "reset: no nvme-swapguard unit and no crio-*.scope left"
		assert_eq 0 "$(journalctl -u nvme-swapguard.service -q --no-pager 2>/dev/null | wc -l)" \
			"reset: the daemon's journal emptied"
	else
		assert_eq "" "$(pidof nvme-swapguard)" "reset: no daemon process left"
	fi
	assert_eq "" "$(ls -A /run/containers/storage/overlay-containers 2>/dev/null)" "reset: no container in the CRI-O store"
	assert_eq "" "$(ls -d /var/tmp/ctr-* /tmp/fake-container.* /var/log/pods 2>/dev/null)" "reset: no container root or log left"
	if _seq_crio_up; then
		assert_eq "" "$("${_seq_crictl[@]}" pods -q 2>&1)" "reset: no pod in CRI-O"
		assert_eq "" "$("${_seq_crictl[@]}" ps -aq 2>&1)" "reset: no container in CRI-O"
		assert_eq "" "$("${_seq_crictl[@]}" images -q 2>&1)" "reset: no image in CRI-O"
		assert_eq "" "$(pidof conmon)" "reset: no conmon left"
	fi
	[ -n "$_seq_conf_at_boot" ] || assert_no_file "$_seq_conf"
	assert_no_file /run/modprobe.d/nvme-swapguard.conf
	assert_no_file /run/mellanox/drivers/.driver-ready
	left=
	while read -r _ src; do _seq_on_nvme "$src" && left+="$src "; done < <(findmnt -rn -o TARGET,SOURCE)
	assert_eq "" "$left" "reset: nothing mounted from NVMe"
	assert_loaded nvme
	assert_not_contains "$(module_taint nvme)" "O" "reset: nvme taint (the in-tree build back)"
	assert_not_loaded mlx_compat
	assert_eq "$VM_EXPECT_NS" "$(nvme_namespaces | wc -l)" "reset: the layout's namespaces present"
	assert_eq "$(awk '$1 == "/" { print $2 }' <<<"$_seq_propagation")" "$(findmnt -no PROPAGATION /)" \
		"reset: the propagation of / as at boot"
	# (not a reset's failure: the cases after it load in-tree modules only)
	[ "$_seq_sig_enforce_at_boot" = "$(_seq_sig_enforce)" ] ||
		vm_log "reset: module signature enforcement is on since this case (only a reboot ends it)"
}

# The mount propagation of every mount at boot: a case may make / shared as
# on a node (lib-swapguard.sh), while another checks this VM's private /.
_seq_propagation=$(findmnt -rn -o TARGET,PROPAGATION)
# The daemon's configuration file: a case may write one (Mode=observe,
# Modules=...); the reset removes it unless the node had one at boot.
_seq_conf=/etc/nvme-swapguard/nvme-swapguard.conf
_seq_conf_at_boot=
[ -e "$_seq_conf" ] && _seq_conf_at_boot=1
# Signature enforcement, once on, stays on until a reboot: a case that turns
# it on must come after every case that loads unsigned modules (said after it).
_seq_sig_enforce() { cat /sys/module/module/parameters/sig_enforce 2>/dev/null; }
_seq_sig_enforce_at_boot=$(_seq_sig_enforce)
_seq_propagation_back() {
	local t p
	while read -r t p; do
		case $p in shared*) mount --make-shared "$t" ;; private*) mount --make-private "$t" ;; esac 2>/dev/null
	done <<<"$_seq_propagation"
}

# _seq_since T: guest seconds since uptime T (where a boot's time goes:
# each case's and each reset's share, in the log).
_seq_uptime() { cut -d' ' -f1 /proc/uptime; }
_seq_since() { awk -v a="$1" -v b="$(_seq_uptime)" 'BEGIN { printf "%.1f", b - a }'; }

_seq_failed=() _seq_skipped=() _seq_passed=() _seq_times=()
n=0
for case_script in "$@"; do
	n=$((n + 1))
	name=$(basename "$case_script" .sh)
	echo "#### sequence: case $n of $#: $name"
	sidfile=$(mktemp)
	t0=$(_seq_uptime)
	setsid -w bash -c 'echo $$ >"$1"; shift; exec bash "$@"' _ "$sidfile" "$case_script"
	rc=$?
	sid=$(cat "$sidfile"); rm -f "$sidfile"
	case $rc in
	0) _seq_passed+=("$name") ;;
	77) _seq_skipped+=("$name") ;;
	*) _seq_failed+=("$name (exit $rc)") ;;
	esac
	echo "#### sequence: $name: exit $rc"
	_seq_times+=("$name $(_seq_since "$t0") s")
	if [ $n -ge $# ]; then
		[ -n "$sid" ] && _seq_kill_session "$sid"
		break
	fi
	echo "#### sequence: reset after $name"
	before=$_vm_failed
	t0=$(_seq_uptime)
	_seq_reset "$sid"
	_seq_check_reset
	_seq_times+=("reset $(_seq_since "$t0") s")
	if [ "$_vm_failed" != "$before" ]; then
		vm_fail "the reset after $name left the node unlike a fresh boot: the rest of the sequence not run (${*:n+1})"
		break
	fi
done
vm_log "sequence: passed: ${_seq_passed[*]:-none}; skipped: ${_seq_skipped[*]:-none}; failed: ${_seq_failed[*]:-none}"
vm_log "sequence: guest time: $(IFS=,; echo "${_seq_times[*]}" | sed 's/,/, /g')"
if [ ${#_seq_failed[@]} -gt 0 ]; then
	vm_fail "cases failed in this boot: ${_seq_failed[*]}"
elif [ ${#_seq_passed[@]} -eq 0 ] && [ ${#_seq_skipped[@]} -gt 0 ]; then
	vm_skip "every case skipped (their reasons above): ${_seq_skipped[*]}"
else
	vm_pass "every case passed or skipped with its reason (${#_seq_passed[@]} passed, ${#_seq_skipped[@]} skipped)"
fi
