#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The metrics file as a cluster sees it: the real daemon on a fake node
# (tests/daemon/lib-daemon-fakeroot.sh) writes /var/lib/nvme-swapguard/
# nvme-swapguard.prom, a real node-exporter (Debian's
# prometheus-node-exporter, textfile collector only, as monitoring/
# daemonset.yaml runs it) serves that directory on a free port, and every
# step's scrape (curl) must pass `promtool check metrics` and carry the
# values of the daemon's state: idle, blocked (by a mount), unloaded,
# swapped (loaded by the daemon, or by an older image itself), the
# counters after a restart, restored, Mode=observe, and an
# NVMe over Fabrics connection pending across the unload.
# Env (set by meson): SWAPGUARD_DAEMON, NVME_SWAPGUARD_KMOD, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail
: "${WAIT_STATE_SEC:=20}"
node_dirs=(/var/lib /var/log/nvme-swapguard /dev)
. "$(dirname "$0")/../daemon/lib-daemon-fakeroot.sh"

exporter=$(command -v prometheus-node-exporter || command -v node_exporter) ||
  { echo "SKIP: prometheus-node-exporter not installed (Debian package prometheus-node-exporter)"; exit 77; }
command -v promtool >/dev/null || { echo "SKIP: promtool not installed (Debian package prometheus)"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 77; }

start_container() { start_node_container "$@"; }
exporter_pid=
prom_dir=/var/lib/nvme-swapguard
prom_file=$prom_dir/nvme-swapguard.prom

# The exporter is not in $pids: stop_daemon stops those and forgets the
# container then.
stop_exporter() {
  [ -n "$exporter_pid" ] || return 0
  kill "$exporter_pid" 2>/dev/null; wait "$exporter_pid" 2>/dev/null; exporter_pid=
}
trap 'stop_exporter; cleanup' EXIT

# A port nobody listens on now (the kernel's pick).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The exporter of this node, on the directory the daemon writes (made here
# first, as systemd's StateDirectory= makes it before the daemon starts).
start_exporter() {
  stop_exporter
  mkdir -p "$root$prom_dir"
  port=$(free_port)
  "$exporter" --collector.disable-defaults --collector.textfile \
    --collector.textfile.directory="$root$prom_dir" --web.disable-exporter-metrics \
    --web.listen-address="127.0.0.1:$port" >>"$tmp/exporter.log" 2>&1 &
  exporter_pid=$!
  local i
  for i in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/metrics" >/dev/null && return 0
    sleep 0.1
  done
  fail "node-exporter did not answer on port $port: $(tail -5 "$tmp/exporter.log")"
  return 1
}

# A sample value as the exporter prints it (1.764686461e+09).
num='[0-9.]+(e[+-][0-9]+)?'
# (The exporter sorts each series' labels by name.)

# One scrape into $tmp/scrape, checked by promtool.
scrape() {
  curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/scrape" || { fail "scrape of port $port failed"; return 1; }
  local out
  if out=$(promtool check metrics <"$tmp/scrape" 2>&1); then ok; else fail "promtool check metrics: $out"; fi
}

# Scrapes until the series line $1 (a regular expression for the whole
# line) is there, for up to WAIT_STATE_SEC s: the file is rewritten when the
# daemon's loop is idle after a transition. Then every further argument is
# a line that must be in that same scrape.
expect_series() {
  local deadline=$((SECONDS + WAIT_STATE_SEC)) want
  while :; do
    scrape || return 1
    grep -qxE -- "$1" "$tmp/scrape" && break
    if [ "$SECONDS" -ge "$deadline" ]; then
      fail "no series /$1/ in the scrape:"; grep '^nvme_swapguard_\|^node_textfile' "$tmp/scrape" | sed 's/^/    /'
      return 1
    fi
    sleep 0.2
  done
  ok
  # the file parsed (an error would show here) and is the one we wrote
  grep -qx 'node_textfile_scrape_error 0' "$tmp/scrape" && ok || fail "node_textfile_scrape_error is not 0"
  grep -qE "^node_textfile_mtime_seconds\\{file=\"([^\"]*/)?nvme-swapguard.prom\"\\} " "$tmp/scrape" && ok ||
    fail "no node_textfile_mtime_seconds for nvme-swapguard.prom"
  shift
  for want in "$@"; do
    grep -qxE -- "$want" "$tmp/scrape" && ok || { fail "no series /$want/ in the scrape"; grep '^nvme_swapguard_' "$tmp/scrape" | sed 's/^/    /'; }
  done
  # exactly one state is 1
  [ "$(grep -cE '^nvme_swapguard_state\{.*\} 1$' "$tmp/scrape")" = 1 ] && ok || fail "not exactly one state is 1"
}

