#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fault-injection matrix: every module call of a swap fails in turn,
# through the CLI and through the daemon binary, and the daemon meets the
# faults of a real node (SIGKILL at every state, uevent overflow, the
# container vanishing, its root gone, no ready file). Over the fake root of
# tests/fakeroot (fake-node + the fake kernel shim), with fault-hooks.so in
# front of the fake kernel for stalls, slow module calls and ENOBUFS.
#
# The node: t10_pi, nvme_core, nvme, nvme_fabrics, nvme_tcp loaded (in-tree);
# nvme0n1 (PCIe, one partition) and nvme1n1 (a multipath head, the case
# where `rmmod nvme` loses data). "inuse" rows mount nvme1n1 first;
# "midmount" rows mount it right after one removal of the unload.
#
# Checked in EVERY row (check_invariant):
#   - if a namespace was in use, no delete_module reached the kernel while it
#     was (none at all for inuse rows, none after the mount for midmount);
#   - the node ends swapped (nvme_core nvme nvme_fabrics nvme_tcp all loaded,
#     all the out-of-tree build) or in-tree (those four and t10_pi loaded, all
#     in-tree), never half of each nor without a driver, and both namespaces
#     are present;
#   - the CLI's output or the daemon's journal fields say which (SWAPPED, or
#     RESTORED/FAILED/BLOCKED/STOP_RESTORED) and why (the module and the
#     error of a fault that was not absorbed by a retry).
#
# podend rows: the pod's end, the daemon taking its build back.
# Usage: faults-matrix.sh            run every row (JOBS=3 at a time; ROWS=<regex> picks rows)
#        faults-matrix.sh --list     print the rows
#        faults-matrix.sh ROW...     run these rows, verbose (KEEP_TMP=1 keeps files)
# Env (set by meson): SWAPGUARD_KMOD, SWAPGUARD_DAEMON, FAKE_KERNEL_SO,
# FAULT_HOOKS_SO, FAKE_NODE.
set -uo pipefail

for v in SWAPGUARD_KMOD SWAPGUARD_DAEMON FAKE_KERNEL_SO FAULT_HOOKS_SO FAKE_NODE; do
  if [ -z "${!v:-}" ] || [ ! -e "${!v}" ]; then
    echo "SKIP: $v is not set or missing (run through meson test --suite faults)"; exit 77
  fi
done

# A sleep without a process (process creation is slow on shared CI machines).
exec {nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$nap_fd" _ || :; }

rel=6.1.0-fake-amd64
STACK="nvme_core nvme nvme_fabrics nvme_tcp"
ERRNOS="EAGAIN EBUSY EPERM ENOENT EKEYREJECTED ENOEXEC"
ID=3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3
# journal MESSAGE_IDs (daemon/publish/message-ids.h)
MID_SWAPPED=d52b71b7f0f044ca8ed598ab2090efd0
MID_RESTORED=bf54ca7d2bec4edaa11caff4a4613f1a
MID_FAILED=f52b7f6f00e0428aa7aedd0840ea6eb4
MID_BLOCKED=d26a0597308b450481324cf4e89b659b
MID_STOP_RESTORED=7bc368d6005b4d99b5e15d0902c4c229
MID_RELOAD=33be6ddb5194470aa0a57242da70fff5

# Rows that fail for a bug not fixed yet: reported as XFAIL with the reason,
# so the matrix stays green while it says what is open; a listed row that
# passes fails the run (XPASS) until it is taken off the list.
declare -A KNOWN_BUGS=(
  # [row]="why it fails, where the fix belongs"
)

strerror_of() {
  case $1 in
    EAGAIN) echo "Resource temporarily unavailable" ;;
    EBUSY) echo "Device or resource busy" ;;
    EPERM) echo "Operation not permitted" ;;
    ENOENT) echo "No such file or directory" ;;
    EKEYREJECTED) echo "Key was rejected by service" ;;
    ENOEXEC) echo "Exec format error" ;;
  esac
}

# ---- the rows ------------------------------------------------------------

list_rows() {
  local m e u
  for u in free inuse; do
    for m in nvme_tcp nvme_fabrics nvme nvme_core; do
      for e in $ERRNOS; do echo "cli:unload:$m:$e:$u"; done
    done
  done
  for m in $STACK; do
    for e in $ERRNOS; do echo "cli:load:$m:$e:free"; echo "cli:restore:$m:$e:free"; done
  done
  for m in nvme_tcp nvme_fabrics nvme; do echo "cli:midmount:$m:-:free"; done
  # The CLI's own restore after a failed load --from: the load
  # fails for good, and the in-tree stack is put back by the same command;
  # "unrestored": the restore meets the same refusal, exit 4 saying so, and
  # the operator's restore then brings the stack back.
  for m in $STACK; do
    for e in EKEYREJECTED EPERM ENOEXEC; do echo "cli:load-restored:$m:$e:free"; done
    echo "cli:load-unrestored:$m:EKEYREJECTED:free"
  done

  for m in nvme_tcp nvme_fabrics nvme nvme_core; do
    for e in $ERRNOS; do echo "daemon:unload:$m:$e:free"; done
  done
  # In use, the guard refuses before any removal: the fault is never reached
  # and its errno does not matter; one row per module (the CLI has them all).
  set -- $ERRNOS
  for m in nvme_tcp nvme_fabrics nvme nvme_core; do echo "daemon:unload:$m:$1:inuse"; shift; done
  for m in $STACK; do
    for e in $ERRNOS; do echo "daemon:load:$m:$e:free"; echo "daemon:restore:$m:$e:free"; done
  done
  for m in nvme_tcp nvme_fabrics nvme; do echo "daemon:midmount:$m:-:free"; done

  for s in idle container-seen unloading blocked unloaded-waiting-driver loading swapped restoring restored failed \
           repairing; do
    echo "kill:$s"
  done
  for c in reload-behind build-removed blocked-cleared container-gone; do echo "enobufs:$c"; done
  for c in dir-then-kill kill-then-dir kill-and-ready during-load; do echo "vanish:$c"; done
  for c in root-gone tree-gone; do echo "noroot:$c"; done
  # A new driver container whose store entry comes while the earlier one's
  # goes, in each order, and with the inotify faults of a busy node.
  for c in remove-then-create create-then-remove pidfile-first userdata-first overflow watch-fails-once \
           gone-before-watch; do
    echo "store:$c"
  done
  for c in container-start driver-ready blocked; do echo "noready:$c"; done

  # pin: a mount that appears during a retry's back-off and during
  # a rollback, probe errors; none may end with a module removed under a user.
  for m in nvme_tcp nvme_fabrics nvme nvme_core; do echo "pin:cli:backoff:$m"; echo "pin:daemon:backoff:$m"; done
  echo "pin:cli:rollback:nvme_fabrics"; echo "pin:daemon:rollback:nvme_fabrics"
  for e in EACCES EIO; do echo "pin:cli:probe:$e"; echo "pin:daemon:probe:$e"; done
  echo "pin:cli:probe:fd-dir"; echo "pin:daemon:probe:fd-dir"
  echo "pin:daemon:foreign:-"
  # the watch's blind spots: held only by a plain open (or by a process whose
  # open files cannot be read) when a driver container is created
  for c in open fd-dir; do echo "pin:daemon:create:$c"; done

  # The driver container's whole life.
  for c in earlier-build earlier-build-driver-ready earlier-build-inuse stale-ready no-build no-nfsrdma \
           broken-behind kill-no-build; do
    echo "lifecycle:$c"
  done
  # A transient answer while the earlier build is taken out is absorbed by
  # the guard's retry. (A permanent one leaves the earlier build working and
  # the daemon failed: covered by the state table, not a row here.)
  for m in nvme nvme_core; do echo "lifecycle:earlier-build-unload:$m:EAGAIN"; done
  # nvidia_fs seen while swapped (its uevent lost: the overflow's rescan):
  # asks for the other hook generation; its file a FIFO; its file absent.
  for c in nvfs-mismatch nvfs-fifo nvfs-nofile; do echo "lifecycle:$c"; done
  # Switching Mode= by a restart, here the harshest one (SIGKILL).
  for c in observe-enforce observe-ready-enforce observe-blocked-enforce enforce-unloaded-observe \
           enforce-swapped-observe; do
    echo "switch:$c"
  done
  # The repair of a stack broken while the ready file is awaited meets a
  # fault in the insert of the in-tree nvme: absorbed by the retry, or
  # failed naming the module and the error.
  for e in EAGAIN EPERM; do echo "lifecycle:repair-restore:nvme:$e"; done
  # Created, never started (its process still the runtime's init; its exec
  # fifo there), then gone: nothing touched. "unreadable": nothing about
  # the process can be read, which is "cannot tell", not "created".
  for c in runc crun unreadable; do echo "lifecycle:created:$c"; done
  # Created, then started in its runtime's order (runc 1.1: the exec, then
  # the fifo goes; crun: the fifo goes, then the exec): the start is seen
  # through the watched fifo, not a timer, and the swap follows.
  for c in runc crun; do echo "lifecycle:fifo-start:$c"; done
  # nvme_rdma is loaded from the container's tree only with
  # UNLOAD_STORAGE_MODULES=true (the entrypoint refuses to start otherwise).
  for c in unset false true; do echo "lifecycle:nvme-rdma:$c"; done

  # The pod's end: the container whose build is loaded is killed
  # (RESTORE_DRIVER_ON_POD_TERMINATION=true): the daemon takes its build back;
  # a transient answer in the take-back's unload or in the in-tree load is
  # absorbed by the guard's retry; a namespace in use blocks it until the use
  # ends; with false the build stays.
  for c in take-back inuse false; do echo "podend:$c"; done
  echo "podend:take-back-unload:nvme:EAGAIN"; echo "podend:take-back-restore:nvme:EAGAIN"

  # NVMe over Fabrics: the node also has an NVMe/TCP connection;
  # SIGKILL between the unload that dropped it and its reconnect (waiting for
  # the ready file, mid-load, mid-restore): the restarted daemon reconnects
  # from the record the unload left.
  for c in kill-unloaded kill-loading kill-restoring; do echo "fabrics:$c"; done

  # The load's deadline: the insert of the container's nvme_core
  # takes 1.5 s (fault-hooks' FAULT_DELAY); past a deadline of 1 s the load
  # stops, rolls back, and the in-tree stack comes back. "within": the same
  # slow insert under a longer deadline is a swap.
  echo "deadline:cli:past"; echo "deadline:cli:within"; echo "deadline:daemon:past"
}

# ---- one row: the world --------------------------------------------------
# Everything below runs inside one row's subshell with its own $tmp.

daemon_pid=
container_pid=
fail_msgs=()
fail() { fail_msgs+=("$*"); }
note() { [ -n "${VERBOSE:-}" ] && echo "  .. $*"; return 0; }
fn() { "$FAKE_NODE" "$root" "$@" || fail "fake-node $*"; }

