# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Guest side of vm-fabrics-reconnect.sh: runs inside the tests/vm harness in
# systemd mode (layout plain), as root on Debian's kernel under TCG, with
# the shipped nvme-swapguard-fabrics.{path,service} installed in
# /run/systemd/system as tests/kmod-helper/vm/guard-fabrics-unit.sh does.
# Prints one "BENCH<TAB>what<TAB>iteration<TAB>ms" line per measurement and
# "# timeline" lines (where one connect request's time went).
#
# The target: N subsystems (nqn...:bench-1..N, one 16 MiB namespace each on
# the guest's tmpfs) behind one nvmet_tcp port on 127.0.0.1:4420, the host
# identity fixed. For each N (1 and 8) and each iteration, from nothing
# connected:
#   floor-N   `nvme connect` of the N connections one after another: from
#             before the first exec to the return of the last one (nvme-cli
#             returns once its write to /dev/nvme-fabrics has made the
#             controller live; every controller is checked live after it)
#   ours-N    the same N connected (untimed), `nvme-swapguard-kmod fabrics
#             capture`, all disconnected (what an unload does to them), then
#             the request written as the daemon writes it (temp file,
#             another uid, rename): from the rename to result.json's
#             finished_at (the unit's last step before it writes the file;
#             every connection "back" in it and its controller live)
# and where ours went (CLOCK_MONOTONIC, systemd's timestamps of the unit, the
# kernel's "new ctrl" lines of /dev/kmsg re-based on a marker written there):
#   ours-N-start    request renamed -> ExecMainStart (the path unit's
#                   inotify wake-up, systemd's job, the fork; systemd marks
#                   the service no longer inactive just after the fork)
#   ours-N-first    ExecMainStart -> the first controller's "new ctrl"
#                   (sandbox, exec, the CLI reading record and secrets,
#                   the first connect)
#   ours-N-rest     first -> last "new ctrl" (the other N-1 connects)
#   ours-N-tail     last "new ctrl" -> finished_at
#   floor-N-first   floor start -> its first "new ctrl" (the same first
#                   connect, from a shell, for comparison with ours-N-first)
#   cli-N           `nvme-swapguard-kmod fabrics connect` of the same record
#                   from a root shell (the unit's connect pass without the
#                   path unit, systemd's job and the sandbox): exec -> exit 0
#   cli-N-first     its exec -> its first "new ctrl"
# Arguments: ITERATIONS (5) COUNTS ("1 8") SOURCE_DIR (the units' sources).
# shellcheck source=../tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=../tests/vm/lib-nvmet.sh
. "$VM_HARNESS/lib-nvmet.sh"

