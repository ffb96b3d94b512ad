# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Shared by the daemon's real-kernel cases (tests/daemon/vm/daemon-*.sh), run
# in the guest by tests/vm/run-vm.sh -m systemd --oot. Source it after
# "$VM_LIB"; a case starts with one call:
#
#   . "$VM_LIB"
#   . "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
#   sg_setup            # the daemon started and idle, SG_DEV, SG_BUS
#
# What it provides:
#  - sg_install_unit / sg_start: the daemon installed as the SHIPPED unit
#    (<build>/systemd/nvme-swapguard.service, unmodified, sandbox included):
#    the binary copied to the unit's ExecStart= path and the catalog next to
#    the system's, both in the guest's writable overlay;
#  - sg_start_dbus: a real system bus (dbus-daemon) so systemd's UnitNew /
#    UnitRemoved reach the daemon's scope watch;
#  - CRI-O simulated as it is seen from the node (the files and the process;
#    a real CRI-O can run the same container from the same config.json):
#    sg_container_new writes overlay-containers/<id>/userdata/config.json
#    (the real annotations, process.args, process.env, root.path),
#    sg_container_start runs it as runc would, in crio-<id>.scope, and
#    writes the pidfile. The driver container runs fake-mofed-entrypoint.sh,
#    which does to modules and to the ready file what NVIDIA's entrypoint
#    and its `openibd restart` do; its build is the NVIDIA-shaped stand-in
#    of tests/vm/build-oot-nvme.sh (every module depends on mlx_compat; nvme
#    exports the GDS hooks; RPM layout; SG_GDS=v1|v2 picks the generation);
#    the test decides when its compile ends (sg_container_compiled) and
#    when it creates the ready file (sg_ready);
#  - waits and journal assertions on the daemon's structured fields.
#
# DEMO=1 narrates the steps for a newcomer (tests/demo.sh).

SG_UNIT=nvme-swapguard.service
SG_STORE=/run/containers/storage/overlay-containers
SG_READY=/run/mellanox/drivers/.driver-ready
SG_STATE_FILE=/run/nvme-swapguard/state.json
# The reload block: the daemon's flag, and the root-owned gate (written by
# the unit's ExecStartPre=+) that refuses NVMe loads while the flag exists.
SG_GUARD=/run/nvme-swapguard/reload-blocked
SG_GATE=/run/modprobe.d/nvme-swapguard.conf
SG_SRC=$(cd "${BASH_SOURCE[0]%/*}/../../.." && pwd)
SG_BUILT_DAEMON=$VM_BUILD_ROOT/daemon/nvme-swapguard
SG_BUILT_UNIT=$VM_BUILD_ROOT/systemd/nvme-swapguard.service
SG_POD=mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p

