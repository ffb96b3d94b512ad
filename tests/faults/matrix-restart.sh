# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Rows where the daemon is killed and restarted, sourced by faults-matrix.sh:
# kill: SIGKILL at every state, reader: the daemon's privileged reader
# killed, fabrics: between the unload that dropped an NVMe/TCP connection and
# its reconnect, switch: Mode= changed across the restart.


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
      [ -e "$root/run/nvme-swapguard/reload-blocked" ] || fail "reload block not back after the restart"
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
      config ReadyTimeoutSec=$READY_TIMEOUT_AFTER_UNLOAD
      start_daemon FAULT_STALL="load nvme" FAULT_STALL_MARK=$tmp/stalled
      wait_state idle; start_container; wait_file "$tmp/stalled" 60
      [ "$(state)" = restoring ] || fail "mid-restore the state file says $(state)"
      kill_daemon
      start_daemon; wait_log "previous state restoring"; wait_state "restored|failed" 60 ;;
    restored)
      config ReadyTimeoutSec=$READY_TIMEOUT_AFTER_UNLOAD
      start_daemon; wait_state idle; start_container; wait_state restored 60; kill_daemon
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

# The daemon's privileged reader (sandbox/privileged-reader.h): the child
# of the daemon under a seccomp filter (Seccomp: 2; the daemon has none
# under the fake root), into REPLY. Fails when there is not exactly one.
reader_pid() {
  local c pids=() children
  slurp "/proc/$daemon_pid/task/$daemon_pid/children"; children=$REPLY
  for c in $children; do
    slurp "/proc/$c/status"
    [[ $REPLY == *$'\nSeccomp:\t2\n'* ]] && pids+=("$c")
  done
  REPLY=${pids[0]:-}
  [ ${#pids[@]} -eq 1 ] || { fail "the daemon $daemon_pid has ${#pids[@]} privileged readers: ${pids[*]}"; return 1; }
}

# The reader SIGKILLed: the daemon must stop (an unloaded stack restored,
# as on SIGTERM: manager_stop()), say how its reader ended, and exit
# non-zero for the unit to restart it. Not within the deadline: a daemon
# that stays blind.
kill_reader() {
  local r i rc
  reader_pid || return 1; r=$REPLY
  kill -9 "$r" || { fail "cannot kill the reader $r"; return 1; }
  for ((i = 0; i < 400; i++)); do kill -0 "$daemon_pid" 2>/dev/null || break; nap 0.05; done
  if kill -0 "$daemon_pid" 2>/dev/null; then
    fail "the daemon still runs 20 s after its privileged reader was killed (blind)"
    kill_daemon; return 1
  fi
  wait "$daemon_pid"; rc=$?; daemon_pid=
  echo "---- reader $r killed, daemon exit $rc ----" >> "$tmp/daemon.log"
  [ "$rc" -ne 0 ] || fail "the daemon exited 0 after its reader died: the unit would not restart it"
  grep -q "The privileged reader (pid $r) is gone: killed by signal 9 (SIGKILL)" "$tmp/daemon.log" ||
    fail "no journal line says the reader $r was killed by SIGKILL"
  [ -e "$root/run/nvme-swapguard/reload-blocked" ] && fail "the reload block outlived the daemon"
  # Whether or not the unit restarts it: never a node without its driver.
  [ "$(node_verdict)" = in-tree ] || fail "after the daemon's exit the node is $(node_verdict)"
  return 0
}

# reader:<state>: the privileged reader killed in that state; the restart
# (the unit's Restart=) resumes and finishes the swap.
run_reader_row() {
  new_node
  : > "$tmp/fault.script"
  case $1 in
    idle)
      start_daemon; wait_state idle; kill_reader
      start_daemon; wait_log "previous state idle"; wait_state idle
      start_container; wait_state unloaded-waiting-driver; ready; wait_state swapped ;;
    unloaded-waiting-driver)
      start_daemon; wait_state idle; start_container; wait_state unloaded-waiting-driver; kill_reader
      # The stop restored the stack and left idle: the restart swaps again.
      grep -q "MESSAGE_ID=$MID_STOP_RESTORED" "$tmp/daemon.log" || fail "no STOP_RESTORED entry for the stop"
      start_daemon; wait_log "previous state idle"; wait_log "started in state" 2
      wait_state unloaded-waiting-driver; ready; wait_state swapped ;;
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
      config ReadyTimeoutSec=$READY_TIMEOUT_AFTER_UNLOAD
      start_daemon FAULT_STALL="load nvme" FAULT_STALL_MARK=$tmp/stalled
      wait_state idle; start_container; wait_file "$tmp/stalled" 60
      [ "$(state)" = restoring ] || fail "mid-restore the state file says $(state)"
      fabrics_recorded; kill_daemon
      start_daemon; wait_log "previous state restoring"; wait_state "restored|failed" 60 ;;
  esac
  fabrics_reconnected_from_record
  finish_daemon_row
  kill "$fabrics_unit_pid" 2>/dev/null; wait "$fabrics_unit_pid" 2>/dev/null
}

# Mode= switched by a restart. Observe before the switch must have
# made no module call; after it, the node ends swapped or in-tree as always.
no_module_call_yet() {
  grep -qE "^(delete_module|init_module|finit_module)" "$tmp/kernel.log" 2>/dev/null &&
    fail "observe made a module call: $(grep -E '^(delete|init|finit)' "$tmp/kernel.log" | head -3)"
  [ -e "$root/run/nvme-swapguard/reload-blocked" ] && fail "observe wrote the reload block"
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
