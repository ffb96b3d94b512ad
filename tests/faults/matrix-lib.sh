# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# The fault matrix's world, sourced by faults-matrix.sh: the fake node a row
# starts from, the CLI and the daemon run under the fake kernel (and
# fault-hooks.so), the waits on the daemon's state file and journal, and the
# checks every row ends with (the node swapped or in-tree, nothing removed
# while in use, the output saying which and why).

# A sleep without a process (process creation is slow on shared CI machines).
exec {nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$nap_fd" _ || :; }

rel=6.1.0-fake-amd64
STACK="nvme_core nvme nvme_fabrics nvme_tcp"
# ReadyTimeoutSec= for the rows whose ready deadline must come after the
# unload (and the fabrics capture before it): a deadline, never a race. At
# 1 s it fired before the unload on a loaded machine under ASan (the
# deadline is armed when the container is seen; sd-event may fire it up to
# 1 s late, never early).
READY_TIMEOUT_AFTER_UNLOAD=10
ERRNOS="EAGAIN EBUSY EPERM ENOENT EKEYREJECTED ENOEXEC"
ID=3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3
ID2=b2b2${ID:4}
# journal MESSAGE_IDs (daemon/publish/message-ids.h)
MID_SWAPPED=d52b71b7f0f044ca8ed598ab2090efd0
MID_RESTORED=bf54ca7d2bec4edaa11caff4a4613f1a
MID_FAILED=f52b7f6f00e0428aa7aedd0840ea6eb4
MID_BLOCKED=d26a0597308b450481324cf4e89b659b
MID_STOP_RESTORED=7bc368d6005b4d99b5e15d0902c4c229
MID_RELOAD=33be6ddb5194470aa0a57242da70fff5
MID_EARLIER=d3322a26406e4cb0a41aa7fb1159b157
MID_EARLIER_BLOCKED=adbd67853e784137868988641d7019cc
MID_STACK_BROKEN=a81ba0c10e82421d97e29bd6c629dd9a
MID_NO_BUILD=dabe24b8d8c343048eb79349235b3955
MID_READY_STALE=da64cc3df69d42e9a148cb5be8ac23b1
MID_ENV_NO_NFSRDMA=054b86adf25a4f10a662535e9e900ff9
MID_GDS=47164c2a2fe04b3884cd7ef0c9273611

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
  [ -e "$root/run/nvme-swapguard/reload-blocked" ] && fail "the reload block outlived the daemon"
}

# Did the scripted fault fire, and was it absorbed (the swap still completed)?
fault_fired() { slurp "$tmp/kernel.log"; [[ $REPLY == *scripted* ]]; }
# fault_fired_wait [seconds]: until it did.
fault_fired_wait() {
  local n=$(( ${1:-10} * 20 )) i
  for ((i = 0; i < n; i++)); do fault_fired && return 0; nap 0.05; done
  return 1
}

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


unready() { rm -f "$root/run/mellanox/drivers/.driver-ready"; }

# delete_module of one module, behind the daemon's back (openibd, an operator).
rmmod_behind() {
  NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log LD_PRELOAD=$FAKE_KERNEL_SO \
    python3 -c 'import ctypes, sys; ctypes.CDLL(None).delete_module(sys.argv[1].encode(), 0)' "$1"
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
