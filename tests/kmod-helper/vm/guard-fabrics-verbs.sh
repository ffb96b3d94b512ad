#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The CLI's fabrics verbs on a real kernel (script mode, layout plain): what
# nvme-swapguard-fabrics.service runs for the daemon, against NVMe/TCP
# targets on 127.0.0.1 in the guest (tests/vm/lib-nvmet.sh). Two
# connections to one subsystem (ports 4420 and 4421, native multipath);
# `fabrics capture` records them; the transport's removal drops them (as
# the swap does); then one `serve-request` connect while port 4420 is gone
# (its subsystem unlinked: the kernel says ECONNREFUSED at once) and port
# 4421 is a listener that accepts and never answers (the kernel's 10 s ICResp
# timeout: EAGAIN, "no-answer"): result.json says so per connection within
# about 10-12 s, both stay pending; with the targets back, `fabrics
# connect` brings both back, the data intact, the record gone; then the
# CLI's `unload` and `restore` do the same through the same passes. Where the
# kernel has in-band authentication (6.12; Debian's 6.1 has none), the host
# connects with a DH-HMAC-CHAP secret, which must be in secrets.json (0600)
# and nowhere else: not in record.json, result.json or any output.
. "$VM_LIB"
. "$VM_HARNESS/lib-nvmet.sh"

