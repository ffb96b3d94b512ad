#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fake-root integration tests of the nvme-swapguard daemon binary: a fake
# node (tests/fakeroot: fake-node + the fake kernel LD_PRELOAD shim), a fake
# CRI-O store under it, a real process standing in for the driver container
# (so pidfd exit detection is real), and the daemon run with --root and
# --log-target stderr. Each case asserts the state file, the fake kernel's
# log and the daemon's structured output.
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail
# The harness is lib-daemon-fakeroot.sh's; this suite's waits default to 20 s
# each (WAIT_STATE_SEC overrides), its container is written by fake-node.
: "${WAIT_STATE_SEC:=20}"
. "$(dirname "$0")/lib-daemon-fakeroot.sh"

# The stand-in container (start_node_container: fake-node writes its store
# entry, $ID; the args are namespace, container name, CapEff, user
# namespace).
start_container() { start_node_container "$@"; }

# --- current image: the daemon loads the build from the container --------
case_current_image() {
new_node
start_daemon
wait_state idle || return 1
[ -d "$root/run/mellanox" ] && fail "the daemon created /run/mellanox on the host" || ok
start_container
wait_state unloaded-waiting-driver || return 1
expect_kernel "delete_module nvme flags=.* -> 0"
expect_kernel "delete_module nvme_core flags=.* -> 0"
[ -e "$root$guard_file" ] && grep -q "^install nvme test ! -e $guard_file && " "$root$gate_file" && ok || fail "no reload block while unloaded"
expect_log "MESSAGE_ID=5f9add5ec6ba4bceb08dd44a1496e973"
ready
wait_state swapped || return 1
expect_kernel "init_module nvme_core .*-> 0|finit_module nvme_core .*-> 0"
expect_log "MESSAGE_ID=d52b71b7f0f044ca8ed598ab2090efd0 SWAPGUARD_STATE=swapped SWAPGUARD_MODULE=nvme SWAPGUARD_ORIGIN=(nvidia|out-of-tree)"
expect_log "SWAPGUARD_GDS_HOOKS=yes"
expect_log "all 1 NVMe namespaces seen before the unload are back"
[ -e "$root$guard_file" ] && fail "reload block left after the swap" || ok
stop_daemon
stop_container
}
run_case current-image

# --- older image: the container loads the build itself; the daemon reports
case_older_image() {
new_node
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
# the container's own modprobe: the fake kernel loads what it is given
croot=$root/proc/$container_pid/root/lib/modules/$rel
NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root LD_PRELOAD=$FAKE_KERNEL_SO \
  python3 - "$croot" <<'PY' || true
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
for m in ("nvme-core", "nvme"):
    data = open(f"{sys.argv[1]}/extra/mlnx-nvme/host/{m}.ko", "rb").read()
    libc.init_module(data, len(data), b"")
PY
ready
wait_state swapped || return 1
expect_no_kernel "load.* -> 0.*\n.*init_module nvme_core .*-> 0.*init_module nvme_core"
expect_log "Swapped \(loaded by the driver container\)"
stop_daemon
stop_container
}
run_case older-image

# --- namespace mounted: blocked, names device and mount point; proceeds after
case_blocked() {
new_node
fn mount nvme0n1p1 /var/lib/data xfs
start_daemon
start_container
wait_state blocked || return 1
expect_log "MESSAGE_ID=d26a0597308b450481324cf4e89b659b SWAPGUARD_STATE=blocked SWAPGUARD_DEVICE=nvme0n1p1 SWAPGUARD_MOUNT_POINT=/var/lib/data"
expect_no_kernel "delete_module"
# unmount (edit the fake mount table) and ask the daemon to look again
sed -i '\#/var/lib/data#d' "$root/proc/1/mountinfo"
kill -HUP "$daemon_pid"
wait_state unloaded-waiting-driver || return 1
expect_kernel "delete_module nvme flags=.* -> 0"
stop_daemon   # SIGTERM while unloaded: restores
expect_kernel "init_module nvme .*-> 0"
[ "$(state)" = idle ] && ok || fail "after a stop while unloaded the state is $(state), expected idle (restored)"
expect_log "MESSAGE_ID=7bc368d6005b4d99b5e15d0902c4c229"
[ -e "$root$guard_file" ] && fail "reload block outlived the daemon" || ok
stop_container
}
run_case blocked

