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
# Usage: faults-matrix.sh            run every row (JOBS=3 at a time; ROWS=<regex> picks rows;
#                                    FAULTS_SAMPLE=N keeps every kind's first row and every Nth)
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

# The parts, by concept; sourced, so a row costs no process for them:
#   matrix-lib.sh           the node, the CLI and the daemon under the fake kernel,
#                           the checks every row ends with
#   matrix-module-calls.sh  cli:, daemon:, deadline:  a module call fails or is slow
#   matrix-restart.sh       kill:, reader:, fabrics:, switch:  the daemon (or its
#                           privileged reader) killed, and the daemon restarted
#   matrix-watch.sh         enobufs:, vanish:, store:, noroot:, noready:  what the
#                           daemon watches is lost, goes, or never comes
#   matrix-pin.sh           pin:  a namespace taken into use while the guard acts
#   matrix-lifecycle.sh     lifecycle:, podend:  the driver container's whole life
case ${BASH_SOURCE[0]} in */*) here=${BASH_SOURCE[0]%/*} ;; *) here=. ;; esac
# shellcheck source=matrix-lib.sh
. "$here/matrix-lib.sh" || exit 1
# shellcheck source=matrix-module-calls.sh
. "$here/matrix-module-calls.sh" || exit 1
# shellcheck source=matrix-restart.sh
. "$here/matrix-restart.sh" || exit 1
# shellcheck source=matrix-watch.sh
. "$here/matrix-watch.sh" || exit 1
# shellcheck source=matrix-pin.sh
. "$here/matrix-pin.sh" || exit 1
# shellcheck source=matrix-lifecycle.sh
. "$here/matrix-lifecycle.sh" || exit 1

# Rows that fail for a bug not fixed yet: reported as XFAIL with the reason,
# so the matrix stays green while it says what is open; a listed row that
# passes fails the run (XPASS) until it is taken off the list.
declare -A KNOWN_BUGS=(
  # [row]="why it fails, where the fix belongs"
)

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
  # The privileged reader dies (SIGKILL) while the daemon is idle and while
  # it waits for the driver after the unload.
  for s in idle unloaded-waiting-driver; do echo "reader:$s"; done
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
    reader) run_reader_row "$2" ;;
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

# sample_rows: FAULTS_SAMPLE=N (the sanitizer build's run in run-tests.sh;
# the plain build runs every row): the first row of each kind (its first two
# fields: cli:unload, kill:swapped, store:overflow...) so every code path a
# kind drives runs under the sanitizers, then every Nth of the rest, which
# differ only in the module or the errno.
sample_rows() {
  local n=${FAULTS_SAMPLE:-1}
  [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] || { echo "faults: FAULTS_SAMPLE=$n is not a number >= 1" >&2; n=1; }
  awk -F: -v n="$n" '{ kind = $1 ":" $2 } !(kind in seen) || (NR - 1) % n == 0 { seen[kind] = 1; print }'
}

# All rows, JOBS at a time.
out=$(mktemp -d /tmp/sg-faults-run-XXXXXX)
trap 'rm -rf "$out"' EXIT
list_rows | grep -E -- "${ROWS:-.}" | sample_rows > "$out/rows"
export TEMPLATE=$out/template
build_template
[ ${#fail_msgs[@]} -eq 0 ] || { printf "faults: cannot build the template node: %s\n" "${fail_msgs[@]}"; exit 1; }
total=$(grep -c . "$out/rows")
start=$SECONDS
all=$(list_rows | grep -cE -- "${ROWS:-.}")
if [ "$total" -lt "$all" ]; then
  echo "faults: running $total of the $all rows (FAULTS_SAMPLE=${FAULTS_SAMPLE:-1}), ${JOBS:-3} at a time"
else
  echo "faults: running $total rows, ${JOBS:-3} at a time"
fi
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
