#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The pin, on the real kernel with the shipped unit under systemd,
# after a swap to the NVIDIA-shaped stand-in (layout mixed: a
# native-multipath head and a plain PCIe namespace; --oot: the stand-in and
# the fake driver container of lib-swapguard.sh; one boot for every step).
#
# The pin exists for the multipath head: a mount there pins only nvme_core,
# nvme's refcnt stays 0, and a foreign `rmmod nvme` takes the disk away with
# its unsynced data (FIELD-NOTES section 3). A plain namespace in use pins
# nvme by itself, so wherever a remover is tried in steps 2-5 the head is
# the only thing in use, and the case first shows that nvme's references
# are exactly the pin's: 2 per controller under the head (the controller
# open, tests/kmod-helper/vm/guard-pin-refs.sh), no module in
# /sys/module/nvme/holders, no other process with an NVMe device open, no
# other NVMe mount in any mount namespace, nobody claiming the plain
# namespace. Without the daemon's pin every remover below would succeed.
#  1. the first swap (driver container A): NVIDIA's nvme is live; nothing in
#     use, nvme's refcnt is 0;
#  2. the head mounted with unsynced writes: the always-on watch pins it
#     (journal PINNED, STATUS=, the state file, kmod status), and only the
#     pin holds nvme;
#  3. foreign removers, the head alone in use: `rmmod nvme` and `modprobe -r
#     nvme` fail "in use", delete_module(nvme) answers EAGAIN; the data
#     verifies after dropping caches, no "Buffer I/O error";
#  4. a daemon restart, the head alone in use: the new daemon holds the pin
#     when `systemctl restart` returns (READY=1), its PINNED entry for the
#     head comes before its STARTED entry (logged right before READY=1), and
#     delete_module(nvme) answers EAGAIN again;
#  5. a pod restart (A stops; B is created and started), the head alone in
#     use, new unsynced writes: nvme's refcnt never falls below the pin's
#     while B starts and the guard refuses its swap (EARLIER_BUILD_BLOCKED,
#     state blocked; PIN_BLOCKS_DRIVER says why B cannot restart its
#     drivers); when B's `openibd restart` runs, nvme's references are the
#     pin's alone, so its rule (nvme refcnt 0 -> `modprobe -r nvme`) is
#     defeated by the pin only: "Leaving it loaded", nvme stays (A's build),
#     a `modprobe -r nvme` run anyway fails; B's ready file changes nothing;
#     the data verifies;
#  6. the watch's blind spots, now that the isolated checks are done: the
#     plain namespace mounted only in another mount namespace (no event, no
#     pin; a daemon restart's full check pins it before READY=1), then held
#     by a plain open while the pod restarts again (no event; the next
#     driver container's create, C, runs the full check and pins it before
#     C starts; C is told, its swap refused); the data verifies;
#  7. every use ends: the pin goes within seconds of the host unmount (the
#     first event the watch sees; a stale pin only errs on the safe side),
#     and C's swap proceeds on its own (the daemon was blocked, not done):
#     A's build out, C's in (a new driver container is a new swap).
# Checked by mutation (the pin opening /dev/null instead of /dev/nvmeN):
# step 2 reads refcnt 0, step 3's rmmod succeeds and the data is lost (14
# lines of "Buffer I/O error"); with step 3's removers left out, B's openibd
# takes its refcnt-0 branch in step 5 and removes nvme the same way.
# One boot: 208.4 s and 220.5 s VM wall (138 checks, load 2-6 next to one
# or two other VMs; 295.4 s at load 7), measured on 2026-12-03 with the stand-in;
# run-vm.sh -t 600 in tests/daemon/meson.build leaves room for CI load. In
# one boot of six the plain controller lost its I/O completions during mkfs
# right after the swap (dmesg: "nvme0: I/O ... timeout, aborting", a reset
# every 30 s; QEMU under TCG, before anything of the pin ran) and the VM
# timed out: the emulator, not the case.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
declare -F sg_container_compiled >/dev/null ||
	vm_skip "needs the NVIDIA-shaped stand-in and its fake driver container (lib-swapguard.sh)"