# --- the host unmounted, a service's mount namespace kept a
# private copy: blocked, naming the namespace's process, not a bare kernel
# claim; once that process has exited (its namespace and the copy go with
# it) it proceeds. (On a real node the daemon looks again by itself at that
# exit, through the mount watch: vm/daemon-namespace-signed.sh. The fake
# root's mountinfo is a regular file that cannot be polled, so there is no
# mount watch here: a reload asks instead.)
case_blocked_other_namespace() {
new_node
sleep 600 &
svc=$!
pids+=("$svc")
fn mntns "$svc" 4026532301 dbus-broker
fn nsmount "$svc" nvme0n1p1 /mnt/fab xfs
start_daemon
start_container
wait_state blocked || return 1
expect_log "MESSAGE_ID=d26a0597308b450481324cf4e89b659b SWAPGUARD_STATE=blocked SWAPGUARD_DEVICE=nvme0n1p1 .*SWAPGUARD_PID=$svc"
expect_log "nvme0n1p1 is mounted on /mnt/fab \\(xfs\\) in another mount namespace than the host's \\(mnt:\\[4026532301\\]\\), that of process $svc \\(dbus-broker\\)"
expect_no_log "claimed in the kernel"
expect_no_kernel "delete_module"
# the service stops: the fake node loses its namespace, the process exits
rm -rf "$root/proc/$svc" "$root/dev/.busy/nvme0n1p1"
kill "$svc"; wait "$svc" 2>/dev/null
pids=() # (stop_daemon stops what pids holds, and then forgets the container)
kill -HUP "$daemon_pid"
wait_state unloaded-waiting-driver || return 1
expect_kernel "delete_module nvme flags=.* -> 0"
stop_daemon
stop_container
}
run_case blocked-other-namespace

# --- the watch's blind spot: a namespace held only by a plain open
# (a process with /dev/nvme0n1 open) has no event the always-on watch could
# see. A driver container's create (its config.json in the store, before
# its pidfile: the start) runs the full usage check, and the pin is held
# before the container could run openibd.
case_open_only_then_container() {
new_node
start_daemon
wait_state idle || return 1
fn process 4321 fio nvme0n1
sleep 1
grep -q "nvme pinned" "$tmp/daemon.log" && fail "pinned without an event (did the watch learn to see plain opens? update docs/ARCHITECTURE.md)" || ok
ud=$root/run/containers/storage/overlay-containers/$ID/userdata
mkdir -p "$ud"
cat > "$ud/config.json.tmp" <<'JSON'
{"ociVersion":"1.0.2-dev","process":{"args":["/root/entrypoint.sh"]},
 "annotations":{"io.kubernetes.container.name":"mofed-container",
  "io.kubernetes.pod.name":"mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p",
  "io.kubernetes.pod.namespace":"nvidia-network-operator",
  "io.kubernetes.pod.uid":"0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69"}}
JSON
mv "$ud/config.json.tmp" "$ud/config.json"
for i in $(seq 1 50); do grep -q "nvme pinned" "$tmp/daemon.log" && break; sleep 0.1; done
expect_log "nvme pinned: nvme0n1 is open by process 4321 \(fio\).*MESSAGE_ID=a4e7c19ea7fa4bbda25cd3fc5b2dd7cf"
[ -e "$ud/pidfile" ] && fail "the test wrote the pidfile early" || ok
grep -q "container-started" "$tmp/daemon.log" && fail "the container counted as started before its pidfile" || ok
[ "$(state)" = idle ] && ok || fail "state $(state) before the container's start, expected idle"
start_container   # the start: the pidfile
wait_state blocked || return 1
expect_log "MESSAGE_ID=4706cc61103247d4bfb4e6dc8c3f3de3"
expect_no_kernel "delete_module nvme "
stop_daemon
stop_container
}
run_case open-only-then-container