# MESSAGE_IDs, read from daemon/publish/message-ids.h (never copied by hand),
# once, by the shell.
declare -gA _sg_message_ids=()
_sg_read_message_ids() {
	local line re='^#define SWAPGUARD_MESSAGE_([A-Z0-9_]+) +"([0-9a-f]+)"'
	while IFS= read -r line; do
		[[ $line =~ $re ]] && _sg_message_ids[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done <"$SG_SRC/daemon/publish/message-ids.h"
}
_sg_read_message_ids
# sg_message_id KIND: its MESSAGE_ID; exit 1 for a kind the header lacks.
sg_message_id() {
	[ -n "${_sg_message_ids[$1]:-}" ] || return 1
	echo "${_sg_message_ids[$1]}"
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
	[ -f "$VM_OOT_ROOT/lib/modules/$VM_KVER/extra/mlnx-ofa_kernel/compat/mlx_compat.ko" ] ||
		vm_fatal "$VM_OOT_ROOT is not the NVIDIA-shaped stand-in (no mlx_compat.ko)"
}

# sg_setup: the start every daemon VM case shares: requirements,
# the first namespace (SG_DEV), the in-tree stack as at boot, CRI-O's store
# (CRI-O runs before the daemon on a node), a system bus (SG_BUS=1 when
# up), the shipped unit started and idle. A case that must prepare the node
# before the daemon starts (a mount) does so first: sg_setup only adds.
# shellcheck disable=SC2034 # SG_DEV and SG_BUS are for the cases
sg_setup() {
	sg_require
	SG_DEV=$(first_namespace) || vm_fatal "no namespace"
	sg_assert_in_tree
	# CRI-O's runroot is root's and 0700, as real CRI-O 1.27 makes it: a
	# kinder mode hid that the dynamic user's access(2) saw nothing there.
	mkdir -p "$SG_STORE"
	chmod 0700 "${SG_STORE%/overlay-containers}"
	SG_BUS=0
	sg_start_dbus && SG_BUS=1
	sg_install_unit
	sg_start
	sg_wait_state idle
	# The unit's dynamic user must get onto the bus (its scope watch).
	[ "$SG_BUS" = 1 ] && sg_assert_on_bus
	return 0
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
	sg_install_gate_cli
	sg_install_fabrics_units
	sg_install_labels_units
	systemctl daemon-reload || vm_fatal "systemctl daemon-reload"
	vm_log "installed the shipped unit (ExecStart=$exec) in /run/systemd/system"
}

# The NVMe over Fabrics unit and its path unit, shipped the same way (the
# daemon's Wants= pulls the path unit in): the CLI at the service's
# ExecStart= path. Without them the daemon's capture gets no answer.
SG_BUILT_FABRICS_UNIT=$VM_BUILD_ROOT/systemd/nvme-swapguard-fabrics.service
sg_install_fabrics_units() {
	local exec
	[ -e "$SG_BUILT_FABRICS_UNIT" ] || { vm_log "no $SG_BUILT_FABRICS_UNIT: NVMe over Fabrics requests go unanswered"; return 0; }
	exec=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$SG_BUILT_FABRICS_UNIT")
	[ -n "$exec" ] || vm_fatal "no ExecStart= in $SG_BUILT_FABRICS_UNIT"
	sg_install_cli "$exec"
	install -D -m 0644 "$SG_BUILT_FABRICS_UNIT" /run/systemd/system/nvme-swapguard-fabrics.service
	install -D -m 0644 "$SG_SRC/systemd/nvme-swapguard-fabrics.path" /run/systemd/system/nvme-swapguard-fabrics.path
	vm_log "installed nvme-swapguard-fabrics.{path,service} (ExecStart=$exec) in /run/systemd/system"
}

# The CLI at the path of the unit's ExecStartPre=+ (the reload gate),
# whether or not the fabrics unit is installed; its path in /run/.sg-gate-cli.
sg_install_gate_cli() {
	local kmod
	kmod=$(sed -n 's/^ExecStartPre=+\([^ ]*\/nvme-swapguard-kmod\) reload-block install-gate$/\1/p' "$SG_BUILT_UNIT")
	[ -n "$kmod" ] || return 0 # a unit from before the gate
	sg_install_cli "$kmod"
	echo "$kmod" >/run/.sg-gate-cli
}

# sg_install_cli PATH: the CLI as the MachineConfig ships it: at PATH the
# wrapper script (machineconfig/nvme-swapguard-kmod.sh), which starts the
# daemon's binary, installed where the script names it, as
# nvme-swapguard-kmod (one binary for both programs); so the units run the
# shipped bash script and dispatch under their own sandbox.
SG_CLI_WRAPPER=$SG_SRC/machineconfig/nvme-swapguard-kmod.sh
sg_install_cli() {
	local target
	target=$(sed -n 's/^exec -a nvme-swapguard-kmod \([^ ]*\) "\$@"$/\1/p' "$SG_CLI_WRAPPER")
	[ -n "$target" ] || vm_fatal "no exec line in $SG_CLI_WRAPPER"
	install -D -m 0755 "$SG_BUILT_DAEMON" "$target" || vm_fatal "install $target"
	install -D -m 0755 "$SG_CLI_WRAPPER" "$1" || vm_fatal "install $1"
}

# The node labels' copier and its path unit, shipped the same way (the
# daemon's Wants= pulls the path unit in; the CLI installed above). It acts
# only where Node Feature Discovery's features.d exists: a case creates it.
SG_BUILT_LABELS_UNIT=$VM_BUILD_ROOT/systemd/nvme-swapguard-labels.service
sg_install_labels_units() {
	[ -e "$SG_BUILT_LABELS_UNIT" ] || { vm_log "no $SG_BUILT_LABELS_UNIT: node labels not published"; return 0; }
	install -D -m 0644 "$SG_BUILT_LABELS_UNIT" /run/systemd/system/nvme-swapguard-labels.service
	install -D -m 0644 "$SG_SRC/systemd/nvme-swapguard-labels.path" /run/systemd/system/nvme-swapguard-labels.path
}

sg_main_pid() { systemctl show -P MainPID "$SG_UNIT"; }
# sg_wait_restarted OLD_PID [SECONDS]: wait until the unit is active again
# under another main process (Restart= after a kill or a failed exit); the
# caller checks what it expects of the restart. Asked every half second: a
# systemctl costs ~0.11 s of the guest's CPU.
sg_wait_restarted() {
	local deadline=$((SECONDS + ${2:-60})) pid
	while [ $SECONDS -lt $deadline ]; do
		pid=$(sg_main_pid)
		[ "$pid" != 0 ] && [ "$pid" != "$1" ] && [ "$(systemctl is-active "$SG_UNIT")" = active ] && return 0
		vm_nap 0.5
	done
	return 1
}

# sg_start: start the unit (Type=notify: returns after READY=1).
sg_start() {
	if ! systemctl start "$SG_UNIT"; then
		journalctl -u "$SG_UNIT" --no-pager -q -o cat | tail -n 30 | sed 's/^/#   /'
		vm_fatal "systemctl start $SG_UNIT"
	fi
	vm_pass "$SG_UNIT started (pid $(sg_main_pid), state $(sg_state))"
	sg_assert_daemon_caps
}

# sg_assert_daemon_caps: the running daemon gave up CAP_DAC_READ_SEARCH
# once its privileged reader was forked (sandbox/daemon-capabilities.h):
# not in its permitted set (so it cannot come back), CAP_SYS_MODULE and
# CAP_SYS_PTRACE kept; its reader (a child that lives as long as it) keeps
# CAP_DAC_READ_SEARCH when the unit gave it.
sg_assert_daemon_caps() {
	local pid prm eff child rprm reader=
	pid=$(sg_main_pid)
	prm=$(sed -n 's/^CapPrm:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
	eff=$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
	[ -n "$prm" ] || { vm_fail "cannot read the daemon's capabilities (pid $pid)"; return; }
	if (( 0x$prm & (1 << 2) )); then
		vm_fail "the daemon (pid $pid) still holds CAP_DAC_READ_SEARCH (CapPrm $prm, CapEff $eff)"
	else
		vm_pass "the daemon (pid $pid) holds no CAP_DAC_READ_SEARCH (CapPrm $prm, CapEff $eff)"
	fi
	if (( (0x$eff & (1 << 16)) && (0x$eff & (1 << 19)) )); then
		vm_pass "the daemon keeps CAP_SYS_MODULE and CAP_SYS_PTRACE"
	else
		vm_fail "the daemon lost CAP_SYS_MODULE or CAP_SYS_PTRACE (CapEff $eff)"
	fi
	for child in $(cat "/proc/$pid/task/"*/children 2>/dev/null); do
		rprm=$(sed -n 's/^CapPrm:[[:space:]]*//p' "/proc/$child/status" 2>/dev/null)
		[ -n "$rprm" ] && (( 0x$rprm & (1 << 2) )) && reader=$child
	done
	if [ -n "$reader" ]; then
		vm_log "its privileged reader (pid $reader) keeps CAP_DAC_READ_SEARCH"
	else
		vm_log "no child of the daemon holds CAP_DAC_READ_SEARCH (children: $(cat /proc/"$pid"/task/*/children 2>/dev/null | xargs))"
	fi
}

# sg_stop: stop the unit; the reload block (flag and gate) must not outlive
# the daemon.
sg_stop() {
	systemctl stop "$SG_UNIT"
	assert_no_file "$SG_GUARD"
	assert_no_file "$SG_GATE"
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
# The bus is dbus-broker, as on RHCOS (RHEL 9's system bus): it takes a
# client's UID and groups from the socket, so the unit's dynamic user may
# connect. Debian's default, dbus-daemon 1.14, looks the UID up through NSS
# while it authenticates and ends a dynamic user's connection ("Connection
# terminated"): a kinder or harsher bus than the node's would hide or invent
# bugs, so no fallback to it (install-deps.sh installs dbus-broker).
sg_start_dbus() {
	local i
	if [ ! -x /usr/bin/dbus-broker-launch ]; then
		vm_fatal "no /usr/bin/dbus-broker-launch: install dbus-broker (tests/install-deps.sh), RHCOS's system bus"
	fi
	rm -f /etc/systemd/system/dbus.socket /etc/systemd/system/dbus.service
	ln -s /lib/systemd/system/dbus-broker.service /etc/systemd/system/dbus.service
	systemctl daemon-reload
	if ! systemctl start dbus.socket dbus.service; then
		vm_log "dbus.service (dbus-broker) did not start: the daemon runs without a system bus"
		return 1
	fi
	for ((i = 0; i < 100; i++)); do
		busctl --system status org.freedesktop.systemd1 >/dev/null 2>&1 && break
		vm_nap 0.1
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
	# Its subscription: dbus-broker has no Debug.Stats GetAllMatchRules, so
	# from the daemon's side: Subscribe() and the first ListUnitsByPatterns()
	# went through (each logs "Cannot ..." when the bus refuses or ends it).
	local journal
	journal=$(sg_journal_text)
	assert_not_contains "$journal" "Cannot subscribe to systemd's unit signals" "daemon journal"
	assert_not_contains "$journal" "Cannot list crio-*.scope units" "daemon journal"
	assert_not_contains "$journal" "Cannot watch crio-*.scope" "daemon journal"
}

# --- state and journal ------------------------------------------------------------

# sg_state: the "state" of the daemon's state file, read by the shell itself:
# the waits poll it every 0.1 s, and a sed per look was the largest count of
# process starts in a CRI-O case (tests/vm/README.md).
sg_state() {
	local doc=
	[ -r "$SG_STATE_FILE" ] || return 0
	IFS= read -r -d '' doc <"$SG_STATE_FILE"
	[[ $doc =~ \"state\":\ *\"([a-z-]*)\" ]] && echo "${BASH_REMATCH[1]}"
	return 0
}

# sg_wait_state STATE [SECONDS]: a deadline in seconds, not in iterations
# (each one costs a lot more than 0.1 s on a busy emulated CPU).
sg_wait_state() {
	local deadline=$((SECONDS + ${2:-60}))
	while [ $SECONDS -lt $deadline ]; do
		if [ "$(sg_state)" = "$1" ]; then
			vm_pass "daemon state is $1"
			return 0
		fi
		vm_nap 0.1
	done
	vm_fail "daemon state is '$(sg_state)', expected $1"
	journalctl -u "$SG_UNIT" --no-pager -q -o cat | tail -n 20 | sed 's/^/#   /'
	return 1
}

# wait_journal SECONDS KIND [FIELD=VALUE...]: an entry the daemon writes when
# someone else's work answers (the NVMe-oF unit's connect, after the swap
# is reported): a deadline that only catches its absence, never a race.
wait_journal() {
	local deadline=$((SECONDS + $1)) name=$2
	shift 2
	while [ $SECONDS -lt $deadline ]; do
		sg_journal_entries "$name" "$@" >/dev/null && { vm_pass "journal: $name entry with $*"; return 0; }
		vm_nap 0.5
	done
	vm_fail "journal: no $name entry with $* within the wait"
	journalctl -u "$SG_UNIT" -u nvme-swapguard-fabrics -o cat --no-pager -q | tail -n 30 | sed 's/^/#   /'
	return 1
}

sg_journal_text() { journalctl -u "$SG_UNIT" --no-pager -q -o cat; }

# sg_journal_entries KIND [FIELD=VALUE...]: the MESSAGE of every entry with
# the MESSAGE_ID of KIND (STARTED, BLOCKED, ...) and all those fields; exit 1
# when there is none.
# journalctl's own matches select them: the unit's entries AND every
# FIELD=VALUE given (exact values; one journalctl, no python per check).
sg_journal_entries() {
	local id out
	id=$(sg_message_id "$1") || return 2
	shift
	out=$(journalctl -u "$SG_UNIT" -o cat --no-pager -q "MESSAGE_ID=$id" "$@") || return 2
	[ -n "$out" ] || return 1
	printf '%s\n' "$out"
}

# sg_journal_first_usec KIND [FIELD=VALUE...]: the realtime stamp (us) of
# the first such entry; nothing when there is none.
sg_journal_first_usec() {
	local id line
	id=$(sg_message_id "$1") || return 2
	shift
	# short-unix: "<seconds>.<microseconds> <host> ..."
	line=$(journalctl -u "$SG_UNIT" -o short-unix --no-pager -q "MESSAGE_ID=$id" "$@" | head -n 1)
	[[ $line =~ ^([0-9]+)\.([0-9]{6})\  ]] && echo "${BASH_REMATCH[1]}${BASH_REMATCH[2]}"
	return 0
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

# The environment the Network Operator gives mofed-container (NicClusterPolicy
# spec.ofedDriver.env); read by fake-mofed-entrypoint.sh like the real
# entrypoint reads it. ENABLE_NFSRDMA=true: GDS needs the mlnx-nvme build,
# which a sources build makes only with it (FIELD-NOTES section 8).
SG_CTR_ENV_DEFAULT=(
	PATH=/usr/sbin:/usr/bin:/sbin:/bin
	NVIDIA_NIC_DRIVER_VER=25.10-1.7.1.1
	ENABLE_NFSRDMA=true
	UNLOAD_STORAGE_MODULES=false
	RESTORE_DRIVER_ON_POD_TERMINATION=false
)
# SG_GDS: which stand-in build the containers carry: v1 (nvme_v1_* hooks,
# $VM_OOT_ROOT) or v2 (nvme_v2_*, $VM_OOT_ROOT_V2).
SG_GDS=${SG_GDS:-v1}
# SG_SHAPE (set: link or own): the v1 build of that stand-in shape instead
# (run-vm.sh --oot-both), for cases whose containers change shape.

sg_build_root() {
	case ${SG_SHAPE:-} in
	'') ;;
	link) echo "${VM_OOT_ROOT_LINK:?run-vm.sh --oot-both sets VM_OOT_ROOT_LINK}"; return ;;
	own) echo "${VM_OOT_ROOT_OWN:?run-vm.sh --oot-both sets VM_OOT_ROOT_OWN}"; return ;;
	*) vm_fatal "SG_SHAPE=$SG_SHAPE: link or own" ;;
	esac
	case $SG_GDS in
	v1) echo "$VM_OOT_ROOT" ;;
	v2) echo "${VM_OOT_ROOT_V2:?run-vm.sh --oot sets VM_OOT_ROOT_V2}" ;;
	*) vm_fatal "SG_GDS=$SG_GDS: v1 or v2" ;;
	esac
}