row_cleanup() {
  [ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null
  [ -n "$container_pid" ] && kill -9 "$container_pid" 2>/dev/null
  wait 2>/dev/null
}

# The node every row starts from, built once per run (process creation is
# the cost here): $TEMPLATE/root, with NVIDIA's build in a container root at
# /proc/4242/root that rows copy to their container's pid.
build_template() {
  local t=/lib/modules/$rel c=/proc/4242/root/lib/modules/$rel
  root=$TEMPLATE/root
  fn init $rel
  fn ko $t kernel/block/t10-pi.ko t10_pi - -
  fn ko $t kernel/drivers/nvme/host/nvme-core.ko nvme_core t10-pi -
  fn ko $t kernel/drivers/nvme/host/nvme.ko nvme nvme-core -
  fn ko $t kernel/drivers/nvme/host/nvme-fabrics.ko nvme_fabrics nvme-core -
  fn ko $t kernel/drivers/nvme/host/nvme-tcp.ko nvme_tcp nvme-core,nvme-fabrics -
  fn modules-dep $t
  fn module t10_pi -1 nvme_core
  fn module nvme_core -1 nvme,nvme_fabrics,nvme_tcp
  fn module nvme_fabrics -1 nvme_tcp
  fn module nvme_tcp 0 -
  fn module nvme 0 -
  fn namespace 0 1 partitions=1
  fn namespace 1 1 multipath
  mkdir -p "$root/run/containers/storage/overlay-containers" "$root/etc/nvme-swapguard"
  fn ko $c extra/mlnx-nvme/host/nvme-core.ko nvme_core t10-pi - fake_taint=OE
  fn ko $c extra/mlnx-nvme/host/nvme.ko nvme nvme-core - fake_taint=OE fake_exports=nvme_v1_register_nvfs_dma_ops
  fn ko $c extra/mlnx-nvme/host/nvme-fabrics.ko nvme_fabrics nvme-core - fake_taint=OE
  fn ko $c extra/mlnx-nvme/host/nvme-tcp.ko nvme_tcp nvme-core,nvme-fabrics - fake_taint=OE
  fn modules-dep $c
}

new_node() {
  root=$tmp/root
  cp -a "$TEMPLATE/root" "$root" || fail "cannot copy the template node"
}

# NVIDIA's build in the root of the container's process, as the driver
# container leaves it.
container_tree() {
  mkdir -p "$root/proc/$1"
  [ -d "$root/proc/$1/root" ] || cp -a "$TEMPLATE/root/proc/4242/root" "$root/proc/$1/root"
}

mount_in_use() { fn mount nvme1n1 /var/lib/kubelet xfs; }

# slurp FILE: its text in $REPLY, without a process.
slurp() { REPLY=; [ -r "$1" ] && IFS= read -r -d '' REPLY < "$1"; return 0; }

# The node at the end: "swapped", "in-tree", or what is wrong with it.
node_verdict() {
  local m oot=0 intree=0 missing= mods
  slurp "$root/proc/modules"; mods=$REPLY
  for m in $STACK t10_pi; do
    if ! [[ $'\n'$mods == *$'\n'"$m "* ]]; then
      missing+=" $m"; continue
    fi
    [ $m = t10_pi ] && continue
    slurp "$root/sys/module/$m/taint"
    case $REPLY in *O*) oot=$((oot + 1)) ;; *) intree=$((intree + 1)) ;; esac
  done
  if [ -z "$missing" ] && [ $oot -eq 4 ]; then echo swapped
  elif [ -z "$missing" ] && [ $intree -eq 4 ]; then echo in-tree
  else echo "broken: ${oot} out-of-tree, ${intree} in-tree, missing:${missing:- none}"
  fi
}

namespaces_present() {
  local ns
  for ns in nvme0n1 nvme0n1p1 nvme1n1; do
    [ -e "$root/sys/class/block/$ns" ] || { fail "namespace $ns gone"; return; }
  done
}

# In-use invariant from the fake kernel's log: nothing removed while in use.
check_not_touched_while_in_use() {
  local klog after
  slurp "$tmp/kernel.log"; klog=$'\n'$REPLY
  case $usage in
    inuse)
      [[ $klog == *$'\n'delete_module* ]] && fail "delete_module while nvme1n1 was mounted: ${klog//$'\n'/;}" ;;
    midmount)
      if [[ $klog != *$'\n'then-mount* ]]; then fail "the scripted mount never happened"; return; fi
      after=${klog#*$'\n'then-mount}
      [[ $after == *$'\n'delete_module* ]] && fail "delete_module after nvme1n1 got mounted: ${klog//$'\n'/;}" ;;
  esac
}

# ---- the CLI ---------------------------------------------------------------

kmod_rc=0
kmod_out=
# kmod STEP ARGS: the CLI under the fake kernel; the fault script is given
# only to the step it targets, until it fired once. With kmod_hooks set,
# fault-hooks.so goes in front (FAULT_DELAY and the like from the caller's
# environment).
kmod() {
  local step=$1; shift
  local script=
  [ "$step" = "$fault_step" ] && [ "$fired" = 0 ] && script=$tmp/fault.script
  kmod_out=$(NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
    FAKE_KERNEL_SCRIPT=$script ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
    LD_PRELOAD=${kmod_hooks:+$FAULT_HOOKS_SO:}$FAKE_KERNEL_SO "$SWAPGUARD_KMOD" --root "$root" "$step" "$@" 2>&1)
  kmod_rc=$?
  echo "== $step $* -> $kmod_rc" >> "$tmp/cli.log"
  echo "$kmod_out" >> "$tmp/cli.log"
  slurp "$tmp/kernel.log"
  if [ "$fired" = 0 ] && [[ $REPLY == *scripted* ]]; then
    fired=1
    fired_step=$step
    fired_out=$kmod_out
    fired_rc=$kmod_rc
  fi
  note "$step $* -> $kmod_rc"
}

MODS=(--module nvme_core --module nvme --module nvme_fabrics --module nvme_tcp)

# cli:load-restored|load-unrestored: the load's own restore.
run_cli_restore_row() {
  local kind=$1 module=$2 err=$3
  local ctree=/proc/4242/root/lib/modules/$rel load_rc load_out
  fault_step=load fired=0 fired_step= fired_out= fired_rc=0
  new_node
  if [ "$kind" = load-restored ]; then
    echo "load $module $err" > "$tmp/fault.script"
  else
    echo "load $module $err x2" > "$tmp/fault.script"   # the container's, then the host's
  fi
  kmod unload
  [ $kmod_rc -eq 0 ] || { fail "unload exit $kmod_rc: $kmod_out"; return; }
  kmod load --from "$ctree" "${MODS[@]}"
  load_rc=$kmod_rc load_out=$kmod_out
  [ "$fired" = 1 ] || fail "the fault on $module never fired"
  grep -q -- "$module" <<<"$load_out" || fail "the failed load does not name $module: $load_out"
  grep -qi -- "$(strerror_of "$err")" <<<"$load_out" || fail "the failed load does not say '$(strerror_of "$err")'"
  grep -q "^restoring the in-tree stack from the host's module tree:" <<<"$load_out" ||
    fail "the load did not restore by itself: $load_out"
  if [ "$kind" = load-restored ]; then
    [ $load_rc -eq 1 ] || fail "load exit $load_rc, expected 1 (failed, restored): $load_out"
    grep -q "^restored: the in-tree NVMe stack is loaded again, because the load from $ctree failed" <<<"$load_out" ||
      fail "the load does not say it restored: $load_out"
  else
    [ $load_rc -eq 4 ] || fail "load exit $load_rc, expected 4 (failed, not restored): $load_out"
    grep -q "^not restored: .*may have no NVMe driver.*restore\`" <<<"$load_out" ||
      fail "the load does not say the node may be left without a driver: $load_out"
    [ "$(node_verdict)" = in-tree ] && fail "exit 4 but the node is in-tree"
    kmod restore "${MODS[@]}"                      # the operator, as the message says
    [ $kmod_rc -eq 0 ] || fail "the operator's restore failed ($kmod_rc): $kmod_out"
  fi
  verdict=$(node_verdict)
  [ "$verdict" = in-tree ] || fail "node is $verdict, expected in-tree"
  namespaces_present
}

run_cli_row() {
  local kind=$1 module=$2 err=$3
  case $kind in load-restored|load-unrestored) run_cli_restore_row "$@"; return ;; esac
  local ctree=/proc/4242/root/lib/modules/$rel
  fault_step=none fired=0 fired_step= fired_out= fired_rc=0
  new_node
  [ "$usage" = inuse ] && mount_in_use
  case $kind in
    unload) fault_step=unload; echo "delete_module $module $err" > "$tmp/fault.script" ;;
    load) fault_step=load; echo "load $module $err" > "$tmp/fault.script" ;;
    restore) fault_step=restore; echo "load $module $err" > "$tmp/fault.script" ;;
    midmount) fault_step=unload; echo "delete_module $module ok then-mount nvme1n1 /var/lib/kubelet" > "$tmp/fault.script" ;;
  esac

  # The operator's swap: unload, load the container's build, restore if that failed.
  kmod unload
  local unload_rc=$kmod_rc
  if [ $unload_rc -eq 0 ]; then
    if [ "$kind" = restore ]; then
      kmod restore "${MODS[@]}"                    # the swap is abandoned
    else
      kmod load --from "$ctree" "${MODS[@]}"
      [ $kmod_rc -ne 0 ] && kmod restore "${MODS[@]}"
    fi
    # An operator whose restore failed runs it again (the fault was once).
    [ $kmod_rc -ne 0 ] && kmod restore "${MODS[@]}"
  fi

  verdict=$(node_verdict)
  case $verdict in swapped|in-tree) ;; *) fail "node is $verdict" ;; esac
  namespaces_present
  check_not_touched_while_in_use

  # Which, and why.
  case $usage in
    inuse|midmount)
      [ $unload_rc -eq 3 ] || fail "unload exit $unload_rc, expected 3 (refused, in use)"
      grep -q nvme1n1 <<<"$(cat "$tmp/cli.log")" || fail "the CLI did not name nvme1n1 as in use"
      [ "$verdict" = in-tree ] || fail "in use but the node is $verdict" ;;
  esac
  if [ "$fired" = 1 ] && [ "$fired_rc" -ne 0 ] && [ "$kind" != midmount ]; then
    grep -q -- "$module" <<<"$fired_out" || fail "$fired_step failed but its output does not name $module: $fired_out"
    grep -qi -- "$(strerror_of "$err")" <<<"$fired_out" ||
      fail "$fired_step failed but its output does not say '$(strerror_of "$err")': $fired_out"
  fi
  [ "$usage" = free ] && [ "$kind" != midmount ] && [ "$fired" = 0 ] && fail "the fault on $module never fired"
  if [ "$verdict" = swapped ]; then
    grep -q "loaded:\|nvme_core" <<<"$kmod_out" || fail "the last CLI step does not report the load"
  fi
}

# ---- the daemon ------------------------------------------------------------

start_container() {
  sleep 600 &
  container_pid=$!
  container_tree $container_pid
  # last: the store entry is what tells the daemon the container started
  fn container $container_pid $ID
}

# The kernel's view of a container that is gone: process, /proc entry, store.
container_vanish_dir() { rm -rf "$root/run/containers/storage/overlay-containers/$ID"; }
container_vanish_proc() {
  kill -9 "$container_pid" 2>/dev/null; wait "$container_pid" 2>/dev/null
  rm -rf "$root/proc/$container_pid"
  container_pid=
}

# start_daemon [ENV=VALUE...]: the daemon under fault-hooks + the fake kernel.
start_daemon() {
  env NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
    FAKE_KERNEL_SCRIPT=$tmp/fault.script FAULT_UEVENT_FIFO=$tmp/uevents \
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
    LD_PRELOAD="$FAULT_HOOKS_SO:$FAKE_KERNEL_SO" "$@" "$SWAPGUARD_DAEMON" --root "$root" --log-target stderr \
    >>"$tmp/daemon.log" 2>&1 &
  daemon_pid=$!
  note "daemon $daemon_pid started $*"
}

kill_daemon() {
  kill -9 "$daemon_pid" 2>/dev/null; wait "$daemon_pid" 2>/dev/null; daemon_pid=
  echo "---- SIGKILL ----" >> "$tmp/daemon.log"
  note "daemon killed"
}

stop_daemon() {
  [ -n "$daemon_pid" ] || return 0
  kill -TERM "$daemon_pid" 2>/dev/null
  # A daemon wedged in its event loop never reads the SIGTERM: a failure
  # that says so, not a row that waits until the suite's timeout.
  local i
  for ((i = 0; i < 400; i++)); do kill -0 "$daemon_pid" 2>/dev/null || break; nap 0.05; done
  if kill -0 "$daemon_pid" 2>/dev/null; then
    fail "daemon did not exit within 20 s of SIGTERM (its event loop is wedged)"
    kill -9 "$daemon_pid" 2>/dev/null
  fi
  wait "$daemon_pid"; local rc=$?
  daemon_pid=
  [ $rc -eq 0 ] || fail "daemon exited $rc on SIGTERM"
}

