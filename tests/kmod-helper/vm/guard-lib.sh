# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Helpers for the real-kernel cases of the guard CLI (nvme-swapguard-kmod).
# Source after the harness library:
#
#   . "$VM_LIB"
#   . "${0%/*}/guard-lib.sh"
#
# guard CMD...          runs the CLI; exit status in $GUARD_RC, stdout kept
#                       for the JSON helpers below
# assert_guard RC CMD.. runs the CLI and checks its exit status
# jget EXPR             a Python expression over the last JSON output (`j`)
# assert_usage KIND [key=value...]
#                       the last check/plan/unload JSON names such a usage
# stack_state           "name=refcnt ..." of every loaded nvme* module
# nvme_modules_left     names of the loaded modules of the kernel's
#                       drivers/nvme/host (either build); not what the stack
#                       shares (nvme_auth on 6.12, t10_pi on 6.1)
# expected_removal_order
#                       JSON list of the loaded drivers/nvme/host modules,
#                       holders first, from the kernel's modules.dep
# seed_data DEV / assert_data DEV [DIR]
#                       a file of random data on a fresh ext4 on DEV, and
#                       the check that DEV still has it (read from the disk)
# assert_file_data FILE / assert_remounted_data DEV DIR
#                       the same for a file on a mounted filesystem

GUARD=${VM_KMOD_HELPER:-}
[ -x "$GUARD" ] || vm_skip "no guard CLI at '$GUARD' (meson compile -C <build> first)"
GUARD_RC=
_guard_py="/usr/bin/python3 -S" # -S: see tests/vm/lib.sh (_vm_probe)
_guard_out=/tmp/guard-stdout
_guard_err=/tmp/guard-stderr

# guard CMD [ARGS...]: the CLI's text output and its stderr are shown in the
# log (JSON is not: the assertions print what they looked at).
guard() {
	"$GUARD" "$@" >"$_guard_out" 2>"$_guard_err"
	GUARD_RC=$?
	vm_log "\$ nvme-swapguard-kmod $* -> exit $GUARD_RC"
	[ "$(head -c1 "$_guard_out")" = "{" ] || sed 's/^/#   /' "$_guard_out"
	sed 's/^/#   stderr: /' "$_guard_err"
}

# assert_guard RC CMD [ARGS...]
assert_guard() {
	local want=$1
	shift
	guard "$@"
	assert_eq "$want" "$GUARD_RC" "exit status of 'nvme-swapguard-kmod $*'"
}

# guard_output: the last command's stdout, for assert_contains.
guard_output() { cat "$_guard_out"; }

# jget EXPR: EXPR evaluated over the last stdout parsed as JSON (named j);
# strings print as they are, anything else as JSON (true, null, [..]).
jget() {
	$_guard_py - "$1" "$_guard_out" <<'PY'
import json, sys
expr, path = sys.argv[1], sys.argv[2]
try:
    j = json.load(open(path))
    v = eval(expr, {"j": j})
except Exception as e:
    print("<%s: %s>" % (type(e).__name__, e))
    sys.exit(1)
print(v if isinstance(v, str) else json.dumps(v))
PY
}

# assert_usage KIND [KEY=VALUE...]: the last JSON (check: "usages", plan and
# unload: "users") holds a usage of KIND whose fields have those values
# (compared as text: pid=123, where=/mnt/x); its description is shown.
assert_usage() {
	local kind=$1 r
	shift
	r=$($_guard_py - "$_guard_out" "$kind" "$@" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except ValueError as e:
    print("no <not JSON: %s>" % e)
    sys.exit(0)
kind, want = sys.argv[2], dict(a.split("=", 1) for a in sys.argv[3:])
users = j.get("usages", j.get("users")) or []
text = lambda v: "null" if v is None else str(v)
for u in users:
    if u.get("kind") == kind and all(text(u.get(k)) == v for k, v in want.items()):
        print("ok", u.get("description"))
        break
else:
    print("no", json.dumps(users))
PY
	)
	case $r in
	ok\ *) vm_pass "usage $kind $* reported: ${r#ok }" ;;
	*) vm_fail "no usage $kind $* in the report; usages: ${r#no }" ;;
	esac
}

# assert_usage_kinds KINDS: the exact sorted set of usage kinds reported
# ("kernel-claim", "mounted swap", ...).
assert_usage_kinds() {
	assert_eq "$1" "$(jget '" ".join(sorted(set(u["kind"] for u in j.get("usages", j.get("users")) or [])))')" \
		"usage kinds reported"
}

# --- module state -----------------------------------------------------------

stack_state() { awk '$1 ~ /^nvme/ { print $1 "=" $3 }' /proc/modules | sort | tr '\n' ' '; }
nvme_modules_left() { loaded_nvme_host_modules; }
# (a module after everything that depends on it: more host-stack deps first)
expected_removal_order() {
	local m host n
	host=$(kernel_nvme_host_modules)
	for m in $(loaded_nvme_host_modules); do
		n=$(kernel_deps "$m" | grep -cxF "$host")
		echo "$n $m"
	done | sort -k1,1nr -k2,2 | awk '{ print $2 }' |
		$_guard_py -c 'import json, sys; print(json.dumps(sys.stdin.read().split()))'
}

# assert_stack_untouched BEFORE: the same nvme modules with the same refcounts.
assert_stack_untouched() {
	assert_eq "$1" "$(stack_state)" "nvme modules and refcounts (nothing unloaded)"
}

# --- data -------------------------------------------------------------------

# seed_data DEV: a fresh ext4 on DEV holding /payload (1 MiB of random data,
# its digest kept in the overlay), synced and unmounted.
seed_data() {
	mkfs_ext4 "$1" || vm_fatal "mkfs.ext4 $1"
	mount_fs "$1" /mnt/sg-data || vm_fatal "mount $1"
	write_unsynced /mnt/sg-data/payload 1024
	sync -f /mnt/sg-data/payload
	umount /mnt/sg-data || vm_fatal "umount $1"
}

# assert_data DEV [DIR]: DEV (unmounted) mounts read-only on DIR
# (default /mnt/sg-data, where seed_data wrote) and DIR/payload is what
# write_unsynced put there, read from the device (page cache dropped).
assert_data() {
	local dir=${2:-/mnt/sg-data}
	drop_caches
	if ! mount_fs "$1" "$dir" ro; then
		vm_fail "cannot mount $1 to check its data"
		return 1
	fi
	if verify_written "$dir/payload"; then vm_pass "data on $1 intact"
	else vm_fail "data on $1 lost or changed"; fi
	umount "$dir"
}

# assert_file_data FILE: a file written with write_unsynced (on a mounted
# filesystem) reads back unchanged from the device.
assert_file_data() {
	sync -f "$1" 2>/dev/null
	drop_caches
	if verify_written "$1"; then vm_pass "data of $1 intact"
	else vm_fail "data of $1 lost or changed"; fi
}

# assert_remounted_data DEV DIR: DIR (where DEV is mounted) is unmounted,
# then assert_data DEV DIR: the data must come back from the disk.
assert_remounted_data() {
	umount "$2" || { vm_fail "umount $2"; return 1; }
	assert_data "$1" "$2"
}

# wait_until SECONDS CMD...: polls CMD every 0.1 s.
wait_until() {
	local i n=$(($1 * 10))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		vm_nap 0.1
	done
	return 1
}
