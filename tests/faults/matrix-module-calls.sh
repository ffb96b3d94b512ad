# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Rows where a module call fails or is slow, sourced by faults-matrix.sh:
# cli: through the CLI, daemon: through the daemon binary, deadline: an
# insert slower than the load's deadline.

# ---- cli:<kind>:<module>:<errno>:<usage> ---------------------------------

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

run_daemon_fault_row() {
  local kind=$1 module=$2 err=$3
  new_node
  [ "$usage" = inuse ] && mount_in_use
  case $kind in
    unload) echo "delete_module $module $err" > "$tmp/fault.script" ;;
    load) echo "load $module $err" > "$tmp/fault.script" ;;
    restore) echo "load $module $err" > "$tmp/fault.script"
      # a permanent answer of the kernel: the in-tree module will never load
      case $err in EAGAIN|EBUSY) ;; *) unrecoverable=$err unrecoverable_module=$module ;; esac ;;
    midmount) echo "delete_module $module ok then-mount nvme1n1 /var/lib/kubelet" > "$tmp/fault.script" ;;
  esac
  start_daemon
  wait_state idle
  start_container
  if [ "$kind" = restore ]; then
    # The container ends before its ready file: the daemon restores, the
    # restore meets the fault. An event, not ReadyTimeoutSec=: a short
    # timeout raced the unload on a loaded machine (it fired first, nothing
    # was unloaded, the fault never met).
    wait_state unloaded-waiting-driver
    container_vanish_proc; container_vanish_dir
    wait_state "restored|failed" 60
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
# ---- deadline:<cli|daemon>:<past|within>: the load's deadline ---

# FAULT_DELAY: the first stack module's insert takes 12 s. Past: a deadline
# of 10 s, which the slow insert alone overruns whatever came before it (the
# load's preparation must only take less than 10 s, on any machine). Within:
# 40 s, which the load must only not need 28 s more for.
SLOW_INSERT_MS=12000
SLOW_INSERT="load nvme_core $SLOW_INSERT_MS"
DEADLINE_PAST=10
DEADLINE_WITHIN=40

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
  local kind=$1 ctree=/proc/4242/root/lib/modules/$rel timeout=$DEADLINE_PAST t0 ms
  [ "$kind" = within ] && timeout=$DEADLINE_WITHIN
  fault_step=none fired=0 fired_step= fired_out= fired_rc=0
  new_node
  : > "$tmp/fault.script"
  kmod unload
  [ $kmod_rc -eq 0 ] || fail "the unload before the load failed ($kmod_rc): $kmod_out"
  : > "$tmp/kernel.log"
  t0=${EPOCHREALTIME/./}
  kmod_hooks=1 FAULT_DELAY=$SLOW_INSERT kmod load --from "$ctree" --timeout $timeout "${MODS[@]}"
  ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
  [ $ms -ge $SLOW_INSERT_MS ] || fail "the load took $ms ms: the slow insert did not happen"
  if [ "$kind" = within ]; then
    [ $kmod_rc -eq 0 ] || fail "a load within its deadline failed ($kmod_rc): $kmod_out"
    grep -q "took longer than" <<<"$kmod_out" && fail "a load within its deadline says it took too long"
  else
    [ $kmod_rc -eq 1 ] || fail "load exit $kmod_rc past its deadline, expected 1: $kmod_out"
    grep -q "^failed: nvme: the load took longer than $DEADLINE_PAST s; stopped before inserting it" <<<"$kmod_out" ||
      fail "the load's report does not say it took longer than $DEADLINE_PAST s: $kmod_out"
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
  config LoadTimeoutSec=$DEADLINE_PAST
  # every nvme_core insert is slow, the restore's too: its deadline is not LoadTimeoutSec=
  start_daemon FAULT_DELAY="$SLOW_INSERT"
  wait_state idle; start_container; wait_state unloaded-waiting-driver
  : > "$tmp/kernel.log"
  ready
  wait_log "Ready file .* appeared"
  # the late load, its rollback and the restore's own slow nvme_core insert
  wait_state "$SETTLED" 120
  [ "$(state)" = restored ] || fail "a load past its deadline ended $(state), expected restored"
  grep -E "MESSAGE_ID=$MID_FAILED" "$tmp/daemon.log" | grep -F "ran past its deadline (LoadTimeoutSec=$DEADLINE_PAST)" |
    grep -qF "nvme: the load took longer than $DEADLINE_PAST s; stopped before inserting it" ||
    fail "no FAILED journal entry says the load ran past its deadline of $DEADLINE_PAST s"
  check_stopped_after_slow_insert
  finish_daemon_row
}

run_deadline_row() {
  case $1 in
    cli) run_deadline_cli_row "$2" ;;
    daemon) run_deadline_daemon_row "$2" ;;
  esac
}