iterations=${1:-5}
counts=${2:-"1 8"}
counts=${counts//,/ }
src=${3:-}
[ "$(cat /proc/1/comm)" = systemd ] || vm_skip "needs systemd mode (-m systemd)"
[ -f "$src/systemd/nvme-swapguard-fabrics.path" ] || vm_fatal "no $src/systemd/nvme-swapguard-fabrics.path (3rd argument: the source tree)"
work=$(mktemp -d /tmp/bench.XXXXXX)

RUNDIR=/run/nvme-swapguard-fabrics
REQDIR=/run/nvme-swapguard
UNIT=nvme-swapguard-fabrics.service
PORT=4420
max=0
for n in $counts; do [ "$n" -gt "$max" ] && max=$n; done
nqn() { echo "nqn.2026-12.io.swapguard:bench-$1"; }

# --- the target: max subsystems on one port -----------------------------------
ip link set lo up || vm_fatal "lo"
nvmet_load || vm_fatal "nvmet"
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || vm_fatal "configfs"
mkdir -p /run/nvmet "$NVMET_CFS/ports/1" || vm_fatal "nvmet port"
echo tcp >"$NVMET_CFS/ports/1/addr_trtype"
echo ipv4 >"$NVMET_CFS/ports/1/addr_adrfam"
echo 127.0.0.1 >"$NVMET_CFS/ports/1/addr_traddr"
echo "$PORT" >"$NVMET_CFS/ports/1/addr_trsvcid"
for k in $(seq 1 "$max"); do
	sub=$NVMET_CFS/subsystems/$(nqn "$k")
	truncate -s 16M "/run/nvmet/bench-$k.img" && mkdir -p "$sub/namespaces/1" || vm_fatal "subsystem $k"
	echo 1 >"$sub/attr_allow_any_host"
	echo "/run/nvmet/bench-$k.img" >"$sub/namespaces/1/device_path"
	echo 1 >"$sub/namespaces/1/buffered_io"
	echo 1 >"$sub/namespaces/1/enable" || vm_fatal "namespace of subsystem $k"
	ln -s "$sub" "$NVMET_CFS/ports/1/subsystems/$(nqn "$k")" || vm_fatal "port link $k"
done
module_loaded nvme_tcp || modprobe nvme_tcp || vm_fatal "modprobe nvme_tcp"

# --- the shipped units ---------------------------------------------------------
unit=$VM_BUILD_ROOT/systemd/$UNIT
exec=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
[ -n "$exec" ] || vm_fatal "no ExecStart= in $unit"
install -D -m 0755 "$VM_KMOD_HELPER" "$exec" || vm_fatal "install $exec"
install -D -m 0644 "$unit" "/run/systemd/system/$UNIT"
install -D -m 0644 "$src/systemd/nvme-swapguard-fabrics.path" /run/systemd/system/nvme-swapguard-fabrics.path
systemctl daemon-reload || vm_fatal "daemon-reload"
mkdir -p "$REQDIR" && chown 61234:61234 "$REQDIR" && chmod 0755 "$REQDIR"
systemctl start nvme-swapguard-fabrics.path || vm_fatal "start the path unit"

# --- helpers (no fork in what is polled or stamped) ----------------------------
connect() {
	nvme connect -t tcp -a 127.0.0.1 -s "$PORT" -n "$(nqn "$1")" \
		--hostnqn="$NVMET_HOSTNQN" --hostid="$NVMET_HOSTID" >/dev/null
}
# live_count: fabrics controllers of the bench subsystems that are live
live_count() {
	local c s n=0
	for c in /sys/class/nvme/nvme*; do
		[ -r "$c/subsysnqn" ] || continue
		read -r s <"$c/subsysnqn" || continue
		[[ $s == nqn.2026-12.io.swapguard:bench-* ]] || continue
		read -r s <"$c/state" && [ "$s" = live ] && n=$((n + 1))
	done
	echo "$n"
}
any_left() {
	local c s
	for c in /sys/class/nvme/nvme*; do
		[ -r "$c/subsysnqn" ] && read -r s <"$c/subsysnqn" && [[ $s == nqn.2026-12.io.swapguard:bench-* ]] && return 0
	done
	return 1
}
disconnect_all() {
	local k i
	for k in $(seq 1 "$max"); do nvme disconnect -n "$(nqn "$k")" >/dev/null 2>&1; done
	for ((i = 0; i < 300; i++)); do any_left || return 0; sleep 0.1; done
	vm_fatal "controllers left after the disconnects"
}
usec() { local t=${1/./}; echo "${t#0}"; } # EPOCHREALTIME -> usec
ms() { python3 -c "print(f'{($2 - $1) / 1e3:.3f}')" "$@"; }
# kmsg_mark: writes a marker to /dev/kmsg; prints "kmsg_usec - monotonic_usec"
# (printk's clock against CLOCK_MONOTONIC, for re-basing the kernel's lines)
kmsg_mark() {
	python3 - <<'PY'
import os, time
tag = "swapguard-bench-mark-%d" % os.getpid()
fd = os.open("/dev/kmsg", os.O_RDWR | os.O_NONBLOCK)
os.lseek(fd, 0, os.SEEK_END)
t = time.monotonic_ns() // 1000
os.write(fd, (tag + "\n").encode())  # without the newline it waits as a continuation
while True:
    try:
        rec = os.read(fd, 8192).decode(errors="replace")
    except BlockingIOError:
        time.sleep(0.001)
        continue
    head, msg = rec.split(";", 1)
    if msg.startswith(tag):
        print(int(head.split(",")[2]) - t)
        break
PY
}
# new_ctrl_times FROM_MONO_USEC OFFSET: the CLOCK_MONOTONIC usec of every
# "new ctrl" kernel line of the bench subsystems after FROM, one a line
new_ctrl_times() {
	python3 - "$1" "$2" <<'PY'
import os, sys
since, off = int(sys.argv[1]), int(sys.argv[2])
fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
while True:
    try:
        rec = os.read(fd, 8192).decode(errors="replace")
    except BlockingIOError:
        break
    except OSError:  # EPIPE: overwritten records, go on
        continue
    head, msg = rec.split(";", 1)
    t = int(head.split(",")[2]) - off
    if t >= since and "new ctrl" in msg and "swapguard:bench-" in msg:
        print(t)
PY
}
json() { python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
bench() { printf 'BENCH\t%s\t%s\t%s\n' "$1" "$2" "$3"; }

disconnect_all
token=0
for n in $counts; do
	for i in $(seq 1 "$iterations"); do
		# the floor
		off=$(kmsg_mark)
		mono0=$(python3 -c 'import time; print(time.monotonic_ns() // 1000 - time.time_ns() // 1000)')
		t0=$EPOCHREALTIME
		for k in $(seq 1 "$n"); do connect "$k" || vm_fatal "nvme connect $(nqn "$k")"; done
		t1=$EPOCHREALTIME
		[ "$(live_count)" = "$n" ] || vm_fail "floor-$n: $(live_count) of $n live after the connects"
		bench "floor-$n" "$i" "$(ms "$(usec "$t0")" "$(usec "$t1")")"
		first=$(new_ctrl_times "$(($(usec "$t0") + mono0))" "$off" | head -n 1)
		[ -n "$first" ] && bench "floor-$n-first" "$i" "$(ms "$(($(usec "$t0") + mono0))" "$first")"

		# ours: capture what is connected, drop it, ask for the connect
		"$VM_KMOD_HELPER" fabrics capture >"$work/capture.out" 2>&1 || { cat "$work/capture.out"; vm_fatal "capture exited $?"; }
		disconnect_all
		token=$((token + 1))
		off=$(kmsg_mark)
		printf 'verb=connect\ntoken=%s\n' "$token" >"$REQDIR/.fabrics-request.tmp" &&
			chown 61234:61234 "$REQDIR/.fabrics-request.tmp" || vm_fatal "request"
		# the rename stamped in both clocks, the same python
		read -r req_mono req_real < <(python3 -c '
import os, sys, time
m, r = time.monotonic_ns() // 1000, time.time_ns() // 1000
os.rename(sys.argv[1], sys.argv[2])
print(m, r)' "$REQDIR/.fabrics-request.tmp" "$REQDIR/fabrics-request") || vm_fatal "rename of the request"
		got=
		for ((w = 0; w < 1200; w++)); do
			s=
			[ -r "$RUNDIR/result.json" ] && read -r -d '' s <"$RUNDIR/result.json"
			[[ $s =~ \"token\":\ *([0-9]+) ]] && [ "${BASH_REMATCH[1]}" = "$token" ] && { got=1; break; }
			sleep 0.1
		done
		[ -n "$got" ] || { journalctl -u "$UNIT" --no-pager -q -o cat | tail -n 20; vm_fatal "no result.json for token $token"; }
		outcomes=$(json "$RUNDIR/result.json" '" ".join(sorted(set(c["outcome"] for c in j["connections"])))')
		exit_code=$(json "$RUNDIR/result.json" 'j["exit"]')
		count=$(json "$RUNDIR/result.json" 'len(j["connections"])')
		[ "$exit_code $count $outcomes" = "0 $n back" ] || vm_fail "ours-$n: result exit $exit_code, $count connections, outcomes: $outcomes"
		[ "$(live_count)" = "$n" ] || vm_fail "ours-$n: $(live_count) of $n live after the unit's connect"
		fin_real=$(json "$RUNDIR/result.json" 'j["finished_at"]')
		bench "ours-$n" "$i" "$(ms "$req_real" "$fin_real")"

		# where it went: systemd's timestamps and the kernel's lines, monotonic
		# (wait for the unit to be inactive again: its exit is stamped then)
		for ((w = 0; w < 100; w++)); do [ "$(systemctl is-active "$UNIT")" = inactive ] && break; sleep 0.1; done
		inactive_exit=$(systemctl show -P InactiveExitTimestampMonotonic "$UNIT")
		exec_start=$(systemctl show -P ExecMainStartTimestampMonotonic "$UNIT")
		exec_exit=$(systemctl show -P ExecMainExitTimestampMonotonic "$UNIT")
		fin_mono=$((fin_real - req_real + req_mono))
		mapfile -t ctrls < <(new_ctrl_times "$req_mono" "$off")
		bench "ours-$n-start" "$i" "$(ms "$req_mono" "$exec_start")"
		if [ "${#ctrls[@]}" -ge 1 ]; then
			bench "ours-$n-first" "$i" "$(ms "$exec_start" "${ctrls[0]}")"
			bench "ours-$n-rest" "$i" "$(ms "${ctrls[0]}" "${ctrls[-1]}")"
			bench "ours-$n-tail" "$i" "$(ms "${ctrls[-1]}" "$fin_mono")"
		else
			vm_log "ours-$n: no \"new ctrl\" kernel line found after the request"
		fi
		{
			echo "$req_mono request renamed"
			echo "$inactive_exit $UNIT no longer inactive"
			echo "$exec_start ExecMainStart"
			for c in "${ctrls[@]}"; do echo "$c kernel: new ctrl"; done
			echo "$fin_mono result finished_at"
			echo "$exec_exit ExecMainExit"
		} | sort -n | awk -v a="$req_mono" -v l="$n/$i" '{ t = $1; $1 = ""; printf "# timeline ours-%s: +%8.1f ms%s\n", l, (t - a) / 1e3, $0 }'
		disconnect_all

		# the same connect pass run by hand (root shell, no unit, no
		# sandbox): what the unit adds is ours-N - cli-N
		for k in $(seq 1 "$n"); do connect "$k" || vm_fatal "nvme connect $(nqn "$k")"; done
		"$VM_KMOD_HELPER" fabrics capture >"$work/capture.out" 2>&1 || { cat "$work/capture.out"; vm_fatal "capture exited $?"; }
		disconnect_all
		off=$(kmsg_mark)
		mono0=$(python3 -c 'import time; print(time.monotonic_ns() // 1000 - time.time_ns() // 1000)')
		t0=$EPOCHREALTIME
		"$VM_KMOD_HELPER" fabrics connect >"$work/connect.out" 2>&1
		rc=$?
		t1=$EPOCHREALTIME
		[ $rc = 0 ] || { cat "$work/connect.out"; vm_fail "cli-$n: fabrics connect exited $rc"; }
		[ "$(live_count)" = "$n" ] || vm_fail "cli-$n: $(live_count) of $n live after fabrics connect"
		bench "cli-$n" "$i" "$(ms "$(usec "$t0")" "$(usec "$t1")")"
		first=$(new_ctrl_times "$(($(usec "$t0") + mono0))" "$off" | head -n 1)
		[ -n "$first" ] && bench "cli-$n-first" "$i" "$(ms "$(($(usec "$t0") + mono0))" "$first")"
		disconnect_all
	done
	vm_pass "$iterations iterations with $n controller(s)"
done
[ "$(systemctl show -P Result "$UNIT")" = success ] || vm_fail "the unit's last result: $(systemctl show -P Result "$UNIT")"
systemctl stop nvme-swapguard-fabrics.path
vm_pass "benchmark done"
