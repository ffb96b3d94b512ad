#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The shipped connect unit on a real kernel under systemd (systemd mode):
# nvme-swapguard-fabrics.path and .service from this build, installed in
# /run/systemd/system; requests written as the daemon writes them (in a
# directory owned by another uid, as the daemon's DynamicUser= RuntimeDirectory
# is); the unit's sandbox (host network, DevicePolicy=closed with only
# /dev/nvme-fabrics, the system call filter, no core) must still capture and
# connect an NVMe/TCP connection to a target on 127.0.0.1 in the guest.
. "$VM_LIB"
. "$VM_HARNESS/lib-nvmet.sh"
[ "$(cat /proc/1/comm)" = systemd ] || vm_skip "needs systemd mode (-m systemd)"

RUNDIR=/run/nvme-swapguard-fabrics
REQDIR=/run/nvme-swapguard
UNIT=nvme-swapguard-fabrics.service
json() { /usr/bin/python3 -S -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# request VERB TOKEN: written as the daemon does (temp + rename), owned by another uid
request() {
	printf 'verb=%s\ntoken=%s\n' "$1" "$2" >"$REQDIR/.fabrics-request.tmp" &&
		chown 61234:61234 "$REQDIR/.fabrics-request.tmp" && mv "$REQDIR/.fabrics-request.tmp" "$REQDIR/fabrics-request"
}
# wait_result TOKEN: result.json with that token, within 60 s
wait_result() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ "$(json $RUNDIR/result.json 'j["token"]' 2>/dev/null)" = "$1" ] && return 0
		vm_nap 0.1
	done
	return 1
}
# nvme_cli_sees: nvme-cli's own view (list-subsys, list) of the connection
# the unit made: the subsystem NQN with a live tcp path to 127.0.0.1:PORT
# under the fixed host NQN, and its head among nvme list's devices. What
# an operator's tools and nvme-cli's udev rules see must be a connection
# like the ones `nvme connect` makes. Prints why on failure.
nvme_cli_sees() {
	nvme list-subsys -o json >/tmp/list-subsys.json 2>/tmp/list-subsys.err || { cat /tmp/list-subsys.err; return 1; }
	nvme list -o json >/tmp/list.json 2>/tmp/list.err || { cat /tmp/list.err; return 1; }
	/usr/bin/python3 -S - /tmp/list-subsys.json /tmp/list.json "$NVMET_NQN" "$NVMET_PORT" "$NVMET_HOSTNQN" "$1" <<'PY'
import json, sys
subsys, devices, nqn, port, hostnqn, head = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), *sys.argv[3:]
# nvme-cli 2.x: [{"HostNQN", "HostID", "Subsystems": [{"Name", "NQN",
# "Paths": [{"Name", "Transport", "Address", "State"}]}]}]; older ones
# have no host level: walk whatever holds a "Subsystems" list
def hosts(j):
    if isinstance(j, dict):
        if "Subsystems" in j:
            yield j
        for v in j.values():
            yield from hosts(v)
    elif isinstance(j, list):
        for v in j:
            yield from hosts(v)
found = []
for h in hosts(subsys):
    for s in h["Subsystems"]:
        if s.get("NQN") != nqn:
            continue
        for p in s.get("Paths", []):
            addr = dict(kv.split("=", 1) for kv in p.get("Address", "").split(",") if "=" in kv)
            found.append(p)
            if (p.get("Transport") == "tcp" and p.get("State") == "live" and addr.get("traddr") == "127.0.0.1"
                    and addr.get("trsvcid") == port and h.get("HostNQN", hostnqn) == hostnqn):
                names = [d.get("DevicePath") for d in devices.get("Devices", [])]
                if head not in names:
                    sys.exit(f"nvme list -o json has no {head}: {names}")
                print(f"{s.get('Name')} {p.get('Name')} {p.get('Transport')} {p.get('Address')} {p.get('State')}")
                sys.exit(0)
sys.exit(f"nvme list-subsys has no live tcp path to 127.0.0.1:{port} for {nqn} (host {hostnqn}); paths of it: {found}; "
         + json.dumps(subsys)[:600])
PY
}
show_journal() { journalctl -u "$UNIT" --no-pager -q -o cat | tail -n 20 | sed 's/^/#   /'; }

assert_ok nvmet_tcp_target_up 64
assert_ok nvmet_tcp_connect
head=$(fabrics_head) || vm_fatal "no fabrics head"
assert_ok fabrics_write "$head" 256

unit=$VM_BUILD_ROOT/systemd/$UNIT
exec=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
[ -n "$exec" ] || vm_fatal "no ExecStart= in $unit"
install -D -m 0755 "$VM_KMOD_HELPER" "$exec" || vm_fatal "install $exec"
install -D -m 0644 "$unit" "/run/systemd/system/$UNIT"
install -D -m 0644 "$(cd "${BASH_SOURCE[0]%/*}/../../.." && pwd)/systemd/nvme-swapguard-fabrics.path" /run/systemd/system/nvme-swapguard-fabrics.path
systemctl daemon-reload || vm_fatal "daemon-reload"
mkdir -p "$REQDIR" && chown 61234:61234 "$REQDIR" && chmod 0755 "$REQDIR"
assert_ok systemctl start nvme-swapguard-fabrics.path
vm_log "$(systemd-analyze security "$UNIT" 2>/dev/null | tail -n 1)"

request capture 1 || vm_fatal "request"
if wait_result 1; then vm_pass "result.json of the capture"; else show_journal; vm_fatal "no result.json for token 1"; fi
assert_eq "0 captured" "$(json $RUNDIR/result.json 'j["exit"]') $(json $RUNDIR/result.json 'j["connections"][0]["outcome"]')" "capture"
assert_no_file "$REQDIR/fabrics-request"
assert_eq 1 "$(json $RUNDIR/record.json 'len(j["connections"])')" "connections recorded"

assert_ok rmmod nvme_tcp
assert_eq absent "$(fabrics_ctrl_state)" "the connection after the transport's removal"
assert_ok modprobe nvme_tcp

request connect 2 || vm_fatal "request"
if wait_result 2; then vm_pass "result.json of the connect"; else show_journal; vm_fatal "no result.json for token 2"; fi
show_journal
assert_eq "0 back" "$(json $RUNDIR/result.json 'j["exit"]') $(json $RUNDIR/result.json 'j["connections"][0]["outcome"]')" "connect"
assert_eq live "$(fabrics_ctrl_state)" "the connection"
head=$(fabrics_wait_head 30) && assert_ok fabrics_verify "$head"
if seen=$(nvme_cli_sees "$head" 2>&1); then vm_pass "nvme-cli sees the unit's connection: $seen"; else vm_fail "nvme-cli's view: $seen"; fi
assert_no_file "$RUNDIR/record.json"
assert_eq success "$(systemctl show -P Result "$UNIT")" "the unit's result"
assert_eq 0 "$(systemctl show -P LimitCORE "$UNIT")" "the unit's LimitCORE"
# the connection's sockets are not in a namespace or behind a filter of ours:
# it keeps working after the unit has exited
assert_eq inactive "$(systemctl is-active "$UNIT")" "the unit after its run"
drop_caches
assert_ok fabrics_verify "$head"
systemctl stop nvme-swapguard-fabrics.path
nvmet_tcp_target_down
