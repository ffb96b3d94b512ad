#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One swap's steps, counted from the outside: the daemon on a fake node
# under strace, a driver container whose ready file comes, to swapped: with
# UnloadAt=auto (it chooses the ready file: the unload and the load at the
# ready file) and with UnloadAt=container-start (the unload at the start,
# the load at the ready file). Per step of the dispatch (swap/swap-step.h),
# every step of the run, from the system calls alone:
#   - stack reads: opens of the node's /proc/modules before the step's
#     action (its snapshot, and every report of its entry), at most one;
#   - hooks reads: opens of /proc/kallsyms there, at most one;
#   - state file writes: renames onto state.json in the whole step, at most
#     one;
#   - the action's own re-checks (the guard's look just before and after
#     each removal, the load's checks): opens of /proc/modules after the
#     step's "action" line, not limited, printed in the table;
#   - "before": opens of /proc/modules since the last step, by the loop's
#     other events (a handler that read the stack, then dispatched: its
#     step takes that snapshot over), not limited, printed.
# The step's bounds are the daemon's debug lines ("Step ... begins",
# "Event ... action ..." ends its plan and entry, "Step ...:" ends it;
# between two steps the loop's other events read what they read), written
# to stderr, which
# strace orders with every other call. The daemon's own counts in the
# "Step" line are printed beside, not trusted.
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail
# Deadlines only catch a hang: strace slows every call, and a busy machine
# more (no stopwatch decides anything here).
: "${WAIT_STATE_SEC:=120}"
. "$(dirname "$0")/lib-daemon-fakeroot.sh"
command -v strace >/dev/null || { echo "SKIP: strace is needed to count the daemon's reads and writes"; exit 77; }

# The daemon under strace: -f follows the privileged reader too; the
# fake kernel (LD_PRELOAD) reaches strace's child through the environment.
start_traced_daemon() {
  install_gate
  NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
    strace -f -qq -s 300 -e trace=openat,open,rename,renameat,renameat2,write -e signal=none \
    -E LD_PRELOAD="$FAKE_KERNEL_SO" -o "$tmp/trace" \
    "$SWAPGUARD_DAEMON" --root "$root" --log-target stderr --debug "$@" >>"$tmp/daemon.log" 2>&1 &
  daemon_pid=$!
}

# strace passes a SIGTERM on to nobody (it detaches): the daemon itself is
# stopped, and strace ends with its exit status.
stop_traced_daemon() {
  local pid
  for _ in $(seq 50); do
    pid=$(pgrep -P "$daemon_pid" | head -1)
    [ -n "$pid" ] && break
    sleep 0.1
  done
  [ -n "$pid" ] && kill -TERM "$pid"
  wait "$daemon_pid"; local rc=$?
  daemon_pid=
  [ "$rc" -eq 0 ] && ok || fail "daemon exited $rc on SIGTERM"
}

# The container's root as a current image has it (the moment: at the ready
# file), its NVMe build in its tree.
start_current_container() {
  local r
  sleep 600 &
  container_pid=$!
  r=$root/proc/$container_pid/root
  fake_node_nvidia_build "/proc/$container_pid/root/lib/modules/$rel"
  mkdir -p "$r/usr/share/mlnx_ofed" "$r/root" "$r/bin"
  printf 'check_if_ok_to_stop()\n{\n    for mod in ib_isert nvme_rdma\n    do\n        :\n    done\n}\n' \
    > "$r/usr/share/mlnx_ofed/mod_load_funcs"
  printf '#!/bin/bash\n/etc/init.d/openibd restart\n' > "$r/root/entrypoint.sh"
  printf '\177ELF' > "$r/bin/bash"
  printf '/bin/bash\0/root/entrypoint.sh\0' > "$root/proc/$container_pid/cmdline"
  fn container $container_pid $ID
}

