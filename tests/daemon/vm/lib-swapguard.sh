# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Shared by the daemon's real-kernel cases (tests/daemon/vm/daemon-*.sh), run
# in the guest by tests/vm/run-vm.sh -m systemd --oot. Source it after
# "$VM_LIB":
#
#   . "$VM_LIB"
#   . "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
#
# What it provides:
#  - sg_install_unit / sg_start: the daemon installed as the SHIPPED unit
#    (<build>/systemd/nvme-swapguard.service, unmodified, sandbox included):
#    the binary copied to the unit's ExecStart= path and the catalog next to
#    the system's, both in the guest's writable overlay;
#  - sg_start_dbus: a real system bus (dbus-daemon) so systemd's UnitNew /
#    UnitRemoved reach the daemon's scope watch;
#  - CRI-O simulated as it is seen from the node: sg_container_new writes
#    overlay-containers/<id>/userdata/config.json with the real annotations,
#    sg_container_start runs the container's init chrooted into its own root
#    (busybox + the out-of-tree nvme build under
#    /lib/modules/<release>/extra/mlnx-nvme/host) in crio-<id>.scope and
#    writes the pidfile; the init "compiles" until sg_container_compiled;
#  - waits and journal assertions on the daemon's structured fields.
#
# DEMO=1 narrates the steps for a newcomer (tests/demo.sh).

SG_UNIT=nvme-swapguard.service
SG_STORE=/run/containers/storage/overlay-containers
SG_READY=/run/mellanox/drivers/.driver-ready
SG_STATE_FILE=/run/nvme-swapguard/state.json
SG_GUARD=/run/modprobe.d/nvme-swapguard.conf
SG_SRC=$(cd "${BASH_SOURCE[0]%/*}/../../.." && pwd)
SG_BUILT_DAEMON=$VM_BUILD_ROOT/daemon/nvme-swapguard
SG_BUILT_UNIT=$VM_BUILD_ROOT/systemd/nvme-swapguard.service
SG_POD=mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p

# MESSAGE_IDs, read from daemon/message-ids.h (never copied by hand).
sg_message_id() {
	sed -n "s/^#define SWAPGUARD_MESSAGE_$1 *\"\([0-9a-f]*\)\"/\1/p" "$SG_SRC/daemon/message-ids.h"
}

# sg_step TEXT: a step of the story; stands out in DEMO=1 mode.
sg_step() {
	if [ "${DEMO:-0}" = 1 ]; then
		printf '\n==> %s\n' "$*"
	else
		vm_log "$*"
	fi
}

sg_require() {
	[ -x "$SG_BUILT_DAEMON" ] || vm_skip "no $SG_BUILT_DAEMON (build first)"
	[ -r "$SG_BUILT_UNIT" ] || vm_skip "no $SG_BUILT_UNIT (build first)"
	[ -n "${VM_OOT_ROOT:-}" ] || vm_skip "needs run-vm.sh --oot"
	[ "$(cat /proc/1/comm)" = systemd ] || vm_skip "needs systemd mode (-m systemd)"
	[ -x /bin/busybox ] || vm_skip "no static /bin/busybox for the container root"
	[ -x /usr/bin/python3 ] || vm_skip "no /usr/bin/python3 for the journal checks"
}

# sg_node_like_propagation: / shared, as systemd makes it at boot on a real
# node. This VM's PID 1 leaves the overlay root private ("/ / ... - overlay"
# without "shared:" in /proc/1/mountinfo), and then a service's mount
# namespace (the unit has PrivateMounts=, ProtectSystem=, PrivateTmp=) gets
# private copies of the host's mounts that a host umount never reaches: the
# daemon itself would keep an unmounted namespace mounted, and claimed,
# forever. Must run before the unit starts.
sg_node_like_propagation() {
	vm_log "VM quirk: / is $(findmnt -no PROPAGATION /) (systemd detected container '$(systemd-detect-virt -c 2>&1)'); made shared as on a node"
	mount --make-rshared / || vm_fatal "mount --make-rshared /"
}

# --- the daemon as its shipped unit ------------------------------------------

sg_install_unit() {
	local exec
	[ "$(findmnt -no PROPAGATION /)" = shared ] || sg_node_like_propagation
	exec=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$SG_BUILT_UNIT")
	[ -n "$exec" ] || vm_fatal "no ExecStart= in $SG_BUILT_UNIT"
	install -D -m 0755 "$SG_BUILT_DAEMON" "$exec" || vm_fatal "install $exec"
	install -D -m 0644 "$SG_SRC/daemon/catalog/nvme-swapguard.catalog" \
		/usr/local/lib/systemd/catalog/nvme-swapguard.catalog
	install -D -m 0644 "$SG_BUILT_UNIT" "/run/systemd/system/$SG_UNIT"
	systemctl daemon-reload || vm_fatal "systemctl daemon-reload"
	vm_log "installed the shipped unit (ExecStart=$exec) in /run/systemd/system"
}

