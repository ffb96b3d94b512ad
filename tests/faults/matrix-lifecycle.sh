# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# The driver container's whole life (lifecycle:) and the pod's end (podend:),
# sourced by faults-matrix.sh.

# ---- lifecycle:<case>: the driver container's whole life -------

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


# A swap with the first container, then its pod goes (it removes its ready
# file; its build stays, RESTORE_DRIVER_ON_POD_TERMINATION=false).
swapped_then_pod_gone() {
  start_daemon "$@"; wait_state idle; start_container; wait_state "unloaded-waiting-driver|container-seen"
  ready; wait_state swapped
  unready; container_vanish_proc; container_vanish_dir
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
  [ -e "$root/run/nvme-swapguard/reload-blocked" ] && fail "a reload block for a container that never started"
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
