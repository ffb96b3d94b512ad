# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# NVMe over Fabrics inside the guest: an NVMe/TCP target on
# 127.0.0.1 served by the kernel's own nvmet_tcp, and a host connection to
# it through nvme-cli, so that a case has a real fabrics controller (its
# head nvmeXnY) beside or instead of the PCIe drives.  Source it after
# lib.sh:
#
#   . "$VM_LIB"; . "$VM_HARNESS/lib-nvmet.sh"
#
# Recipe checked on 6.1 and 6.12 under QEMU (../../shared/FIELD-NOTES.md
# section 11; the configfs layout is the kernel's
# drivers/nvme/target/configfs.c): loopback only (the VM has no network
# device), the namespace a file on the guest's tmpfs with buffered_io=1
# (tmpfs has no O_DIRECT), a subsystem that allows any host.
#
# On 6.12 (and RHEL 9) nvmet itself depends on nvme_core
# (CONFIG_NVME_TARGET_PASSTHRU=y links drivers/nvme/host's core): a target
# in the same kernel then holds nvme_core, and no unload of the host stack
# can succeed while it runs (nvmet_needs_nvme_core says so). There the
# target is the kernel's own nvmet built without passthru
# (build-oot-nvmet.sh, in $NVMET_OOT_DIR, by default the build's
# vm-cache/oot-nvmet-<kver>): nvmet_target_usable says whether one of the
# two can serve a case that swaps.

NVMET_CFS=/sys/kernel/config/nvmet
NVMET_NQN=${NVMET_NQN:-nqn.2026-12.io.swapguard:vm-target}
NVMET_PORT=${NVMET_PORT:-4420}
# Fixed host identity and namespace ids: what the reconnect must bring
# back is then known to the case, whatever device names the kernel picks.
NVMET_HOSTNQN=${NVMET_HOSTNQN:-nqn.2014-08.org.nvmexpress:uuid:5eed0000-0000-4000-8000-000000000027}
NVMET_HOSTID=${NVMET_HOSTID:-5eed0000-0000-4000-8000-000000000027}
NVMET_NS_UUID=${NVMET_NS_UUID:-27270000-0000-4000-8000-00000000f001}

# nvmet_needs_nvme_core: the kernel's nvmet depends on nvme_core (6.12).
nvmet_needs_nvme_core() {
	# (grep without -q: an early exit would fail the pipe, pipefail)
	kernel_deps nvmet | grep -x nvme_core >/dev/null
}

NVMET_OOT_DIR=${NVMET_OOT_DIR:-${VM_BUILD_ROOT:-/nonexistent}/vm-cache/oot-nvmet-$VM_KVER}

# nvmet_target_usable: a target that does not hold nvme_core can be loaded.
nvmet_target_usable() {
	! nvmet_needs_nvme_core || [ -f "$NVMET_OOT_DIR/nvmet.ko" ]
}

# nvmet_load: nvmet + nvmet_tcp, the kernel's, or the passthru-less build
# where the kernel's would hold nvme_core (its dependencies, configfs and
# drivers/nvme/common's, from the kernel's tree).
nvmet_load() {
	local dep
	module_loaded nvmet_tcp && return 0
	if ! nvmet_needs_nvme_core; then
		modprobe nvmet_tcp
		return
	fi
	[ -f "$NVMET_OOT_DIR/nvmet.ko" ] || { echo "no $NVMET_OOT_DIR/nvmet.ko (build-oot-nvmet.sh)" >&2; return 1; }
	for dep in $(modinfo -F depends "$NVMET_OOT_DIR/nvmet.ko" | tr , ' '); do
		modprobe "$dep" || return 1
	done
	insmod "$NVMET_OOT_DIR/nvmet.ko" && insmod "$NVMET_OOT_DIR/nvmet-tcp.ko"
}

# nvmet_tcp_target_up [SIZE_MB] [NSID]: the target with one namespace
# backed by a file on tmpfs, listening on tcp 127.0.0.1:$NVMET_PORT.
nvmet_tcp_target_up() {
	local size=${1:-64} nsid=${2:-1} sub port ns
	ip link set lo up || return 1
	nvmet_load || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
	mkdir -p /run/nvmet
	NVMET_NS_FILE=/run/nvmet/ns$nsid.img
	truncate -s "${size}M" "$NVMET_NS_FILE" || return 1
	sub=$NVMET_CFS/subsystems/$NVMET_NQN
	mkdir -p "$sub" || return 1
	echo 1 >"$sub/attr_allow_any_host" || return 1
	ns=$sub/namespaces/$nsid
	mkdir -p "$ns" || return 1
	echo "$NVMET_NS_FILE" >"$ns/device_path" || return 1
	echo 1 >"$ns/buffered_io" || return 1
	echo "$NVMET_NS_UUID" >"$ns/device_uuid" || return 1
	echo 1 >"$ns/enable" || return 1
	port=$NVMET_CFS/ports/1
	mkdir -p "$port" || return 1
	echo tcp >"$port/addr_trtype"
	echo ipv4 >"$port/addr_adrfam"
	echo 127.0.0.1 >"$port/addr_traddr"
	echo "$NVMET_PORT" >"$port/addr_trsvcid"
	ln -s "$sub" "$port/subsystems/$NVMET_NQN" || return 1
	export NVMET_NS_FILE
}

