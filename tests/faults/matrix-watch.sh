# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Rows where what the daemon watches goes wrong, sourced by faults-matrix.sh:
# the uevents lost (enobufs:), the container gone (vanish:), its store
# entries replaced (store:), its root gone (noroot:), the ready file never
# coming (noready:).

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

# The store's watches are added by the daemon's privileged reader, which
# may not remove a file: FAULT_INOTIFY_ADD's trigger is a FIFO the fault
# opens when it fires (fault-hooks.c), which returns the writer's open.
arm_watch_fault() {
  mkfifo "$trigger" || fail "mkfifo $trigger"
  : > "$trigger" &
  taker_pid=$!
}

# watch_fault_fired: until the fault fired (then the trigger goes: the hook
# is armed again only by its absence), or fail saying it never did.
watch_fault_fired() {
  local i
  for ((i = 0; i < 200; i++)); do kill -0 "$taker_pid" 2>/dev/null || break; nap 0.05; done
  if kill -0 "$taker_pid" 2>/dev/null; then
    kill "$taker_pid" 2>/dev/null
    fail "the inotify fault never fired"
  fi
  wait "$taker_pid" 2>/dev/null; taker_pid=
  rm -f "$trigger"
}

# store:<order>: swapped on container $ID; the pod restarts: its process
# exits, its store entry goes and $ID2's comes, in the row's order, the
# daemon's inotify faulted as the row says (fault-hooks.c). Whatever the
# order, the daemon follows $ID2: the earlier build out, swapped on $ID2's,
# and no "cannot watch" warning for $ID's entry, which only went (the
# store's warning for a watch it cannot have; $ID2's ENOSPC has one).
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
    watch-fails-once) arm_watch_fault; rm -rf "$a"; new_container $ID2; watch_fault_fired ;;
    gone-before-watch)
      # userdata/ goes first: the daemon moves A's watch up to <id>/, and
      # that watch fails as if <id>/ had gone in between; then it goes.
      arm_watch_fault; rm -rf "$a/userdata"; watch_fault_fired
      rm -rf "$a"; new_container $ID2 ;;
  esac
  case $c in
    overflow) [ -e "$trigger" ] && fail "the inotify fault never fired" ;;
  esac
  wait_log "MESSAGE_ID=$MID_EARLIER"
  wait_state unloaded-waiting-driver
  ready; wait_state swapped
  grep -q "\"build_container\":\"$ID2\"" "$root/run/nvme-swapguard/state.json" ||
    fail "the state file does not name the new container's build"
  grep -q "cannot watch ${ID:0:12}" "$tmp/daemon.log" && fail "a warning for a store entry that only went"
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

# noready:<mode>: the ready file never comes (ReadyTimeoutSec=1, or
# READY_TIMEOUT_AFTER_UNLOAD where the unload must come first).
run_noready_row() {
  local c=$1
  new_node
  : > "$tmp/fault.script"
  case $c in
    container-start) config ReadyTimeoutSec=$READY_TIMEOUT_AFTER_UNLOAD ;;
    driver-ready) config ReadyTimeoutSec=1 UnloadAt=driver-ready ;;
    blocked) config ReadyTimeoutSec=1; usage=inuse; mount_in_use ;;
  esac
  start_daemon; wait_state idle; start_container
  wait_state "restored|failed" 60
  case $c in
    container-start) [ "$(state)" = restored ] || fail "expected restored after the timeout, got $(state)" ;;
    *) [ "$(state)" = failed ] || fail "expected failed (nothing touched) after the timeout, got $(state)"
       grep -q '^delete_module' "$tmp/kernel.log" 2>/dev/null && fail "modules were removed although nothing should be" ;;
  esac
  grep -q "No ready file" "$tmp/daemon.log" || fail "the daemon did not say the ready file never came"
  finish_daemon_row
}
