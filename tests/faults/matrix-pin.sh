# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# pin: rows, sourced by faults-matrix.sh: a namespace taken into use while the
# guard acts (during a retry's back-off, a rollback, a probe that fails).

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