state() {
  slurp "$root/run/nvme-swapguard/state.json"
  [[ $REPLY =~ \"state\":\"([a-z-]+)\" ]] && echo "${BASH_REMATCH[1]}"
}

# wait_state "s1|s2" [seconds]: until the state file says one of them.
wait_state() {
  local want=$1 n=$(( ${2:-10} * 20 )) i s
  for ((i = 0; i < n; i++)); do
    s=$(state)
    if [ -n "$s" ] && [[ "|$want|" == *"|$s|"* ]]; then note "state $s"; return 0; fi
    if [ -n "$daemon_pid" ] && ! kill -0 "$daemon_pid" 2>/dev/null; then
      fail "daemon died (state ${s:-none}, waiting for $want)"; return 1
    fi
    nap 0.05
  done
  fail "state is ${s:-none}, expected $want"
  return 1
}

wait_file() {
  local f=$1 n=$(( ${2:-10} * 20 )) i
  for ((i = 0; i < n; i++)); do [ -e "$f" ] && return 0; nap 0.05; done
  fail "$f never appeared"; return 1
}

# log_count ERE: how many lines of the daemon output match, in $REPLY.
log_count() {
  local n=0 l
  [ -r "$tmp/daemon.log" ] && while IFS= read -r l; do [[ $l =~ $1 ]] && n=$((n + 1)); done < "$tmp/daemon.log"
  REPLY=$n
}

# wait_log PATTERN [COUNT]: until the daemon's output has COUNT such lines.
wait_log() {
  local n=${2:-1} i
  for ((i = 0; i < 200; i++)); do
    log_count "$1"; [ $REPLY -ge "$n" ] && return 0
    nap 0.05
  done
  fail "daemon output lacks /$1/"; return 1
}

ready() { mkdir -p "$root/run/mellanox/drivers" && touch "$root/run/mellanox/drivers/.driver-ready"; }
overflow() { printf O > "$tmp/uevents"; }
config() { printf '%s\n' "[Swap]" "$@" > "$root/etc/nvme-swapguard/nvme-swapguard.conf"; }

SETTLED="swapped|restored|failed|blocked|idle"
# Where the daemon is once it has acted on a container's start (its unload
# done, refused or failed): idle there would be the state before it saw the
# container, not an outcome.
ACTED="unloaded-waiting-driver|swapped|restored|failed|blocked"

# After the scenario: the invariant, the journal entry, a clean stop.
finish_daemon_row() {
  local expect_fault_module=${1:-}
  verdict=$(node_verdict)
  local raw=$verdict
  if [ -n "${unrecoverable:-}" ] && [[ $verdict == broken* ]]; then
    # The in-tree build itself cannot be loaded (its signature rejected, built
    # for another kernel, loading forbidden, a symbol missing): no tool can
    # give the node its driver back. What must hold: the daemon says so, with
    # the module and the error, gives up (state failed) and does not loop.
    [ "$(state)" = failed ] || fail "restore impossible, but the daemon says $(state)"
    grep -E "MESSAGE_ID=$MID_FAILED" "$tmp/daemon.log" | grep "SWAPGUARD_MODULE=$unrecoverable_module" |
      grep "$(strerror_of "$unrecoverable")" | grep -q "no NVMe driver" ||
      fail "no FAILED journal entry names $unrecoverable_module, the error and the missing driver"
    slurp "$tmp/kernel.log"
    [[ ${REPLY#*scripted} == *module* ]] && fail "module calls after the impossible restore: ${REPLY//$'\n'/;}"
    verdict="no driver, reported (in-tree $unrecoverable_module cannot load: $unrecoverable)"
  fi
  case $verdict in swapped|in-tree|"no driver"*) ;; *) fail "node is $verdict (daemon state $(state))" ;; esac
  # After a swap or a restore that followed an unload, the journal says the
  # namespaces are all back (the daemon's own count, before vs. after).
  slurp "$tmp/kernel.log"
  if [[ $'\n'$REPLY == *$'\n'"delete_module "*" -> 0"* ]] && [[ "$(state)" == @(swapped|restored) ]]; then
    grep -q "MESSAGE_ID=52dbe424ed6d480e8402dfc529557c39" "$tmp/daemon.log" &&
      grep -q "all ${ns_count:-2} NVMe namespaces seen before the unload are back" "$tmp/daemon.log" ||
      fail "no journal entry says all ${ns_count:-2} namespaces are back"
  fi
  namespaces_present
  check_not_touched_while_in_use
  case $usage in
    inuse|midmount)
      [ "$verdict" = in-tree ] || fail "in use but the node is $verdict"
      grep -qE "MESSAGE_ID=$MID_BLOCKED.*SWAPGUARD_DEVICE=nvme1n1" "$tmp/daemon.log" ||
        fail "no BLOCKED journal entry naming nvme1n1" ;;
  esac
  if [ "$verdict" = swapped ]; then
    grep -qE "MESSAGE_ID=$MID_SWAPPED .*SWAPGUARD_ORIGIN=(nvidia|out-of-tree)" "$tmp/daemon.log" ||
      fail "swapped but no SWAPPED journal entry"
    [ "$(state)" = swapped ] || fail "swapped but the daemon says $(state)"
  elif [ "$verdict" = in-tree ]; then
    grep -qE "MESSAGE_ID=($MID_RESTORED|$MID_FAILED|$MID_BLOCKED|$MID_STOP_RESTORED|$MID_NO_BUILD|$MID_ENV_NO_NFSRDMA)" "$tmp/daemon.log" ||
      fail "in-tree stack, but no RESTORED/FAILED/BLOCKED/NO_BUILD journal entry says why"
    if [ -n "$expect_fault_module" ]; then
      grep -E "MESSAGE_ID=($MID_FAILED|$MID_BLOCKED)" "$tmp/daemon.log" | grep -q -- "$expect_fault_module" ||
        fail "no FAILED/BLOCKED journal entry names $expect_fault_module"
    fi
  fi
  stop_daemon
  local after
  after=$(node_verdict)
  [ "$after" = "$raw" ] || fail "a clean stop changed the node from $raw to $after"
  [ -e "$root/run/modprobe.d/nvme-swapguard.conf" ] && fail "the reload block outlived the daemon"
}

# Did the scripted fault fire, and was it absorbed (the swap still completed)?
fault_fired() { slurp "$tmp/kernel.log"; [[ $REPLY == *scripted* ]]; }
# fault_fired_wait [seconds]: until it did.
fault_fired_wait() {
  local n=$(( ${1:-10} * 20 )) i
  for ((i = 0; i < n; i++)); do fault_fired && return 0; nap 0.05; done
  return 1
}

run_daemon_fault_row() {
  local kind=$1 module=$2 err=$3
  new_node
  [ "$usage" = inuse ] && mount_in_use
  case $kind in
    unload) echo "delete_module $module $err" > "$tmp/fault.script" ;;
    load) echo "load $module $err" > "$tmp/fault.script" ;;
    restore) echo "load $module $err" > "$tmp/fault.script"; config ReadyTimeoutSec=1
      # a permanent answer of the kernel: the in-tree module will never load
      case $err in EAGAIN|EBUSY) ;; *) unrecoverable=$err unrecoverable_module=$module ;; esac ;;
    midmount) echo "delete_module $module ok then-mount nvme1n1 /var/lib/kubelet" > "$tmp/fault.script" ;;
  esac
  start_daemon
  wait_state idle
  start_container
  if [ "$kind" = restore ]; then
    # The ready file never comes: the daemon restores, the restore meets the fault.
    wait_state "restored|failed" 8
  else
    wait_state "$ACTED"
    ready
    wait_log "Ready file .* appeared"
    wait_state "$SETTLED"
  fi
  [ "$usage" = free ] && [ "$kind" != midmount ] && ! fault_fired && fail "the fault on $module never fired"
  local named=
  # A fault that ended the swap must be named (EAGAIN/EBUSY are retried away).
  case $err in EAGAIN|EBUSY|-) ;; *) [ "$(node_verdict)" = in-tree ] && fault_fired && named=$module ;; esac
  # A transient answer must not cost the swap.
  case $usage:$kind:$err in
    free:unload:EAGAIN|free:unload:EBUSY|free:load:EAGAIN|free:load:EBUSY)
      [ "$(node_verdict)" = swapped ] || fail "a transient $err on $module did not end in a swap" ;;
  esac
  finish_daemon_row "$named"
}

# kill:<state>: SIGKILL the daemon in that state, restart it, finish the swap.
run_kill_row() {
  local at=$1
  new_node
  : > "$tmp/fault.script"
  case $at in
    idle)
      start_daemon; wait_state idle; kill_daemon
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver
      ready; wait_state swapped ;;
    container-seen)
      config UnloadAt=driver-ready
      start_daemon; wait_state idle; start_container; wait_state container-seen; kill_daemon
      grep -q '^delete_module' "$tmp/kernel.log" 2>/dev/null && fail "driver-ready mode unloaded before ready"
      start_daemon; wait_log "previous state container-seen"; wait_state container-seen
      ready; wait_state swapped ;;
    unloading)
      start_daemon FAULT_STALL="delete_module nvme_fabrics" FAULT_STALL_MARK=$tmp/stalled
      wait_state idle; start_container; wait_file "$tmp/stalled"
      [ "$(state)" = container-seen ] || fail "mid-unload the state file says $(state)"
      kill_daemon
      start_daemon; wait_state unloaded-waiting-driver; ready; wait_state swapped ;;
    blocked)
      usage=inuse; mount_in_use
      start_daemon; wait_state idle; start_container; wait_state blocked; kill_daemon
      start_daemon; wait_log "previous state blocked"; wait_state blocked
      check_not_touched_while_in_use
      usage=free
      sed -i '\#/var/lib/kubelet#d' "$root/proc/1/mountinfo"
      kill -HUP "$daemon_pid"
      wait_state unloaded-waiting-driver; ready; wait_state swapped ;;
    unloaded-waiting-driver)
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver; kill_daemon
      start_daemon; wait_log "previous state unloaded-waiting-driver"; wait_log "started in state" 2
      [ -e "$root/run/modprobe.d/nvme-swapguard.conf" ] || fail "reload block not back after the restart"
      ready; wait_state swapped ;;
    loading)
      start_daemon FAULT_STALL="load nvme" FAULT_STALL_MARK=$tmp/stalled
      wait_state idle; start_container; wait_state unloaded-waiting-driver; ready; wait_file "$tmp/stalled"
      [ "$(state)" = loading ] || fail "mid-load the state file says $(state)"
      kill_daemon
      # The restart resumes through idle (a settled state) before it
      # finishes the swap: wait for its "started in state", then settle.
      start_daemon; wait_log "previous state loading"; wait_log "started in state" 2; wait_state "$SETTLED" ;;
    swapped)
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver; ready
      wait_state swapped; kill_daemon
      local before; before=$(grep -c . "$tmp/kernel.log")
      start_daemon; wait_log "previous state swapped"; wait_state swapped
      [ "$(grep -c . "$tmp/kernel.log")" = "$before" ] || fail "the restart in swapped touched modules" ;;
    restoring)
      config ReadyTimeoutSec=1
      start_daemon FAULT_STALL="load nvme" FAULT_STALL_MARK=$tmp/stalled
      wait_state idle; start_container; wait_file "$tmp/stalled" 8
      [ "$(state)" = restoring ] || fail "mid-restore the state file says $(state)"
      kill_daemon
      start_daemon; wait_log "previous state restoring"; wait_state "restored|failed" 8 ;;
    restored)
      config ReadyTimeoutSec=1
      start_daemon; wait_state idle; start_container; wait_state restored 8; kill_daemon
      start_daemon; wait_log "previous state restored"; wait_state restored ;;
    repairing)
      # A stack broken behind its back while it waits for the ready file
      # (driver-ready mode: the in-tree stack drives the namespaces
      # meanwhile): the repair puts nvme back and dies before the insert,
      # leaving nvme_core without nvme. The restart must finish the repair,
      # never wait on with no PCIe NVMe driver.
      config UnloadAt=driver-ready
      mkfifo "$tmp/uevents"
      start_daemon FAULT_STALL="load nvme" FAULT_STALL_MARK=$tmp/stalled
      wait_state idle; start_container; wait_state container-seen
      broken_behind
      wait_file "$tmp/stalled" 8
      [ "$(state)" = repairing ] || fail "mid-repair the state file says $(state)"
      kill_daemon
      start_daemon; wait_log "previous state repairing"
      wait_log "State repairing -> container-seen"
      [ "$(node_verdict)" = in-tree ] || fail "after the restart the repair did not finish: $(node_verdict)"
      ready; wait_state swapped ;;
    failed)
      echo "delete_module nvme EPERM" > "$tmp/fault.script"
      start_daemon; wait_state idle; start_container; wait_state failed; kill_daemon
      : > "$tmp/fault.script"
      start_daemon; wait_log "previous state failed"; wait_state "$SETTLED" ;;
  esac
  finish_daemon_row
}