case_swap_steps() {
new_node
fn mount nvme0n1p1 /var/lib/data xfs
start_exporter || return 1
start_daemon
wait_state idle || return 1
expect_series 'nvme_swapguard_state\{state="idle"\} 1' \
  'nvme_swapguard_mode\{mode="enforce"\} 1' \
  'nvme_swapguard_build_info\{version="[0-9.]+"\} 1' \
  'nvme_swapguard_live_build\{build="in-tree"\} 1' \
  'nvme_swapguard_module_info\{build="in-tree",module="nvme",origin="in-tree",srcversion="[^"]*"\} 1' \
  "nvme_swapguard_start_timestamp_seconds $num" \
  "nvme_swapguard_state_since_timestamp_seconds $num" \
  'nvme_swapguard_swaps_total 0' 'nvme_swapguard_refusals_total 0' 'nvme_swapguard_blockers\{kind="mount"\} 0' || return 1
start_container
wait_state blocked || return 1
expect_series 'nvme_swapguard_state\{state="blocked"\} 1' \
  'nvme_swapguard_blockers\{kind="mount"\} 1' 'nvme_swapguard_blockers\{kind="open"\} 0' \
  'nvme_swapguard_refusals_total 1' || return 1
# Re-checks that find it still in use are the same refusal, not new ones.
kill -HUP "$daemon_pid"; kill -HUP "$daemon_pid"
wait_log "Configuration reloaded" || fail "no reload"
expect_series 'nvme_swapguard_state\{state="blocked"\} 1' 'nvme_swapguard_refusals_total 1' || return 1
sed -i '\#/var/lib/data#d' "$root/proc/1/mountinfo"
kill -HUP "$daemon_pid"
wait_state unloaded-waiting-driver || return 1
expect_series 'nvme_swapguard_state\{state="unloaded-waiting-driver"\} 1' \
  'nvme_swapguard_blockers\{kind="mount"\} 0' 'nvme_swapguard_live_build\{build="absent"\} 1' || return 1
ready
wait_state swapped || return 1
expect_series 'nvme_swapguard_state\{state="swapped"\} 1' \
  'nvme_swapguard_swaps_total 1' 'nvme_swapguard_live_build\{build="(nvidia|out-of-tree)"\} 1' \
  'nvme_swapguard_gds_hooks_present 1' \
  'nvme_swapguard_module_info\{build="container",module="nvme",origin="(nvidia|out-of-tree)",srcversion="[^"]*"\} 1' \
  "nvme_swapguard_last_swap_timestamp_seconds $num" \
  "nvme_swapguard_last_swap_duration_seconds $num" \
  "nvme_swapguard_last_swap_driverless_seconds $num" || return 1
since=$(sed -n 's/^nvme_swapguard_state_since_timestamp_seconds //p' "$tmp/scrape")
# The counters outlive the daemon: a restart reads them back from the file.
kill -TERM "$daemon_pid"; wait "$daemon_pid"; daemon_pid=
start_daemon
wait_log "nvme-swapguard started in state swapped" || fail "the daemon did not start again"
expect_series 'nvme_swapguard_state\{state="swapped"\} 1' 'nvme_swapguard_swaps_total 1' \
  'nvme_swapguard_refusals_total 1' 'nvme_swapguard_restores_total 0' || return 1
# ...and so does the time the state was entered: resumed in the same state.
again=$(sed -n 's/^nvme_swapguard_state_since_timestamp_seconds //p' "$tmp/scrape")
[ -n "$since" ] && [ "$since" = "$again" ] && ok || fail "state_since $since before the restart, $again after"
expect_no_log "Ignoring the counters"
# No temporary file is left for the collector to read (it reads *.prom only).
[ "$(find "$root$prom_dir" -name '*.prom' | wc -l)" = 1 ] && ok || fail "files: $(ls -a "$root$prom_dir")"
[ "$(stat -c %a "$root$prom_file")" = 644 ] && ok || fail "mode $(stat -c %a "$root$prom_file"), expected 644"
stop_daemon
stop_container
}
run_case swap-steps

