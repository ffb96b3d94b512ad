# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# A real CRI-O on the test VM's node, for the daemon's real-kernel cases
# (tests/daemon/vm-crio/crio-*.sh, booted by run-crio-case.sh in systemd
# mode with --oot). Source it after "$VM_LIB":
#
#   . "$VM_LIB"
#   . "${BASH_SOURCE[0]%/*}/lib-crio.sh"
#
# It brings in ../vm/lib-swapguard.sh (the daemon as its shipped unit, the
# system bus, the journal assertions) and replaces that file's hand-made
# container footprint with the real one:
#  - crio_setup: upstream CRI-O 1.27.8 (from <build>/crio-bin) configured as
#    OpenShift 4.14 configures it (the Machine Config Operator's crio.conf,
#    templates/common/_base/files/crio.yaml): systemd cgroup manager,
#    conmon_cgroup = "pod", drop_infra_ctr, internal_wipe, runroot
#    /run/containers/storage, runc (4.14's default) and crun; overlay storage
#    on a tmpfs at /var/lib/containers/storage (overlay cannot sit on the
#    VM's overlay-over-9p root); started as crio.service (upstream's
#    contrib/systemd/crio.service: Type=notify);
#  - the driver image built here (the NVIDIA-shaped stand-in's container
#    root: busybox-static, fake-mofed-entrypoint.sh, the build in the RPM
#    layout with mlx_compat) as an OCI
#    layout and copied into containers/storage with skopeo: no registry.
#    The same image is also the pause image (never run: drop_infra_ctr, but
#    CRI-O insists that it exists);
#  - crio_pod_*/crio_ctr_*: what kubelet asks of CRI-O for the Network
#    Operator's driver DaemonSet pod (crictl runp/create/start with kubelet's
#    labels, annotations, cgroup parent and log directories).