# fabrics:<case>. The connection is nvme2 (tcp 127.0.0.1:4420,
# one namespace), laid out as 6.1 shows it (fake-node `fabrics`); the fake
# kernel deletes it with nvme_tcp and connects it again through its
# /dev/nvme-fabrics (its log: "connect <options> -> 0").
FABRICS_NQN=nqn.2026-12.io.swapguard:faults
fabrics_controller() { fn fabrics 2 tcp 127.0.0.1 4420 "$FABRICS_NQN" 1; }
# The record is on disk before the kill (the unload dropped the connection).
fabrics_recorded() {
  [ -s "$root/run/nvme-swapguard-fabrics/record.json" ] || fail "no fabrics record on disk when the daemon was killed"
  [ -e "$root/sys/class/nvme/nvme2" ] && fail "the connection outlived nvme_tcp's removal"
  return 0
}
# The end: the restarted daemon had the recorded connection connected again
# (by the fabrics unit, on its request) and said so with the address; the
# record is gone.
fabrics_reconnected_from_record() {
  wait_log "nvme2: tcp 127.0.0.1:4420 $FABRICS_NQN: connected again (after the (load|restore)|on start)"
  slurp "$tmp/kernel.log"
  [[ $REPLY == *"connect nqn=$FABRICS_NQN,transport=tcp,traddr=127.0.0.1,trsvcid=4420"*"-> 0"* ]] ||
    fail "the restarted daemon did not reconnect from the record"
  log_count "nvme2: tcp 127.0.0.1:4420 $FABRICS_NQN: connected again (after the (load|restore)|on start)"
  [ "$REPLY" -ge 1 ] || fail "the reconnect is not in the journal with the address"
  [ -e "$root/run/nvme-swapguard-fabrics/record.json" ] && fail "the record outlived the reconnect"
  return 0
}

# nvme-swapguard-fabrics.path + .service, stood in for: on the daemon's
# request file, one run at a time, the real CLI's serve-request under the
# fake kernel (not the fault hooks: the faults here are the daemon's).
start_fabrics_unit() {
  (
    while :; do
      if [ -e "$root/run/nvme-swapguard/fabrics-request" ]; then
        NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
          ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
          LD_PRELOAD=$FAKE_KERNEL_SO "$SWAPGUARD_KMOD" --root "$root" fabrics serve-request \
          /run/nvme-swapguard/fabrics-request >>"$tmp/fabrics-unit.log" 2>&1
      else
        nap 0.05
      fi
    done
  ) &
  fabrics_unit_pid=$!
}

run_fabrics_row() {
  local c=$1
  new_node
  fabrics_controller
  start_fabrics_unit
  ns_count=3 # and the fabrics namespace nvme2n1
  : > "$tmp/fault.script"
  case $c in
    kill-unloaded)
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver
      fabrics_recorded; kill_daemon
      start_daemon; wait_log "previous state unloaded-waiting-driver"; wait_log "started in state" 2
      ready; wait_state swapped ;;
    kill-loading)
      start_daemon FAULT_STALL="load nvme" FAULT_STALL_MARK=$tmp/stalled
      wait_state idle; start_container; wait_state unloaded-waiting-driver
      ready; wait_file "$tmp/stalled"
      fabrics_recorded; kill_daemon
      start_daemon; wait_log "previous state loading"; wait_log "started in state" 2; wait_state "$SETTLED" ;;
    kill-restoring)
      config ReadyTimeoutSec=1
      start_daemon FAULT_STALL="load nvme" FAULT_STALL_MARK=$tmp/stalled
      wait_state idle; start_container; wait_file "$tmp/stalled" 8
      [ "$(state)" = restoring ] || fail "mid-restore the state file says $(state)"
      fabrics_recorded; kill_daemon
      start_daemon; wait_log "previous state restoring"; wait_state "restored|failed" 8 ;;
  esac
  fabrics_reconnected_from_record
  finish_daemon_row
  kill "$fabrics_unit_pid" 2>/dev/null; wait "$fabrics_unit_pid" 2>/dev/null
}

# behind_the_back CMD...: someone else (an operator, a script) runs the CLI
# while the daemon runs; its uevents are what the overflow loses.
behind_the_back() {
  local out
  out=$(NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
    LD_PRELOAD=$FAKE_KERNEL_SO "$SWAPGUARD_KMOD" --root "$root" "$@" 2>&1) || fail "nvme-swapguard-kmod $*: $out"
}

# enobufs:<case>: the udev monitor overflows; the daemon must rescan.
run_enobufs_row() {
  local c=$1
  new_node
  : > "$tmp/fault.script"
  mkfifo "$tmp/uevents"
  case $c in
    reload-behind)
      # In unloaded-waiting-driver something loads the in-tree stack behind
      # the guard; its uevents are lost. The overflow must make the daemon see it.
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver
      behind_the_back restore "${MODS[@]}"
      overflow
      wait_log "uevents were lost"
      wait_state container-seen
      grep -q "MESSAGE_ID=$MID_RELOAD" "$tmp/daemon.log" || fail "no RELOAD_DETECTED entry after the rescan"
      ready; wait_state swapped ;;
    build-removed)
      # Swapped, then someone removes NVIDIA's build; the uevents are lost.
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver; ready
      wait_state swapped
      behind_the_back unload
      overflow
      wait_log "uevents were lost"
      wait_state "restored|failed" ;;
    blocked-cleared)
      usage=inuse; mount_in_use
      start_daemon; wait_state idle; start_container; wait_state blocked
      check_not_touched_while_in_use
      usage=free
      sed -i '\#/var/lib/kubelet#d' "$root/proc/1/mountinfo"
      overflow
      wait_log "uevents were lost"
      wait_state unloaded-waiting-driver; ready; wait_state swapped ;;
    container-gone)
      # The container's scope/pidfd news may be late; an overflow rescans the store.
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver
      container_vanish_dir
      overflow
      wait_log "uevents were lost"
      container_vanish_proc
      wait_state "restored" ;;
  esac
  finish_daemon_row
}

# vanish:<order>: the container goes between the unload and ready.
run_vanish_row() {
  local c=$1
  new_node
  : > "$tmp/fault.script"
  case $c in
    dir-then-kill)
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver
      container_vanish_dir; container_vanish_proc
      wait_state restored ;;
    kill-then-dir)
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver
      container_vanish_proc; container_vanish_dir
      wait_state restored ;;
    kill-and-ready)
      # The ready file and the container's death arrive together.
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver
      ready; container_vanish_proc; container_vanish_dir
      # Whichever it sees first; restored and then the container forgotten is idle.
      wait_state "swapped|restored|failed|idle"
      wait_log "MESSAGE_ID=($MID_SWAPPED|$MID_RESTORED|$MID_FAILED)" ;;
    during-load)
      # It dies while the daemon loads from its root (stalled before nvme).
      start_daemon FAULT_STALL="load nvme" FAULT_STALL_MARK=$tmp/stalled
      wait_state idle; start_container; wait_state unloaded-waiting-driver; ready; wait_file "$tmp/stalled"
      local pid=$container_pid
      container_vanish_proc; container_vanish_dir
      # the stall holds the daemon for good: kill it as systemd's watchdog would, and restart
      kill_daemon
      start_daemon; wait_state "restored|failed" ;;
  esac
  finish_daemon_row
}

# store:<order>: swapped on container $ID; the pod restarts: its process
# exits, its store entry goes and $ID2's comes, in the row's order, the
# daemon's inotify faulted as the row says (fault-hooks.c). Whatever the
# order, the daemon follows $ID2: the earlier build out, swapped on $ID2's,
# and no "Cannot follow" warning for an entry that only went.
run_store_row() {
  local c=$1 a trigger=$tmp/inotify-fault
  local env=()
  new_node
  a=$root/run/containers/storage/overlay-containers/$ID
  : > "$tmp/fault.script"
  case $c in
    overflow) env=(FAULT_INOTIFY_OVERFLOW=$trigger) ;;
    watch-fails-once) env=(FAULT_INOTIFY_ADD="$ID2 ENOSPC $trigger") ;;
    gone-before-watch) env=(FAULT_INOTIFY_ADD="$ID ENOENT $trigger") ;;
  esac
  start_daemon "${env[@]}"; wait_state idle; start_container; wait_state unloaded-waiting-driver
  ready; wait_state swapped
  unready
  kill -9 "$container_pid" 2>/dev/null; wait "$container_pid" 2>/dev/null; container_pid=
  case $c in
    remove-then-create) rm -rf "$a"; new_container $ID2 ;;
    create-then-remove) new_container $ID2; rm -rf "$a" ;;
    pidfile-first) rm -f "$a/userdata/pidfile"; nap 0.3; rm -rf "$a"; new_container $ID2 ;;
    userdata-first) rm -rf "$a/userdata"; new_container $ID2; rm -rf "$a" ;;
    overflow) : > "$trigger"; rm -rf "$a"; new_container $ID2 ;;
    watch-fails-once) : > "$trigger"; rm -rf "$a"; new_container $ID2 ;;
    gone-before-watch)
      # userdata/ goes first: the daemon moves A's watch up to <id>/, and
      # that watch fails as if <id>/ had gone in between; then it goes.
      : > "$trigger"; rm -rf "$a/userdata"
      local i; for ((i = 0; i < 200; i++)); do [ -e "$trigger" ] || break; nap 0.05; done
      rm -rf "$a"; new_container $ID2 ;;
  esac
  case $c in
    overflow|watch-fails-once|gone-before-watch) [ -e "$trigger" ] && fail "the inotify fault never fired" ;;
  esac
  wait_log "MESSAGE_ID=$MID_EARLIER"
  wait_state unloaded-waiting-driver
  ready; wait_state swapped
  grep -q "\"build_container\":\"$ID2\"" "$root/run/nvme-swapguard/state.json" ||
    fail "the state file does not name the new container's build"
  grep -q "Cannot follow" "$tmp/daemon.log" && fail "a warning for a store entry that only went"
  finish_daemon_row
}

# noroot:<what>: /proc/<pid>/root (or its module tree) is gone at ready.
run_noroot_row() {
  local c=$1
  new_node
  : > "$tmp/fault.script"
  start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver
  case $c in
    root-gone) rm -rf "$root/proc/$container_pid/root" ;;
    tree-gone) rm -rf "$root/proc/$container_pid/root/lib/modules/$rel" ;;
  esac
  ready
  wait_state "restored|failed"
  grep -E "MESSAGE_ID=$MID_FAILED" "$tmp/daemon.log" | grep -q "/proc/$container_pid/root" ||
    fail "no FAILED journal entry names the container's root"
  finish_daemon_row
}