# NVMe/RDMA over soft-RoCE (FIELD-NOTES section 11, checked on 6.1): a veth
# pair inside the guest, an address on one end, rdma_rxe on it, nvmet_rdma
# listening there. The VM has no network device: nothing leaves the guest.
NVMET_RDMA_ADDR=${NVMET_RDMA_ADDR:-10.27.0.1}

# nvmet_rdma_unusable: succeeds, saying why on stdout, when soft-RoCE cannot run here.
nvmet_rdma_unusable() {
	kernel_is_module rdma_rxe || { echo "no rdma_rxe module in $VM_KVER"; return 0; }
	kernel_is_module nvmet_rdma || { echo "no nvmet_rdma module in $VM_KVER"; return 0; }
	command -v rdma >/dev/null || { echo "no rdma (iproute2) in the guest"; return 0; }
	if nvmet_needs_nvme_core && [ ! -f "$NVMET_OOT_DIR/nvmet-rdma.ko" ]; then
		echo "nvmet of $VM_KVER depends on nvme_core (passthru) and $NVMET_OOT_DIR has no nvmet-rdma.ko"
		return 0
	fi
	return 1
}

# nvmet_rdma_load: the kernel's nvmet_rdma, or the passthru-less build's
# (after nvmet_load), its RDMA core from the kernel's tree.
nvmet_rdma_load() {
	local dep
	module_loaded nvmet_rdma && return 0
	if ! nvmet_needs_nvme_core; then
		modprobe nvmet_rdma
		return
	fi
	for dep in $(modinfo -F depends "$NVMET_OOT_DIR/nvmet-rdma.ko" | tr , ' '); do
		[ "$dep" = nvmet ] || modprobe "$dep" || return 1
	done
	insmod "$NVMET_OOT_DIR/nvmet-rdma.ko"
}

# nvmet_rdma_port_up: after nvmet_tcp_target_up, the same subsystem also on
# rdma $NVMET_RDMA_ADDR:$NVMET_PORT (port 2).
nvmet_rdma_port_up() {
	local port=$NVMET_CFS/ports/2
	modprobe veth && modprobe rdma_rxe && nvmet_rdma_load || return 1
	ip link add fab0 type veth peer name fab1 || return 1
	ip addr add "$NVMET_RDMA_ADDR/24" dev fab0 || return 1
	ip link set fab0 up && ip link set fab1 up || return 1
	rdma link add rxe0 type rxe netdev fab0 || return 1
	mkdir -p "$port" || return 1
	echo rdma >"$port/addr_trtype"
	echo ipv4 >"$port/addr_adrfam"
	echo "$NVMET_RDMA_ADDR" >"$port/addr_traddr"
	echo "$NVMET_PORT" >"$port/addr_trsvcid"
	ln -s "$NVMET_CFS/subsystems/$NVMET_NQN" "$port/subsystems/$NVMET_NQN"
}

# nvmet_rdma_connect: the host's rdma connection (instead of the tcp one).
nvmet_rdma_connect() {
	module_loaded nvme_rdma || modprobe nvme_rdma || return 1
	nvme connect -t rdma -a "$NVMET_RDMA_ADDR" -s "$NVMET_PORT" -n "$NVMET_NQN" \
		--hostnqn="$NVMET_HOSTNQN" --hostid="$NVMET_HOSTID" >/dev/null || return 1
	fabrics_wait_head 30 >/dev/null
}

# nvmet_tcp_connect [nvme-cli connect options...]: the host's connection,
# with the fixed host identity, through whichever nvme_tcp is loaded (the
# host's own, from modprobe, when none is); waits for the head.
nvmet_tcp_connect() {
	module_loaded nvme_tcp || modprobe nvme_tcp || return 1
	nvme connect -t tcp -a 127.0.0.1 -s "$NVMET_PORT" -n "$NVMET_NQN" \
		--hostnqn="$NVMET_HOSTNQN" --hostid="$NVMET_HOSTID" "$@" >/dev/null || return 1
	fabrics_wait_head 30 >/dev/null
}