sg_main_pid() { systemctl show -P MainPID "$SG_UNIT"; }

# sg_start: start the unit (Type=notify: returns after READY=1).
sg_start() {
	if ! systemctl start "$SG_UNIT"; then
		journalctl -u "$SG_UNIT" --no-pager -q -o cat | tail -n 30 | sed 's/^/#   /'
		vm_fatal "systemctl start $SG_UNIT"
	fi
	vm_pass "$SG_UNIT started (pid $(sg_main_pid), state $(sg_state))"
}

# sg_stop: stop the unit; the reload guard must not outlive the daemon.
sg_stop() {
	systemctl stop "$SG_UNIT"
	assert_no_file "$SG_GUARD"
}

# sg_assert_daemon_sees_kallsyms: /proc/kallsyms in the daemon's sandbox is
# the kernel's (the GDS hooks, nvme_*_register_nvfs_dma_ops, are found there):
# a sandbox that hides it makes every build look hook-less, silently.
sg_assert_daemon_sees_kallsyms() {
	local pid host mine dir
	pid=$(sg_main_pid)
	host=$(wc -l </proc/kallsyms)
	mine=$(nsenter -t "$pid" -m -- wc -l /proc/kallsyms 2>&1 | cut -d' ' -f1)
	if [ "$host" -gt 0 ] && [ "$mine" = "$host" ]; then
		vm_pass "the daemon's sandbox shows /proc/kallsyms ($mine lines)"
	else
		vm_fail "the daemon's sandbox shows /proc/kallsyms with '$mine' lines, the kernel has $host"
	fi
	# ... and /proc/sys and /sys stay read-only there (what the unit's
	# ReadOnlyPaths=/proc /sys keeps of ProtectKernelTunables=).
	for dir in /proc/sys /sys; do
		# the options of the mount that holds $dir (the longest prefix)
		assert_eq ro "$(awk -v d="$dir" 'd == $5 || index(d, $5 "/") == 1 || $5 == "/" {
				if (length($5) >= best) { best = length($5); split($6, o, ","); opt = o[1] } }
			END { print opt }' "/proc/$pid/mountinfo")" "$dir in the daemon's sandbox"
	done
}

# --- a real system bus ----------------------------------------------------------

# The VM masks dbus.socket/dbus.service (in /etc, the guest's overlay): unmask
# them and start the bus; PID 1 connects to it as soon as dbus.service runs.
sg_start_dbus() {
	local i
	if [ ! -x /usr/bin/dbus-daemon ]; then
		vm_log "no /usr/bin/dbus-daemon: the daemon runs without a system bus (pidfiles only)"
		return 1
	fi
	rm -f /etc/systemd/system/dbus.socket /etc/systemd/system/dbus.service
	systemctl daemon-reload
	if ! systemctl start dbus.socket dbus.service; then
		vm_log "dbus.service did not start: the daemon runs without a system bus"
		return 1
	fi
	for ((i = 0; i < 100; i++)); do
		busctl --system status org.freedesktop.systemd1 >/dev/null 2>&1 && break
		sleep 0.1
	done
	if busctl --system status org.freedesktop.systemd1 >/dev/null 2>&1; then
		vm_pass "system bus up, systemd on it"
	else
		vm_fail "systemd did not connect to the system bus"
		return 1
	fi
}

# sg_assert_on_bus: the daemon is a peer of the system bus (its scope watch).
sg_assert_on_bus() {
	local pid
	pid=$(sg_main_pid)
	local name rules
	name=$(busctl --system list --no-pager --no-legend --unique 2>/dev/null | awk -v p="$pid" '$2 == p { print $1; exit }')
	if [ -n "$name" ]; then
		vm_pass "the daemon (pid $pid) is connected to the system bus as $name"
	else
		vm_fail "the daemon (pid $pid) is not on the system bus"
		busctl --system list --no-pager 2>&1 | sed 's/^/#   /'
		return
	fi
	# Its match rules, from the bus itself (dbus-daemon's Debug.Stats).
	rules=$(busctl --system --json=short call org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.Debug.Stats GetAllMatchRules 2>&1 |
		/usr/bin/python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin)["data"][0].get(sys.argv[1], [])))' "$name" 2>&1)
	assert_contains "$rules" "member='UnitNew'" "the daemon's match rules"
	assert_contains "$rules" "member='UnitRemoved'" "the daemon's match rules"
	assert_not_contains "$(sg_journal_text)" "Cannot watch crio-*.scope" "daemon journal"
}

