# SPDX-License-Identifier: Apache-2.0
# Guest side of vm-reaction.sh: runs inside the tests/vm harness (script
# mode, layout plain, --oot), as root on Debian's 6.1 kernel under TCG.
# Prints one "BENCH<TAB>what<TAB>iteration<TAB>ms" line per measurement.
#
# Each measurement starts from the same state (made, untimed, before it):
#   unloads: the in-tree nvme + nvme_core (+ t10_pi) loaded, nvme0n1 present;
#   loads:   nvme and nvme_core absent, t10_pi loaded (as the guard's unload
#            leaves it), the out-of-tree build in a fake driver container's
#            root, reached as /proc/<pid>/root/lib/modules/<release>.
# Timed (bench-time: fork to exit, CLOCK_MONOTONIC):
#   cli-version       nvme-swapguard-kmod --version (exec + dynamic linking)
#   cli-check         nvme-swapguard-kmod check     (the usage check alone)
#   cli-unload        nvme-swapguard-kmod unload   (removes nvme, nvme_core)
#   floor-modprobe-r  modprobe -r nvme nvme_core   (also t10_pi & its crcs)
#   floor-rmmod       rmmod nvme nvme_core         (exactly the guard's two)
#   cli-load          nvme-swapguard-kmod load --from <container tree>
#   floor-insmod      insmod nvme-core.ko && insmod nvme.ko (same files)
# The daemon (no D-Bus in script mode: it follows the CRI-O store by inotify
# and the pidfile, as it falls back to on a node), from a uevent logger
# (NETLINK_KOBJECT_UEVENT, python, stamps CLOCK_MONOTONIC on receipt):
#   daemon-unload     pidfile renamed into place (the container-start event)
#                     -> the kernel's remove uevent of the last stack module
#   daemon-load       ready file created -> the add uevent of nvme
# Arguments: ITERATIONS (5) DAEMON_ITERATIONS (3) [strace]
# [compare=COMPARE_BUILD,LABEL,COMPARE_LABEL] (the harness joins the
# arguments with spaces and the guest's shell splits them again: an empty
# one is lost, so the optional ones are words).
# With COMPARE_BUILD (another build dir, reached at its host path through
# the 9p root): every cli-* and daemon-* measurement is taken for both
# builds' binaries, one after the other, the first alternating from one
# iteration to the next, and labelled "@LABEL" (this build) or
# "@COMPARE_LABEL"; each daemon iteration then also times the three floors
# once, so that they share the daemons' moments too (n = ITERATIONS +
# DAEMON_ITERATIONS).
# shellcheck source=../tests/vm/lib.sh
. "$VM_LIB"

timer=$VM_BUILD_ROOT/bench/bench-time
daemon=$VM_BUILD_ROOT/daemon/nvme-swapguard
iterations=${1:-5}
daemon_iterations=${2:-3}
# 3rd argument "strace": one more daemon iteration, not timed, under
# `strace -f -c`: where the daemon's syscalls go between the events and the
# module calls (what remained of the daemon's own work on the swap's
# critical path once it was close to the floor). Printed as "# strace:" lines.
trace=''
compare='' label_a='' label_b=''
for a in "${@:3}"; do
	case $a in
	strace) trace=strace ;;
	compare=*) IFS=, read -r compare label_a label_b <<<"${a#compare=}" ;;
	*) vm_fatal "unknown argument $a" ;;
	esac
done
[ -x "$timer" ] || vm_skip "no $timer (meson compile first)"
if [ -n "$compare" ]; then
	for f in "$compare/daemon/nvme-swapguard" "$compare/kmod-helper/nvme-swapguard-kmod"; do
		[ -x "$f" ] || vm_fatal "no $f"
	done
	[ -n "$label_a" ] && [ -n "$label_b" ] && [ "$label_a" != "$label_b" ] || vm_fatal "two different labels needed"
	vm_log "compare: @$label_a $VM_BUILD_ROOT (daemon md5 $(md5sum <"$daemon" | cut -c1-12))"
	vm_log "compare: @$label_b $compare (daemon md5 $(md5sum <"$compare/daemon/nvme-swapguard" | cut -c1-12))"