state_field() { /usr/bin/python3 -S -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]) or "")' "$SG_STATE_FILE" "$1"; }

uptime_now() { cut -d' ' -f1 /proc/uptime; }
# journal_since KIND T [FIELD=VALUE...]: "<monotonic s> <MESSAGE>" of each
# KIND entry logged at or after uptime T with those fields; exit 1 if none.
# (The journal's monotonic clock is the guest's uptime: one boot.) Entries
# before T are someone else's: e.g. mkfs's own open of a namespace, pinned
# and released while it ran when a uevent happened to fall in.
journal_since() {
	local kind=$1 t=$2
	shift 2
	journalctl -u "$SG_UNIT" -o json --no-pager -q MESSAGE_ID="$(sg_message_id "$kind")" | /usr/bin/python3 -S -c '
import json, sys
t = float(sys.argv[1])
want = dict(a.split("=", 1) for a in sys.argv[2:])
n = 0
for line in sys.stdin:
    e = json.loads(line)
    at = int(e["__MONOTONIC_TIMESTAMP"]) / 1e6
    if at >= t and all(e.get(k) == v for k, v in want.items()):
        print("%.3f %s" % (at, e.get("MESSAGE")))
        n += 1
sys.exit(0 if n else 1)
' "$t" "$@"
}
# wait_pinned_text T TEXT [SECONDS]: a PINNED entry since T whose message has TEXT.
wait_pinned_text() {
	local deadline=$((SECONDS + ${3:-60}))
	while [ $SECONDS -lt $deadline ]; do
		journal_since PINNED "$1" 2>/dev/null | grep -qF -- "$2" && return 0
		vm_nap 0.5
	done
	return 1
}
pinned_since() { journal_since PINNED "$1" SWAPGUARD_DEVICE="${2#/dev/}" >/dev/null 2>&1; }
# wait_pinned_device T DEV [SECONDS]: journald may file an entry a moment
# after the daemon sent it (the kernel's side is checked without waiting);
# the deadline only catches a hang, on a busy machine that moment is long.
wait_pinned_device() {
	local deadline=$((SECONDS + ${3:-60}))
	until pinned_since "$1" "$2"; do
		[ $SECONDS -lt $deadline ] || return 1
		vm_nap 0.5
	done
}
# pinned_before_started T DEV: the first PINNED entry for DEV since T comes
# before the first STARTED entry since T, in the journal's own order (one
# process, one socket: the order it sent them). The daemon logs STARTED
# right before READY=1 (manager_start). Prints both; exit 1 if not so.
pinned_before_started() {
	journalctl -u "$SG_UNIT" -o json --no-pager -q | /usr/bin/python3 -S -c '
import json, sys
t, dev, pinned, started = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
first = {}
for i, line in enumerate(sys.stdin):
    e = json.loads(line)
    at = int(e["__MONOTONIC_TIMESTAMP"]) / 1e6
    if at < t:
        continue
    seq = int(dict(f.split("=", 1) for f in e["__CURSOR"].split(";")).get("i", "%x" % i), 16)
    if e.get("MESSAGE_ID") == pinned and e.get("SWAPGUARD_DEVICE") == dev:
        first.setdefault("PINNED", (seq, at))
    elif e.get("MESSAGE_ID") == started:
        first.setdefault("STARTED", (seq, at))
print(" ".join("%s seqnum %d at %.3f s" % (k, v[0], v[1]) for k, v in sorted(first.items(), key=lambda x: x[1])))
sys.exit(0 if len(first) == 2 and first["PINNED"][0] < first["STARTED"][0] else 1)
' "$1" "${2#/dev/}" "$(sg_message_id PINNED)" "$(sg_message_id STARTED)"
}