# noready:<mode>: the ready file never comes (ReadyTimeoutSec=1).
run_noready_row() {
  local c=$1
  new_node
  : > "$tmp/fault.script"
  case $c in
    container-start) config ReadyTimeoutSec=1 ;;
    driver-ready) config ReadyTimeoutSec=1 UnloadAt=driver-ready ;;
    blocked) config ReadyTimeoutSec=1; usage=inuse; mount_in_use ;;
  esac
  start_daemon; wait_state idle; start_container
  wait_state "restored|failed" 8
  case $c in
    container-start) [ "$(state)" = restored ] || fail "expected restored after the timeout, got $(state)" ;;
    *) [ "$(state)" = failed ] || fail "expected failed (nothing touched) after the timeout, got $(state)"
       grep -q '^delete_module' "$tmp/kernel.log" 2>/dev/null && fail "modules were removed although nothing should be" ;;
  esac
  grep -q "No ready file" "$tmp/daemon.log" || fail "the daemon did not say the ready file never came"
  finish_daemon_row
}

# ---- pin -----------------------------------------------------------

# pin_world KIND ARG [cli|daemon]: the node and the fault script of a pin row. backoff: the
# first removal of ARG answers EAGAIN and a mount of the multipath head
# appears during the back-off. rollback: loading NVIDIA's nvme_tcp fails, and
# the rollback's removal of ARG is followed by the mount (the unload's own
# removal of ARG, in the daemon, consumes the first rule). probe: the
# exclusive open of nvme1n1 fails with ARG, or (fd-dir) the open files of a
# process cannot be read.
pin_world() {
  local kind=$1 arg=$2 mnt="then-mount nvme1n1 /var/lib/kubelet"
  new_node
  : > "$tmp/fault.script"
  case $kind in
    backoff) usage=midmount; echo "delete_module $arg EAGAIN $mnt" > "$tmp/fault.script" ;;
    rollback) usage=midmount
      # the daemon's one process unloads first (the CLI's load is a process of its own)
      [ "${3:-}" = daemon ] && echo "delete_module $arg ok" > "$tmp/fault.script"
      printf '%s\n' "delete_module $arg ok $mnt" "load nvme_tcp EPERM" >> "$tmp/fault.script" ;;
    probe) usage=inuse
      case $arg in
        fd-dir) mkdir -p "$root/proc/777"; echo fio > "$root/proc/777/comm"; echo x > "$root/proc/777/fd" ;;
        *) echo "open-excl nvme1n1 $arg always" > "$tmp/fault.script" ;;
      esac ;;
  esac
}

# What every pin row must show: nothing removed under a user (the kernel
# log), the namespaces there with a driver (nvme and nvme_core loaded).
pin_invariant() {
  check_not_touched_while_in_use
  namespaces_present
  slurp "$root/proc/modules"
  [[ $'\n'$REPLY == *$'\n'"nvme_core "* && $'\n'$REPLY == *$'\n'"nvme "* ]] ||
    fail "the namespaces have no driver: ${REPLY//$'\n'/;}"
}

pin_words() {
  case $1:$2 in
    probe:fd-dir) echo "could not check nvme1n1: could not read the open files of 1 process(es) (pid 777" ;;
    probe:*) echo "could not check nvme1n1: the exclusive open of /dev/nvme1n1 failed" ;;
    *) echo "nvme1n1 is mounted on /var/lib/kubelet" ;;
  esac
}

run_pin_cli_row() {
  local kind=$1 arg=$2 ctree=/proc/4242/root/lib/modules/$rel words
  pin_world "$kind" "$arg"
  fault_step=unload fired=0 fired_step= fired_out= fired_rc=0
  [ "$kind" = rollback ] && fault_step=load
  words=$(pin_words "$kind" "$arg")
  kmod unload
  if [ "$kind" = rollback ]; then
    [ $kmod_rc -eq 0 ] || fail "the unload before the load failed ($kmod_rc): $kmod_out"
    kmod load --from "$ctree" "${MODS[@]}"
    [ $kmod_rc -ne 0 ] || fail "the load succeeded though nvme_tcp was scripted to fail"
    grep -q "left loaded: not removing nvme: $words" <<<"$kmod_out" ||
      fail "the load's report does not say the rollback stopped at nvme1n1: $kmod_out"
  else
    [ $kmod_rc -eq 3 ] || fail "unload exit $kmod_rc, expected 3 (refused, in use): $kmod_out"
    grep -qF "$words" <<<"$kmod_out" || fail "the CLI does not say '$words': $kmod_out"
    verdict=$(node_verdict)
    [ "$verdict" = in-tree ] || fail "the node is $verdict, expected in-tree (put back)"
  fi
  [ "$fired" = 1 ] || [ "$arg" = fd-dir ] || fail "the scripted fault never fired"
  pin_invariant
}

# foreign_delete MODULE: what a foreign `rmmod` asks the kernel (the raw
# delete_module, through the fake kernel); prints OK or the errno name.
foreign_delete() {
  LD_PRELOAD=$FAKE_KERNEL_SO FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log python3 -c '
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(176, sys.argv[1].encode(), os.O_NONBLOCK)
print("OK" if r == 0 else errno.errorcode[ctypes.get_errno()])' "$1"
}

# pin:daemon:foreign: the daemon pins a mounted multipath head; a foreign
# delete_module of nvme and of nvme_core fails (EAGAIN) while it runs and
# again after a restart (SIGKILL: the kernel drops an exited process's
# opens, the new one pins at start); the state file and the CLI's status
# show the pin; a driver container starting meanwhile is told why it cannot
# restart its drivers; once the namespace is free the pin goes and the
# guarded swap completes.
run_pin_foreign_row() {
  new_node
  : > "$tmp/fault.script"
  usage=inuse
  mount_in_use
  start_daemon; wait_state idle
  wait_log "nvme pinned: /dev/nvme1n1 mounted at /var/lib/kubelet \(xfs\).*MESSAGE_ID=a4e7c19ea7fa4bbda25cd3fc5b2dd7cf"
  [ "$(foreign_delete nvme)" = EAGAIN ] || fail "a foreign delete_module(nvme) was not refused while pinned"
  [ "$(foreign_delete nvme_core)" = EAGAIN ] || fail "a foreign delete_module(nvme_core) was not refused while pinned"
  slurp "$root/run/nvme-swapguard/state.json"
  [[ $REPLY == *'"pins"'*'nvme pinned: /dev/nvme1n1 mounted at /var/lib/kubelet (xfs)'* ]] ||
    fail "the state file does not list the pin: $REPLY"
  local st
  st=$(NVME_SWAPGUARD_ROOT=$root "$SWAPGUARD_KMOD" --root "$root" status 2>&1)
  grep -qF "nvme pinned: /dev/nvme1n1 mounted at /var/lib/kubelet (xfs)" <<<"$st" ||
    fail "nvme-swapguard-kmod status does not show the pin: $st"
  # a driver container starting now is told why it cannot restart its drivers
  start_container
  wait_log "MESSAGE_ID=4706cc61103247d4bfb4e6dc8c3f3de3"
  wait_state blocked
  kill_daemon
  start_daemon
  wait_log "previous state blocked"
  [ "$(foreign_delete nvme)" = EAGAIN ] || fail "not pinned again after the restart"
  # free: SIGHUP is "look again" where no mount event comes (a fake root)
  sed -i '\#/var/lib/kubelet#d' "$root/proc/1/mountinfo"
  usage=free
  kill -HUP "$daemon_pid"
  wait_log "Pin released.*MESSAGE_ID=0b9d1b06c37c408593b8bb66ca442675"
  wait_state "unloaded-waiting-driver|$SETTLED"
  ready; wait_state swapped
  verdict=$(node_verdict)
  [ "$verdict" = swapped ] || fail "after the pin went, the guarded swap did not complete: $verdict"
  stop_daemon
}

# pin:daemon:create:<open|fd-dir>: the watch's blind spot. Once the daemon
# is up, nvme1n1 comes to be held only by a plain open of process 777 (open),
# or process 777's open files cannot be read (fd-dir): no event the watch
# could see. A driver container's create (its config.json; no pidfile, so no
# process yet) runs the full usage check: pinned before its start (a foreign
# delete_module(nvme) fails); at its start it is told why it cannot restart
# its drivers and the swap is blocked; nothing is removed.
run_pin_create_row() {
  local arg=$1 words d
  new_node
  d=$root/run/containers/storage/overlay-containers/$ID/userdata
  : > "$tmp/fault.script"
  usage=inuse
  start_daemon; wait_state idle
  case $arg in
    open) fn process 777 fio nvme1n1; words="nvme pinned: nvme1n1 is open by process 777 (fio)" ;;
    fd-dir) mkdir -p "$root/proc/777"; echo fio > "$root/proc/777/comm"; echo x > "$root/proc/777/fd"
      words="nvme pinned: could not check nvme1n1: could not read the open files of 1 process(es) (pid 777" ;;
  esac
  nap 1
  log_count "MESSAGE_ID=a4e7c19ea7fa4bbda25cd3fc5b2dd7cf"
  [ "$REPLY" -eq 0 ] || fail "pinned before any event: the watch sees this now (update docs/ARCHITECTURE.md)"
  # the create: the container's process (as runc's init waits for the start)
  # and config.json, but no pidfile yet
  sleep 600 &
  container_pid=$!
  mkdir -p "$root/proc/$container_pid" "$root/proc/1/ns" "$root/proc/$container_pid/ns" "$d"
  echo "0::/kubepods.slice/kubepods-pod1.slice/crio-$ID.scope" > "$root/proc/$container_pid/cgroup"
  printf 'Name:\tentrypoint\nCapEff:\t000001ffffffffff\n' > "$root/proc/$container_pid/status"
  [ -e "$root/proc/1/ns/user" ] || echo "user:[4026531837]" > "$root/proc/1/ns/user"
  ln -f "$root/proc/1/ns/user" "$root/proc/$container_pid/ns/user"
  container_tree $container_pid
  cat > "$d/.config.json.tmp" <<JSON
{"ociVersion":"1.0.2-dev","process":{"args":["/root/entrypoint.sh"],"env":["ENABLE_NFSRDMA=true"]},
 "annotations":{"io.kubernetes.container.name":"mofed-container",
  "io.kubernetes.pod.name":"mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p",
  "io.kubernetes.pod.namespace":"nvidia-network-operator"}}
JSON
  mv "$d/.config.json.tmp" "$d/config.json"
  wait_log "MESSAGE_ID=a4e7c19ea7fa4bbda25cd3fc5b2dd7cf"
  grep "MESSAGE_ID=a4e7c19ea7fa4bbda25cd3fc5b2dd7cf" "$tmp/daemon.log" | grep -qF -- "$words" ||
    fail "no PINNED entry says '$words'"
  [ "$(foreign_delete nvme)" = EAGAIN ] || fail "a foreign delete_module(nvme) was not refused after the create"
  # that refused attempt was the test's own: the invariant is about the daemon's
  sed -i '/^delete_module nvme flags=0x800 -> EAGAIN$/d' "$tmp/kernel.log"
  [ "$(state)" = idle ] || fail "state $(state) before the container's start, expected idle"
  # the start
  echo "$container_pid" > "$d/.pidfile.tmp" && mv "$d/.pidfile.tmp" "$d/pidfile"
  wait_state blocked
  wait_log "MESSAGE_ID=4706cc61103247d4bfb4e6dc8c3f3de3"
  verdict=$(node_verdict)
  [ "$verdict" = in-tree ] || fail "the node is $verdict, expected in-tree"
  pin_invariant
  stop_daemon
  pin_invariant
}