# --- state and journal ------------------------------------------------------------

sg_state() { sed -n 's/.*"state": *"\([a-z-]*\)".*/\1/p' "$SG_STATE_FILE" 2>/dev/null; }

# sg_wait_state STATE [SECONDS]: a deadline in seconds, not in iterations
# (each one costs a lot more than 0.1 s on a busy emulated CPU).
sg_wait_state() {
	local deadline=$((SECONDS + ${2:-60}))
	while [ $SECONDS -lt $deadline ]; do
		if [ "$(sg_state)" = "$1" ]; then
			vm_pass "daemon state is $1"
			return 0
		fi
		sleep 0.1
	done
	vm_fail "daemon state is '$(sg_state)', expected $1"
	journalctl -u "$SG_UNIT" --no-pager -q -o cat | tail -n 20 | sed 's/^/#   /'
	return 1
}

sg_journal_text() { journalctl -u "$SG_UNIT" --no-pager -q -o cat; }

# sg_journal_entries KIND [FIELD=VALUE...]: the MESSAGE of every entry with
# the MESSAGE_ID of KIND (STARTED, BLOCKED, ...) and all those fields; exit 1
# when there is none.
sg_journal_entries() {
	local id
	id=$(sg_message_id "$1") || return 2
	shift
	journalctl -u "$SG_UNIT" -o json --no-pager -q | /usr/bin/python3 -c '
import json, sys
want = dict(a.split("=", 1) for a in sys.argv[2:])
found = 0
for line in sys.stdin:
    e = json.loads(line)
    if e.get("MESSAGE_ID") != sys.argv[1]:
        continue
    if all(e.get(k) == v for k, v in want.items()):
        print(e.get("MESSAGE"))
        found += 1
sys.exit(0 if found else 1)
' "$id" "$@"
}

# assert_journal KIND [FIELD=VALUE...]
assert_journal() {
	local out
	if out=$(sg_journal_entries "$@"); then
		vm_pass "journal: $1 entry with ${*:2}"
		printf '%s\n' "$out" | sed 's/^/#   /'
	else
		vm_fail "journal: no $1 entry with ${*:2}"
		journalctl -u "$SG_UNIT" -o verbose --no-pager -q | grep -E 'MESSAGE=|SWAPGUARD_|MESSAGE_ID' | tail -n 40 | sed 's/^/#   /'
	fi
}
# assert_no_journal KIND [FIELD=VALUE...]
assert_no_journal() {
	local out
	if out=$(sg_journal_entries "$@"); then
		vm_fail "journal: unexpected $1 entry: $out"
	else
		vm_pass "journal: no $1 entry"
	fi
}

# --- the driver container, as CRI-O makes it -----------------------------------

# sg_container_new NAME NAMESPACE [POD]: CRI-O's "create": the container's
# root (busybox, its init script and the out-of-tree nvme build) and its
# config.json with the real annotations in the store. Sets SG_CID, SG_CROOT,
# SG_UD (the userdata directory).
sg_container_new() {
	local name=$1 ns=$2 pod=${3:-$SG_POD} a
	SG_CID=$(printf '%s/%s/%s' "$ns" "$pod" "$name" | sha256sum | cut -c1-64)
	SG_CROOT=/var/tmp/ctr-${SG_CID:0:12}
	SG_UD=$SG_STORE/$SG_CID/userdata
	mkdir -p "$SG_CROOT"/{bin,lib/modules,tmp,proc}
	cp /bin/busybox "$SG_CROOT/bin/busybox"
	for a in sh sleep insmod cat touch; do ln -sf busybox "$SG_CROOT/bin/$a"; done
	cp -a "$VM_OOT_ROOT/lib/modules/$VM_KVER" "$SG_CROOT/lib/modules/"
	# The driver container's entrypoint, reduced to what the node sees:
	# compile (until the test says it is done), then, for older images,
	# load its own nvme build (the modules listed in /load-list), then
	# sleep. The ready file is a host path: the test creates it.
	cat >"$SG_CROOT/entrypoint.sh" <<-'EOF'
	while [ ! -e /tmp/compiled ]; do sleep 0.2; done
	if [ -s /load-list ]; then
		for ko in $(cat /load-list); do insmod "$ko" || echo "insmod $ko failed"; done
	fi
	touch /tmp/done
	exec sleep 1000000
	EOF
	mkdir -p "$SG_UD"
	cat >"$SG_UD/config.json.tmp" <<-JSON
	{"ociVersion":"1.0.2-dev","process":{"args":["/bin/sh","/entrypoint.sh"]},
	 "root":{"path":"$SG_CROOT"},
	 "annotations":{"io.container.manager":"cri-o","io.kubernetes.container.name":"$name",
	  "io.kubernetes.pod.name":"$pod",
	  "io.kubernetes.pod.namespace":"$ns",
	  "io.kubernetes.pod.uid":"0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69"},
	 "linux":{"cgroupsPath":"kubepods.slice:crio:$SG_CID"}}
	JSON
	mv "$SG_UD/config.json.tmp" "$SG_UD/config.json"
}

