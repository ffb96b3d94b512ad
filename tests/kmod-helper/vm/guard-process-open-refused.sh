# SPDX-License-Identifier: Apache-2.0
# A process holds the namespace's block device open (not exclusively, so
# only /proc/<pid>/fd shows it): check and unload refuse, naming its pid
# and command; nothing unloaded.  Once it exits, unload succeeds, and
# restore brings the namespace back with its data.  Layout: plain.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
name=${dev#/dev/}
seed_data "$dev"

# A holder with a command name of its own: sleep copied as sg-holder.
cp /bin/sleep /tmp/sg-holder
(exec 3<"$dev" && exec /tmp/sg-holder 600) &
holder=$!
fd_open() { [ "$(readlink "/proc/$holder/fd/3")" = "$dev" ] && [ "$(cat "/proc/$holder/comm")" = sg-holder ]; }
wait_until 10 fd_open || vm_fatal "holder $holder did not open $dev"
vm_log "holder: pid $holder ($(cat "/proc/$holder/comm")), fd 3 -> $(readlink "/proc/$holder/fd/3")"

assert_guard 3 check
assert_contains "$(guard_output)" "$name is open by process $holder (sg-holder)" "check text"
assert_guard 3 check --json
assert_usage open-by-process device="$name" pid="$holder" where=sg-holder
assert_usage_kinds open-by-process

before=$(stack_state)
assert_guard 3 unload --json
assert_eq refused-in-use "$(jget 'j["outcome"]')" "unload outcome"
assert_usage open-by-process device="$name" pid="$holder"
assert_stack_untouched "$before"
assert_eq sg-holder "$(cat "/proc/$holder/comm" 2>/dev/null)" "holder still running"

kill "$holder"
wait "$holder" 2>/dev/null
assert_guard 0 check
assert_guard 0 unload --json
assert_eq removed "$(jget 'j["outcome"]')" "unload outcome once the process is gone"
assert_eq "" "$(nvme_modules_left)" "nvme modules left"

assert_guard 0 restore
wait_for_block "$dev" 30 || vm_fatal "$dev did not come back after restore"
assert_loaded nvme
assert_data "$dev"
