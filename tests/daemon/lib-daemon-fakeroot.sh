# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# The harness the fake-node daemon suites share (daemon-fakeroot.sh,
# daemon-lifecycle-fakeroot.sh, daemon-podend-fakeroot.sh,
# daemon-observe-fakeroot.sh, daemon-valgrind-fakeroot.sh): the daemon binary
# on a fake node (tests/fakeroot: fake-node + the fake kernel LD_PRELOAD
# shim, lib-fake-node.sh's node), a real process standing in for the driver
# container. Sourced, after `set -uo pipefail`, as
#   . "$(dirname "$0")/lib-daemon-fakeroot.sh"
# It skips (exit 77) without SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE (set
# by meson) or python3, makes $tmp (removed at exit unless KEEP_TMP is set)
# with a trap that kills what is left running, and gives:
#   fail/ok (counted in $failures/$checks), fn (fake-node on $root),
#   field/state (the state file), wait_state (polls for up to WAIT_STATE_SEC
#   s of wall clock, 30 unless the script or the environment sets it),
#   wait_log, expect_log/expect_no_log/expect_kernel/expect_no_kernel,
#   new_node (lib-fake-node.sh's in-tree node at $tmp/root-$case, plus the
#   directories in node_dirs), start_container (a CRI-O container written
#   here: id, build|nobuild, env; CREATED= for a created one; its pid in
#   $container_pid and $pids), start_node_container (one fake-node's
#   `container` writes, $ID; its pid in $container_pid only), stop_container,
#   start_daemon/stop_daemon (stop_daemon also stops what is in $pids),
#   ready/unready ($ready_path), run_case (a case_<name> function),
#   $rel, $ID, $ID_A, $ID_B, $guard_file.
# A script sets $case (directly or through run_case) before new_node and the
# checks, and may set WAIT_STATE_SEC (a default: `: "${WAIT_STATE_SEC:=20}"`)
# and node_dirs before or after sourcing; it may override any function after.
# shellcheck source=../fakeroot/lib-fake-node.sh
. "$(dirname "${BASH_SOURCE[0]}")/../fakeroot/lib-fake-node.sh"

for v in SWAPGUARD_DAEMON FAKE_KERNEL_SO FAKE_NODE; do
  if [ -z "${!v:-}" ] || [ ! -e "${!v}" ]; then
    echo "SKIP: $v is not set or missing (run through meson test)"; exit 77
  fi
done
command -v python3 >/dev/null || { echo "SKIP: python3 needed to read the state file"; exit 77; }

tmp=$(mktemp -d "/tmp/sg-$(basename "$0" .sh)-XXXXXX")
daemon_pid=
container_pid=
pids=()
cleanup() {
  [ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null
  [ -n "$container_pid" ] && kill -9 "$container_pid" 2>/dev/null
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
rel=6.1.0-fake-amd64
failures=0
checks=0
case=
# shellcheck disable=SC2034 # for the scripts
ID=3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3
# shellcheck disable=SC2034
ID_A=aaaa2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3
# shellcheck disable=SC2034
ID_B=bbbb2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3
# shellcheck disable=SC2034
guard_file=/run/nvme-swapguard/reload-blocked
# shellcheck disable=SC2034
gate_file=/run/modprobe.d/nvme-swapguard.conf
: "${WAIT_STATE_SEC:=30}"
[ -n "${node_dirs+set}" ] || node_dirs=()

fail() { echo "FAIL [$case]: $*"; failures=$((failures + 1)); }
ok() { checks=$((checks + 1)); }
fn() { "$FAKE_NODE" "$root" "$@" || fail "fake-node $*"; }
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]) or "")' \
            "$root/run/nvme-swapguard/state.json" "$1" 2>/dev/null; }
state() { field state || echo none; }