# sg_container_start: the container's init in crio-<id>.scope, chrooted into
# its root; then the pidfile (conmon writes it once the process runs).
# Sets SG_CPID.
sg_container_start() {
	local i
	systemd-run --scope --quiet --unit "crio-$SG_CID.scope" \
		chroot "$SG_CROOT" /bin/sh /entrypoint.sh </dev/null >/dev/null 2>&1 &
	SG_CPID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q "crio-$SG_CID.scope" "/proc/$SG_CPID/cgroup" 2>/dev/null &&
			[ "$(readlink "/proc/$SG_CPID/root")" = "$SG_CROOT" ] && break
		sleep 0.05
	done
	assert_contains "$(cat "/proc/$SG_CPID/cgroup" 2>/dev/null)" "crio-$SG_CID.scope" "container cgroup"
	echo "$SG_CPID" >"$SG_UD/pidfile.tmp" && mv "$SG_UD/pidfile.tmp" "$SG_UD/pidfile"
}

# sg_container_compiled: the compile is over (the init goes on: older
# images load their build now).
sg_container_compiled() {
	touch "$SG_CROOT/tmp/compiled"
	local i
	for ((i = 0; i < 300; i++)); do
		[ -e "$SG_CROOT/tmp/done" ] && return 0
		sleep 0.1
	done
	vm_fail "the container's init did not finish its steps"
}

# sg_container_loads_own_build: an older image: right after its compile the
# container loads its nvme build itself, from its own root. Its dependencies
# that only the host tree has (t10_pi & co.) are copied into its root, as a
# real image carries its kernel's modules.
sg_container_loads_own_build() {
	local list=() m
	_sg_order() { # dependency order, each module once
		local ko dep f
		f=${1//_/-}
		case " ${list[*]} " in *"/$f.ko "*) return ;; esac
		if [ -e "$SG_CROOT/lib/modules/$VM_KVER/extra/mlnx-nvme/host/$f.ko" ]; then
			ko=/lib/modules/$VM_KVER/extra/mlnx-nvme/host/$f.ko
		else
			ko=$(modinfo -k "$VM_KVER" -n "$1") || { vm_fail "no module $1"; return; }
			ko=${ko#"$SG_CROOT"}
			mkdir -p "$SG_CROOT$(dirname "$ko")"
			cp "$ko" "$SG_CROOT$ko"
		fi
		for dep in $(modinfo -F depends "$SG_CROOT$ko" | tr , ' '); do _sg_order "$dep"; done
		list+=("$ko")
	}
	for m in "$@"; do _sg_order "$m"; done
	printf '%s\n' "${list[@]}" >"$SG_CROOT/load-list"
	vm_log "the container will load: ${list[*]}"
}

sg_container_stop() {
	[ -n "${SG_CPID:-}" ] || return 0
	kill -KILL "$SG_CPID" 2>/dev/null
	wait "$SG_CPID" 2>/dev/null
	SG_CPID=
}

# sg_container_remove: CRI-O removes the container from its store.
sg_container_remove() {
	rm -rf "${SG_STORE:?}/$SG_CID"
}

sg_ready() {
	mkdir -p "${SG_READY%/*}"
	touch "$SG_READY"
}

# sg_assert_in_tree / sg_assert_oot: which build of nvme is live.
sg_assert_in_tree() {
	assert_loaded nvme
	assert_not_contains "$(module_taint nvme)" "O" "nvme taint (in-tree build)"
}
sg_assert_oot() {
	assert_loaded nvme
	assert_contains "$(module_taint nvme)" "O" "nvme taint (out-of-tree build)"
}

# sg_show_journal: the daemon's journal, for the log (and the demo).
sg_show_journal() {
	vm_log "the daemon's journal:"
	journalctl -u "$SG_UNIT" --no-pager -q -o short-monotonic | sed 's/^/#   /'
}