count_steps() { # count_steps TRACE ROOT: the table; exit 1 above the limits
  python3 - "$1" "$2" <<'PY'
import re, sys
trace, root = sys.argv[1], sys.argv[2]
steps, cur, between = [], None, 0
def new():
    return {"reads": 0, "hooks": 0, "writes": 0, "rechecks": 0, "action": "", "plan": False, "said": "",
            "transition": ("?", "?", "?")}
for line in open(trace, errors="replace"):
    m = re.search(r'write\(2, "(.*)", \d+\)', line)
    if m:
        text = m.group(1)
        if re.search(r"debug: Step \S+ begins", text):
            cur = new()
            cur["between"], between = between, 0
        elif cur is not None and re.search(r"Event \S+ in \S+: -> \S+, action", text):
            cur["plan"] = True
            cur["action"] = re.search(r"action ([^.]+)\.", text).group(1)
            cur["transition"] = re.search(r"Event (\S+) in (\S+): -> (\S+),", text).groups()
        elif cur is not None and re.search(r"debug: Step \S+: ", text):
            cur["said"] = text.split("debug: Step ", 1)[1]
            steps.append(cur)
            cur = None
        continue
    m = re.search(r'open(?:at)?\((?:AT_FDCWD, )?"([^"]*)"', line)
    if cur is None:
        if m and "= -1" not in line and m.group(1) == root + "/proc/modules":
            between += 1
        continue
    if m and "= -1" not in line:
        path = m.group(1)
        if path == root + "/proc/modules":
            cur["rechecks" if cur["plan"] else "reads"] += 1
        elif path == root + "/proc/kallsyms" and not cur["plan"]:
            cur["hooks"] += 1
        continue
    m = re.search(r'rename(?:at2?)?\(.*"([^"]*)"(?:, \w+)?\) = 0', line)
    if m and m.group(1).endswith("/nvme-swapguard/state.json"):
        cur["writes"] += 1
bad = 0
print("%-22s %-24s %-32s %7s %5s %5s %6s %8s" % ("event", "in", "-> state, action", "before", "reads", "hooks",
                                                   "writes", "action's"))
for s in steps:
    t = s["transition"]
    over = s["reads"] > 1 or s["hooks"] > 1 or s["writes"] > 1
    bad += over
    print("%-22s %-24s %-32s %7d %5d %5d %6d %8d%s" % (t[0], t[1], t[2] + ", " + s["action"], s["between"],
                                                       s["reads"], s["hooks"], s["writes"], s["rechecks"],
                                                       "   <- over the limit" if over else ""))
    print("    the daemon's own line: Step " + s["said"].replace("\\n", ""))
if not any(s["transition"][2] == "swapped" for s in steps):
    print("no step entered swapped")
    sys.exit(2)
sys.exit(1 if bad else 0)
PY
}

check_steps() {
  echo "[$case] every step of the run (stack and hooks reads before the action, state file writes in the step, the action's own /proc/modules reads):"
  count_steps "$tmp/trace" "$root"
  case $? in
    0) ok ;;
    1) fail "a step read the stack, the hooks or wrote the state file more than once" ;;
    *) fail "the trace did not show the steps (see above)" ;;
  esac
}

case_ready_to_swapped() {
new_node
printf '[Swap]\nUnloadAt=auto\n' > "$root/etc/nvme-swapguard/nvme-swapguard.conf"
start_traced_daemon
wait_state idle || return 1
start_current_container
wait_state container-seen || return 1
expect_no_kernel "delete_module"
ready
wait_state swapped || return 1
expect_kernel "delete_module nvme flags=.* -> 0"
stop_traced_daemon
stop_container
check_steps
}
run_case ready-to-swapped

# UnloadAt=container-start: the unload at the container's start, the load
# at its ready file, each its own chain of steps.
case_container_start_to_swapped() {
new_node
printf '[Swap]\nUnloadAt=container-start\n' > "$root/etc/nvme-swapguard/nvme-swapguard.conf"
start_traced_daemon
wait_state idle || return 1
start_current_container
wait_state unloaded-waiting-driver || return 1
expect_kernel "delete_module nvme flags=.* -> 0"
ready
wait_state swapped || return 1
stop_traced_daemon
stop_container
check_steps
}
run_case container-start-to-swapped

echo "daemon-step-fakeroot: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