# --- container exits before ready: restored, namespaces back ---------------
case_exit_before_ready() {
new_node
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
stop_container
wait_state restored || return 1
expect_log "MESSAGE_ID=bf54ca7d2bec4edaa11caff4a4613f1a"
"$FAKE_NODE" "$root" loaded nvme && ok || fail "nvme not back after the restore"
expect_log "After the restore: all 1 NVMe namespaces"
stop_daemon
}
run_case exit-before-ready

# --- SIGKILL while waiting: the next start resumes and completes -----------
case_sigkill_resume() {
new_node
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=
start_daemon
sleep 0.5
wait_state unloaded-waiting-driver || return 1
expect_log "previous state unloaded-waiting-driver"
[ -e "$root$guard_file" ] && ok || fail "reload block not back after the restart"
ready
wait_state swapped || return 1
stop_daemon
stop_container
}
run_case sigkill-resume

# --- mofed-container in another namespace: ignored -------------------------
case_other_namespace() {
new_node
start_daemon
start_container some-other-namespace mofed-container
sleep 1
wait_state idle || return 1
expect_no_kernel "delete_module"
stop_daemon
stop_container
}
run_case other-namespace

# --- trust: a matching container without CAP_SYS_MODULE --------------------
case_unprivileged_container() {
new_node
start_daemon
start_container nvidia-network-operator mofed-container 00000000a80425fb
sleep 1
wait_state idle || return 1
expect_log "matches, but is not privileged \(no CAP_SYS_MODULE in CapEff\): refusing to load kernel code from it"
expect_log "mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p/mofed-container in namespace nvidia-network-operator"
expect_log "MESSAGE_ID=fd5fb014bc8b4c0199cdd59500d8f8b6"
expect_no_kernel "delete_module"
ready
sleep 0.5
expect_no_kernel "init_module"
"$FAKE_NODE" "$root" loaded nvme && ok || fail "the in-tree nvme is not loaded at the end"
stop_daemon
stop_container
}
run_case unprivileged-container

# --- trust: two privileged driver containers at once (an upgrade's overlap):
# a warning names both. The second runs in another pod (its own uid).
case_two_privileged() {
new_node
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
sleep 600 &
second_pid=$!
ID2=7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d5c4b3a29180f
fn container $second_pid $ID2 nvidia-network-operator mofed-container - - 9d8c7b6a-5f4e-4d3c-8b2a-19f8e7d6c5b4
sleep 1
expect_log "Two privileged driver containers match: 3f1c2a9b8e7d \(.*\) and 7e6d5c4b3a29 \(.*\)"
kill "$second_pid" 2>/dev/null; wait "$second_pid" 2>/dev/null
stop_daemon
stop_container
}
run_case two-privileged

# --- kubelet's restart in the same pod (same pod uid) after the
# first attempt exited is not a second driver container: no warning.
case_restart_same_pod() {
ID2=7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d5c4b3a29180f
new_node
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
stop_container
sleep 600 &
second_pid=$!
fn container $second_pid $ID2
sleep 1
expect_log "Driver container 7e6d5c4b3a29 \(pod .*\) runs as pid $second_pid"
expect_no_log "Two privileged driver containers match"
kill "$second_pid" 2>/dev/null; wait "$second_pid" 2>/dev/null
stop_daemon
}
run_case restart-same-pod

# --- trust: all capabilities, but in a user namespace of its own ----------
case_own_userns_container() {
new_node
start_daemon
start_container nvidia-network-operator mofed-container 000001ffffffffff own-userns
sleep 1
wait_state idle || return 1
expect_log "is not privileged \(not in the host's user namespace\)"
expect_no_kernel "delete_module"
stop_daemon
stop_container
}
run_case own-userns-container

