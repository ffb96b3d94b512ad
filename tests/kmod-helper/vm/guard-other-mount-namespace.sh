# SPDX-License-Identifier: Apache-2.0
# Mounts that only another mount namespace holds, one boot:
#
# 1. A container's: the namespace is mounted only inside a namespace of its
#    own (unshare -m, kept alive by a process in a crio-<id>.scope cgroup,
#    with its config.json in CRI-O's store); the host's /proc/1/mountinfo
#    does not show it. check and unload name the mount, the process and the
#    container with its pod; once that namespace is gone the device is free
#    and the data written there is on the disk.
# 2. A service's: the host mounts it (on a mount point with a space:
#    mountinfo's \040), a service starts with a private copy of the host's
#    mounts (this VM's / is private), the host unmounts. The device stays
#    claimed; check and unload name the service's copy, its mount point as
#    that namespace sees it, and its process. While the host still had it
#    mounted only the host's mount was named.
# Layout: plain.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
name=${dev#/dev/}
devno=$(cat "/sys/block/$name/dev")
mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
head -c 1048576 /dev/urandom >/tmp/sg-payload

# --- 1. a container's mount namespace ----------------------------------------
# The container as CRI-O leaves it on a node (FIELD-NOTES section 5): its
# processes in crio-<id>.scope, its OCI config.json in the store.
cid=$(printf 'issue-28-container' | sha256sum | cut -c1-64)
ud=/run/containers/storage/overlay-containers/$cid/userdata
mkdir -p "$ud"
cat >"$ud/config.json" <<JSON
{"ociVersion":"1.0.2-dev","annotations":{"io.kubernetes.pod.namespace":"gpu-workloads",
 "io.kubernetes.pod.name":"trainer-7d9f","io.kubernetes.container.name":"trainer"}}
JSON
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup || vm_fatal "mount cgroup2"
scope=/sys/fs/cgroup/crio-$cid.scope
mkdir -p "$scope" || vm_fatal "mkdir $scope"

# Mount, write and sync inside the new namespace, then stay there.
unshare -m --propagation private sh -c "mkdir -p /mnt/sg-ns && mount $dev /mnt/sg-ns &&
	cp /tmp/sg-payload /mnt/sg-ns/payload && sync -f /mnt/sg-ns/payload &&
	touch /tmp/sg-ns-ready && exec sleep 600" &
ns_pid=$!
echo "$ns_pid" >"$scope/cgroup.procs" || vm_fatal "cannot move $ns_pid into $scope"
wait_until 20 test -e /tmp/sg-ns-ready || vm_fatal "the other namespace did not mount $dev"
assert_contains "$(cat "/proc/$ns_pid/cgroup")" "crio-$cid.scope" "the process's cgroup"
assert_contains "$(cat "/proc/$ns_pid/mountinfo")" " $devno " "the other namespace's mount table"
assert_eq "" "$(grep " $devno " /proc/1/mountinfo)" "the host's mount table (/proc/1/mountinfo)"
ns_inode=$(readlink "/proc/$ns_pid/ns/mnt" | tr -dc 0-9)

assert_guard 3 check
assert_contains "$(guard_output)" "$name is mounted on /mnt/sg-ns (ext4) in another mount namespace than the host's (mnt:[$ns_inode]), that of process $ns_pid (sleep); CRI-O container ${cid:0:12} (trainer in pod gpu-workloads/trainer-7d9f)" "check text"
assert_guard 3 check --json
assert_eq true "$(jget 'j["in_use"]')" "check in_use"
assert_usage mounted device="$name" where=/mnt/sg-ns pid="$ns_pid"
assert_eq "$cid gpu-workloads trainer-7d9f trainer" \
	"$(jget '" ".join(u["mount_namespace"]["container"][k] for u in j["usages"] if u["mount_namespace"] for k in ("id", "pod_namespace", "pod_name", "container_name"))')" \
	"the container in --json"
assert_usage_kinds mounted

before=$(stack_state)
assert_guard 3 unload --json
assert_eq refused-in-use "$(jget 'j["outcome"]')" "unload outcome"
assert_eq '[]' "$(jget 'j["removed"]')" "modules removed"
assert_stack_untouched "$before"

kill "$ns_pid"
wait "$ns_pid" 2>/dev/null
excl_ok() { [ "$(excl_open "$dev")" = OK ]; }
wait_until 10 excl_ok || vm_fail "$dev still claimed after the namespace ended"
assert_guard 0 check
drop_caches
mount_fs "$dev" /mnt/sg-check ro || vm_fatal "mount $dev"
assert_ok cmp /tmp/sg-payload /mnt/sg-check/payload
umount /mnt/sg-check

# --- 2. a service's private copy of a host mount -------------------------------
host_mnt="/mnt/sg copy"
mount_fs "$dev" "$host_mnt" || vm_fatal "mount $dev on the host"
assert_eq private "$(findmnt -no PROPAGATION /)" "this VM's / (a service gets private copies)"
unshare -m --propagation private sh -c 'touch /tmp/sg-svc-ready; exec sleep 600' &
svc_pid=$!
wait_until 20 test -e /tmp/sg-svc-ready || vm_fatal "the service did not start"

# Both tables show it: the host's mount is named, the copy is not repeated.
assert_guard 3 check --json
assert_usage mounted device="$name" where="$host_mnt" mount_namespace=null
assert_eq 1 "$(jget 'len(j["usages"])')" "usages while the host has it mounted"

umount "$host_mnt" || vm_fatal "umount on the host"
assert_eq "" "$(grep " $devno " /proc/1/mountinfo)" "the host's mount table after its umount"
assert_contains "$(cat "/proc/$svc_pid/mountinfo")" 'sg\040copy' "the service's copy (\\040 in its mountinfo)"
assert_eq EBUSY "$(excl_open "$dev")" "the kernel's exclusive open (the copy keeps it claimed)"
svc_inode=$(readlink "/proc/$svc_pid/ns/mnt" | tr -dc 0-9)

assert_guard 3 check
assert_contains "$(guard_output)" "$name is mounted on $host_mnt (ext4) in another mount namespace than the host's (mnt:[$svc_inode]), that of process $svc_pid (sleep)" "check text"
before=$(stack_state)
assert_guard 3 unload
assert_contains "$(guard_output)" "that of process $svc_pid (sleep)" "unload refusal"
assert_stack_untouched "$before"
assert_guard 3 plan --json
assert_usage mounted device="$name" where="$host_mnt" pid="$svc_pid"

kill "$svc_pid"
wait "$svc_pid" 2>/dev/null
wait_until 10 excl_ok || vm_fail "$dev still claimed after the service ended"
assert_guard 0 check
rmdir "$scope" 2>/dev/null