run_pin_daemon_row() {
  local kind=$1 arg=$2 words
  [ "$kind" = foreign ] && { run_pin_foreign_row; return; }
  [ "$kind" = create ] && { run_pin_create_row "$arg"; return; }
  pin_world "$kind" "$arg" daemon
  words=$(pin_words "$kind" "$arg")
  start_daemon
  wait_state idle
  start_container
  if [ "$kind" = rollback ]; then
    wait_state "$ACTED"
    ready
    wait_log "Ready file .* appeared"
    wait_state "failed|blocked|restored" 8
    grep -F -- "$words" "$tmp/daemon.log" | grep -qE "MESSAGE_ID=($MID_FAILED|$MID_BLOCKED)" ||
      fail "no FAILED/BLOCKED journal entry says '$words'"
  else
    wait_state blocked
    grep -F -- "$words" "$tmp/daemon.log" | grep -qE "MESSAGE_ID=$MID_BLOCKED.*SWAPGUARD_DEVICE=nvme1n1" ||
      fail "no BLOCKED journal entry for nvme1n1 says '$words'"
    verdict=$(node_verdict)
    [ "$verdict" = in-tree ] || fail "the node is $verdict, expected in-tree (put back)"
  fi
  fault_fired || [ "$arg" = fd-dir ] || fail "the scripted fault never fired"
  pin_invariant
  stop_daemon
  pin_invariant
}

# ---- lifecycle:<case>: the driver container's whole life -------

# new_container ID [ENV_JSON] [notree|-] [NAME]: another driver container (a
# pod restart, an upgrade): its own id, CRI-O's Created annotation, env.
# NAME: the process's name in its status (default entrypoint: started), "-"
# for none (status without a Name: line).
new_container() {
  local id=$1 env=${2:-'"ENABLE_NFSRDMA=true"'} tree=${3:-} name=${4:-entrypoint}
  sleep 600 &
  container_pid=$!
  mkdir -p "$root/proc/$container_pid"
  echo "0::/kubepods.slice/kubepods-pod1.slice/crio-$id.scope" > "$root/proc/$container_pid/cgroup"
  # privileged, in the host's user namespace (trust's check; as fake-node's `container` writes it)
  if [ "$name" = - ]; then
    printf 'CapEff:\t000001ffffffffff\n' > "$root/proc/$container_pid/status"
  else
    printf 'Name:\t%s\nCapEff:\t000001ffffffffff\n' "$name" > "$root/proc/$container_pid/status"
  fi
  mkdir -p "$root/proc/1/ns" "$root/proc/$container_pid/ns"
  [ -e "$root/proc/1/ns/user" ] || echo "user:[4026531837]" > "$root/proc/1/ns/user"
  ln -f "$root/proc/1/ns/user" "$root/proc/$container_pid/ns/user"
  if [ "$tree" = notree ]; then
    mkdir -p "$root/proc/$container_pid/root/lib/modules/$rel"
  else
    container_tree $container_pid
  fi
  local d=$root/run/containers/storage/overlay-containers/$id/userdata
  mkdir -p "$d"
  cat > "$d/.config.json.tmp" <<JSON
{"ociVersion":"1.0.2-dev","process":{"args":["/root/entrypoint.sh"],"env":[$env]},
 "annotations":{"io.kubernetes.container.name":"mofed-container",
  "io.kubernetes.cri-o.Created":"$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)",
  "io.kubernetes.pod.name":"mofed-rhcos4.16-7d9f6b8c5d-ds-${id:0:5}",
  "io.kubernetes.pod.namespace":"nvidia-network-operator"}}
JSON
  mv "$d/.config.json.tmp" "$d/config.json"
  echo "$container_pid" > "$d/.pidfile.tmp" && mv "$d/.pidfile.tmp" "$d/pidfile"
}

ID2=b2b2${ID:4}
MID_EARLIER=d3322a26406e4cb0a41aa7fb1159b157
MID_EARLIER_BLOCKED=adbd67853e784137868988641d7019cc
MID_STACK_BROKEN=a81ba0c10e82421d97e29bd6c629dd9a
MID_NO_BUILD=dabe24b8d8c343048eb79349235b3955
MID_READY_STALE=da64cc3df69d42e9a148cb5be8ac23b1
MID_ENV_NO_NFSRDMA=054b86adf25a4f10a662535e9e900ff9
MID_GDS=47164c2a2fe04b3884cd7ef0c9273611

# nvidia_fs_loaded KIND: nvidia_fs appears in the kernel while swapped, its
# file in the host's tree: "mismatch" a module naming nvme_v2_register_nvfs_dma_ops
# (as gds-nvidia-fs's modules_list[] does, a NUL-terminated string), "fifo"
# a FIFO where the file should be (the check must not hang on it), "nofile"
# none at all. Then the uevent is lost (overflow).
nvidia_fs_loaded() {
  local t=/lib/modules/$rel
  case $1 in
    mismatch) fn ko $t extra/nvidia-fs.ko nvidia_fs - -
              fn modules-dep $t
              printf '\0nvme_v2_register_nvfs_dma_ops\0nvme_v2_unregister_nvfs_dma_ops\0' >> "$root$t/extra/nvidia-fs.ko" ;;
    fifo) fn ko $t extra/nvidia-fs.ko nvidia_fs - -
          fn modules-dep $t
          rm -f "$root$t/extra/nvidia-fs.ko"; mkfifo "$root$t/extra/nvidia-fs.ko" ;;
    nofile) ;;
  esac
  fn module nvidia_fs 0 -
  overflow
}

unready() { rm -f "$root/run/mellanox/drivers/.driver-ready"; }

# A swap with the first container, then its pod goes (it removes its ready
# file; its build stays, RESTORE_DRIVER_ON_POD_TERMINATION=false).
swapped_then_pod_gone() {
  start_daemon "$@"; wait_state idle; start_container; wait_state "unloaded-waiting-driver|container-seen"
  ready; wait_state swapped
  unready; container_vanish_proc; container_vanish_dir
}

# delete_module of one module, behind the daemon's back (openibd, an operator).
rmmod_behind() {
  NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log LD_PRELOAD=$FAKE_KERNEL_SO \
    python3 -c 'import ctypes, sys; ctypes.CDLL(None).delete_module(sys.argv[1].encode(), 0)' "$1"
}

MID_NVME_RDMA_SKIPPED=88992d461a1f47e5981061c49350866f

# created_never_started RUNTIME: CRI-O's create of a driver container that
# kubelet never starts (the start fails, or waits): the pidfile names the
# runtime's init, waiting on its exec fifo. runc: named "runc:[2:INIT]",
# fifo under /run/runc; crun: named "crun", fifo under /run/crun (both as
# seen on Linux 6.1, daemon/container-started.h); unreadable: neither the
# name nor the exe can be read and no fifo shows: nothing says it started
# (said as "cannot tell", not "created"). Then the container goes (CRI-O
# removes it): nothing may have been touched, and nothing is to report, so
# the row ends here (finish_daemon_row wants an entry saying why the stack
# is in-tree).
created_never_started() {
  local rt=$1 name words fifo=
  case $rt in
    runc) name='runc:[2:INIT]'; fifo=$root/run/runc/$ID2/exec.fifo
          words="is created \\(pid [0-9]+\\), not started \\(process name \"runc:\\[2:INIT\\]\", exe unreadable: .*, exec fifo present\\)" ;;
    crun) name=crun; fifo=$root/run/crun/$ID2/exec.fifo
          words="is created \\(pid [0-9]+\\), not started \\(process name \"crun\", exe unreadable: .*, exec fifo present\\)" ;;
    unreadable) name=-
          words="Cannot tell whether container ${ID2:0:12} \\(pid [0-9]+\\) has started \\(process name unknown \\(no Name: line in its status\\), exe unreadable: .*, exec fifo absent\\)" ;;
  esac
  if [ -n "$fifo" ]; then mkdir -p "${fifo%/*}" && mkfifo "$fifo"; fi
  start_daemon; wait_state idle
  new_container $ID2 '"ENABLE_NFSRDMA=true"' - "$name"
  wait_log "$words"
  # past a few looks (50 ms doubling to 2 s): still nothing done for it
  nap 3
  [ "$(state)" = idle ] || fail "a created container made the daemon go $(state)"
  log_count "Driver container .* runs as pid"
  [ "$REPLY" -eq 0 ] || fail "a created container was taken for started"
  container_vanish_proc
  rm -rf "$root/run/containers/storage/overlay-containers/$ID2" "${fifo%/*}"
  nap 1
  [ "$(state)" = idle ] || fail "after the created container went the daemon is $(state)"
  grep -qE '^(delete|init|finit)_module' "$tmp/kernel.log" 2>/dev/null &&
    fail "modules were touched for a container that never started: $(tr '\n' ';' < "$tmp/kernel.log")"
  verdict=$(node_verdict)
  [ "$verdict" = in-tree ] || fail "the node is $verdict, expected in-tree, untouched"
  stop_daemon
  [ "$(node_verdict)" = in-tree ] || fail "a clean stop changed the node to $(node_verdict)"
  [ -e "$root/run/modprobe.d/nvme-swapguard.conf" ] && fail "a reload block for a container that never started"
}

# started_by_fifo RUNTIME: created as above, its fifo under the runtime's
# root, then started in that runtime's order (container-started.h cites the
# sources). The daemon must name the fifo it watches, take no fallback looks
# for runc (the process already runs the entrypoint when its fifo goes), and
# swap as for any start.
started_by_fifo() {
  local rt=$1 name fifo started=$'Name:\tentrypoint\nCapEff:\t000001ffffffffff\n'
  case $rt in runc) name='runc:[2:INIT]' ;; crun) name=crun ;; esac
  fifo=$root/run/$rt/$ID2/exec.fifo
  mkdir -p "${fifo%/*}" && mkfifo "$fifo"
  start_daemon; wait_state idle
  new_container $ID2 '"ENABLE_NFSRDMA=true"' - "$name"
  wait_log "Container ${ID2:0:12}: its start is watched on .*/run/$rt/$ID2/exec.fifo"
  [ "$(state)" = idle ] || fail "a created container made the daemon go $(state)"
  if [ "$rt" = runc ]; then
    printf '%s' "$started" > "$root/proc/$container_pid/status"; rm -f "$fifo"
  else
    rm -f "$fifo"; printf '%s' "$started" > "$root/proc/$container_pid/status"
  fi
  wait_state unloaded-waiting-driver
  if [ "$rt" = runc ]; then
    log_count "looked for every 2 s"
    [ "$REPLY" -eq 0 ] || fail "the start of a watched container fell back to the 2 s looks"
  fi
  ready; wait_state swapped
}

# nvme_rdma_env VALUE: the in-tree stack has nvme_rdma loaded, the
# container's tree a build of it; UNLOAD_STORAGE_MODULES is VALUE (unset:
# absent). Only "true" may load it from the container.
nvme_rdma_env() {
  local v=$1 t=/lib/modules/$rel c env='"ENABLE_NFSRDMA=true"' mods
  fn ko $t kernel/drivers/nvme/host/nvme-rdma.ko nvme_rdma nvme-core,nvme-fabrics -
  fn modules-dep $t
  fn module nvme_core -1 nvme,nvme_fabrics,nvme_tcp,nvme_rdma
  fn module nvme_fabrics -1 nvme_tcp,nvme_rdma
  fn module nvme_rdma 0 -
  [ "$v" = unset ] || env+=",\"UNLOAD_STORAGE_MODULES=$v\""
  start_daemon; wait_state idle
  new_container $ID2 "$env"
  c=/proc/$container_pid/root/lib/modules/$rel
  # the build in the container's tree before the ready file (the load reads it then)
  fn ko $c extra/mlnx-nvme/host/nvme-rdma.ko nvme_rdma nvme-core,nvme-fabrics - fake_taint=OE
  fn modules-dep $c
  wait_state unloaded-waiting-driver
  grep -q '^delete_module nvme_rdma .* -> 0' "$tmp/kernel.log" || fail "the in-tree nvme_rdma was not taken out"
  ready; wait_state swapped
  slurp "$root/proc/modules"; mods=$'\n'$REPLY
  if [ "$v" = true ]; then
    [[ $mods == *$'\n'"nvme_rdma "* ]] || fail "UNLOAD_STORAGE_MODULES=true, but nvme_rdma was not loaded"
    slurp "$root/sys/module/nvme_rdma/taint"
    [[ $REPLY == *O* ]] || fail "nvme_rdma is loaded but not the container's build"
    log_count "MESSAGE_ID=$MID_NVME_RDMA_SKIPPED"
    [ "$REPLY" -eq 0 ] || fail "UNLOAD_STORAGE_MODULES=true, but the journal says nvme_rdma was skipped"
  else
    grep -qE '^(init|finit)_module nvme_rdma ' "$tmp/kernel.log" &&
      fail "nvme_rdma was loaded with UNLOAD_STORAGE_MODULES $v"
    [[ $mods == *$'\n'"nvme_rdma "* ]] && fail "nvme_rdma is loaded with UNLOAD_STORAGE_MODULES $v"
    grep "MESSAGE_ID=$MID_NVME_RDMA_SKIPPED" "$tmp/daemon.log" | grep "SWAPGUARD_MODULE=nvme_rdma" |
      grep -q "UNLOAD_STORAGE_MODULES is $v" ||
      fail "no journal entry says nvme_rdma was skipped because UNLOAD_STORAGE_MODULES is $v"
  fi
}