# assert_pinned_again T DEV [WHAT]: a restarted daemon pinned DEV again, and
# before READY=1: a PINNED entry for DEV since T, ahead of STARTED.
assert_pinned_again() {
	local order
	if wait_pinned_device "$1" "$2"; then vm_pass "PINNED entry for $2${3:-} since the restart"
	else vm_fail "no PINNED entry for $2${3:-} since the restart"; fi
	if order=$(pinned_before_started "$1" "$2"); then vm_pass "PINNED before STARTED (READY=1 follows it): $order"
	else vm_fail "PINNED for $2 does not come before STARTED: $order"; fi
}

# --- who holds nvme ----------------------------------------------------------------

# head_controllers HEAD: the controllers under a multipath head, from its
# subsystem (/sys/block/<head>/device is the nvme-subsystem), checked
# against the names of its hidden paths (nvme<subsys>c<ctrl>n<ns>).
head_controllers() {
	local subsys c from_subsys='' from_paths
	subsys=$(readlink -f "/sys/block/${1#/dev/}/device")
	for c in "$subsys"/nvme*; do
		[[ ${c##*/} =~ ^nvme[0-9]+$ ]] && from_subsys+="${c##*/}"$'\n'
	done
	from_subsys=$(printf '%s' "$from_subsys" | sort | tr '\n' ' ')
	from_paths=$(multipath_paths "$1" | sed -E 's/^nvme[0-9]+c([0-9]+)n[0-9]+$/nvme\1/' | sort -u | tr '\n' ' ')
	vm_log "$1: subsystem ${subsys##*/} has controllers ${from_subsys:-none}; hidden paths $(multipath_paths "$1" | tr '\n' ' ')" >&2
	[ -n "$from_subsys" ] && [ "$from_subsys" = "$from_paths" ] || return 1
	echo "$from_subsys"
}
# pin_fds: the controllers (/dev/nvmeN) the daemon holds open: the pin.
pin_fds() {
	find "/proc/$(sg_main_pid)/fd" -maxdepth 1 -lname '/dev/nvme*' -printf '%l\n' 2>/dev/null |
		sed -n 's|^/dev/\(nvme[0-9]*\)$|\1|p' | sort | tr '\n' ' '
}
# other_nvme_opens: every open NVMe device (controller or block) of a
# process other than the daemon, "/proc/<pid>/fd /dev/...".
other_nvme_opens() {
	find /proc/[0-9]*/fd -maxdepth 1 -lname '/dev/nvme*' -printf '%h %l\n' 2>/dev/null |
		awk -v d="/proc/$(sg_main_pid)/fd" '$1 != d' | tr '\n' ' '
}
# nvme_mounts: the NVMe devices mounted in any process's mount namespace.
nvme_mounts() {
	cat /proc/[0-9]*/mountinfo 2>/dev/null |
		awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { print $(i + 2); break } }' |
		grep '^/dev/nvme' | sort -u | tr '\n' ' '
}
# refcnt_settled WANT: nvme's refcnt, read again for up to 10 s while it is
# not WANT (the daemon's own exclusive-open probe of a plain namespace holds
# a reference for a moment, longer on a busy machine).
refcnt_settled() {
	local v deadline=$((SECONDS + 10))
	while :; do
		v=$(module_refcnt nvme)
		[ "$v" = "$1" ] || [ $SECONDS -ge $deadline ] && break
		vm_nap 0.3
	done
	echo "$v"
}
# assert_only_pin_holds_nvme WHEN: nothing but the pin holds nvme, and the
# pin is exactly the head's controllers held open by the daemon.
assert_only_pin_holds_nvme() {
	local want=$pin_head
	assert_eq OK "$(excl_open "$plain")" "$1: exclusive open of $plain (nobody claims it, in any mount namespace)"
	assert_eq "$head " "$(nvme_mounts)" "$1: NVMe devices mounted, in any mount namespace"
	assert_eq "" "$(other_nvme_opens)" "$1: NVMe devices open by any process but the daemon"
	assert_eq "$head_ctrls" "$(pin_fds)" "$1: controllers the daemon holds open"
	assert_eq "" "$(module_holders nvme)" "$1: /sys/module/nvme/holders"
	assert_eq "$want" "$(refcnt_settled "$want")" \
		"$1: /sys/module/nvme/refcnt (the pin's alone: 2 x $(wc -w <<<"$head_ctrls") controllers under $head)"
	vm_log "$1: nvme refcnt $(module_refcnt nvme), nvme_core refcnt $(module_refcnt nvme_core) (holders: $(module_holders nvme_core))"
}

# --- the data ---------------------------------------------------------------------

# check_data FILE...: synced, read back from the disks, no I/O error logged.
check_data() {
	local f
	for f in "$@"; do assert_ok sync -f "$f"; done
	drop_caches
	for f in "$@"; do assert_ok verify_written "$f"; done
	if dmesg_since_mark | grep -q "Buffer I/O error"; then
		vm_fail "Buffer I/O error in the kernel log: $(dmesg_since_mark | grep -c 'Buffer I/O error') lines"
	else vm_pass "no Buffer I/O error in the kernel log"; fi
}
# nvme_still_there WHAT: nvme and the head survived a remover; if not, the
# data is gone (shown), and the rest of the case has nothing to test.
nvme_still_there() {
	if module_loaded nvme && [ -e "/sys/block/${head#/dev/}" ]; then
		vm_pass "$1: nvme loaded (refcnt $(module_refcnt nvme)), $head present"
		return 0
	fi
	vm_fail "$1: nvme $(module_loaded nvme && echo loaded || echo REMOVED), $head $([ -e "/sys/block/${head#/dev/}" ] && echo present || echo GONE)"
	check_data "${payloads[@]}"
	vm_fatal "nvme was removed under the mounted head: the pin did not hold"
}
# remover_fails CMD...: a foreign remover fails because nvme is in use.
remover_fails() {
	local out rc
	out=$("$@" 2>&1); rc=$?
	vm_log "$* -> $rc: $out"
	assert_ne 0 "$rc" "$* exit status"
	assert_contains "$out" "in use" "$* says"
	nvme_still_there "after $*"
}

# --- a sampler of nvme's refcnt -------------------------------------------------

# refcnt_watch_start BELOW / refcnt_watch_stop: "<lowest> <samples below
# BELOW> <samples>" of nvme's refcnt in between, sampled as fast as bash
# builtins can (no fork per sample): a pin let go for a moment shows here,
# as a driver container's openibd starting at that moment would see it.
refcnt_watch_start() {
	rm -f /tmp/refcnt-watch.stop /tmp/refcnt-watch.out
	(
		min=999999 low=0 n=0
		while [ ! -e /tmp/refcnt-watch.stop ]; do
			read -r v 2>/dev/null </sys/module/nvme/refcnt || v=-1
			[ "$v" -lt "$min" ] && min=$v
			[ "$v" -lt "$1" ] && low=$((low + 1))
			n=$((n + 1))
		done
		echo "$min $low $n" >/tmp/refcnt-watch.out
	) &
	refcnt_watcher=$!
}
refcnt_watch_stop() {
	touch /tmp/refcnt-watch.stop
	wait "$refcnt_watcher" 2>/dev/null
	refcnt_watcher=
	cat /tmp/refcnt-watch.out
}

sg_setup
holders_ns='' holder_open='' refcnt_watcher=''
cleanup_holders() {
	local rc=$?
	[ -n "$refcnt_watcher" ] && touch /tmp/refcnt-watch.stop
	[ -n "$holder_open" ] && kill "$holder_open" 2>/dev/null
	[ -n "$holders_ns" ] && kill "$holders_ns" 2>/dev/null
	wait 2>/dev/null
	# lib.sh's verdict (every check counted), which this trap replaces
	(exit "$rc")
	_vm_summary
}
trap cleanup_holders EXIT
payloads=()

# --- 1. the first swap ----------------------------------------------------------
sg_step "1. The first swap (driver container A)"
vm_log "char major of nvme before the swap: $(awk '$2 == "nvme" { print $1 }' /proc/devices)"
sg_container_new mofed-container nvidia-network-operator
sg_container_start
a_cid=$SG_CID
sg_wait_state unloaded-waiting-driver
sg_container_compiled
sg_ready
sg_wait_state swapped
sg_assert_oot
vm_log "char major of nvme after the swap: $(awk '$2 == "nvme" { print $1 }' /proc/devices)"
deadline=$((SECONDS + 30))
until head=$(multipath_head) && plain=$(plain_namespace); do
	[ $SECONDS -lt $deadline ] || vm_fatal "the namespaces are not back after the swap"
	vm_nap 0.2
done
head_ctrls=$(head_controllers "$head") || vm_fatal "cannot tell the controllers under $head"
pin_head=$((2 * $(wc -w <<<"$head_ctrls"))) # nvme references of the head's pin
vm_log "after the swap: multipath head $head on controllers $head_ctrls; plain namespace $plain"
assert_no_journal PINNED
hold_writeback
dmesg_mark
for d in "$head" "$plain"; do
	mkfs_ext4 "$d" || vm_fatal "mkfs $d"
done
# mkfs's close makes udev send a change uevent (a watch event): let it pass,
# so that what follows in step 6 really comes with no event.
udevadm settle 2>/dev/null || sleep 2
sleep 1
assert_eq "" "$(module_holders nvme)" "nothing in use: /sys/module/nvme/holders"
assert_eq 0 "$(refcnt_settled 0)" "nothing in use: /sys/module/nvme/refcnt"

# --- 2. the head mounted on the host: the watch pins --------------------------
sg_step "2. The head mounted on the host with unsynced writes: the watch pins"
mkdir -p /mnt/mp /mnt/plain
t_mp=$(uptime_now)
mount_fs "$head" /mnt/mp || vm_fatal "mount $head"
write_unsynced /mnt/mp/payload 2048
payloads+=(/mnt/mp/payload)
if wait_pinned_text "$t_mp" "$head mounted at /mnt/mp"; then
	vm_pass "pinned for $head: $(journal_since PINNED "$t_mp" | grep -F "$head mounted at" | head -n1 | cut -d' ' -f1) s uptime, mounted at $t_mp"
else vm_fail "no PINNED entry for $head"; fi
t_held=$(uptime_now)
assert_journal PINNED SWAPGUARD_DEVICE="${head#/dev/}" SWAPGUARD_MODULE=nvme
assert_contains "$(systemctl show -P StatusText "$SG_UNIT")" "nvme pinned: $head mounted at /mnt/mp (ext4)" "STATUS="
assert_contains "$(cat "$SG_STATE_FILE")" "nvme pinned: $head mounted at /mnt/mp (ext4)" "state file"
assert_contains "$("$VM_KMOD_HELPER" status 2>&1)" "nvme pinned: $head mounted at /mnt/mp (ext4)" "nvme-swapguard-kmod status"
assert_only_pin_holds_nvme "head mounted"

# --- 3. foreign removers, the head alone in use --------------------------------
sg_step "3. Foreign removers while only the multipath head is in use"
dirty=$(dirty_kb)
vm_log "dirty: $dirty KiB"
if [ "$dirty" -ge 1024 ]; then vm_pass "the head's writes are still unsynced ($dirty KiB dirty)"
else vm_fail "only $dirty KiB dirty: the removers would not risk the data"; fi
assert_no_file "$SG_GUARD"
remover_fails rmmod nvme
remover_fails modprobe -r nvme
assert_unload_result nvme EAGAIN
nvme_still_there "after delete_module(nvme)"
sg_assert_oot
check_data "${payloads[@]}"

# --- 4. a daemon restart, the head alone in use ---------------------------------
sg_step "4. A daemon restart with only the head in use: pinned again before READY=1"
t_restart=$(uptime_now)
systemctl restart "$SG_UNIT" || vm_fatal "systemctl restart"
# Type=notify: restart returns after READY=1; the kernel's side, at once
first=$(module_refcnt nvme)
if [ "$first" -ge "$pin_head" ]; then
	vm_pass "nvme refcnt $first when systemctl restart returned: the new daemon held the pin by READY=1"
else vm_fail "nvme refcnt $first when systemctl restart returned: not pinned at READY=1"; fi
assert_pinned_again "$t_restart" "$head"
assert_eq 2 "$(journalctl -u "$SG_UNIT" -o json --no-pager -q | grep -c "$(sg_message_id STARTED)")" "two starts"
assert_eq swapped "$(sg_state)" "state after the restart"
[ "$SG_BUS" = 1 ] && sg_assert_on_bus
assert_only_pin_holds_nvme "after the restart"
assert_unload_result nvme EAGAIN
nvme_still_there "after delete_module(nvme)"

# --- 5. a pod restart, the head alone in use ------------------------------------
sg_step "5. The pod restarts with only the head in use: A stops, B is created and starts"
write_unsynced /mnt/mp/payload-b 2048
payloads+=(/mnt/mp/payload-b)
sg_container_stop
sg_container_remove
# The daemon's own unload attempt at B's start is refused (in use): the pin
# must hold across it, or B's openibd, starting at the same moment (a
# precompiled image runs it at once), could read nvme's refcnt 0.
refcnt_watch_start "$pin_head"
sg_container_new mofed-container nvidia-network-operator
b_cid=$SG_CID
sg_container_start
sg_wait_state blocked
read -r lowest low samples <<<"$(refcnt_watch_stop)"
if [ "${low:-1}" = 0 ] && [ "${lowest:--1}" -ge "$pin_head" ]; then
	vm_pass "nvme refcnt never below the pin's $pin_head while B was created, started and refused (lowest $lowest in $samples samples)"
else vm_fail "nvme refcnt fell to ${lowest:-?} while B was created, started and refused ($low of $samples samples below $pin_head): unpinned under the mounted head"; fi
assert_journal PIN_BLOCKS_DRIVER SWAPGUARD_CONTAINER_ID="$b_cid" SWAPGUARD_MODULE=nvme
msg=$(sg_journal_entries PIN_BLOCKS_DRIVER SWAPGUARD_CONTAINER_ID="$b_cid" | tail -n1)
assert_contains "$msg" "$head mounted at /mnt/mp" "PIN_BLOCKS_DRIVER names the device and mount"
assert_contains "$msg" "openibd restart\` cannot remove nvme" "PIN_BLOCKS_DRIVER says why"
assert_contains "$msg" "unmount or stop using the namespace" "PIN_BLOCKS_DRIVER says what to do"
assert_journal EARLIER_BUILD_BLOCKED SWAPGUARD_CONTAINER_ID="$b_cid"
assert_contains "$(sg_journal_entries EARLIER_BUILD_BLOCKED SWAPGUARD_CONTAINER_ID="$b_cid" | tail -n1)" \
	"mounted on /mnt/mp" "the guard's reason"
sg_assert_oot

sg_step "5b. B's openibd restart, nvme held by the pin alone"
assert_file /sys/module/mlx_compat/holders/nvme   # openibd's test before its refcnt rule
assert_only_pin_holds_nvme "as B's openibd restart runs"
sg_container_compiled
vm_log "B's log: $(tr '\n' '|' <"$SG_CLOG" | tail -c 600)"
assert_contains "$(cat "$SG_CLOG")" "mlx_compat is used by NVME. Leaving it loaded" "B's openibd (nvme's refcnt is the pin's)"
assert_not_contains "$(cat "$SG_CLOG")" "unloading nvme" "B's openibd"
nvme_still_there "after B's openibd restart"
sg_assert_oot
remover_fails modprobe -r nvme   # as openibd's refcnt-0 branch would
sg_ready
sleep 3
assert_eq blocked "$(sg_state)" "state after B's ready file, while in use"
assert_eq "$a_cid" "$(state_field build_container)" "the build is still A's"
sg_assert_oot
check_data "${payloads[@]}"

# --- 6. the watch's blind spots ---------------------------------------------------
sg_step "6. The plain namespace mounted only in another mount namespace (no event)"
# slave: the host's unmounts reach it (as a pod's), its own mounts stay in it
unshare --mount --propagation slave sleep 100000 &
holders_ns=$!
for ((i = 0; i < 100; i++)); do
	[ "$(readlink "/proc/$holders_ns/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] &&
		[ "$(cat "/proc/$holders_ns/comm" 2>/dev/null)" = sleep ] && break
	vm_nap 0.05
done
t_ns=$(uptime_now)
nsenter -t "$holders_ns" -m -- mount "$plain" /mnt/plain || vm_fatal "mount $plain in another mount namespace"
ns_payload=/proc/$holders_ns/root/mnt/plain/payload
write_unsynced "$ns_payload" 2048
payloads+=("$ns_payload")
assert_not_contains "$(cat /proc/1/mountinfo)" "/mnt/plain" "the host's mount table (the mount is another namespace's)"
sleep 3
if pinned_since "$t_ns" "$plain"; then vm_fail "pinned for $plain without an event: update docs/ARCHITECTURE.md (the watch's blind spots)"
else vm_pass "no event, no pin yet for $plain (the watch's documented blind spot)"; fi
# the mount's own reference: why steps 2-5 kept the plain namespace unused
assert_eq $((pin_head + 1)) "$(refcnt_settled $((pin_head + 1)))" "nvme refcnt: the head's pin + the plain mount's own reference"

sg_step "6b. A daemon restart runs the full check: $plain pinned before READY=1"
t_restart=$(uptime_now)
systemctl restart "$SG_UNIT" || vm_fatal "systemctl restart"
plain_ctrl=$(basename "$(readlink -f "/sys/block/${plain#/dev/}/device")")
if [[ " $(pin_fds) " == *" $plain_ctrl "* ]]; then vm_pass "the daemon holds /dev/$plain_ctrl ($plain) when systemctl restart returned"
else vm_fail "the daemon does not hold /dev/$plain_ctrl ($plain) when systemctl restart returned: $(pin_fds)"; fi
assert_pinned_again "$t_restart" "$plain" " (another mount namespace)"
assert_eq 3 "$(journalctl -u "$SG_UNIT" -o json --no-pager -q | grep -c "$(sg_message_id STARTED)")" "three starts"
sg_wait_state blocked 30

sg_step "6c. The pod restarts again: B stops; a plain open of $plain (no event); C is created"
sg_container_stop
sg_container_remove
sg_wait_state swapped 30
# a plain open (no O_EXCL, read-only: no close-write uevent), as a backup
# tool or a monitoring agent holds one
t_open=$(uptime_now)
sh -c 'exec sleep 100000' <"$plain" &
holder_open=$!
sleep 2
if journal_since PINNED "$t_open" 2>/dev/null | grep -qF "is open by process $holder_open"; then
	vm_fail "the plain open was pinned before any event (update the docs)"
else vm_pass "no event for the plain open of $plain by $holder_open"; fi
sg_container_new mofed-container nvidia-network-operator
c_cid=$SG_CID
if wait_pinned_text "$t_open" "is open by process $holder_open"; then
	vm_pass "C's create (config.json, no process yet) pinned for the plain open"
else vm_fail "no PINNED entry for the plain open after C's create"; fi
assert_no_file "$SG_UD/pidfile"
assert_no_journal PIN_BLOCKS_DRIVER SWAPGUARD_CONTAINER_ID="$c_cid"
pin_all=$((pin_head + 2 * $(wc -w <<<"$plain_ctrl")))
vm_log "the daemon holds: $(pin_fds)"
assert_eq $((pin_all + 2)) "$(refcnt_settled $((pin_all + 2)))" \
	"nvme refcnt: the pin ($pin_all) + the plain namespace's own mount and open"

sg_step "6d. C starts: told why it cannot restart its drivers; the guard refuses its swap"
sg_container_start
sg_wait_state blocked
assert_journal PIN_BLOCKS_DRIVER SWAPGUARD_CONTAINER_ID="$c_cid" SWAPGUARD_MODULE=nvme
assert_contains "$(sg_journal_entries PIN_BLOCKS_DRIVER SWAPGUARD_CONTAINER_ID="$c_cid" | tail -n1)" \
	"is open by process $holder_open" "PIN_BLOCKS_DRIVER names the plain open"
assert_journal EARLIER_BUILD_BLOCKED SWAPGUARD_CONTAINER_ID="$c_cid"
sg_container_compiled
assert_contains "$(cat "$SG_CLOG")" "mlx_compat is used by NVME. Leaving it loaded" "C's openibd"
nvme_still_there "after C's openibd restart"
sg_ready
sleep 3
assert_eq blocked "$(sg_state)" "state after C's ready file, while in use"
assert_eq "$a_cid" "$(state_field build_container)" "the build is still A's"
check_data "${payloads[@]}"
if out=$(journal_since UNPINNED "$t_held"); then vm_fail "the pin went while in use: $out"
else vm_pass "the pin held from the head's mount until now (no UNPINNED entry)"; fi

# --- 7. every use ends -------------------------------------------------------------
sg_step "7. Every use ends: the pin goes, C's swap proceeds"
kill "$holder_open"; wait "$holder_open" 2>/dev/null; holder_open=
nsenter -t "$holders_ns" -m -- umount /mnt/plain || vm_fatal "umount /mnt/plain in the other namespace"
kill "$holders_ns"; wait "$holders_ns" 2>/dev/null; holders_ns=
t_umount=$(uptime_now)
umount /mnt/mp || vm_fatal "umount /mnt/mp"
# The release must come after the unmount and at all: the deadline only
# catches a pin never released. How soon is a latency, not a verdict: printed
# here, measured in bench/ (docs/BENCHMARKS.md, 3b/3c). The time comes from
# the entry's own monotonic timestamp (same boot clock).
deadline=$((SECONDS + 120))
while [ $SECONDS -lt $deadline ] && ! journal_since UNPINNED "$t_held" >/dev/null 2>&1; do vm_nap 0.5; done
unpinned_at=$(journal_since UNPINNED "$t_held" 2>/dev/null | head -n1 | cut -d' ' -f1)
if [ -z "$unpinned_at" ]; then
	vm_fail "no UNPINNED entry 120 s after the unmount (the pin is never released)"
else
	latency=$(awk -v a="$t_umount" -v b="$unpinned_at" 'BEGIN { printf "%.1f", b - a }')
	if awk -v l="$latency" 'BEGIN { exit !(l < 0) }'; then vm_fail "pin released ${latency} s before the host unmount (still in use)"
	else vm_pass "pin released after the host unmount (${latency} s after it, measured)"; fi
fi
assert_not_contains "$(systemctl show -P StatusText "$SG_UNIT")" "pinned" "STATUS= after the unmount"
sg_wait_state swapped 90
sg_assert_oot
assert_eq "$c_cid" "$(state_field build_container)" "the state file names C's build"
# (instance numbers may change with the reload: look them up again)
deadline=$((SECONDS + 30))
until multipath_head >/dev/null && plain_namespace >/dev/null; do
	[ $SECONDS -lt $deadline ] || break
	vm_nap 0.2
done
if multipath_head >/dev/null && plain_namespace >/dev/null; then
	vm_pass "both namespaces back after C's swap: $(multipath_head) (multipath head), $(plain_namespace)"
else vm_fail "the namespaces are not back after C's swap: $(nvme_namespaces | tr '\n' ' ')"; fi
if dmesg_since_mark | grep -q "Buffer I/O error"; then vm_fail "Buffer I/O error in the kernel log at the end"
else vm_pass "no Buffer I/O error in the kernel log at the end"; fi
sg_show_journal
sg_stop
sg_container_stop