# sg_container_rootfs ROOT NAME NFSRDMA: a container's root filesystem (what
# an image unpacks to; a real CRI-O can run it too): busybox, and for
# mofed-container the entrypoint (/root/entrypoint.sh sources) and, in
# /.build-output, what its compile will install: the stand-in build of
# $SG_GDS in NVIDIA's RPM layout, without extra/mlnx-nvme unless NFSRDMA is
# true (mlnx-ofa_kernel is then built --without-mlnx-nvme).
sg_container_rootfs() {
	local root=$1 name=$2 nfsrdma=$3 a out tmpl=/var/tmp/ctr-rootfs-template
	# One template per boot, copied with one process: forks are slow under
	# an emulated CPU. Only the applets the entrypoint uses.
	if [ ! -d "$tmpl" ]; then
		mkdir -p "$tmpl.new"/{bin,dev,lib/modules,tmp,proc,sys,root,run/mellanox/drivers}
		cp /bin/busybox "$tmpl.new/bin/busybox"
		for a in sh sleep cat touch rm mv ls grep tr lsmod modprobe rmmod insmod mkdir awk; do
			ln -s busybox "$tmpl.new/bin/$a"
		done
		mv "$tmpl.new" "$tmpl"
	fi
	cp -a "$tmpl" "$root"
	[ "$name" = mofed-container ] || return 0
	cp "$SG_SRC/tests/daemon/vm/fake-mofed-entrypoint.sh" "$root/root/entrypoint.sh"
	sg_image_openibd "$root"
	out=$root/.build-output/lib/modules
	mkdir -p "$out"
	cp -a "$(sg_build_root)/lib/modules/$VM_KVER" "$out/"
	if [ "$nfsrdma" != true ]; then
		rm -rf "$out/$VM_KVER/extra/mlnx-nvme"
		depmod -b "$root/.build-output" "$VM_KVER"
	fi
}