# What the openibd restart of a new driver container leaves (FIELD-NOTES
# section 8): nvme removed, nvme_core kept. Its uevent is lost (the fake root
# has none but the overflow: $tmp/uevents must be a FIFO): the rescan must see
# the broken stack.
broken_behind() {
  rmmod_behind nvme
  overflow
  wait_log "MESSAGE_ID=$MID_STACK_BROKEN"
}

run_lifecycle_row() {
  local c=$1 module=${2:-} err=${3:-}
  new_node
  : > "$tmp/fault.script"
  case $c in
    earlier-build|earlier-build-driver-ready)
      [ $c = earlier-build-driver-ready ] && config UnloadAt=driver-ready
      swapped_then_pod_gone
      new_container $ID2
      wait_log "MESSAGE_ID=$MID_EARLIER"
      if [ $c = earlier-build-driver-ready ]; then
        wait_log "State repairing -> container-seen"   # the in-tree stack back meanwhile
        [ "$(node_verdict)" = in-tree ] || fail "driver-ready: the node is $(node_verdict) while waiting"
      else
        wait_state unloaded-waiting-driver
      fi
      ready; wait_state swapped
      grep -q "\"build_container\":\"$ID2\"" "$root/run/nvme-swapguard/state.json" ||
        fail "the state file does not name the new container's build" ;;
    earlier-build-unload)
      swapped_then_pod_gone
      # the fake kernel reads its script when the daemon starts: restart it
      # (swapped is kept across a restart)
      stop_daemon
      echo "delete_module $module $err" > "$tmp/fault.script"
      start_daemon; wait_state swapped
      new_container $ID2
      wait_log "MESSAGE_ID=$MID_EARLIER"
      wait_state unloaded-waiting-driver
      fault_fired || fail "the fault on $module never fired"
      ready; wait_state swapped ;;
    earlier-build-inuse)
      # In use: the earlier build stays (the new container cannot replace it,
      # the journal says why); once the use ends, the swap goes on.
      mkfifo "$tmp/uevents"
      swapped_then_pod_gone
      : > "$tmp/kernel.log"
      usage=inuse; mount_in_use
      new_container $ID2
      wait_state blocked
      wait_log "MESSAGE_ID=$MID_EARLIER_BLOCKED"
      # BLOCKED names the build it refuses to take out, as UNLOADED does
      grep "MESSAGE_ID=$MID_BLOCKED" "$tmp/daemon.log" |
        grep -qE "Blocked: not unloading the (NVIDIA|out-of-tree) build of the NVMe stack: nvme1n1 is mounted" ||
        fail "the BLOCKED entry does not name the earlier container's build it refuses to take out"
      check_not_touched_while_in_use
      [ "$(node_verdict)" = swapped ] || fail "blocked, but the earlier build is not intact: $(node_verdict)"
      usage=free
      sed -i '\#/var/lib/kubelet#d' "$root/proc/1/mountinfo"
      overflow
      wait_state unloaded-waiting-driver
      ready; wait_state swapped ;;
    stale-ready)
      ready; nap 1.1
      start_daemon; wait_state idle
      new_container $ID2
      wait_log "MESSAGE_ID=$MID_READY_STALE"
      wait_state unloaded-waiting-driver
      grep -qE '^(init|finit)_module' "$tmp/kernel.log" && fail "loaded at a stale ready file"
      unready; nap 0.2; ready; wait_state swapped ;;
    no-build)
      start_daemon; wait_state idle
      new_container $ID2 '"ENABLE_NFSRDMA=true"' notree
      wait_state unloaded-waiting-driver
      ready; wait_state no-build
      wait_log "MESSAGE_ID=$MID_NO_BUILD" ;;
    no-nfsrdma)
      start_daemon; wait_state idle
      new_container $ID2 '"ENABLE_NFSRDMA=false"' notree
      wait_state no-build
      wait_log "MESSAGE_ID=$MID_ENV_NO_NFSRDMA"
      grep -q '^delete_module' "$tmp/kernel.log" 2>/dev/null && fail "unloaded for a build that cannot come" ;;
    broken-behind)
      # openibd restart of a new container: nvme goes, nvme_core stays. The
      # uevents are lost (the fake root has none but the overflow).
      mkfifo "$tmp/uevents"
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver
      ready; wait_state swapped
      rmmod_behind nvme_tcp; rmmod_behind nvme
      overflow
      wait_log "MESSAGE_ID=$MID_STACK_BROKEN"
      wait_state "restored|failed" ;;
    nvfs-mismatch|nvfs-fifo|nvfs-nofile)
      mkfifo "$tmp/uevents"
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver
      ready; wait_state swapped
      nvidia_fs_loaded "${c#nvfs-}"
      case $c in
        nvfs-mismatch)
          wait_log "MESSAGE_ID=$MID_GDS .*SWAPGUARD_GDS_MATCH=different"
          grep -q "asks for GDS hooks v2 but nvme exports v1.*Remedy" "$tmp/daemon.log" ||
            fail "the mismatch is reported without its remedy"
          grep -q '"gds_match":"different"' "$root/run/nvme-swapguard/state.json" ||
            fail "the state file does not say the generations differ" ;;
        nvfs-fifo)
          wait_log "MESSAGE_ID=$MID_GDS .*SWAPGUARD_GDS_WANTED=unknown"
          grep -q "cannot read .*nvidia-fs.ko" "$tmp/daemon.log" || fail "the unreadable file is not named" ;;
        nvfs-nofile)
          wait_log "MESSAGE_ID=$MID_GDS .*SWAPGUARD_GDS_WANTED=unknown"
          grep -q "its module file was found neither" "$tmp/daemon.log" || fail "the missing file is not said" ;;
      esac
      wait_state swapped ;;
    repair-restore)
      # Driver-ready mode: the in-tree stack drives the namespaces until the
      # ready file; it breaks; the repair's insert of the in-tree nvme fails.
      config UnloadAt=driver-ready
      mkfifo "$tmp/uevents"
      echo "load $module $err" > "$tmp/fault.script"
      start_daemon; wait_state idle; start_container; wait_state container-seen
      broken_behind
      fault_fired_wait || fail "the fault on $module never fired"
      case $err in
        EAGAIN)
          # absorbed by the retry: the repair completes, the wait goes on
          wait_log "State repairing -> container-seen"
          [ "$(node_verdict)" = in-tree ] || fail "a transient $err did not end in the in-tree stack: $(node_verdict)"
          ready; wait_state swapped ;;
        *)
          # a permanent answer (not retried): failed, naming nvme and the
          # error, and no module call after it (finish_daemon_row)
          wait_state failed
          unrecoverable=$err unrecoverable_module=$module ;;
      esac ;;
    created) created_never_started "$module"; return ;;
    fifo-start) started_by_fifo "$module" ;;
    nvme-rdma) nvme_rdma_env "$module" ;;
    kill-no-build)
      start_daemon; wait_state idle
      new_container $ID2 '"ENABLE_NFSRDMA=false"' notree
      wait_state no-build
      kill_daemon
      start_daemon; wait_log "previous state no-build"; wait_state no-build
      grep -q '^delete_module' "$tmp/kernel.log" 2>/dev/null && fail "unloaded for a build that cannot come" ;;
  esac
  finish_daemon_row
}

# ---- podend:<case>: the pod's end --------------------------------

MID_POD_END_STAYS=0122ca423e844086b82259791e4cd8d0
MID_POD_END_TAKE_BACK=143e096990b049cdbf61c0fd633db3f8
MID_POD_END_RESTORED=2f196a6be30a4229ac05caa9322f6a37
ENV_RESTORE='"ENABLE_NFSRDMA=true","RESTORE_DRIVER_ON_POD_TERMINATION=true"'

# pod_end_swapped ENV [CALL MODULE ERRNO]: swapped on a container with ENV;
# with a fault, the fake kernel's script lets the swap's own call of CALL on
# MODULE pass (rules are consumed in order) and fails the next: the pod's end.
pod_end_swapped() {
  [ -n "${2:-}" ] && printf '%s %s ok\n%s %s %s\n' "$2" "$3" "$2" "$3" "$4" > "$tmp/fault.script"
  start_daemon; wait_state idle
  new_container $ID2 "$1"
  wait_state unloaded-waiting-driver; ready; wait_state swapped
}
# kubelet's SIGKILL at the end of the grace period: its cleanup never ran
# (its ready file stays behind, as after a crash).
pod_end_kill() { kill -9 "$container_pid" 2>/dev/null; wait "$container_pid" 2>/dev/null; }

run_podend_row() {
  local c=$1 module=${2:-} err=${3:-}
  new_node
  : > "$tmp/fault.script"
  case $c in
    take-back)
      pod_end_swapped "$ENV_RESTORE"
      pod_end_kill
      wait_log "MESSAGE_ID=$MID_POD_END_TAKE_BACK SWAPGUARD_STATE=swapped SWAPGUARD_CONTAINER_ID=$ID2" 
      wait_state restored 30
      wait_log "MESSAGE_ID=$MID_POD_END_RESTORED SWAPGUARD_STATE=restored" ;;
    take-back-unload|take-back-restore)
      if [ $c = take-back-unload ]; then
        pod_end_swapped "$ENV_RESTORE" delete_module "$module" "$err"
      else
        pod_end_swapped "$ENV_RESTORE" load "$module" "$err"
      fi
      pod_end_kill
      wait_state restored 30
      fault_fired || fail "the fault on $module never fired"
      wait_log "MESSAGE_ID=$MID_POD_END_RESTORED SWAPGUARD_STATE=restored" ;;
    inuse)
      mkfifo "$tmp/uevents"
      pod_end_swapped "$ENV_RESTORE"
      : > "$tmp/kernel.log"
      usage=inuse; mount_in_use
      pod_end_kill
      wait_state blocked 30
      grep "MESSAGE_ID=$MID_BLOCKED" "$tmp/daemon.log" | grep -q "SWAPGUARD_DEVICE=nvme1n1" ||
        fail "no BLOCKED entry names nvme1n1 at the pod's end"
      check_not_touched_while_in_use
      [ "$(node_verdict)" = swapped ] || fail "blocked, but NVIDIA's build is not intact: $(node_verdict)"
      usage=free
      sed -i '\#/var/lib/kubelet#d' "$root/proc/1/mountinfo"
      overflow
      wait_state restored 30
      grep -q "did not become ready" "$tmp/daemon.log" && fail "a ready deadline ran on the pod's end" ;;
    false)
      pod_end_swapped '"ENABLE_NFSRDMA=true","RESTORE_DRIVER_ON_POD_TERMINATION=false"'
      pod_end_kill
      wait_log "MESSAGE_ID=$MID_POD_END_STAYS SWAPGUARD_STATE=swapped SWAPGUARD_CONTAINER_ID=$ID2"
      log_count "MESSAGE_ID=$MID_POD_END_TAKE_BACK"
      [ "$REPLY" = 0 ] || fail "taken back with RESTORE_DRIVER_ON_POD_TERMINATION=false" ;;
  esac
  finish_daemon_row
}