fi
# builds ITERATION: the builds to measure in this iteration, in order, as
# "SUFFIX=BUILD_DIR" (one, with no suffix, without a compare build)
builds() {
	if [ -z "$compare" ]; then
		echo "=$VM_BUILD_ROOT"
	elif [ $(($1 % 2)) = 1 ]; then
		printf '%s\n' "@$label_a=$VM_BUILD_ROOT" "@$label_b=$compare"
	else
		printf '%s\n' "@$label_b=$compare" "@$label_a=$VM_BUILD_ROOT"
	fi
}
[ -n "${VM_OOT_ROOT:-}" ] || vm_skip "needs run-vm.sh --oot"
dev=$(plain_namespace) || vm_fatal "no plain namespace"
work=$(mktemp -d /tmp/bench.XXXXXX)

fake_container_start
ctree=/proc/$VM_CONTAINER_PID/root/lib/modules/$VM_KVER
kos=$ctree/extra/mlnx-nvme/host
[ -f "$kos/nvme.ko" ] || vm_fatal "no $kos/nvme.ko"

# The uevent logger, up for the whole run so every measurement shares its cost.
python3 - "$work/uevents" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)  # NETLINK_KOBJECT_UEVENT
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
s.bind((0, 1))  # the kernel's group: no udevd needed
out = open(sys.argv[1], "w")
out.write("listening\n"); out.flush()
while True:
    data = s.recv(1 << 16)
    t = time.monotonic()
    header = data.split(b"\0", 1)[0].decode(errors="replace")  # "remove@/module/nvme"
    out.write("%.6f %s\n" % (t, header))
    out.flush()
PY
logger_pid=$!
for _ in $(seq 1 300); do
	grep -q listening "$work/uevents" 2>/dev/null && break
	kill -0 "$logger_pid" 2>/dev/null || break
	sleep 0.1
done
grep -q listening "$work/uevents" || vm_fatal "uevent logger did not start"

stamp() { python3 -c 'import time; print(f"{time.monotonic():.6f}")'; }

in_tree_loaded() {
	if module_loaded nvme && [ -n "$(module_taint nvme)" ]; then rmmod nvme nvme_core; fi
	rm -f /run/modprobe.d/nvme-swapguard.conf
	module_loaded nvme || modprobe nvme || vm_fatal "modprobe nvme"
	wait_for_block "$dev" 60 || vm_fatal "$dev did not come back"
	sleep 0.5
}
stack_unloaded() {
	module_loaded nvme && rmmod nvme
	module_loaded nvme_core && rmmod nvme_core
	# t10_pi is a module on 6.1; 6.12 has it in the block layer, no module
	if modinfo t10_pi >/dev/null 2>&1; then modprobe t10_pi || vm_fatal "modprobe t10_pi"; fi
	sleep 0.2
}
# timed LABEL ITER COMMAND: one sample; the CLI's exit status must be 0.
timed() {
	local label=$1 iter=$2 line
	shift 2
	line=$("$timer" -n 1 -w 0 "$label=$*") || vm_fatal "$label did not run"
	[ "$(cut -f8 <<<"$line")" = 0 ] || vm_fail "$label exited $(cut -f8 <<<"$line")"
	printf 'BENCH\t%s\t%s\t%s\n' "$label" "$iter" "$(cut -f3 <<<"$line")"
}

