# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Test library for guest scripts run by run-vm.sh.  Source it first:
#
#   . "$VM_LIB"
#
# It sets `set -u -o pipefail`, prints one line per check and, on exit, a
# summary:  PASS (exit 0), FAIL (exit 1: any failed check, or the script
# died), SKIP (exit 77, only through vm_skip "reason").
#
# Environment (from guest-run.sh): VM_LAYOUT, VM_MODE, VM_BUILD_ROOT,
# VM_KMOD_HELPER (the project CLI), VM_OOT_ROOT (fake driver-container root,
# with --oot), VM_OOT_SHAPE (link | own: whether that build links the
# kernel's nvme_auth/nvme_keyring or ships its own), with --oot-both
# VM_OOT_ROOT_LINK, VM_OOT_ROOT_OWN (each shape's root) and VM_OOT_SHAPES
# (the shapes this kernel has), VM_HARNESS, VM_KVER,
# VM_RESULTS (host-visible directory).

set -u -o pipefail

_vm_checks=0
_vm_failed=0
_vm_skipped=
# Python in the guest runs with -S (no site module: every guest script
# imports the standard library only). site reads the host's dist-packages
# .pth files over 9p and imports about 80 modules: a quarter of a start
# under the emulated CPU (0.60 s against 0.44 s per `python3 -c 'import
# json, sys'` in a script-mode guest), and the cases start python a few
# hundred times.
_vm_probe="/usr/bin/python3 -S $VM_HARNESS/sysprobe.py"

_vm_summary() {
	local rc=$?
	trap - EXIT
	if [ -n "$_vm_skipped" ]; then
		echo "SKIP: $_vm_skipped"
		exit 77
	fi
	if [ "$rc" != 0 ] && [ "$_vm_failed" = 0 ]; then
		echo "not ok - test script exited $rc before finishing"
		_vm_failed=1
	fi
	if [ "$_vm_failed" != 0 ]; then
		echo "FAIL: $_vm_failed of $_vm_checks checks failed"
		exit 1
	fi
	if [ "$_vm_checks" = 0 ]; then
		echo "FAIL: no checks ran"
		exit 1
	fi
	echo "PASS: $_vm_checks checks"
	exit 0
}
trap _vm_summary EXIT

# --- reporting -----------------------------------------------------------

vm_log() { echo "# $*"; }
vm_pass() { _vm_checks=$((_vm_checks + 1)); echo "ok - $*"; }
vm_fail() { _vm_checks=$((_vm_checks + 1)); _vm_failed=$((_vm_failed + 1)); echo "not ok - $*"; }
# vm_fatal MSG: a failed check after which the test cannot go on.
vm_fatal() { vm_fail "$*"; exit 1; }
# vm_skip REASON: the test cannot run here; says why and exits 77.
vm_skip() { _vm_skipped="$*"; exit 77; }

# --- waiting -------------------------------------------------------------

# vm_nap SECONDS: a pause inside the shell, for polls. Under TCG `sleep 0.1`
# costs ~94 ms of emulated CPU (a process start: tests/vm/README.md, "Where
# a case's time goes"), as much as the time it waits, and the guest has one
# CPU: a poll with it takes half of what the awaited daemon, CRI-O or
# kernel would get. read -t on a pipe that nobody writes waits without a
# process. A process that must exist (a holder, `sleep 600 &`) stays a
# sleep; so does a pause whose length the case states (a settle).
# The pipe is opened here, when the library is sourced: a process
# substitution sets $!, which a case reads after its own `cmd &`.
exec {_vm_nap_fd}<> <(:)
vm_nap() { read -r -t "$1" -u "$_vm_nap_fd" _ || :; }