RUNDIR=/run/nvme-swapguard-fabrics
SECRETDIR=/run/nvme-swapguard-secrets
REQUEST=/run/nvme-swapguard/fabrics-request
SILENT_PORT=4421
ALL_OUT=/tmp/fabrics-verbs.out
: >"$ALL_OUT"
kmod() {
	KMOD_OUT=$("$VM_KMOD_HELPER" "$@" 2>&1)
	KMOD_RC=$?
	printf '%s\n' "$KMOD_OUT" >>"$ALL_OUT"
	vm_log "\$ nvme-swapguard-kmod $* -> exit $KMOD_RC"
	printf '%s\n' "$KMOD_OUT" | sed 's/^/#   /'
}
# json FILE EXPR: a Python expression over the JSON object j.
json() { /usr/bin/python3 -S -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
port_dir() { echo "$NVMET_CFS/ports/$1"; }
port_link() { ln -s "$NVMET_CFS/subsystems/$NVMET_NQN" "$(port_dir "$1")/subsystems/$NVMET_NQN"; }
port_unlink() { rm -f "$(port_dir "$1")/subsystems/$NVMET_NQN"; }

assert_ok nvmet_tcp_target_up 64
p2=$(port_dir 2)
mkdir -p "$p2" && echo tcp >"$p2/addr_trtype" && echo ipv4 >"$p2/addr_adrfam" &&
	echo 127.0.0.1 >"$p2/addr_traddr" && echo "$SILENT_PORT" >"$p2/addr_trsvcid" && port_link 2 ||
	vm_fatal "second port"

secret=
host=$NVMET_CFS/hosts/$NVMET_HOSTNQN
if mkdir -p "$host" 2>/dev/null && [ -e "$host/dhchap_key" ]; then
	secret=$(nvme gen-dhchap-key -n "$NVMET_HOSTNQN") || vm_fatal "nvme gen-dhchap-key"
	echo "$secret" >"$host/dhchap_key" && echo 0 >"$NVMET_CFS/subsystems/$NVMET_NQN/attr_allow_any_host" &&
		ln -s "$host" "$NVMET_CFS/subsystems/$NVMET_NQN/allowed_hosts/$NVMET_HOSTNQN" || vm_fatal "DH-HMAC-CHAP on the target"
	vm_log "DH-HMAC-CHAP: the host connects with a secret"
else
	vm_log "no in-band authentication in Linux $VM_KVER (CONFIG_NVME_TARGET_AUTH): connections without a secret"
fi
# (a function, so that the secret is not in the test's log either)
connect_port() {
	if [ -n "$secret" ]; then NVMET_PORT=$1 nvmet_tcp_connect --dhchap-secret="$secret"
	else NVMET_PORT=$1 nvmet_tcp_connect; fi
}
assert_ok connect_port 4420
assert_ok connect_port "$SILENT_PORT"
head=$(fabrics_head) || vm_fatal "no fabrics head"
assert_ok fabrics_write "$head" 256
[ -z "$secret" ] || assert_ne none "$(cat "/sys/class/nvme/$(fabrics_ctrl)/dhchap_secret")" "the controller's dhchap_secret"

# --- capture ---------------------------------------------------------------------
kmod fabrics capture
assert_eq 0 "$KMOD_RC" "fabrics capture"
assert_eq 2 "$(json $RUNDIR/record.json 'len(j["connections"])')" "connections recorded"
assert_eq "pending pending" "$(json $RUNDIR/record.json '" ".join(c["state"] for c in j["connections"])')" "their state"
assert_eq "4420 4421" "$(json $RUNDIR/record.json '" ".join(sorted(c["trsvcid"] for c in j["connections"]))')" "their ports"
assert_eq "$NVMET_HOSTNQN" "$(json $RUNDIR/record.json 'j["connections"][0]["hostnqn"]')" "the host NQN is part of the identity"
if [ -n "$secret" ]; then
	assert_eq 600 "$(stat -c %a $SECRETDIR/secrets.json)" "secrets.json mode"
	assert_eq 700 "$(stat -c %a $SECRETDIR)" "its directory's mode"
	assert_eq yes "$(json $SECRETDIR/secrets.json '"yes" if [e["dhchap_secret"] for e in j["secrets"]] == [sys.argv[3]] * 2 else "no"' "$secret")" \
		"secrets.json holds the secret of each connection"
fi

# --- what the swap does to them -------------------------------------------------------
assert_ok rmmod nvme_tcp
assert_eq absent "$(fabrics_ctrl_state)" "the connections after the transport's removal"
assert_ok modprobe nvme_tcp

# --- one connect: a refused target and a silent one -------------------------------------
port_unlink 1
port_unlink 2
vm_nap 0.5 # nvmet drops the listener when its last subsystem goes (nvmet_port_del_ctrls / disable)
/usr/bin/python3 -S - "$SILENT_PORT" <<'PY' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
open("/tmp/silent.ready", "w").close()
held = []
while True:
    c, _ = s.accept()
    held.append(c)  # accepted, never answered
PY
silent=$!
deadline=$((SECONDS + 30))
while [ ! -e /tmp/silent.ready ] && [ $SECONDS -lt $deadline ]; do vm_nap 0.1; done
[ -e /tmp/silent.ready ] || vm_fatal "the silent listener did not start"
mkdir -p "${REQUEST%/*}"
printf 'verb=connect\ntoken=11\n' >"$REQUEST"
start=$(date +%s%N)
kmod fabrics serve-request "$REQUEST"
took=$((($(date +%s%N) - start) / 1000000))
vm_log "serve-request connect took ${took} ms"
assert_eq 2 "$KMOD_RC" "connect with both targets away: pending"
assert_no_file "$REQUEST"
assert_eq 11 "$(json $RUNDIR/result.json 'j["token"]')" "result.json token"
by_port() { json $RUNDIR/result.json "[c for c in j['connections'] if c['trsvcid'] == '$1'][0]['$2']"; }
assert_eq "failed refused" "$(by_port 4420 outcome) $(by_port 4420 error_kind)" "port 4420 (unlinked)"
assert_eq "failed no-answer" "$(by_port 4421 outcome) $(by_port 4421 error_kind)" "port 4421 (accepts, never answers)"
assert_eq 11 "$(by_port 4421 errno)" "port 4421 errno (EAGAIN)"
assert_ne 0 "$(by_port 4421 next_try_usec)" "a next try is planned"
# Blocked, not refused at once: it waited for the kernel's 10 s ICResp
# timeout (never less than 8 s); the upper bound only catches a hang (the
# outcome above already says no-answer), the time is printed.
if [ "$took" -ge 8000 ] && [ "$took" -le 120000 ]; then vm_pass "no answer told after ${took} ms (the kernel's 10 s ICResp timeout, then no hang)"
else vm_fail "no answer told after ${took} ms, expected the kernel's 10 s timeout and well before 120 s"; fi
kill "$silent" 2>/dev/null
wait "$silent" 2>/dev/null
assert_eq "1 1" "$(json $RUNDIR/record.json '" ".join(str(c["attempts"]) for c in j["connections"])')" "attempts recorded"

# --- the targets back: connect again -----------------------------------------------------
port_link 1
port_link 2
kmod fabrics connect --json
assert_eq 0 "$KMOD_RC" "connect with the targets back"
assert_contains "$KMOD_OUT" '"outcome": "back"' "connect --json"
assert_eq live "$(fabrics_ctrl_state)" "the connection"
head=$(fabrics_wait_head 30) || vm_fail "no head after the connect"
[ -n "$head" ] && assert_ok fabrics_verify "$head"
assert_no_file $RUNDIR/record.json
assert_no_file $SECRETDIR/secrets.json

# --- the CLI's own unload and restore: the same two passes -------------------------------
kmod unload
assert_eq 0 "$KMOD_RC" "unload"
assert_eq absent "$(fabrics_ctrl_state)" "the connections after the unload"
assert_eq 2 "$(json $RUNDIR/record.json 'len(j["connections"])')" "connections recorded by the unload"
kmod restore
assert_eq 0 "$KMOD_RC" "restore"
assert_eq 2 "$(grep -c ': reconnected as nvme' <<<"$KMOD_OUT")" "restore reconnects both"
assert_eq live "$(fabrics_ctrl_state)" "the connection after the restore"
head=$(fabrics_wait_head 30) && assert_ok fabrics_verify "$head"
assert_no_file $RUNDIR/record.json

# --- the secret, nowhere but where it belongs ------------------------------------------
if [ -n "$secret" ]; then
	if [ "$secret" = "$(cat /sys/class/nvme/"$(fabrics_ctrl)"/dhchap_secret)" ]; then
		vm_pass "the controller is connected again with its secret"
	else vm_fail "the controller is connected again without its secret"; fi
	# a part of the key without '/' (JSON may escape it) or '+'
	part=$(tr '/+' '\n\n' <<<"${secret:10}" | awk 'length > length(best) { best = $0 } END { print best }')
	vm_log "looking for ${#part} characters of the key"
	if grep -qF "$part" $RUNDIR/result.json; then vm_fail "result.json holds the secret"; else vm_pass "result.json has no secret"; fi
	if grep -qF "$part" "$ALL_OUT"; then vm_fail "an output of the CLI holds the secret"; else vm_pass "no output of the CLI has the secret"; fi
	if grep -rlF "$part" $RUNDIR /run/nvme-swapguard 2>/dev/null; then vm_fail "the secret is in a file above"
	else vm_pass "no file under $RUNDIR or /run/nvme-swapguard holds the secret"; fi
fi
nvmet_tcp_target_down