# floors_unload ITER, floors_load ITER: the floors of the unload (from the
# in-tree stack) and of the load (from the stack unloaded).
floors_unload() {
	in_tree_loaded
	timed floor-modprobe-r "$1" modprobe -r nvme nvme_core
	in_tree_loaded
	timed floor-rmmod "$1" rmmod nvme nvme_core
}
floors_load() {
	stack_unloaded
	timed floor-insmod "$1" insmod "$kos/nvme-core.ko" "&&" insmod "$kos/nvme.ko"
	wait_for_block "$dev" 60 || vm_fail "$dev not back after insmod"
}
for i in $(seq 1 "$iterations"); do
	for b in $(builds "$i"); do
		helper=${b#*=}/kmod-helper/nvme-swapguard-kmod
		in_tree_loaded
		# Where the CLI's time goes: exec + dynamic linking alone, the usage check alone.
		timed "cli-version${b%%=*}" "$i" "$helper" --version
		timed "cli-check${b%%=*}" "$i" "$helper" check
		timed "cli-unload${b%%=*}" "$i" "$helper" unload
		module_loaded nvme && vm_fail "nvme still loaded after the guard's unload"
	done
	floors_unload "$i"

	for b in $(builds "$i"); do
		helper=${b#*=}/kmod-helper/nvme-swapguard-kmod
		stack_unloaded
		timed "cli-load${b%%=*}" "$i" "$helper" load --from "$ctree"
		[[ $(module_taint nvme) == *O* ]] || vm_fail "the guard did not load the out-of-tree nvme"
		wait_for_block "$dev" 60 || vm_fail "$dev not back after the guard's load"
	done
	floors_load "$i"
done
vm_pass "$iterations iterations of the CLI and the floors"

# One untimed unload under strace: every syscall with its time; printed are
# the removals and every gap of more than 50 ms with the calls around it.
if command -v strace >/dev/null; then
	in_tree_loaded
	strace -f -ttt -o "$work/unload.strace" "$VM_KMOD_HELPER" unload >/dev/null 2>&1
	python3 - "$work/unload.strace" <<'PY' | sed 's/^/# strace: /'
import sys
lines = [l.rstrip("\n") for l in open(sys.argv[1])]
prev_t, prev = None, None
for l in lines:
    parts = l.split(None, 2)
    try:
        t = float(parts[1])
    except (IndexError, ValueError):
        continue
    if "delete_module" in l or "execve" in l or "exit_group" in l or "nanosleep" in l:
        print(f"{t:.3f} {parts[2][:110]}")
    elif prev_t is not None and t - prev_t > 0.05:
        print(f"gap {t - prev_t:.3f}s after: {prev[:100]}")
        print(f"             before: {parts[2][:100]}")
    prev_t, prev = t, parts[2]
opens = {}
for l in lines:
    if "openat(" in l and '"' in l:
        path = l.split('"')[1]
        opens[path] = opens.get(path, 0) + 1
top = sorted(((n, p) for p, n in opens.items() if n > 1), reverse=True)[:6]
reads = sum(1 for l in lines if " read(" in l)
print(f"{len(lines)} syscalls, {reads} read(); opened more than once: " + ", ".join(f"{p} x{n}" for n, p in top))
PY
fi

# --- the daemon ---------------------------------------------------------------
# The daemon's state from its state file, without forking (TCG makes every
# fork expensive, and this polls).
read_state() {
	local s=
	STATE=
	[ -r /run/nvme-swapguard/state.json ] && read -r -d '' s </run/nvme-swapguard/state.json
	[[ $s =~ \"state\":\ *\"([a-z-]+)\" ]] && STATE=${BASH_REMATCH[1]}
	return 0
}
wait_state() {
	local deadline=$((SECONDS + 120))
	while [ $SECONDS -lt $deadline ]; do
		read_state
		[ "$STATE" = "$1" ] && return 0
		sleep 0.1
	done
	vm_fail "daemon state '$STATE', expected $1"
	tail -20 "$work/daemon.log" | sed 's/^/# daemon: /'
	return 1
}
# last_uevent AFTER ACTION MODULE...: the time of the last ACTION uevent of
# any of the modules, after AFTER.
last_uevent() {
	local after=$1 action=$2
	shift 2
	local re
	re=$(printf '%s|' "$@")
	awk -v after="$after" -v action="$action" -v re="^(${re%|})\$" '
		$1 > after { split($2, a, "@/module/"); if (a[1] == action && a[2] ~ re) t = $1 }
		END { if (t) print t }' "$work/uevents"
}
# timeline LABEL FROM TO ACTION: the daemon's log lines and the module
# uevents of ACTION between FROM and TO (+ a little), in ms after FROM.
timeline() {
	local label=$1 from=$2 to=$3 action=$4
	{
		awk -v a="$from" -v b="$to" '$1 >= a && $1 <= b + 0.05 { $2 = ""; print }' "$work/daemon.log"
		awk -v a="$from" -v b="$to" -v act="$action" '$1 >= a && $1 <= b + 0.05 && $2 ~ "^" act "@/module/" { print $1, "uevent", $2 }' "$work/uevents"
	} | sort -n | awk -v a="$from" -v l="$label" '{ t = $1; $1 = ""; printf "# timeline %s: +%8.1f ms %s\n", l, (t - a) * 1e3, substr($0, 1, 160) }'
}
# strace_iteration [SUFFIX DAEMON HELPER]: the same unload and load, not
# timed, under strace -f -c (this build's daemon and CLI, else DAEMON and
# HELPER, their lines marked with SUFFIX).
strace_iteration() {
	local sfx=${1:-} daemon=${2:-$daemon} helper=${3:-$VM_KMOD_HELPER}
	command -v strace >/dev/null || { vm_log "no strace: no syscall summary"; return; }
	in_tree_loaded
	rm -rf /run/nvme-swapguard /run/mellanox "${ud%/userdata}"
	mkdir -p /run/containers/storage/overlay-containers
	strace -f -c -o "$work/strace-c.txt" "$daemon" --log-target stderr >>"$work/daemon-strace.log" 2>&1 &
	local spid=$!
	wait_state idle || return
	mkdir -p "$ud"
	cp "$work/config.json" "$ud/config.json"
	sleep 1
	echo "$VM_CONTAINER_PID" >"$ud/.pidfile.tmp" && mv "$ud/.pidfile.tmp" "$ud/pidfile"
	wait_state unloaded-waiting-driver || return
	mkdir -p /run/mellanox/drivers && : >/run/mellanox/drivers/.driver-ready
	wait_state swapped || return
	kill -TERM "$(pgrep -P "$spid" | head -1)"
	wait "$spid"
	head -40 "$work/strace-c.txt" | sed "s/^/# strace: daemon$sfx: /"
	# the CLI's unload, for comparison
	in_tree_loaded
	strace -f -c -o "$work/strace-cli.txt" "$helper" unload >/dev/null 2>&1
	head -30 "$work/strace-cli.txt" | sed "s/^/# strace: cli unload$sfx: /"
	in_tree_loaded
}
# daemon_iteration ITER SUFFIX DAEMON: one swap by DAEMON from a fresh
# start, its two reactions timed as daemon-unload/daemon-load + SUFFIX.
daemon_iteration() {
	local i=$1 sfx=$2 daemon=$3 t0 t1 t2 t3
	vm_log "daemon iteration $i$sfx: in-tree stack"
	in_tree_loaded
	vm_log "daemon iteration $i$sfx: starting the daemon"
	rm -rf /run/nvme-swapguard /run/mellanox "${ud%/userdata}"
	mkdir -p /run/containers/storage/overlay-containers
	# each line stamped on arrival (CLOCK_MONOTONIC, the uevent
	# logger's clock) for the timeline printed after the iteration
	rm -f "$work/log.fifo" && mkfifo "$work/log.fifo"
	python3 -u -c '
import sys, time
for l in sys.stdin:
    print(f"{time.monotonic():.6f} {l}", end="", flush=True)' <"$work/log.fifo" >>"$work/daemon.log" &
	stamper=$!
	"$daemon" --log-target stderr >"$work/log.fifo" 2>&1 &
	dpid=$!
	wait_state idle || return 1
	mkdir -p "$ud"
	cat >"$ud/config.json" <<-JSON
	{"ociVersion":"1.0.2-dev","process":{"args":["/root/entrypoint.sh"]},
	 "annotations":{"io.container.manager":"cri-o","io.kubernetes.container.name":"mofed-container",
	  "io.kubernetes.pod.name":"mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p",
	  "io.kubernetes.pod.namespace":"nvidia-network-operator",
	  "io.kubernetes.pod.uid":"0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69"}}
	JSON
	cp "$ud/config.json" "$work/config.json"
	sleep 1 # config.json read and matched: the pidfile is the start event
	echo "$VM_CONTAINER_PID" >"$ud/.pidfile.tmp"
	t0=$(python3 -c 'import os, sys, time; t = time.monotonic(); os.rename(sys.argv[1], sys.argv[2]); print(f"{t:.6f}")' \
		"$ud/.pidfile.tmp" "$ud/pidfile")
	wait_state unloaded-waiting-driver || return 1
	t1=$(last_uevent "$t0" remove nvme nvme_core)
	[ -n "$t1" ] || { vm_fail "no remove uevent after the container start"; return 1; }
	printf 'BENCH\t%s\t%s\t%s\n' "daemon-unload$sfx" "$i" "$(python3 -c "print(f'{($t1 - $t0) * 1e3:.3f}')")"
	timeline "$i unload$sfx" "$t0" "$t1" remove

	mkdir -p /run/mellanox/drivers
	t2=$(python3 -c 'import os, sys, time; t = time.monotonic(); os.close(os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o644)); print(f"{t:.6f}")' \
		/run/mellanox/drivers/.driver-ready)
	wait_state swapped || return 1
	t3=$(last_uevent "$t2" add nvme)
	[ -n "$t3" ] || { vm_fail "no add uevent of nvme after the ready file"; return 1; }
	printf 'BENCH\t%s\t%s\t%s\n' "daemon-load$sfx" "$i" "$(python3 -c "print(f'{($t3 - $t2) * 1e3:.3f}')")"
	timeline "$i load$sfx" "$t2" "$t3" add
	[[ $(module_taint nvme) == *O* ]] || vm_fail "the daemon did not load the out-of-tree nvme"
	wait_for_block "$dev" 60 || vm_fail "$dev not back after the daemon's load"
	kill -TERM "$dpid"
	wait "$dpid" "$stamper"
}
id=$(echo mofed-container | sha256sum | cut -c1-64)
ud=/run/containers/storage/overlay-containers/$id/userdata
# CRI-O runs a container in crio-<id>.scope and the daemon checks that the
# pidfile's pid is in it; script mode has no systemd, so place it by hand.
in_crio_scope() {
	local cg=/sys/fs/cgroup/kubepods.slice/crio-$id.scope
	[ -e /sys/fs/cgroup/cgroup.procs ] || mount -t cgroup2 cgroup2 /sys/fs/cgroup || return 1
	mkdir -p "$cg" && echo "$VM_CONTAINER_PID" >"$cg/cgroup.procs"
}
if [ -x "$daemon" ] && ! in_crio_scope; then
	vm_fail "cannot put the container in a crio-<id>.scope cgroup: daemon not measured"
elif [ -x "$daemon" ]; then
	vm_log "container cgroup: $(cat /proc/$VM_CONTAINER_PID/cgroup)"
	for i in $(seq 1 "$daemon_iterations"); do
		failed=0
		for b in $(builds "$i"); do
			daemon_iteration "$i" "${b%%=*}" "${b#*=}/daemon/nvme-swapguard" || { failed=1; break; }
		done
		[ "$failed" = 0 ] || break
		if [ -n "$compare" ]; then
			floors_unload "$i"
			floors_load "$i"
		fi
	done
	vm_pass "$daemon_iterations daemon iterations"
	if [ "$trace" = strace ] && [ -z "$compare" ]; then
		strace_iteration
	elif [ "$trace" = strace ]; then
		strace_iteration "@$label_a" "$daemon" "$VM_KMOD_HELPER"
		strace_iteration "@$label_b" "$compare/daemon/nvme-swapguard" "$compare/kmod-helper/nvme-swapguard-kmod"
	fi
else
	vm_log "no $daemon: daemon reaction not measured"
fi

kill "$logger_pid" 2>/dev/null
fake_container_stop
in_tree_loaded
vm_pass "in-tree stack back at the end"