# SG_OPENIBD: where the image keeps openibd's functions (the stand-in's
# fake-mod-load-funcs.sh), read by the daemon for UnloadAt=auto's moment:
#   shipped  /usr/share/mlnx_ofed/mod_load_funcs, as mlnx-ofa_kernel installs
#            it in the current driver container: check_if_ok_to_stop does
#            not list nvme, so a first swap is at the ready file;
#   2607     the same with nvme added to check_if_ok_to_stop's list
#            (MLNX_OFED 26.07): at the container's start;
#   hidden   (the default) where the daemon does not look: it cannot tell,
#            and swaps at the container's start. The cases written before
#            UnloadAt=auto existed keep this moment.
sg_image_openibd() {
	local root=$1 src=$SG_SRC/tests/daemon/vm/fake-mod-load-funcs.sh dst
	case ${SG_OPENIBD:-hidden} in
	shipped | 2607) dst=$root/usr/share/mlnx_ofed/mod_load_funcs ;;
	hidden) dst=$root/opt/stand-in/mod_load_funcs ;;
	*) vm_fatal "SG_OPENIBD=$SG_OPENIBD: shipped, 2607 or hidden" ;;
	esac
	mkdir -p "${dst%/*}"
	if [ "${SG_OPENIBD:-}" = 2607 ]; then
		sed 's/^\(\tfor mod in ib_isert nvme_rdma nvmet_rdma rpcrdma xprtrdma ib_srpt\);/\1 nvme;/' "$src" >"$dst"
		grep -q 'ib_srpt nvme;' "$dst" || vm_fatal "SG_OPENIBD=2607: no check_if_ok_to_stop list in $src"
	else
		cp "$src" "$dst"
	fi
}