# --- trust: SIGKILL while unloaded, container gone, state
# file truncated: the drives have no driver (a PCI NVMe function without a
# driver link), so the restart restores whatever the file says.
case_truncated_state() {
new_node
mkdir -p "$root/sys/bus/pci/devices/0000:00:04.0"
echo 0x010802 > "$root/sys/bus/pci/devices/0000:00:04.0/class"
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=
stop_container
head -c 20 "$root/run/nvme-swapguard/state.json" > "$tmp/half" && mv "$tmp/half" "$root/run/nvme-swapguard/state.json"
: > "$tmp/kernel.log"
start_daemon
wait_state restored || return 1
expect_log "previous state none.*stack absent.*resuming in unloaded-waiting-driver then container-exited"
expect_kernel "init_module nvme .*-> 0"
"$FAKE_NODE" "$root" loaded nvme && ok || fail "nvme not back after the restart"
stop_daemon
}
run_case truncated-state

# --- ready timeout: restore ---------------------------------------------------
case_ready_timeout() {
new_node
printf '[Swap]\nReadyTimeoutSec=1\n' > "$root/etc/nvme-swapguard/nvme-swapguard.conf"
start_daemon
start_container
wait_state restored || return 1
expect_kernel "delete_module nvme flags=.* -> 0"
expect_kernel "init_module nvme .*-> 0"
stop_daemon
stop_container
}
run_case ready-timeout

# --- load fails (vermagic mismatch): restore ---------------------------------
case_load_fails() {
new_node
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
croot=/proc/$container_pid/root/lib/modules/$rel
fn ko $croot extra/mlnx-nvme/host/nvme.ko nvme nvme-core "5.14.0-other SMP mod_unload " fake_taint=OE
ready
wait_state restored || return 1
expect_log "MESSAGE_ID=f52b7f6f00e0428aa7aedd0840ea6eb4.*SWAPGUARD_MODULE=nvme"
"$FAKE_NODE" "$root" loaded nvme && ok || fail "nvme not back after the failed load"
stop_daemon
stop_container
}
run_case load-fails

# --- a kernel that loads only signed modules refuses NVIDIA's
# build: the daemon restores, and its FAILED entry says why and the remedies.
case_load_signature_refused() {
new_node
mkdir -p "$root/sys/module/module/parameters"
echo Y > "$root/sys/module/module/parameters/sig_enforce"
echo "load nvme EKEYREJECTED" > "$tmp/sig.script"
FAKE_KERNEL_SCRIPT=$tmp/sig.script start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
ready
wait_state restored || return 1
expect_log "MESSAGE_ID=f52b7f6f00e0428aa7aedd0840ea6eb4.*SWAPGUARD_MODULE=nvme"
expect_log "Key was rejected by service \\(signature rejected by the kernel: this kernel loads only modules signed by a key it trusts \\(module.sig_enforce=Y\\): .*mokutil --import.*or leave this node on the in-tree stack\\)"
expect_kernel "init_module nvme .*-> EKEYREJECTED scripted|finit_module nvme .*-> EKEYREJECTED scripted"
"$FAKE_NODE" "$root" loaded nvme && ok || fail "nvme not back after the refused load"
stop_daemon
stop_container
}
run_case load-signature-refused

# --- configuration checks -----------------------------------------------------
case_check_config() {
printf '[Swap]\nUnloadAt=never\n' > "$tmp/bad.conf"
out=$("$SWAPGUARD_DAEMON" --check-config --config "$tmp/bad.conf" 2>&1); rc=$?
[ $rc -eq 1 ] && ok || fail "--check-config of a bad file exited $rc"
grep -qF "$tmp/bad.conf:2: UnloadAt=" <<<"$out" && ok || fail "--check-config output: $out"
printf '[Swap]\nUnloadAt=driver-ready\n' > "$tmp/good.conf"
"$SWAPGUARD_DAEMON" --check-config --config "$tmp/good.conf" >/dev/null 2>&1 && ok || fail "good config refused"
}
run_case check-config

echo "daemon-fakeroot: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