# fabrics_ctrl [NQN]: the host controller (nvmeN) connected to NQN over a
# fabrics transport, live or not; none: fails.
fabrics_ctrl() {
	local c nqn=${1:-$NVMET_NQN}
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/transport" ] || continue
		[ "$(cat "$c/transport")" != pcie ] || continue
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$nqn" ] || continue
		echo "${c##*/}"
		return 0
	done
	return 1
}
# fabrics_ctrl_state [NQN]: its state (live, connecting, ...), or "absent".
fabrics_ctrl_state() {
	local c
	c=$(fabrics_ctrl "$@") || { echo absent; return 0; }
	cat "/sys/class/nvme/$c/state" 2>/dev/null || echo absent
}
# fabrics_head [NQN]: the namespace head (nvmeXnY) of the subsystem NQN,
# found through /sys/class/nvme-subsystem (the head belongs to the
# subsystem, its name is not the controller's).
fabrics_head() {
	local s d nqn=${1:-$NVMET_NQN}
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$nqn" ] || continue
		for d in "$s"/nvme*n*; do
			[[ ${d##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] && [ -b "/dev/${d##*/}" ] &&
				{ echo "/dev/${d##*/}"; return 0; }
		done
	done
	return 1
}
# fabrics_wait_head SECONDS [NQN]: waits for the head; prints it.
fabrics_wait_head() {
	local i
	for ((i = 0; i < ${1:-30} * 10; i++)); do
		fabrics_head "${2:-$NVMET_NQN}" && return 0
		vm_nap 0.1
	done
	return 1
}
# fabrics_head_uuid DEV: the namespace's UUID as the host sees it.
fabrics_head_uuid() { cat "/sys/block/${1##*/}/uuid" 2>/dev/null; }

# fabrics_write DEV KiB / fabrics_verify DEV: data written straight to the
# device before the swap and read back from the device after it (page cache
# dropped, so the read goes over the connection).
fabrics_write() {
	mkdir -p /tmp/vm-digests
	head -c "$(($2 * 1024))" /dev/urandom >/tmp/vm-digests/fabrics.data
	dd if=/tmp/vm-digests/fabrics.data of="$1" bs=64k oflag=direct conv=fsync status=none || return 1
	sha256sum </tmp/vm-digests/fabrics.data | cut -d' ' -f1 >/tmp/vm-digests/fabrics.sum
	wc -c </tmp/vm-digests/fabrics.data >/tmp/vm-digests/fabrics.len
	rm -f /tmp/vm-digests/fabrics.data
}
fabrics_verify() {
	local len want got
	len=$(cat /tmp/vm-digests/fabrics.len) || return 2
	want=$(cat /tmp/vm-digests/fabrics.sum) || return 2
	drop_caches
	got=$(head -c "$len" "$1" | sha256sum | cut -d' ' -f1) || return 1
	[ "$want" = "$got" ]
}

# nvmet_tcp_disconnect_all / nvmet_tcp_target_down: tear it all down
# (disconnect first: the target's removal leaves a host reconnecting).
nvmet_tcp_disconnect_all() { nvme disconnect -n "$NVMET_NQN" >/dev/null 2>&1 || :; }
nvmet_tcp_target_down() {
	nvmet_tcp_disconnect_all
	rm -f "$NVMET_CFS/ports/"*"/subsystems/$NVMET_NQN" 2>/dev/null
	rmdir "$NVMET_CFS/ports/"* "$NVMET_CFS/subsystems/$NVMET_NQN/namespaces/"* \
		"$NVMET_CFS/subsystems/$NVMET_NQN" 2>/dev/null || :
}

# oot_root_without DIR MOD...: a copy of the stand-in's container root
# ($VM_OOT_ROOT) in DIR without MOD's .ko (nvme_tcp: a driver container
# build with no NVMe/TCP transport), depmod run again inside it so its
# modules.dep is the one such a build has.  Everything else keeps the
# stand-in's shape (RPM layout, mlx_compat, GDS exports).
oot_root_without() {
	local dir=$1 m f
	shift
	mkdir -p "$dir/lib/modules" || return 1
	cp -a "$VM_OOT_ROOT/lib/modules/$VM_KVER" "$dir/lib/modules/" || return 1
	for m in "$@"; do
		f=$(OOT_TREE_ROOT=$dir oot_ko "$m") || return 1
		rm -f "$f"
		sed -i "/${m//_/-}\.ko/d" "$dir/lib/modules/$VM_KVER/modules.order"
	done
	depmod -b "$dir" "$VM_KVER"
}