case_restored() {
new_node
start_exporter || return 1
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
stop_container
wait_state restored || return 1
expect_series 'nvme_swapguard_state\{state="restored"\} 1' 'nvme_swapguard_restores_total 1' \
  'nvme_swapguard_swaps_total 0' 'nvme_swapguard_live_build\{build="in-tree"\} 1' \
  'nvme_swapguard_restore_reason\{reason="abandoned"\} 1' || return 1
stop_daemon
}
run_case restored

# An older image loads the build itself: a swap all the same.
case_older_image() {
new_node
start_exporter || return 1
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
croot=$root/proc/$container_pid/root/lib/modules/$rel
NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root LD_PRELOAD=$FAKE_KERNEL_SO \
  python3 - "$croot" <<'PY' || true
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
for m in ("nvme-core", "nvme"):
    data = open(f"{sys.argv[1]}/extra/mlnx-nvme/host/{m}.ko", "rb").read()
    libc.init_module(data, len(data), b"")
PY
ready
wait_state swapped || return 1
expect_series 'nvme_swapguard_state\{state="swapped"\} 1' 'nvme_swapguard_swaps_total 1' \
  "nvme_swapguard_last_swap_driverless_seconds $num" || return 1
stop_daemon
stop_container
}
run_case older-image

case_observe() {
new_node
mkdir -p "$root/etc/nvme-swapguard"
printf '[Swap]\nMode=observe\n' >"$root/etc/nvme-swapguard/nvme-swapguard.conf"
fn mount nvme0n1p1 /var/lib/data xfs
start_exporter || return 1
start_daemon
start_container
wait_state blocked || return 1
# what would block is told; a rehearsal counts no refusal
expect_series 'nvme_swapguard_state\{state="blocked"\} 1' 'nvme_swapguard_mode\{mode="observe"\} 1' \
  'nvme_swapguard_blockers\{kind="mount"\} 1' 'nvme_swapguard_refusals_total 0' || return 1
sed -i '\#/var/lib/data#d' "$root/proc/1/mountinfo"
kill -HUP "$daemon_pid"
wait_state would-unload || return 1
expect_series 'nvme_swapguard_state\{state="would-unload"\} 1' 'nvme_swapguard_mode\{mode="observe"\} 1' \
  'nvme_swapguard_live_build\{build="in-tree"\} 1' 'nvme_swapguard_refusals_total 0' \
  'nvme_swapguard_blockers\{kind="mount"\} 0' 'nvme_swapguard_swaps_total 0' || return 1
stop_daemon
stop_container
}
run_case observe

# The fabrics node of tests/daemon/daemon-fabrics-fakeroot.sh: one NVMe/TCP
# connection, dropped by the unload, pending until the load.
NQN=nqn.2026-12.io.swapguard:fake-target
case_fabrics_pending() {
# NVIDIA's build with nvme_tcp (without it the container is no build: no unload)
fake_node_nvidia_build() {
  fn ko "$1" extra/mlnx-nvme/host/nvme-core.ko nvme_core t10-pi - fake_taint=OE
  fn ko "$1" extra/mlnx-nvme/host/nvme.ko nvme nvme-core - fake_taint=OE fake_exports=nvme_v1_register_nvfs_dma_ops
  fn ko "$1" extra/mlnx-nvme/host/nvme-fabrics.ko nvme_fabrics nvme-core - fake_taint=OE
  fn ko "$1" extra/mlnx-nvme/host/nvme-tcp.ko nvme_tcp nvme-fabrics,nvme-core - fake_taint=OE
  fn modules-dep "$1"
}
new_node
fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme-fabrics.ko nvme_fabrics nvme-core -
fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme-tcp.ko nvme_tcp nvme-fabrics,nvme-core -
fn modules-dep /lib/modules/$rel
fn module nvme_core -1 nvme,nvme_fabrics,nvme_tcp
fn module nvme_fabrics -1 nvme_tcp
fn module nvme_tcp 0 -
fn fabrics 1 tcp 127.0.0.1 4420 "$NQN" 1:-:27270000-0000-4000-8000-00000000f001
start_exporter || return 1
# The capture before the unload is nvme-swapguard-fabrics.service's (its
# stand-in runs the real CLI's serve-request on this node).
start_fabrics_unit
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
expect_series 'nvme_swapguard_fabrics_connections\{state="pending"\} 1' \
  'nvme_swapguard_fabrics_connections\{state="back"\} 0' 'nvme_swapguard_fabrics_connections\{state="lost"\} 0' \
  'nvme_swapguard_state\{state="unloaded-waiting-driver"\} 1' || return 1
stop_daemon
stop_container
}
run_case fabrics-pending

echo "metrics-fakeroot: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