# --- generic assertions --------------------------------------------------

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
	if [ "$1" = "$2" ]; then vm_pass "${3:-value} is '$2'"
	else vm_fail "${3:-value}: expected '$1', got '$2'"; fi
}
assert_ne() {
	if [ "$1" != "$2" ]; then vm_pass "${3:-value} is not '$1'"
	else vm_fail "${3:-value}: expected anything but '$1'"; fi
}
# assert_contains HAYSTACK NEEDLE [WHAT]
assert_contains() {
	case $1 in
	*"$2"*) vm_pass "${3:-value} contains '$2'" ;;
	*) vm_fail "${3:-value} '$1' does not contain '$2'" ;;
	esac
}
assert_not_contains() {
	case $1 in
	*"$2"*) vm_fail "${3:-value} '$1' contains '$2'" ;;
	*) vm_pass "${3:-value} does not contain '$2'" ;;
	esac
}
# assert_ok CMD...: the command succeeds (its output is shown).
assert_ok() {
	local out rc
	out=$("$@" 2>&1); rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/#   /'
	if [ $rc = 0 ]; then vm_pass "$*"; else vm_fail "$* (exit $rc)"; fi
	return $rc
}
# assert_fails CMD...: the command fails.
assert_fails() {
	local out rc
	out=$("$@" 2>&1); rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/#   /'
	if [ $rc != 0 ]; then vm_pass "$* fails (exit $rc)"; else vm_fail "$* succeeded, expected failure"; fi
	[ $rc != 0 ]
}
assert_file() { if [ -e "$1" ]; then vm_pass "$1 exists"; else vm_fail "$1 missing"; fi; }
assert_no_file() { if [ ! -e "$1" ]; then vm_pass "$1 absent"; else vm_fail "$1 exists"; fi; }

# --- modules ----------------------------------------------------------------

# module_loaded MOD: the module is live ("nvme-core" and "nvme_core" both work).
module_loaded() { grep -q "^${1//-/_} " /proc/modules; }
module_refcnt() { cat "/sys/module/${1//-/_}/refcnt" 2>/dev/null || echo -; }
module_taint() { cat "/sys/module/${1//-/_}/taint" 2>/dev/null; }
module_holders() { ls "/sys/module/${1//-/_}/holders" 2>/dev/null | tr '\n' ' '; }
assert_loaded() {
	if module_loaded "$1"; then vm_pass "module $1 loaded (refcnt $(module_refcnt "$1"))"
	else vm_fail "module $1 not loaded"; fi
}
assert_not_loaded() {
	if module_loaded "$1"; then vm_fail "module $1 loaded (refcnt $(module_refcnt "$1"), holders: $(module_holders "$1"))"
	else vm_pass "module $1 not loaded"; fi
}
# delete_module MOD: the raw syscall (O_NONBLOCK, never forced); prints OK or
# the errno name.  Unlike kmod's rmmod it always asks the kernel.
delete_module() { $_vm_probe delete-module "${1//-/_}"; }
# rmmod_settled MOD [SECONDS]: rmmod MOD as a person or a script would,
# once nothing holds it: right after a swap, udev's probes of the new block
# devices and the daemon's own look at the namespaces each open a device
# for a moment, which holds the transport module (nvme_ns_open() and
# nvme_dev_open() take a reference on it), and rmmod says "in use". Waits
# for udev's queue, then tries again while the module is only busy, until
# the deadline (a module held for good fails the check).
rmmod_settled() {
	local mod=$1 deadline=$((SECONDS + ${2:-30})) out
	udevadm settle 2>/dev/null
	while :; do
		out=$(rmmod "$mod" 2>&1) && { vm_pass "rmmod $mod"; return 0; }
		case $out in *"in use"*) ;; *) break ;; esac
		[ $SECONDS -lt $deadline ] || break
		vm_nap 0.2
	done
	vm_fail "rmmod $mod: $out (refcnt $(module_refcnt "$mod"), holders: $(module_holders "$mod"))"
	return 1
}
# assert_unload_result MOD EXPECTED: delete_module answers EXPECTED (OK|EAGAIN|...).
assert_unload_result() {
	local r
	r=$(delete_module "$1")
	assert_eq "$2" "$r" "delete_module($1)"
}
# --- the kernel under test: expectations come from its own graph ----------
# Debian's 6.1 and 6.12 (and RHEL 9) differ: 6.12 compresses its modules
# (.ko.xz), builds t10_pi and the crc helpers in, and has nvme_core depend
# on drivers/nvme/common's nvme_auth.  A case asks these instead of naming
# 6.1's modules.