CRIO_LIB_DIR=${BASH_SOURCE[0]%/*}
. "$CRIO_LIB_DIR/../vm/lib-swapguard.sh"

CRIO_BIN=$VM_BUILD_ROOT/crio-bin
CRIO_SOCK=/var/run/crio/crio.sock
CRIO_GRAPHROOT=/var/lib/containers/storage
CRIO_RUNROOT=/run/containers/storage
CRIO_NS=nvidia-network-operator
# The driver image's name as the Network Operator's DaemonSet names it
# (nvcr.io/nvidia/mellanox/doca-driver:<version>-<os>-<arch>); it exists only
# in this node's storage.
CRIO_IMAGE=nvcr.io/nvidia/mellanox/doca-driver:stand-in-rhcos4.14-amd64
CRIO_PAUSE=registry.k8s.io/pause:3.9

crio_require() {
	sg_require
	local t
	for t in crio pinns crictl; do
		[ -x "$CRIO_BIN/$t" ] || vm_skip "no $CRIO_BIN/$t (run through run-crio-case.sh, which unpacks ../shared/crio)"
	done
	for t in conmon crun runc skopeo; do
		command -v "$t" >/dev/null || vm_skip "no $t (tests/install-deps.sh installs it)"
	done
	export PATH=$CRIO_BIN:$PATH
}

# crictl's default timeout (2 s) is shorter than a pod stop, and than its own
# connection check, under TCG.
crictl() { command "$CRIO_BIN/crictl" --runtime-endpoint "unix://$CRIO_SOCK" --timeout 120s "$@"; }

# --- CRI-O's configuration and service ----------------------------------------

crio_write_config() {
	mkdir -p /etc/crio /etc/containers /etc/cni/net.d /var/log/crio/pods /var/lib/crio
	# OpenShift 4.14's values where they matter to the node's footprint; paths
	# are Debian's (conmon and crun in /usr/bin, runc in /usr/sbin, CNI plugins in /usr/lib/cni).
	cat >/etc/crio/crio.conf <<-EOF
	[crio]
	root = "$CRIO_GRAPHROOT"
	runroot = "$CRIO_RUNROOT"
	storage_driver = "overlay"
	log_dir = "/var/log/crio/pods"
	version_file = "/var/run/crio/version"
	version_file_persist = "/var/lib/crio/version"
	clean_shutdown_file = "/var/lib/crio/clean.shutdown"
	internal_wipe = true

	[crio.api]
	listen = "$CRIO_SOCK"
	stream_address = "127.0.0.1"
	stream_port = "0"

	[crio.runtime]
	default_runtime = "runc"
	cgroup_manager = "systemd"
	conmon = "$(command -v conmon)"
	conmon_cgroup = "pod"
	drop_infra_ctr = true
	pinns_path = "$CRIO_BIN/pinns"
	selinux = false
	# the VM's kernel has AppArmor but no profiles loaded (apparmor.service
	# is masked): CRI-O's default profile would not load
	apparmor_profile = "unconfined"
	log_level = "info"
	default_sysctls = ["net.ipv4.ping_group_range=0 2147483647"]
	hooks_dir = ["/etc/containers/oci/hooks.d"]

	[crio.runtime.runtimes.runc]
	runtime_path = "$(command -v runc)"
	runtime_type = "oci"
	runtime_root = "/run/runc"

	[crio.runtime.runtimes.crun]
	runtime_path = "$(command -v crun)"
	runtime_type = "oci"
	runtime_root = "/run/crun"

	[crio.image]
	pause_image = "$CRIO_PAUSE"
	signature_policy = "/etc/containers/policy.json"

	[crio.network]
	network_dir = "/etc/cni/net.d/"
	plugin_dirs = ["/usr/lib/cni"]
	EOF
	# skopeo writes the image through the same storage
	cat >/etc/containers/storage.conf <<-EOF
	[storage]
	driver = "overlay"
	runroot = "$CRIO_RUNROOT"
	graphroot = "$CRIO_GRAPHROOT"
	EOF
	cat >/etc/containers/policy.json <<-'EOF'
	{"default": [{"type": "insecureAcceptAnything"}]}
	EOF
	mkdir -p /etc/containers/oci/hooks.d
	# upstream contrib/systemd/crio.service, with our binary and config
	cat >/run/systemd/system/crio.service <<-EOF
	[Unit]
	Description=Container Runtime Interface for OCI (CRI-O)
	Wants=network-online.target
	After=network-online.target nvme-swapguard.service
	[Service]
	Type=notify
	Environment=GOTRACEBACK=crash
	ExecStart=$CRIO_BIN/crio --config /etc/crio/crio.conf
	ExecReload=/bin/kill -s HUP \$MAINPID
	TasksMax=infinity
	LimitNOFILE=1048576
	LimitNPROC=1048576
	LimitCORE=infinity
	OOMScoreAdjust=-999
	TimeoutStartSec=0
	Restart=on-failure
	RestartSec=10
	EOF
}

# crio_mount_storage: overlay's upper layers need a filesystem that is not
# itself an overlay (the VM's root is overlay over 9p): a tmpfs stands for
# the node's disk. /run is a tmpfs already.
crio_mount_storage() {
	mkdir -p "$CRIO_GRAPHROOT"
	findmnt -n "$CRIO_GRAPHROOT" >/dev/null ||
		mount -t tmpfs -o mode=0700,size=512m tmpfs "$CRIO_GRAPHROOT" ||
		vm_fatal "mount a tmpfs on $CRIO_GRAPHROOT"
}

crio_start() {
	local t0=$SECONDS
	systemctl daemon-reload
	if ! systemctl start crio.service; then
		journalctl -u crio.service --no-pager -q -o cat | tail -n 30 | sed 's/^/#   /'
		vm_fatal "systemctl start crio.service"
	fi
	assert_contains "$(crictl version 2>&1)" "RuntimeVersion:  1.27.8" "crictl version"
	vm_log "crio.service up in $((SECONDS - t0)) s (pid $(systemctl show -P MainPID crio.service))"
}

# crio_setup: storage, config, the images, then the service.
crio_setup() {
	[ "$(findmnt -no PROPAGATION /)" = shared ] || sg_node_like_propagation
	crio_mount_storage
	crio_write_config
	crio_build_image
	crio_start
}

# crio_case_begin: every case's opening, on a node with the in-tree stack:
# the requirements, the system bus (CRI-O's systemd cgroup manager needs
# one), the daemon as its shipped unit, idle and on the bus (its dynamic
# user's scope watch, as sg_setup checks for the cases without CRI-O),
# then CRI-O. Sets dev to the first NVMe namespace.
crio_case_begin() {
	crio_require
	dev=$(first_namespace) || vm_fatal "no namespace"
	sg_assert_in_tree
	sg_start_dbus || vm_fatal "no system bus: CRI-O's systemd cgroup manager needs one"
	sg_install_unit
	sg_start
	sg_wait_state idle
	sg_assert_on_bus
	crio_setup
}

# crio_swapped_to CID: a new driver container's swap, as the daemon must do
# it: what was loaded before is taken out (unloaded-waiting-driver), the
# container's compile ends (crio_compiled), the daemon loads its build
# (swapped, taint O), the namespace $dev comes back, the journal names CID.
crio_swapped_to() {
	sg_wait_state unloaded-waiting-driver 120
	crio_compiled
	sg_wait_state swapped 120
	sg_assert_oot
	wait_for_block "$dev" 30
	assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_CONTAINER_ID="$1"
}

# --- the driver image ------------------------------------------------------

# _crio_blob DIR FILE: moves FILE into DIR/blobs/sha256/, prints its digest.
_crio_blob() {
	local d
	d=$(sha256sum "$2" | cut -d' ' -f1)
	mv "$2" "$1/blobs/sha256/$d"
	echo "$d"
}

# _crio_oci_import ROOTFS ENTRYPOINT-JSON-ARRAY NAME: ROOTFS as a one-layer OCI image
# layout (uncompressed layer, the manifest and config an image builder
# writes), copied with skopeo into containers/storage as NAME.
_crio_oci_import() {
	local rootfs=$1 entry=$2 name=$3 w layer config manifest lsize csize msize
	w=$(mktemp -d /var/tmp/oci.XXXXXX)
	mkdir -p "$w/oci/blobs/sha256"
	tar -C "$rootfs" --numeric-owner --owner=0 --group=0 -cf "$w/layer.tar" . ||
		vm_fatal "tar the layer of $name"
	lsize=$(stat -c %s "$w/layer.tar")
	layer=$(_crio_blob "$w/oci" "$w/layer.tar")
	cat >"$w/config.json" <<-EOF
	{"architecture":"amd64","os":"linux",
	 "config":{"Env":["PATH=/usr/sbin:/usr/bin:/sbin:/bin"],"Entrypoint":$entry},
	 "rootfs":{"type":"layers","diff_ids":["sha256:$layer"]}}
	EOF
	csize=$(stat -c %s "$w/config.json")
	config=$(_crio_blob "$w/oci" "$w/config.json")
	cat >"$w/manifest.json" <<-EOF
	{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",
	 "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$config","size":$csize},
	 "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:$layer","size":$lsize}]}
	EOF
	msize=$(stat -c %s "$w/manifest.json")
	manifest=$(_crio_blob "$w/oci" "$w/manifest.json")
	cat >"$w/oci/index.json" <<-EOF
	{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",
	 "digest":"sha256:$manifest","size":$msize,"annotations":{"org.opencontainers.image.ref.name":"latest"}}]}
	EOF
	echo '{"imageLayoutVersion":"1.0.0"}' >"$w/oci/oci-layout"
	skopeo --insecure-policy copy -q "oci:$w/oci:latest" "containers-storage:$name" 2>&1 | sed 's/^/#   skopeo: /'
	[ "${PIPESTATUS[0]}" = 0 ] || vm_fatal "skopeo copy into containers-storage:$name"
	rm -rf "$w"
}

# crio_build_image [IMAGE]: the driver image ($CRIO_IMAGE) and the pause image
# ($CRIO_PAUSE: one empty file; CRI-O needs it in storage even with
# drop_infra_ctr, and never runs it for these pods). The driver image's root
# is the NVIDIA-shaped stand-in's (lib-swapguard.sh sg_container_rootfs:
# busybox, fake-mofed-entrypoint.sh as /root/entrypoint.sh in sources mode,
# the build it installs when its compile ends, mlx_compat included), debug
# info stripped as RPMs ship it, plus a file the kernel cannot exec (ENOEXEC
# at start, after a good create). With IMAGE: that driver image only (its
# build from $SG_SHAPE's stand-in when set, lib-swapguard.sh sg_build_root).
crio_build_image() {
	local t0=$SECONDS rootfs=/var/tmp/driver-rootfs image=${1:-$CRIO_IMAGE}
	rm -rf "$rootfs" /var/tmp/pause-rootfs
	sg_container_rootfs "$rootfs" mofed-container true
	mkdir -p "$rootfs"/{etc,var/tmp,tmp}
	chmod 1777 "$rootfs/tmp"
	echo 'root:x:0:0:root:/root:/bin/sh' >"$rootfs/etc/passwd"
	echo 'root:x:0:' >"$rootfs/etc/group"
	find "$rootfs" -name '*.ko' -exec strip --strip-debug {} +
	printf 'not an executable\n' >"$rootfs/bin/broken-entrypoint"
	chmod 0755 "$rootfs/bin/broken-entrypoint"
	_crio_oci_import "$rootfs" '["/bin/sh","/root/entrypoint.sh","sources"]' "$image"
	rm -rf "$rootfs"
	if [ -n "${1:-}" ]; then
		vm_log "image $image${SG_SHAPE:+ (stand-in shape $SG_SHAPE)} in containers/storage in $((SECONDS - t0)) s"
		return
	fi
	mkdir -p /var/tmp/pause-rootfs && : >/var/tmp/pause-rootfs/pause
	_crio_oci_import /var/tmp/pause-rootfs '["/pause"]' "$CRIO_PAUSE"
	rm -rf /var/tmp/pause-rootfs
	vm_log "images $CRIO_IMAGE and $CRIO_PAUSE in containers/storage in $((SECONDS - t0)) s"
}

# --- pods and containers, as kubelet asks for them ----------------------------

# _crio_suffix: the 5 characters a ReplicaSet/DaemonSet pod name ends with
_crio_suffix() {
	local a=bcdfghjklmnpqrstvwxz2456789 i out=
	for ((i = 0; i < 5; i++)); do out+=${a:RANDOM % ${#a}:1}; done
	echo "$out"
}

# crio_pod_new [POD_NAME] [RUNTIME]: RunPodSandbox for a driver DaemonSet pod
# (hostNetwork, privileged, best-effort QoS). kubelet creates the pod's log
# directory first. Sets CRIO_POD (sandbox id), CRIO_POD_NAME, CRIO_POD_UID,
# CRIO_POD_JSON, CRIO_POD_LOGDIR.
crio_pod_new() {
	CRIO_POD_NAME=${1:-mofed-rhcos4.14-6d9f8b7c5d-ds-$(_crio_suffix)}
	local runtime=${2:-} attempt=0
	# the same pod again (after a reboot): kubelet's next sandbox attempt
	if [ "${CRIO_POD_AGAIN:-0}" = 1 ]; then
		attempt=1
	else
		CRIO_POD_UID=$(cat /proc/sys/kernel/random/uuid)
	fi
	CRIO_POD_LOGDIR=/var/log/pods/${CRIO_NS}_${CRIO_POD_NAME}_${CRIO_POD_UID}
	CRIO_POD_JSON=/var/tmp/pod-$CRIO_POD_NAME.json
	mkdir -p "$CRIO_POD_LOGDIR"
	local hash=${CRIO_POD_NAME%-ds-*}
	hash=${hash##*-}
	cat >"$CRIO_POD_JSON" <<-EOF
	{"metadata":{"name":"$CRIO_POD_NAME","namespace":"$CRIO_NS","uid":"$CRIO_POD_UID","attempt":$attempt},
	 "log_directory":"$CRIO_POD_LOGDIR",
	 "dns_config":{},
	 "labels":{"app":"mofed-rhcos4.14","controller-revision-hash":"$hash",
	  "nvidia.com/ofed-driver":"","pod-template-generation":"1",
	  "io.kubernetes.pod.name":"$CRIO_POD_NAME","io.kubernetes.pod.namespace":"$CRIO_NS",
	  "io.kubernetes.pod.uid":"$CRIO_POD_UID"},
	 "annotations":{"kubernetes.io/config.seen":"$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)",
	  "kubernetes.io/config.source":"api","openshift.io/scc":"privileged"},
	 "linux":{"cgroup_parent":"kubepods-besteffort-pod${CRIO_POD_UID//-/_}.slice",
	  "security_context":{"privileged":true,
	   "namespace_options":{"network":2,"pid":1,"ipc":0}}}}
	EOF
	CRIO_POD=$(crictl runp ${runtime:+--runtime "$runtime"} "$CRIO_POD_JSON" 2>&1) ||
		vm_fatal "crictl runp: $CRIO_POD"
	vm_log "pod $CRIO_NS/$CRIO_POD_NAME: sandbox ${CRIO_POD:0:12}${runtime:+ (runtime $runtime)}"
}

# crio_ctr_create NAME ATTEMPT [COMMAND...]: CreateContainer as kubelet sends
# it for the DaemonSet's container NAME (restart count ATTEMPT); kubelet
# creates <pod log dir>/NAME/ first. Sets CRIO_CID.
# CRIO_RESTORE_ON_TERMINATION: its RESTORE_DRIVER_ON_POD_TERMINATION (false);
# CRIO_CTR_IMAGE: its image ($CRIO_IMAGE).
crio_ctr_create() {
	local name=$1 attempt=$2 json cmd=
	shift 2
	if [ $# -gt 0 ]; then
		cmd="\"command\":$(_sg_json_array "$@"),"
	fi
	mkdir -p "$CRIO_POD_LOGDIR/$name"
	json=/var/tmp/ctr-$CRIO_POD_NAME-$name-$attempt.json
	cat >"$json" <<-EOF
	{"metadata":{"name":"$name","attempt":$attempt},
	 "image":{"image":"${CRIO_CTR_IMAGE:-$CRIO_IMAGE}"},
	 $cmd
	 "envs":[{"key":"NVIDIA_NIC_DRIVER_VER","value":"25.04-0.6.1.0-2"},{"key":"ENABLE_NFSRDMA","value":"true"},{"key":"UNLOAD_STORAGE_MODULES","value":"false"},
	  {"key":"RESTORE_DRIVER_ON_POD_TERMINATION","value":"${CRIO_RESTORE_ON_TERMINATION:-false}"},
	  {"key":"CREATE_IFNAMES_UDEV","value":"true"}],
	 "mounts":[{"container_path":"/run/mellanox/drivers","host_path":"/run/mellanox/drivers","propagation":2},
	  {"container_path":"/host/etc","host_path":"/etc","readonly":true},
	  {"container_path":"/dev/termination-log","host_path":"/var/tmp/termination-$CRIO_POD_NAME-$name-$attempt"}],
	 "labels":{"io.kubernetes.container.name":"$name","io.kubernetes.pod.name":"$CRIO_POD_NAME",
	  "io.kubernetes.pod.namespace":"$CRIO_NS","io.kubernetes.pod.uid":"$CRIO_POD_UID"},
	 "annotations":{"io.kubernetes.container.hash":"3d7c8a1f","io.kubernetes.container.restartCount":"$attempt",
	  "io.kubernetes.container.terminationMessagePath":"/dev/termination-log",
	  "io.kubernetes.container.terminationMessagePolicy":"File",
	  "io.kubernetes.pod.terminationGracePeriod":"300"},
	 "log_path":"$name/$attempt.log",
	 "linux":{"security_context":{"privileged":true,
	  "namespace_options":{"network":2,"pid":1,"ipc":0}}}}
	EOF
	: >"/var/tmp/termination-$CRIO_POD_NAME-$name-$attempt"
	mkdir -p /run/mellanox/drivers
	CRIO_CID=$(crictl create "$CRIO_POD" "$json" "$CRIO_POD_JSON" 2>&1) ||
		vm_fatal "crictl create $name: $CRIO_CID"
	vm_log "container $name (attempt $attempt): ${CRIO_CID:0:12} created"
}

# crio_ctr_start [CID]: StartContainer. Sets CRIO_CPID (the pid CRI-O reports).
crio_ctr_start() {
	local cid=${1:-$CRIO_CID} out
	out=$(crictl start "$cid" 2>&1) || { vm_log "crictl start ${cid:0:12}: $out"; return 1; }
	CRIO_CPID=$(crio_ctr_pid "$cid")
	vm_log "container ${cid:0:12} started: pid $CRIO_CPID"
}

crio_ctr_pid() { crictl inspect -o go-template --template '{{.info.pid}}' "${1:-$CRIO_CID}" 2>/dev/null; }
crio_ctr_state() { crictl inspect -o go-template --template '{{.status.state}}' "${1:-$CRIO_CID}" 2>/dev/null; }

# crio_driver_pod [POD_NAME] [RUNTIME]: the whole DaemonSet pod as kubelet
# starts it: the sandbox, the init container (runs to completion), then
# mofed-container and the openshift-driver-toolkit-ctr sidecar. Sets
# CRIO_CID/CRIO_CPID to mofed-container's, CRIO_SIDECAR to the sidecar's.
crio_driver_pod() {
	crio_pod_new "$@"
	crio_ctr_create network-operator-init-container 0 /bin/sh -c 'echo init done'
	crio_ctr_start || vm_fatal "the init container did not start"
	crio_wait_ctr_state CONTAINER_EXITED 60 || vm_fatal "the init container did not finish"
	crio_ctr_create openshift-driver-toolkit-ctr 0 /bin/sh -c 'trap "exit 0" TERM; while :; do sleep 1 & wait $!; done'
	CRIO_SIDECAR=$CRIO_CID
	crio_ctr_start || vm_fatal "the sidecar did not start"
	crio_ctr_create mofed-container 0
	crio_ctr_start || vm_fatal "mofed-container did not start"
}

# crio_wait_ctr_state STATE [SECONDS] [CID]: what CRI-O answers, asked
# every half second (a crictl start costs ~0.27 s of the guest's CPU). For
# CONTAINER_EXITED the container's process is watched first, by the shell:
# CRI-O cannot say exited before it is gone.
crio_wait_ctr_state() {
	local deadline=$((SECONDS + ${2:-60})) cid=${3:-$CRIO_CID} pid
	if [ "$1" = CONTAINER_EXITED ]; then
		pid=$(crio_ctr_pid "$cid")
		if [ -n "$pid" ] && [ "$pid" != 0 ]; then
			while [ -e "/proc/$pid" ] && [ $SECONDS -lt $deadline ]; do vm_nap 0.1; done
		fi
	fi
	while [ $SECONDS -lt $deadline ]; do
		[ "$(crio_ctr_state "$cid")" = "$1" ] && return 0
		vm_nap 0.5
	done
	vm_log "container ${cid:0:12} is $(crio_ctr_state "$cid"), not $1"
	return 1
}

# crio_compiled [PID]: the container's compile is over and, once its
# `openibd restart` is done, the steps before the ready file too
# (fake-mofed-entrypoint.sh's /tmp/compiled and /tmp/go-ready, written into
# its root through /proc/<pid>/root); it then creates the ready file itself,
# through its host path mount.
# The deadlines only catch a hang (the container's own steps take seconds).
crio_compiled() {
	local pid=${1:-$CRIO_CPID} deadline
	: >"/proc/$pid/root/tmp/compiled" || vm_fatal "cannot reach /proc/$pid/root/tmp"
	deadline=$((SECONDS + 240))
	while [ ! -e "/proc/$pid/root/tmp/done" ] && [ $SECONDS -lt $deadline ]; do vm_nap 0.1; done
	: >"/proc/$pid/root/tmp/go-ready"
	deadline=$((SECONDS + 120))
	while [ $SECONDS -lt $deadline ]; do
		[ -e "$SG_READY" ] && return 0
		vm_nap 0.1
	done
	vm_fail "the container did not create $SG_READY; its steps: $(cat "/proc/$pid/root/tmp/steps" 2>&1 | tr '\n' ' ')"
}

# crio_stop_pod [POD]: what kubelet does when the pod goes: stop, remove.
crio_stop_pod() {
	local pod=${1:-$CRIO_POD}
	crictl stopp "$pod" >/dev/null 2>&1 || vm_log "crictl stopp ${pod:0:12} failed"
	crictl rmp "$pod" >/dev/null 2>&1 || vm_log "crictl rmp ${pod:0:12} failed"
}

# crio_end_pod_killed [GRACE] [POD] [CID]: the pod deleted while its driver
# container's own cleanup takes longer than the grace period (a node drain
# with a short one): kubelet's StopContainer with the grace period (CRI-O:
# "Stopping container ... with stop signal timed out. Killing"), then, as for
# any pod that goes, StopPodSandbox and RemovePodSandbox. The container is
# told first that its cleanup will hang (fake-mofed-entrypoint.sh). Sets
# CRIO_STOP_EXIT: its exit code as CRI-O saw it (137: SIGKILL).
crio_end_pod_killed() {
	local grace=${1:-3} pod=${2:-$CRIO_POD} cid=${3:-$CRIO_CID} pid
	pid=$(crio_ctr_pid "$cid")
	: >"/proc/$pid/root/tmp/slow-cleanup" || vm_fatal "cannot reach /proc/$pid/root/tmp"
	crictl stop --timeout "$grace" "$cid" >/dev/null 2>&1 || vm_log "crictl stop ${cid:0:12} failed"
	CRIO_STOP_EXIT=$(crictl inspect -o go-template --template '{{.status.exitCode}}' "$cid" 2>/dev/null)
	vm_log "container ${cid:0:12} stopped with a ${grace} s grace period: exit code $CRIO_STOP_EXIT"
	crio_stop_pod "$pod"
}

# crio_reboot: what a node reboot leaves and clears, without rebooting the VM:
# CRI-O stops cleanly (it writes its clean-shutdown file; without it 1.27
# wipes the whole storage), the pods' processes go (systemd stops
# kubepods.slice at shutdown), the daemon stops, the kernel comes back with
# its in-tree nvme stack, and every tmpfs (/run: CRI-O's runroot and version
# file, runc/crun state, the namespace pins, the ready file, the daemon's
# state) starts empty. The graphroot (the node's disk) keeps the previous
# boot's containers: CRI-O's internal_wipe removes them at its next start.
crio_reboot() {
	local m
	systemctl stop crio.service
	systemctl stop kubepods.slice
	systemctl stop "$SG_UNIT"
	# The container's builds go, holders first: the stack, then what the
	# stack shares that came from the container's tree (taint O: its own
	# nvme_auth/nvme_keyring, --oot-shape own on 6.12; the host's stay,
	# a rebooted node loads them again), then mlx_compat.
	for m in nvme_tcp nvme_rdma nvme_fabrics nvme nvme_core; do
		module_loaded "$m" && { rmmod "$m" || vm_fatal "reboot: rmmod $m"; }
	done
	for m in $(kernel_shared_deps nvme_tcp; kernel_shared_deps nvme_rdma); do
		module_loaded "$m" || continue
		case $(module_taint "$m") in *O*) rmmod "$m" || vm_fatal "reboot: rmmod $m" ;; esac
	done
	module_loaded mlx_compat && { rmmod mlx_compat || vm_fatal "reboot: rmmod mlx_compat"; }
	findmnt -rno TARGET | grep -E '^(/var)?/run/(containers|crio|ipcns|utsns|netns|pidns|userns|runc|crun)|^/var/lib/containers/storage/' |
		sort -r | while read -r m; do umount -l "$m"; done
	rm -rf /run/containers /run/crio /run/runc /run/crun /run/ipcns /run/utsns /run/netns \
		/run/pidns /run/userns /run/mellanox /run/nvme-swapguard
	modprobe nvme || vm_fatal "reboot: modprobe nvme"
	vm_log "rebooted (simulated): $(find "$CRIO_GRAPHROOT/overlay-containers" -mindepth 1 -maxdepth 1 -type d | wc -l) containers (sandboxes included) of the previous boot on disk"
}

# crio_footprint CID: what the node shows of a container, for the log.
crio_footprint() {
	local cid=${1:-$CRIO_CID} pid
	pid=$(crio_ctr_pid "$cid")
	vm_log "footprint of ${cid:0:12}: userdata: $(ls "$CRIO_RUNROOT/overlay-containers/$cid/userdata" 2>&1 | tr '\n' ' ')"
	vm_log "  annotations: $(python3 -S -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["annotations"]))' \
		"$CRIO_RUNROOT/overlay-containers/$cid/userdata/config.json" 2>&1)"
	[ -n "$pid" ] && [ "$pid" != 0 ] || return 0
	vm_log "  pid $pid cgroup: $(cut -d: -f3 "/proc/$pid/cgroup")"
	vm_log "  /proc/$pid/root -> $(readlink "/proc/$pid/root")"
	vm_log "  scopes: $(systemctl list-units --no-legend --plain "*${cid}*" 2>/dev/null | awk '{print $1}' | tr '\n' ' ')"
}