# ---- deadline:<cli|daemon>:<past|within>: the load's deadline ---

SLOW_INSERT="load nvme_core 1500" # FAULT_DELAY: the first stack module, 1.5 s

# The kernel's log shows the slow insert and, past the deadline, that the
# load stopped right after it: nvme_core inserted, then removed again before
# any other stack module was inserted.
check_stopped_after_slow_insert() {
  local l seen=0 removed=0
  while IFS= read -r l; do
    case $seen:$l in
      0:"finit_module nvme_core "*"-> 0") seen=1 ;;
      1:"delete_module nvme_core "*"-> 0") removed=1; break ;;
      1:finit_module*|1:init_module*) fail "the load went on past its deadline: $l"; break ;;
    esac
  done < "$tmp/kernel.log"
  [ $seen = 1 ] || fail "the container's nvme_core was never inserted"
  [ $removed = 1 ] || fail "the nvme_core the late load inserted was not removed again"
}

run_deadline_cli_row() {
  local kind=$1 ctree=/proc/4242/root/lib/modules/$rel timeout=1 t0 ms
  [ "$kind" = within ] && timeout=5
  fault_step=none fired=0 fired_step= fired_out= fired_rc=0
  new_node
  : > "$tmp/fault.script"
  kmod unload
  [ $kmod_rc -eq 0 ] || fail "the unload before the load failed ($kmod_rc): $kmod_out"
  : > "$tmp/kernel.log"
  t0=${EPOCHREALTIME/./}
  kmod_hooks=1 FAULT_DELAY=$SLOW_INSERT kmod load --from "$ctree" --timeout $timeout "${MODS[@]}"
  ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
  [ $ms -ge 1500 ] || fail "the load took $ms ms: the slow insert did not happen"
  if [ "$kind" = within ]; then
    [ $kmod_rc -eq 0 ] || fail "a load within its deadline failed ($kmod_rc): $kmod_out"
    grep -q "took longer than" <<<"$kmod_out" && fail "a load within its deadline says it took too long"
  else
    [ $kmod_rc -eq 1 ] || fail "load exit $kmod_rc past its deadline, expected 1: $kmod_out"
    grep -q "^failed: nvme: the load took longer than 1 s; stopped before inserting it" <<<"$kmod_out" ||
      fail "the load's report does not say it took longer than 1 s: $kmod_out"
    grep -q "^removed again: nvme_core" <<<"$kmod_out" || fail "the report does not say nvme_core was removed again: $kmod_out"
    check_stopped_after_slow_insert
    # The load cleans up after itself, then puts the in-tree stack back; the
    # operator's restore finds it there.
    grep -q "^restored: the in-tree NVMe stack is loaded again" <<<"$kmod_out" ||
      fail "the late load did not put the in-tree stack back: $kmod_out"
    kmod restore "${MODS[@]}"
    [ $kmod_rc -eq 0 ] || fail "the restore after the late load failed ($kmod_rc): $kmod_out"
  fi
  verdict=$(node_verdict)
  local want=in-tree; [ "$kind" = within ] && want=swapped
  [ "$verdict" = $want ] || fail "node is $verdict, expected $want"
  namespaces_present
}

run_deadline_daemon_row() {
  new_node
  : > "$tmp/fault.script"
  config LoadTimeoutSec=1
  # every nvme_core insert is slow, the restore's too: its deadline is not LoadTimeoutSec=
  start_daemon FAULT_DELAY="$SLOW_INSERT"
  wait_state idle; start_container; wait_state unloaded-waiting-driver
  : > "$tmp/kernel.log"
  ready
  wait_log "Ready file .* appeared"
  wait_state "$SETTLED"
  [ "$(state)" = restored ] || fail "a load past its deadline ended $(state), expected restored"
  grep -E "MESSAGE_ID=$MID_FAILED" "$tmp/daemon.log" | grep -F "ran past its deadline (LoadTimeoutSec=1)" |
    grep -qF "nvme: the load took longer than 1 s; stopped before inserting it" ||
    fail "no FAILED journal entry says the load ran past its deadline of 1 s"
  check_stopped_after_slow_insert
  finish_daemon_row
}

run_deadline_row() {
  case $1 in
    cli) run_deadline_cli_row "$2" ;;
    daemon) run_deadline_daemon_row "$2" ;;
  esac
}

# Mode= switched by a restart. Observe before the switch must have
# made no module call; after it, the node ends swapped or in-tree as always.
no_module_call_yet() {
  grep -qE "^(delete_module|init_module|finit_module)" "$tmp/kernel.log" 2>/dev/null &&
    fail "observe made a module call: $(grep -E '^(delete|init|finit)' "$tmp/kernel.log" | head -3)"
  [ -e "$root/run/modprobe.d/nvme-swapguard.conf" ] && fail "observe wrote the reload block"
  return 0
}

run_switch_row() {
  new_node
  : > "$tmp/fault.script"
  case $1 in
    observe-enforce)       # the container waits for its ready file: unload now, then the normal path
      config Mode=observe
      start_daemon; wait_state idle; start_container; wait_state would-unload; kill_daemon
      no_module_call_yet
      config Mode=enforce
      start_daemon; wait_state unloaded-waiting-driver; ready; wait_state swapped ;;
    observe-ready-enforce) # already ready: swap at once
      config Mode=observe
      start_daemon; wait_state idle; start_container; wait_state would-unload; ready; wait_state would-swap
      kill_daemon; no_module_call_yet
      config Mode=enforce
      start_daemon; wait_state swapped ;;
    observe-blocked-enforce)
      usage=inuse; mount_in_use
      config Mode=observe
      start_daemon; wait_state idle; start_container; wait_state blocked; kill_daemon
      no_module_call_yet
      config Mode=enforce
      start_daemon; wait_log "previous state blocked"; wait_state blocked
      check_not_touched_while_in_use
      usage=free
      sed -i '\#/var/lib/kubelet#d' "$root/proc/1/mountinfo"
      kill -HUP "$daemon_pid"
      wait_state unloaded-waiting-driver; ready; wait_state swapped ;;
    enforce-unloaded-observe) # killed while unloaded: observe gives the node its driver back
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver; kill_daemon
      config Mode=observe
      : > "$tmp/kernel.log"
      start_daemon; wait_state restored
      grep -qE "^(init_module|finit_module) nvme .*-> 0" "$tmp/kernel.log" || fail "observe did not restore nvme"
      grep -q "^delete_module" "$tmp/kernel.log" && fail "observe unloaded something"
      ready; nap 0.5
      [ "$(state)" = restored ] || fail "observe went on to $(state) at the ready file" ;;
    enforce-swapped-observe) # swapped stays swapped, untouched
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver; ready
      wait_state swapped; kill_daemon
      config Mode=observe
      : > "$tmp/kernel.log"
      start_daemon; wait_log "stays as enforce left it"; wait_state swapped
      no_module_call_yet ;;
  esac
  finish_daemon_row
}

run_row() {
  local spec=$1
  local IFS=:
  set -- $spec
  IFS=$' \t\n'
  usage=${5:-free}
  [ "${1}:${2:-}" = "cli:midmount" ] || [ "${1}:${2:-}" = "daemon:midmount" ] && usage=midmount
  case $1 in
    cli) run_cli_row "$2" "$3" "$4" ;;
    daemon) run_daemon_fault_row "$2" "$3" "$4" ;;
    kill) run_kill_row "$2" ;;
    enobufs) run_enobufs_row "$2" ;;
    vanish) run_vanish_row "$2" ;;
    noroot) run_noroot_row "$2" ;;
    store) run_store_row "$2" ;;
    noready) run_noready_row "$2" ;;
    pin) if [ "$2" = cli ]; then run_pin_cli_row "$3" "$4"; else run_pin_daemon_row "$3" "$4"; fi ;;
    lifecycle) run_lifecycle_row "$2" "${3:-}" "${4:-}" ;;
    podend) run_podend_row "$2" "${3:-}" "${4:-}" ;;
    deadline) run_deadline_row "$2" "$3" ;;
    switch) run_switch_row "$2" ;;
    fabrics) run_fabrics_row "$2" ;;
    *) fail "unknown row $spec" ;;
  esac
}

# one_row SPEC: runs it in its own directory; prints PASS/FAIL and, on
# failure, the reasons and the logs.
one_row() {
  local spec=$1
  tmp=$(mktemp -d /tmp/sg-faults-XXXXXX)
  trap row_cleanup EXIT
  local t0=$SECONDS
  run_row "$spec"
  row_cleanup; daemon_pid=; container_pid=
  local known=${KNOWN_BUGS[$spec]:-}
  if [ ${#fail_msgs[@]} -eq 0 ]; then
    if [ -n "$known" ]; then
      echo "XPASS $spec: listed as a known bug but passes: remove it from KNOWN_BUGS"
      return 1
    fi
    echo "PASS $spec ($((SECONDS - t0))s, node ${verdict:-?})"
    [ -n "${KEEP_TMP:-}" ] && echo "    (kept $tmp)" || rm -rf "$tmp"
    return 0
  fi
  if [ -n "$known" ]; then
    echo "XFAIL $spec: known bug: $known"
    printf '    - %s\n' "${fail_msgs[@]}"
    [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
    return 0
  fi
  {
    echo "FAIL $spec"
    printf '    - %s\n' "${fail_msgs[@]}"
    for f in cli.log daemon.log kernel.log fault.script; do
      [ -s "$tmp/$f" ] && { echo "    --- $f"; tail -40 "$tmp/$f" | sed 's/^/      /'; }
    done
  } | head -150
  [ -n "${KEEP_TMP:-}" ] && echo "    (kept $tmp)" || rm -rf "$tmp"
  return 1
}

case ${1:-} in
  --list) list_rows; exit 0 ;;
  --one) one_row "$2"; exit $? ;;
  "") ;;
  *) export TEMPLATE=$(mktemp -d /tmp/sg-faults-tpl-XXXXXX); build_template
     rc=0; for r in "$@"; do (VERBOSE=1 one_row "$r") || rc=1; done; rm -rf "$TEMPLATE"; exit $rc ;;
esac

# All rows, JOBS at a time.
out=$(mktemp -d /tmp/sg-faults-run-XXXXXX)
trap 'rm -rf "$out"' EXIT
list_rows | grep -E -- "${ROWS:-.}" > "$out/rows"
export TEMPLATE=$out/template
build_template
[ ${#fail_msgs[@]} -eq 0 ] || { printf "faults: cannot build the template node: %s\n" "${fail_msgs[@]}"; exit 1; }
total=$(grep -c . "$out/rows")
start=$SECONDS
echo "faults: running $total rows, ${JOBS:-3} at a time"
xargs -a "$out/rows" -P "${JOBS:-3}" -I{} bash "$0" --one {} > "$out/results" 2>"$out/stderr"
passed=$(grep -c "^PASS" "$out/results")
xfail=$(grep -c "^XFAIL" "$out/results")
failed=$(grep -cE "^(FAIL|XPASS)" "$out/results")
nodriver=$(grep -c "^PASS .*node no driver" "$out/results")
grep -v '^PASS' "$out/results"
for k in cli daemon kill enobufs vanish noroot store noready pin lifecycle podend deadline switch fabrics; do
  printf '  %-8s %3d rows, %3d passed\n' "$k" "$(grep -c "^$k:" "$out/rows")" \
    "$(grep -c "^PASS $k:" "$out/results")"
done
echo "  ($nodriver passed rows are restores the kernel refuses for good: no driver, reported as such)"
echo "faults: $total rows, $passed passed, $xfail known bugs (xfail), $failed failed ($((SECONDS - start)) s)"
[ "$failed" -eq 0 ] && [ $((passed + xfail)) -eq "$total" ]