# kmod_name FILE|NAME: the kernel's spelling (nvme-core.ko.xz -> nvme_core).
kmod_name() { local n=${1##*/}; n=${n%%.ko*}; echo "${n//-/_}"; }
# kernel_module_file MOD: MOD's file in the kernel's tree (maybe .ko.xz);
# fails when MOD is built in or not there at all.
kernel_module_file() {
	local f
	f=$(modinfo -k "$VM_KVER" -n "${1//-/_}" 2>/dev/null) || return 1
	case $f in /*) echo "$f" ;; *) return 1 ;; esac
}
# kernel_is_module MOD: a loadable module of this kernel (t10_pi: yes on
# 6.1, no on 6.12 where the block layer has it built in).
kernel_is_module() { kernel_module_file "$1" >/dev/null; }
# kernel_deps MOD: the modules MOD needs, as the kernel's modules.dep lists
# them (all of them, transitively; built-ins and softdeps are not there).
kernel_deps() {
	local f rel
	f=$(kernel_module_file "$1") || return 0
	rel=${f#/lib/modules/"$VM_KVER"/}
	awk -v m="$rel:" '$1 == m { for (i = 2; i <= NF; i++) print $i }' \
		"/lib/modules/$VM_KVER/modules.dep" | while read -r d; do kmod_name "$d"; done
}
# kernel_nvme_host_modules: the modules of the kernel's drivers/nvme/host
# (the stack whose build must be one: the kernel's or NVIDIA's).
kernel_nvme_host_modules() {
	sed -n 's|^kernel/drivers/nvme/host/\([^:]*\):.*$|\1|p' "/lib/modules/$VM_KVER/modules.dep" |
		while read -r f; do kmod_name "$f"; done | sort
}
# kernel_shared_deps MOD: what MOD needs outside drivers/nvme/host, as
# modules (nvme_core: t10_pi and crc helpers on 6.1, nvme_auth on 6.12):
# the modules the stack shares with others.
kernel_shared_deps() {
	local d host
	host=$(kernel_nvme_host_modules)
	for d in $(kernel_deps "$1"); do
		printf '%s\n' "$host" | grep -qx "$d" || echo "$d"
	done
}
# loaded_nvme_host_modules: the loaded modules named like the kernel's
# drivers/nvme/host ones (whichever build they are), in /proc/modules order.
loaded_nvme_host_modules() {
	local host
	host=$(kernel_nvme_host_modules)
	awk '{ print $1 }' /proc/modules | while read -r m; do
		printf '%s\n' "$host" | grep -qx "$m" && echo "$m"
	done | tr '\n' ' '
}
# loaded_of MOD...: those of MOD... that are loaded, space-separated.
loaded_of() {
	local m
	for m in "$@"; do module_loaded "$m" && printf '%s ' "$m"; done
}
# tree_ships ROOT MOD: the container root's tree has its own build of MOD.
tree_ships() { OOT_TREE_ROOT=$1 oot_ko "$2" >/dev/null; }

# load_oot MOD...: insmod from the fake container root ($VM_OOT_ROOT, or
# $OOT_TREE_ROOT if set, e.g. /proc/<pid>/root), after
# loading, from the HOST tree, the dependencies that the container tree does
# not have (t10_pi & co.): the cross-tree resolution a real loader needs.
# The container tree has NVIDIA's RPM layout: the nvme stack in
# extra/mlnx-nvme/host, with --oot-shape own also extra/mlnx-nvme/common
# (nvme-auth, nvme-keyring), mlx_compat (which every one of them depends
# on) in extra/mlnx-ofa_kernel/compat.
oot_ko() {
	local f=${1//_/-} t=${OOT_TREE_ROOT:-$VM_OOT_ROOT}/lib/modules/$VM_KVER/extra
	ls "$t/mlnx-nvme/host/$f.ko" 2>/dev/null || ls "$t/mlnx-nvme/common/$f.ko" 2>/dev/null ||
		ls "$t/mlnx-ofa_kernel/compat/$1.ko" 2>/dev/null
}
load_oot() {
	local m ko dep deps
	[ -n "${VM_OOT_ROOT:-}" ] || vm_fatal "load_oot: no VM_OOT_ROOT (run-vm.sh --oot)"
	for m in "$@"; do
		module_loaded "$m" && continue
		ko=$(oot_ko "$m") || { vm_fail "no $m in $VM_OOT_ROOT"; return 1; }
		deps=$(modinfo -F depends "$ko")
		for dep in ${deps//,/ }; do
			if oot_ko "$dep" >/dev/null; then
				load_oot "$dep" || return 1
			else
				modprobe "$dep" || { vm_fail "host-tree dep $dep of $m"; return 1; }
			fi
		done
		insmod "$ko" || { vm_fail "insmod $ko"; return 1; }
	done
}

# fake_container_start: a process whose root is a copy of the driver
# container's filesystem (busybox + $VM_OOT_ROOT/lib/modules), like the
# mofed-container seen from the node: its modules are at
# /proc/$VM_CONTAINER_PID/root/lib/modules/$VM_KVER/extra/mlnx-nvme/host/.
# Sets VM_CONTAINER_PID and VM_CONTAINER_ROOT; fake_container_stop ends it.
fake_container_start() {
	[ -n "${VM_OOT_ROOT:-}" ] || vm_fatal "fake_container_start: no VM_OOT_ROOT (run-vm.sh --oot)"
	VM_CONTAINER_ROOT=$(mktemp -d /tmp/fake-container.XXXXXX)
	mkdir -p "$VM_CONTAINER_ROOT"/{bin,lib/modules,proc,tmp}
	cp /bin/busybox "$VM_CONTAINER_ROOT/bin/busybox"
	cp -a "$VM_OOT_ROOT/lib/modules/$VM_KVER" "$VM_CONTAINER_ROOT/lib/modules/"
	unshare --mount --pid --fork --root="$VM_CONTAINER_ROOT" \
		/bin/busybox sleep 1000000 2>/dev/null &
	VM_CONTAINER_PID=
	local i c
	for ((i = 0; i < 100; i++)); do
		# the sleeping child of unshare (the one inside the new root)
		for c in $(cat /proc/$!/task/$!/children 2>/dev/null); do
			VM_CONTAINER_PID=$c
		done
		[ -n "$VM_CONTAINER_PID" ] && break
		vm_nap 0.05
	done
	_vm_container_unshare=$!
	[ -n "$VM_CONTAINER_PID" ] || vm_fatal "fake container did not start"
	export VM_CONTAINER_PID VM_CONTAINER_ROOT
}
fake_container_stop() {
	[ -n "${_vm_container_unshare:-}" ] || return 0
	# PID 1 of its pid namespace without handlers: only SIGKILL ends it
	# (unshare itself ignores SIGTERM while it waits for it).
	kill -KILL "$VM_CONTAINER_PID" 2>/dev/null
	wait "$_vm_container_unshare" 2>/dev/null
	rm -rf "$VM_CONTAINER_ROOT"
	_vm_container_unshare='' VM_CONTAINER_PID=''
}

# --- block devices, filesystems, data --------------------------------------

# nvme_namespaces: the visible namespace block devices (heads, not hidden paths).
nvme_namespaces() {
	local d
	for d in /sys/block/nvme*; do
		[[ ${d##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] && echo "/dev/${d##*/}"
	done
}
# wait_for_block DEV [SECONDS]: wait until DEV is a block device.
wait_for_block() {
	local i
	for ((i = 0; i < ${2:-30} * 10; i++)); do
		[ -b "$1" ] && return 0
		vm_nap 0.1
	done
	return 1
}
# wait_gone PATH [SECONDS]
wait_gone() {
	local i
	for ((i = 0; i < ${2:-30} * 10; i++)); do
		[ -e "$1" ] || return 0
		vm_nap 0.1
	done
	return 1
}
# multipath_paths DEV: the hidden path devices (nvmeXcYnZ) behind a
# native-multipath head nvmeXnZ (6.1 has no multipath/ link dir yet; the
# names share the subsystem instance X and namespace index Z).
multipath_paths() {
	local n=${1##*/} d
	[[ $n =~ ^nvme([0-9]+)n([0-9]+)$ ]] || return 1
	for d in /sys/block/nvme"${BASH_REMATCH[1]}"c*n"${BASH_REMATCH[2]}"; do
		[ -e "$d" ] && echo "${d##*/}"
	done
}
is_multipath_head() { [ -n "$(multipath_paths "$1")" ]; }
# first_namespace / multipath_head: the device to test on.  Instance numbers
# depend on probe order (the multipath head may be nvme1n1): never hard-code.
first_namespace() { nvme_namespaces | head -n1; }
plain_namespace() {
	local d
	for d in $(nvme_namespaces); do is_multipath_head "$d" || { echo "$d"; return 0; }; done
	return 1
}
multipath_head() {
	local d
	for d in $(nvme_namespaces); do is_multipath_head "$d" && { echo "$d"; return 0; }; done
	return 1
}
mkfs_ext4() { mkfs.ext4 -q -F "$1" >/dev/null; }
mkfs_xfs() { mkfs.xfs -q -f "$1" >/dev/null; }
# mount_fs DEV DIR [OPTS]
mount_fs() { mkdir -p "$2" && mount ${3:+-o "$3"} "$1" "$2"; }

# Dirty data stays dirty: no periodic writeback, no early background flush,
# so "written without sync" really means nothing reached the disk yet.
hold_writeback() {
	echo 0 >/proc/sys/vm/dirty_writeback_centisecs
	echo 360000 >/proc/sys/vm/dirty_expire_centisecs
	echo 90 >/proc/sys/vm/dirty_background_ratio
	echo 95 >/proc/sys/vm/dirty_ratio
}
dirty_kb() { awk '$1 == "Dirty:" { print $2 }' /proc/meminfo; }
# write_unsynced FILE [KiB]: write random data, no sync; remembers its digest
# in FILE's sidecar under /tmp (the overlay, not the disk under test).
write_unsynced() {
	local sum
	mkdir -p /tmp/vm-digests
	head -c "$(( ${2:-1024} * 1024 ))" /dev/urandom >/tmp/vm-digests/data
	cp /tmp/vm-digests/data "$1"
	sum=$(sha256sum </tmp/vm-digests/data | cut -d' ' -f1)
	echo "$sum" >"/tmp/vm-digests/$(echo "$1" | tr / _)"
	rm -f /tmp/vm-digests/data
}
# verify_written FILE: 0 if FILE has the content write_unsynced put there.
verify_written() {
	local want got
	want=$(cat "/tmp/vm-digests/$(echo "$1" | tr / _)" 2>/dev/null) || return 2
	got=$(sha256sum <"$1" 2>/dev/null | cut -d' ' -f1) || return 1
	[ "$want" = "$got" ]
}
# drop_caches: force the next read of a file to come from the device.
drop_caches() { sync -f / 2>/dev/null; echo 3 >/proc/sys/vm/drop_caches; }

# excl_open DEV: OK or the errno name of open(DEV, O_RDONLY|O_EXCL).
excl_open() { $_vm_probe excl-open "$1"; }
# read_dev DEV: OK or the errno name of reading its first 4 KiB.
read_dev() { $_vm_probe read "$1"; }

# dmesg_since_mark: kernel messages logged after the last dmesg_mark.
dmesg_mark() { _vm_dmesg_lines=$(dmesg | wc -l); }
dmesg_since_mark() { dmesg | tail -n +"$(( ${_vm_dmesg_lines:-0} + 1 ))"; }

vm_log "layout=$VM_LAYOUT mode=$VM_MODE kernel=$(uname -r) script=${0##*/}"