# The test waits (the daemon does not): poll the state file for up to
# WAIT_STATE_SEC s; a state that never comes ends the case (run_case).
wait_state() {
  local want=$1 deadline=$((SECONDS + WAIT_STATE_SEC))
  while [ "$SECONDS" -lt "$deadline" ]; do
    [ "$(state)" = "$want" ] && { ok; return 0; }
    sleep 0.1
  done
  fail "state is $(state), expected $want; daemon output:"; sed 's/^/    /' "$tmp/daemon.log" | tail -20
  return 1
}
# Until the daemon's output has /$1/, for up to $2 (20) s; no check of its own.
wait_log() {
  local deadline=$((SECONDS + ${2:-20}))
  while [ "$SECONDS" -lt "$deadline" ]; do
    grep -qE -- "$1" "$tmp/daemon.log" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
expect_log() { grep -qE -- "$1" "$tmp/daemon.log" && ok || fail "daemon output lacks /$1/"; }
expect_no_log() { grep -qE -- "$1" "$tmp/daemon.log" && fail "daemon output has /$1/" || ok; }
expect_kernel() { grep -qE -- "$1" "$tmp/kernel.log" 2>/dev/null && ok || fail "kernel log lacks /$1/: $(cat "$tmp/kernel.log" 2>/dev/null)"; }
expect_no_kernel() { grep -qE -- "$1" "$tmp/kernel.log" 2>/dev/null && fail "kernel log has /$1/: $(cat "$tmp/kernel.log")" || ok; }

new_node() {
  root=$tmp/root-$case
  rm -f "$tmp/kernel.log" "$tmp/daemon.log"
  fake_node_in_tree
  local d
  for d in "${node_dirs[@]}"; do mkdir -p "$root$d"; done
}

# A process standing in for a driver container's init. $1 id, $2 "build" or
# "nobuild" (its tree; "build-own-auth": one shipping its own nvme_auth, for
# fake_node_in_tree_612), $3 extra process.env entries as JSON strings.
start_container() {
  local id=$1 tree=$2 env=${3:-'"ENABLE_NFSRDMA=true"'}
  sleep 600 &
  local pid=$!
  pids+=("$pid")
  container_pid=$pid
  local croot=/proc/$pid/root/lib/modules/$rel
  mkdir -p "$root/proc/$pid" "$root$croot"
  # CREATED=1: CRI-O's create without the start: the runtime's init (runc) waits
  [ -n "${CREATED:-}" ] && ln -sfn /usr/bin/runc "$root/proc/$pid/exe"
  echo "0::/kubepods.slice/kubepods-pod1.slice/crio-$id.scope" > "$root/proc/$pid/cgroup"
  # privileged, in the host's user namespace (trust's check; as fake-node's `container` writes it)
  local name=entrypoint
  # CREATED=runc-init: runc 1.1.5's created container as the shipped unit
  # sees it on Linux 6.1 (tests/daemon/vm-crio/crio-create-and-reload.sh):
  # named "runc:[2:INIT]", waiting on /run/runc/<id>/exec.fifo; its exe is
  # scripted unreadable (EACCES) by the case.
  if [ "${CREATED:-}" = runc-init ]; then
    name='runc:[2:INIT]'
    mkdir -p "$root/run/runc/$id" && mkfifo "$root/run/runc/$id/exec.fifo"
  fi
  # CREATED=crun-init: crun 1.8.1's, as seen there: a fork of `crun create`
  # named "crun", waiting on /run/crun/<id>/exec.fifo.
  if [ "${CREATED:-}" = crun-init ]; then
    name=crun
    mkdir -p "$root/run/crun/$id" && mkfifo "$root/run/crun/$id/exec.fifo"
  fi
  printf 'Name:\t%s\nCapEff:\t000001ffffffffff\n' "$name" > "$root/proc/$pid/status"
  mkdir -p "$root/proc/1/ns" "$root/proc/$pid/ns"
  [ -e "$root/proc/1/ns/user" ] || echo "user:[4026531837]" > "$root/proc/1/ns/user"
  ln -f "$root/proc/1/ns/user" "$root/proc/$pid/ns/user"
  if [ "$tree" = build ]; then
    fake_node_nvidia_build $croot
  elif [ "$tree" = build-own-auth ]; then
    fake_node_nvidia_build_own_auth $croot
  fi
  local d=$root/run/containers/storage/overlay-containers/$id/userdata
  mkdir -p "$d"
  cat > "$d/.config.json.tmp" <<JSON
{"ociVersion":"1.0.2-dev","process":{"args":["/root/entrypoint.sh"],"env":["PATH=/usr/bin",$env]},
 "annotations":{"io.kubernetes.container.name":"mofed-container",
  "io.kubernetes.cri-o.Created":"$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)",
  "io.kubernetes.pod.name":"mofed-rhcos4.16-7d9f6b8c5d-ds-${id:0:5}",
  "io.kubernetes.pod.namespace":"nvidia-network-operator"}}
JSON
  mv "$d/.config.json.tmp" "$d/config.json"
  echo "$pid" > "$d/.pidfile.tmp" && mv "$d/.pidfile.tmp" "$d/pidfile"
}

# The same stand-in with its store entry written by fake-node's `container`
# ($ID; $1 namespace, $2 container name, $3 CapEff, $4 user namespace), and
# NVIDIA's build in its tree. Not in $pids: stop_daemon leaves it running
# (stop_container stops it).
start_node_container() {
  local ns=${1:-nvidia-network-operator} name=${2:-mofed-container} capeff=${3:-000001ffffffffff} userns=${4:-}
  sleep 600 &
  container_pid=$!
  local croot=/proc/$container_pid/root/lib/modules/$rel
  # NVIDIA's build: out-of-tree, depends on nothing the host lacks, GDS hooks exported
  fake_node_nvidia_build $croot
  # last: the store entry is what tells the daemon the container started
  # shellcheck disable=SC2086 # no user namespace: no argument
  fn container $container_pid $ID "$ns" "$name" "$capeff" $userns
}

stop_container() {
  kill "$container_pid" 2>/dev/null; wait "$container_pid" 2>/dev/null; container_pid=
}

# The unit's ExecStartPre=+: root writes the reload gate the daemon's flag
# acts through (the fake node has no modprobe: a stand-in, never run).
install_gate() {
  [ -x "$root/sbin/modprobe" ] || { mkdir -p "$root/sbin" && printf '#!/bin/sh\nexit 1\n' >"$root/sbin/modprobe" && chmod 0755 "$root/sbin/modprobe"; }
  "$NVME_SWAPGUARD_KMOD" --root "$root" reload-block install-gate >>"$tmp/daemon.log" 2>&1 || fail "reload-block install-gate"
}

start_daemon() {
  install_gate
  NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
    LD_PRELOAD=$FAKE_KERNEL_SO "$SWAPGUARD_DAEMON" --root "$root" --log-target stderr "$@" \
    >>"$tmp/daemon.log" 2>&1 &
  daemon_pid=$!
}

stop_daemon() {
  kill -TERM "$daemon_pid" 2>/dev/null
  wait "$daemon_pid"; local rc=$?
  daemon_pid=
  [ "$rc" -eq 0 ] && ok || fail "daemon exited $rc on SIGTERM"
  [ ${#pids[@]} -gt 0 ] || return 0
  # The helpers started beside the daemon (a stand-in unit, a script's
  # processes); the container is forgotten only if it was one of them,
  # else stop_container (or cleanup) still has to end it.
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null
    [ "$p" != "$container_pid" ] || container_pid=
  done
  wait "${pids[@]}" 2>/dev/null
  pids=()
}

ready_path=/run/mellanox/drivers/.driver-ready
ready() { mkdir -p "$root/run/mellanox/drivers" && touch "$root$ready_path"; }
unready() { rm -f "$root$ready_path"; }

# A case is a function that ends at the first state that does not come
# (wait_state says which, and the daemon's last lines): its later steps
# would only wait in turn. What it left running is stopped and the next
# case runs, so one missing state is one failure, within the case's own
# waits (WAIT_STATE_SEC each), not the suite's timeout hiding the rest.
run_case() {
  case=$1
  local fn=case_${1//-/_}
  "$fn" && return 0
  echo "FAIL [$case]: case abandoned; the next cases still run"
  [ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null
  daemon_pid=
  [ -n "$container_pid" ] && kill -9 "$container_pid" 2>/dev/null
  container_pid=
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  pids=()
}

# A stand-in for nvme-swapguard-fabrics.path + .service, as unkind as
# systemd is: it starts only when the request file exists, runs one at a
# time (a request written meanwhile starts it again once it is done), and
# the daemon learns nothing but what result.json says. By default it runs
# the real CLI, `$NVME_SWAPGUARD_KMOD fabrics serve-request FILE`, under the
# fake kernel; with $tmp/fabrics.script it answers from that script instead,
# one line per request, in order:
#   silent                 removes the request, never answers
#   hang SECONDS           removes the request, answers nothing for SECONDS
#                          (a connect the kernel holds), then "answer" below
#   answer EXIT CONNS      result.json {"exit": EXIT, "connections": [CONNS]},
#                          CONNS with @NOW+N@ replaced by realtime usec now+N s
#   error TEXT             the verb failed as a whole: exit 1, "error": TEXT
# Each run is logged to $tmp/fabrics-unit.log ("<verb> <token>").
start_fabrics_unit() {
  (
    req=$root/run/nvme-swapguard/fabrics-request
    dir=$root/run/nvme-swapguard-fabrics
    n=0
    while :; do
      if [ ! -e "$req" ]; then sleep 0.05; continue; fi
      verb=$(sed -n 's/^verb=//p' "$req") token=$(sed -n 's/^token=//p' "$req")
      echo "$verb $token" >> "$tmp/fabrics-unit.log"
      if [ ! -e "$tmp/fabrics.script" ]; then
        NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
          LD_PRELOAD=$FAKE_KERNEL_SO "$NVME_SWAPGUARD_KMOD" --root "$root" fabrics serve-request \
          /run/nvme-swapguard/fabrics-request \
          >>"$tmp/fabrics-unit.log" 2>&1
        [ -e "$req" ] && [ "$(sed -n 's/^token=//p' "$req")" = "$token" ] && rm -f "$req"
        continue
      fi
      n=$((n + 1))
      line=$(sed -n "${n}p" "$tmp/fabrics.script")
      rm -f "$req"
      mkdir -p "$dir"
      set -- $line
      what=${1:-silent}
      case $what in
        silent) continue ;;
        hang) sleep "$2"; shift 2; what=answer ;;
      esac
      if [ "$what" = error ]; then
        shift
        printf '{"token": %s, "verb": "%s", "finished_at": 1, "exit": 1, "error": "%s", "connections": []}\n' \
          "$token" "$verb" "$*" > "$dir/result.json.tmp"
      else
        exit_code=$2; shift 2
        conns=$(python3 -c 'import re,sys,time; now=int(time.time()*1e6)
print(re.sub(r"@NOW\+(\d+)@", lambda m: str(now + int(m.group(1)) * 1000000), sys.argv[1]))' "$*")
        printf '{"token": %s, "verb": "%s", "finished_at": 1, "exit": %s, "error": null, "connections": [%s]}\n' \
          "$token" "$verb" "$exit_code" "$conns" > "$dir/result.json.tmp"
      fi
      mv "$dir/result.json.tmp" "$dir/result.json"
    done
  ) &
  fabrics_unit_pid=$!
  pids+=("$fabrics_unit_pid")
}