# _sg_json_array STRING...: a JSON array of strings.
_sg_json_array() {
	local s sep='' out='['
	for s in "$@"; do
		s=${s//\\/\\\\}
		s=${s//\"/\\\"}
		out+="$sep\"$s\""
		sep=,
	done
	printf '%s]' "$out"
}

# sg_container_new [--env K=V]... NAME NAMESPACE [POD]: CRI-O's "create":
# the container's root and its config.json (the real annotations,
# process.args, process.env, root.path) in the store. A mofed-container runs
# fake-mofed-entrypoint.sh; any other container (the compile sidecar) only
# sleeps. Its root: sg_container_rootfs. Sets SG_CID, SG_CROOT, SG_UD (the userdata
# directory), SG_CLOG (the container's log, as CRI-O keeps it under
# /var/log/pods).
sg_container_new() {
	local envs=("${SG_CTR_ENV_DEFAULT[@]}") e k nfsrdma=false args env_json
	while [ "${1:-}" = --env ]; do
		k=${2%%=*}
		for e in "${!envs[@]}"; do [ "${envs[$e]%%=*}" = "$k" ] && unset 'envs[e]'; done
		envs+=("$2")
		shift 2
	done
	local name=$1 ns=$2 pod=${3:-$SG_POD}
	local uid=0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69
	SG_CID=$(printf '%s/%s/%s/%s' "$ns" "$pod" "$name" "${SG_CTR_SEQ:-0}" | sha256sum | cut -c1-64)
	SG_CTR_SEQ=$((${SG_CTR_SEQ:-0} + 1))
	SG_CROOT=/var/tmp/ctr-${SG_CID:0:12}
	SG_UD=$SG_STORE/$SG_CID/userdata
	SG_CLOG=/var/log/pods/${ns}_${pod}_$uid/$name/0.log
	mkdir -p "${SG_CLOG%/*}"
	for e in "${envs[@]}"; do [ "$e" = ENABLE_NFSRDMA=true ] && nfsrdma=true; done
	sg_container_rootfs "$SG_CROOT" "$name" "$nfsrdma"
	if [ "$name" = mofed-container ]; then
		args='["/bin/sh","/root/entrypoint.sh","sources"]'
	else
		args='["/bin/sleep","2147483647"]'
	fi
	env_json=$(_sg_json_array "${envs[@]}")
	mkdir -p "$SG_UD"
	cat >"$SG_UD/config.json.tmp" <<-JSON
	{"ociVersion":"1.0.2-dev","process":{"args":$args,"env":$env_json,"cwd":"/"},
	 "root":{"path":"$SG_CROOT"},
	 "annotations":{"io.container.manager":"cri-o","io.kubernetes.container.name":"$name",
	  "io.kubernetes.pod.name":"$pod",
	  "io.kubernetes.pod.namespace":"$ns",
	  "io.kubernetes.pod.uid":"$uid",
	  "io.kubernetes.cri-o.LogPath":"$SG_CLOG"},
	 "linux":{"cgroupsPath":"kubepods.slice:crio:$SG_CID"}}
	JSON
	mv "$SG_UD/config.json.tmp" "$SG_UD/config.json"
}

# sg_container_start [ID]: the container's process, as runc starts it from
# config.json: in crio-<id>.scope, its own mount namespace (slave: the host's
# unmounts reach it, as with runc's rslave root) with /proc, /sys, /dev (a
# privileged pod sees the host's devices) and the host's
# /run/mellanox/drivers (the pod's hostPath) mounted in its root,
# chrooted there, with exactly process.env. Then the pidfile (conmon writes
# it once the process runs). Sets SG_CPID.
sg_container_start() {
	local cid=${1:-$SG_CID} i cfg root clog args=() envs=()
	cfg=$SG_STORE/$cid/userdata/config.json
	# one python3 (each start costs seconds under an emulated CPU)
	eval "$(/usr/bin/python3 -S -c 'import json, shlex, sys
c = json.load(open(sys.argv[1]))
q = lambda l: " ".join(shlex.quote(x) for x in l)
print("root=%s; args=(%s); envs=(%s); clog=%s" % (shlex.quote(c["root"]["path"]), q(c["process"]["args"]),
    q(c["process"].get("env", [])), shlex.quote(c["annotations"].get("io.kubernetes.cri-o.LogPath", "/dev/null"))))' "$cfg")"
	mkdir -p /run/mellanox/drivers   # kubelet creates the hostPath directory
	# shellcheck disable=SC2016 # expanded by the inner shell
	systemd-run --scope --quiet --unit "crio-$cid.scope" \
		unshare --mount --propagation slave -- /bin/sh -c '
			r=$1; shift
			mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" &&
			mount --rbind /dev "$r/dev" &&
			mount --bind /run/mellanox/drivers "$r/run/mellanox/drivers" || exit 127
			exec "$@"' sh "$root" env -i "${envs[@]}" "$(command -v chroot)" "$root" "${args[@]}" \
		</dev/null >>"$clog" 2>&1 &
	SG_CPID=$!
	for ((i = 0; i < 200; i++)); do
		grep -q "crio-$cid.scope" "/proc/$SG_CPID/cgroup" 2>/dev/null &&
			[ "$(readlink "/proc/$SG_CPID/root")" = "$root" ] && break
		vm_nap 0.05
	done
	assert_contains "$(cat "/proc/$SG_CPID/cgroup" 2>/dev/null)" "crio-$cid.scope" "container cgroup"
	assert_eq "$root" "$(readlink "/proc/$SG_CPID/root")" "container root"
	echo "$SG_CPID" >"$SG_STORE/$cid/userdata/pidfile.tmp" &&
		mv "$SG_STORE/$cid/userdata/pidfile.tmp" "$SG_STORE/$cid/userdata/pidfile"
}

# sg_container_alive [PID]: the container's process runs (an exited one stays
# a zombie child of this shell, which kill -0 still finds).
# shellcheck disable=SC2120 # the argument is optional
sg_container_alive() {
	local st
	st=$(awk '{ print $3 }' "/proc/${1:-$SG_CPID}/stat" 2>/dev/null) && [ -n "$st" ] && [ "$st" != Z ]
}

# sg_container_wait_step FILE [SECONDS]: wait for the entrypoint to reach a
# step (a file in its /tmp); fails, with its log, if the process exits first.
sg_container_wait_step() {
	local deadline=$((SECONDS + ${2:-60}))
	while [ $SECONDS -lt $deadline ]; do
		[ -e "$SG_CROOT/tmp/$1" ] && return 0
		if ! sg_container_alive; then
			vm_fail "the driver container exited before '$1'"
			sed 's/^/#   /' "$SG_CLOG"
			return 1
		fi
		vm_nap 0.1
	done
	vm_fail "the driver container did not reach '$1' in ${2:-60} s"
	sed 's/^/#   /' "$SG_CLOG"
	return 1
}

# sg_container_compiled: the compile is over: the entrypoint installs its
# build, runs `openibd restart` (mlx_compat from its tree) and, for older
# images, loads its own nvme build.
sg_container_compiled() {
	touch "$SG_CROOT/tmp/compiled"
	sg_container_wait_step "done" 120
}

# sg_ready: the steps after the load are over: the container creates the
# ready file (a host path, through its hostPath mount).
sg_ready() {
	touch "$SG_CROOT/tmp/go-ready"
	local deadline=$((SECONDS + 60))
	while [ $SECONDS -lt $deadline ]; do
		[ -e "$SG_READY" ] && return 0
		vm_nap 0.1
	done
	vm_fail "the driver container did not create $SG_READY"
	sed 's/^/#   /' "$SG_CLOG"
}

# sg_container_loads_own_build MOD...: an older image: right after `openibd
# restart` the container loads its nvme build itself, from its own root, by
# insmods its entrypoint names (call it before sg_container_start). Its
# dependencies that only the host tree has (t10_pi & co.) are put into the
# build it installs, as a real image carries its kernel's modules;
# mlx_compat is already loaded by then (openibd restart).
sg_container_loads_own_build() {
	local list=() m out=$SG_CROOT/.build-output
	_sg_order() { # dependency order, each module once
		local ko dep f
		f=${1//_/-}
		[ "$1" = mlx_compat ] && return
		case " ${list[*]} " in *"/$f.ko "*) return ;; esac
		# (host/ and, in the stand-in's shape own, common/: nvme_auth)
		if ko=$(cd "$out" && ls "lib/modules/$VM_KVER/extra/mlnx-nvme/"*/"$f.ko" 2>/dev/null); then
			ko=/$ko
		else
			ko=$(modinfo -k "$VM_KVER" -n "$1") || { vm_fail "no module $1"; return; }
			mkdir -p "$out$(dirname "$ko")"
			cp "$ko" "$out$ko"
		fi
		for dep in $(modinfo -F depends "$out$ko" | tr , ' '); do _sg_order "$dep"; done
		list+=("$ko")
	}
	for m in "$@"; do _sg_order "$m"; done
	# the entrypoint's "#OWN-LOADS" line: one insmod a module, then a log
	{
		for m in "${list[@]}"; do printf 'insmod %s || log "insmod %s failed"\n' "$m" "$m"; done
		printf 'log "loaded its own build: %s"\n' "${list[*]}"
	} >"$SG_CROOT/tmp/own-loads"
	sed -i -e "/^#OWN-LOADS\$/r $SG_CROOT/tmp/own-loads" -e '/^#OWN-LOADS$/d' "$SG_CROOT/root/entrypoint.sh"
	grep -q "^insmod " "$SG_CROOT/root/entrypoint.sh" || vm_fatal "no #OWN-LOADS line in the entrypoint"
	vm_log "the container will load: ${list[*]}"
}

# sg_container_stop: the pod is deleted: SIGTERM (the entrypoint clears the
# ready file and ends at once), SIGKILL if it still runs 30 s later (a hang).
sg_container_stop() {
	local deadline=$((SECONDS + 30))
	[ -n "${SG_CPID:-}" ] || return 0
	kill -TERM "$SG_CPID" 2>/dev/null
	while [ $SECONDS -lt $deadline ]; do
		sg_container_alive || break
		vm_nap 0.1
	done
	kill -KILL "$SG_CPID" 2>/dev/null
	wait "$SG_CPID" 2>/dev/null
	SG_CPID=
}

# sg_container_remove: CRI-O removes the container from its store.
sg_container_remove() {
	rm -rf "${SG_STORE:?}/$SG_CID"
}

# sg_assert_mlx_compat_holders MOD...: the NVIDIA shape of the live stack:
# each module holds mlx_compat (openibd's own "is this OFED" test).
sg_assert_mlx_compat_holders() {
	local m
	for m in "$@"; do
		assert_file "/sys/module/mlx_compat/holders/$m"
	done
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

# --- the daemon's identity, taken over ------------------------------------------

# sg_reload_gate_check: the reload gate on the real kernel, before anything
# holds the stack (run it first in a case, before sg_setup; it leaves the
# in-tree stack loaded and the gate removed, as at boot). The gate written
# by the unit's own ExecStartPre= command; with the flag, `modprobe nvme` and
# a load by the controller's PCI modalias (what udev does) fail and load
# nothing; without it, the modalias loads the in-tree stack through the gate.
sg_reload_gate_check() {
	local kmod fn modalias m
	sg_install_gate_cli
	kmod=$(cat /run/.sg-gate-cli 2>/dev/null) || vm_fatal "the unit has no reload-block install-gate ExecStartPre="
	fn=$(basename "$(ls -d /sys/bus/pci/drivers/nvme/0000:* 2>/dev/null | head -n1)")
	[ -n "$fn" ] || vm_fatal "no PCI function bound to nvme"
	modalias=$(cat "/sys/bus/pci/devices/$fn/modalias")
	sg_step "the reload gate on $(uname -r): $fn ($modalias)"
	assert_ok "$kmod" reload-block install-gate
	sed 's/^/#   /' "$SG_GATE"
	for m in nvme nvme_core nvme_fabrics nvme_tcp; do
		if grep -q "^install $m test ! -e $SG_GUARD && /[a-z/]*modprobe --ignore-install $m \$CMDLINE_OPTS\$" "$SG_GATE"; then
			vm_pass "the gate lists $m"
		else
			vm_fail "the gate does not list $m"
		fi
	done
	if [ -d "/lib/modules/$(uname -r)/kernel/drivers/nvme/common" ]; then
		for m in $(ls "/lib/modules/$(uname -r)/kernel/drivers/nvme/common" | sed 's/\.ko.*//; s/-/_/g'); do
			if grep -q "^install $m " "$SG_GATE"; then
				vm_pass "the gate lists $m (drivers/nvme/common)"
			else
				vm_fail "the gate does not list $m (drivers/nvme/common)"
			fi
		done
	fi
	udevadm settle
	modprobe -r nvme || vm_fatal "modprobe -r nvme: the in-tree stack is held at the start ($(module_holders nvme_core))"
	assert_not_loaded nvme
	assert_not_loaded nvme_core
	mkdir -p "${SG_GUARD%/*}"
	: >"$SG_GUARD"
	assert_fails modprobe nvme
	assert_fails modprobe "$modalias"
	assert_not_loaded nvme
	assert_not_loaded nvme_core
	rm -f "$SG_GUARD"
	assert_ok modprobe "$modalias"
	assert_loaded nvme
	assert_loaded nvme_core
	sg_assert_in_tree
	rm -f "$SG_GATE"
	udevadm settle
	for ((m = 0; m < 300; m++)); do [ -n "$(first_namespace)" ] && break; vm_nap 0.1; done
	[ -n "$(first_namespace)" ] || vm_fatal "no namespace after the in-tree stack came back"
	wait_for_block "$(first_namespace)" 30 || vm_fatal "$(first_namespace) is not a block device"
}

SG_PROBE_SCRIPT=$SG_SRC/tests/daemon/vm/privilege-probe-unit.sh
SG_PARSER_PROBE=$VM_BUILD_ROOT/tests/security/privilege-probe
# sg_probe_run HALF EXECSTART: the shipped unit with a drop-in that replaces
# its ExecStart= (Type=oneshot, no watchdog, no restart); root puts a
# secrets file where the fabrics unit keeps them (after the unit's own
# ExecStartPre= lines: its mkdir of the directory is what a fresh boot runs).
# EXECSTART writes its output itself, in the unit's own RuntimeDirectory=
# (/run/nvme-swapguard/probe-HALF.log, the one place it may write), copied to
# /run/swapguard-probe-HALF.log. Returns the start's status.
sg_probe_run() {
	local half=$1 exec=$2 dropin=/run/systemd/system/$SG_UNIT.d/zz-probe.conf rc
	mkdir -p "${dropin%/*}"
	{
		echo "[Service]"
		echo "Type=oneshot"
		echo "ExecStart="
		echo "ExecStart=/bin/sh -c 'exec $exec >/run/nvme-swapguard/probe-$half.log 2>&1'"
		echo "WatchdogSec=0"
		echo "Restart=no"
		echo "Environment=PROBE_VICTIM=$SG_PROBE_VICTIM PROBE_DEV_VICTIM=/dev/zz-probe-victim"
		# (a unit without that mkdir, main's before this stage: made here, and said)
		echo "ExecStartPre=+/bin/sh -c '[ -d /run/nvme-swapguard-secrets ] || { mkdir -m 0700 /run/nvme-swapguard-secrets; : >/run/swapguard-probe-made-secrets-dir; }; umask 077; echo {\"probe\": \"DHHC-1:00:probe:\"} >/run/nvme-swapguard-secrets/secrets.json'"
	} >"$dropin"
	systemctl daemon-reload
	systemctl start "$SG_UNIT"
	rc=$?
	cp "/run/nvme-swapguard/probe-$half.log" "/run/swapguard-probe-$half.log" 2>&1
	[ $rc = 0 ] || journalctl -u "$SG_UNIT" -q --no-pager -o cat -n 30 | sed 's/^/#   journal: /'
	rm -f "/run/nvme-swapguard/probe-$half.log"
	rm -f "$dropin"
	systemctl daemon-reload
	systemctl reset-failed "$SG_UNIT" 2>/dev/null
	sed 's/^/#   /' "/run/swapguard-probe-$half.log"
	return $rc
}

# sg_probe_unit: the taken-over daemon, as the shipped unit
# (privilege-probe-unit.sh: every path of FIELD-NOTES section 14), then the
# parser child (tests/security/privilege-probe --as-parser) when the build
# has it. Run before sg_setup (the unit not started yet, as on a fresh boot).
sg_probe_unit() {
	local line n
	[ "$(systemctl is-active "$SG_UNIT")" = active ] && vm_fatal "sg_probe_unit runs before the daemon starts"
	sg_install_unit
	sg_step "the daemon's identity, taken over: the shipped unit running a probe"
	# A fresh boot: the secrets directory is created by the unit's own
	# ExecStartPre=, before the daemon's namespace hides it.
	assert_no_file /run/nvme-swapguard-secrets
	install -D -m 0755 "$SG_PROBE_SCRIPT" /usr/local/libexec/swapguard-probe-unit.sh
	SWAPGUARD_PROBE_SECRET=probe-$RANDOM setsid sleep 900 </dev/null >/dev/null 2>&1 &
	SG_PROBE_VICTIM=$!
	mknod -m 0600 /dev/zz-probe-victim c 1 3 || vm_fatal "mknod /dev/zz-probe-victim"
	if sg_probe_run daemon "/bin/bash /usr/local/libexec/swapguard-probe-unit.sh"; then
		vm_pass "the probe ran as the shipped unit (its ExecStartPre= lines included)"
	else
		vm_fail "the shipped unit with the probe did not start"
		journalctl -u "$SG_UNIT" --no-pager -q -o cat | tail -n 20 | sed 's/^/#   /'
	fi
	assert_eq 700 "$(stat -c %a /run/nvme-swapguard-secrets 2>&1)" "the secrets directory's mode (ExecStartPre=)"
	if [ -e /run/swapguard-probe-made-secrets-dir ]; then
		vm_fail "the unit did not create /run/nvme-swapguard-secrets before its ExecStart= (the probe's drop-in did)"
	else
		vm_pass "the unit's own ExecStartPre= created /run/nvme-swapguard-secrets on a fresh /run, before InaccessiblePaths="
	fi
	grep -q '^# probe done' /run/swapguard-probe-daemon.log || vm_fail "the probe did not finish"
	n=$(grep -c '^blocked: ' /run/swapguard-probe-daemon.log)
	while IFS= read -r line; do vm_fail "taken-over daemon: $line"; done < <(grep '^OPEN: ' /run/swapguard-probe-daemon.log)
	if grep -q '^not tried: the reload gate' /run/swapguard-probe-daemon.log; then
		vm_fail "the shipped unit did not write the reload gate before its ExecStart="
	fi
	grep -q '^blocked: write /run/modprobe.d/zz-probe.conf' /run/swapguard-probe-daemon.log ||
		vm_fail "no blocked attempt on /run/modprobe.d"
	if [ "$n" -ge 20 ]; then vm_pass "taken-over daemon: $n attempts blocked"; else vm_fail "taken-over daemon: only $n attempts blocked"; fi
	while IFS= read -r line; do vm_log "$line"; done < <(grep -E '^(known open|blocked \(known|not tried)' /run/swapguard-probe-daemon.log)
	# The same identity without CAP_DAC_READ_SEARCH: the daemon's own once
	# it has forked its privileged reader, which keeps it (sg_start checks
	# the running daemon's sets). environ, mem and dhchap_* must be closed
	# to it: the test fails otherwise (privilege-probe-unit.sh, section 7).
	local nodrs='[no DAC_READ_SEARCH] '
	grep -qF "$nodrs# probe done" /run/swapguard-probe-daemon.log ||
		vm_fail "the probe without CAP_DAC_READ_SEARCH did not run"
	grep -F "$nodrs# identity" /run/swapguard-probe-daemon.log | sed 's/^/# /'
	while IFS= read -r line; do vm_fail "without CAP_DAC_READ_SEARCH: $line"; done < \
		<(grep -E '^\[no DAC_READ_SEARCH\] (OPEN|UNREACHABLE|FAILED): ' /run/swapguard-probe-daemon.log)
	for what in "/proc/$SG_PROBE_VICTIM/environ" "/proc/$SG_PROBE_VICTIM/mem" /dhchap_; do
		line=$(grep -F "${nodrs}blocked: " /run/swapguard-probe-daemon.log | grep -F "$what" | head -n 1)
		if [ -n "$line" ]; then
			vm_pass "the daemon's identity (without CAP_DAC_READ_SEARCH): ${line#"$nodrs"}"
		elif [ "$what" = /dhchap_ ] && grep -qF "${nodrs}not tried: sysfs dhchap_" /run/swapguard-probe-daemon.log; then
			vm_log "without CAP_DAC_READ_SEARCH: no sysfs dhchap_* on this kernel to try"
		else
			vm_fail "the daemon's identity (without CAP_DAC_READ_SEARCH): no blocked attempt on $what"
		fi
	done
	while IFS= read -r line; do vm_log "$line"; done < \
		<(grep -E '^\[no DAC_READ_SEARCH\] (reachable|reader.s|not tried)' /run/swapguard-probe-daemon.log)

	if [ -x "$SG_PARSER_PROBE" ]; then
		sg_step "the parser child, taken over: privilege-probe --as-parser as the shipped unit's ExecStart"
		install -D -m 0755 "$SG_PARSER_PROBE" /usr/local/libexec/swapguard-privilege-probe
		if sg_probe_run parser "/usr/local/libexec/swapguard-privilege-probe --as-parser"; then
			vm_pass "privilege-probe --as-parser: every path closed (exit 0)"
		else
			vm_fail "privilege-probe --as-parser failed or found a path open"
		fi
		while IFS= read -r line; do vm_fail "taken-over parser: $line"; done < <(grep -E ': open$' /run/swapguard-probe-parser.log)
		n=$(grep -c ': closed' /run/swapguard-probe-parser.log)
		if [ "$n" -ge 8 ]; then vm_pass "taken-over parser: $n paths closed"; else vm_fail "taken-over parser: only $n paths closed"; fi
	else
		vm_log "SKIP (parser half): no $SG_PARSER_PROBE in this build (tests/security/privilege-probe)"
	fi
	kill "$SG_PROBE_VICTIM" 2>/dev/null
	rm -f /dev/zz-probe-victim /run/nvme-swapguard-secrets/secrets.json
	assert_no_file "$SG_GATE"
	assert_no_file "$SG_GUARD"
}
