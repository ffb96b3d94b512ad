#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The node labels for Node Feature Discovery on a fake node: the daemon
# binary with the fake kernel shim (lib-daemon-fakeroot.sh), through idle,
# blocked, unloaded, swapped (GDS-ready when nvidia_fs asks for the hooks
# the stand-in's nvme exports, not when it asks for others), restored,
# observe, a stop and a crash. At each step the daemon's file
# (/run/nvme-swapguard/node-labels) and what the copier
# (`nvme-swapguard-kmod labels publish`, what nvme-swapguard-labels.service
# runs) publishes in features.d are read by nfd-feature-file.py, a reader
# written from NFD's own grammar (source/local/local.go, validate.go), not
# from our writer: every label valid by Kubernetes' rules, the expiry
# directive before the labels, the expiry within 600 s of the write.
# Then the copier's refusal of each kind of bad file, labels off where
# NFD's directory is missing or NodeLabelsDirectory= is empty.
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE, NVME_SWAPGUARD_KMOD.
set -uo pipefail
: "${WAIT_STATE_SEC:=20}"
features=/etc/kubernetes/node-feature-discovery/features.d
node_dirs=(/var/log "$features")
. "$(dirname "$0")/lib-daemon-fakeroot.sh"
[ -x "${NVME_SWAPGUARD_KMOD:-}" ] || { echo "SKIP: NVME_SWAPGUARD_KMOD not set (run through meson test)"; exit 77; }
reader=$(dirname "$0")/nfd-feature-file.py
source_file=/run/nvme-swapguard/node-labels
published=$features/nvme-swapguard
EXPIRY=600   # NODE_LABELS_EXPIRY_SEC
SLACK=5      # the write's moment against the check's clock

start_container() { start_node_container; }

# The STATUS= the daemon sends, one datagram a line (a NOTIFY_SOCKET of our own).
notify_listen() {
  python3 - "$tmp/notify.sock" "$tmp/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as log:
    while True:
        log.write(s.recv(4096).decode(errors="replace").replace("\n", " | ") + "\n")
PY
  notify_pid=$!
  trap 'kill "$notify_pid" 2>/dev/null; cleanup' EXIT
  local i
  for i in $(seq 50); do [ -S "$tmp/notify.sock" ] && break; sleep 0.1; done
}
start_daemon() {
  NOTIFY_SOCKET=$tmp/notify.sock NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
    LD_PRELOAD=$FAKE_KERNEL_SO "$SWAPGUARD_DAEMON" --root "$root" --log-target stderr "$@" \
    >>"$tmp/daemon.log" 2>&1 &
  daemon_pid=$!
}

# What nvme-swapguard-labels.path starts on every change: the copier.
copy() { "$NVME_SWAPGUARD_KMOD" --root "$root" labels publish "$@" >"$tmp/copy.out" 2>"$tmp/copy.err"; }

# nfd-worker's reading of $1 (a host path) at now: JSON.
nfd() { python3 "$reader" "$root$1" "${@:2}" 2>/dev/null; }
# A key of that JSON: "labels nvme-swapguard.state" (a space between levels).
jget() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read() or "{}"); v=d
for x in sys.argv[1].split(" "): v=v.get(x) if isinstance(v, dict) else None
print("-" if v is None else json.dumps(v) if isinstance(v, dict) else v)' "$1"; }
label() { nfd "$1" | jget "labels $2"; }

# Until the daemon's file says $1=$2 (nfd's reading), for up to 20 s.
wait_label() {
  local deadline=$((SECONDS + 20))
  while [ "$SECONDS" -lt "$deadline" ]; do
    [ "$(label $source_file "$1")" = "$2" ] && { ok; return 0; }
    sleep 0.1
  done
  fail "$source_file: $1 is $(label $source_file "$1"), expected $2: $(cat "$root$source_file" 2>/dev/null)"
  return 1
}

# The daemon's file and the published copy, as nfd-worker reads them: no
# error, exactly the expected labels (valid names with
# feature.node.kubernetes.io/, valid values), the expiry directive before
# every label and $EXPIRY s after the daemon's write (its file's mtime; the
# copy keeps it). $1 state, $2 gds-ready, $3 gds-hooks, $4 mode. One
# python for all of it: the machine is shared.
expect_labels() {
  wait_label nvme-swapguard.state "$1" || return 1
  copy || fail "the copier refused the daemon's file: $(cat "$tmp/copy.err")"
  local out
  out=$(python3 - "$reader" "$root" "$source_file" "$published" "$EXPIRY" "$SLACK" "$1" "$2" "$3" "$4" <<'PY'
import importlib.util, os, sys, time
reader, root, source, published, expiry, slack = sys.argv[1:7]
want = dict(zip(("nvme-swapguard.state", "nvme-swapguard.gds-ready", "nvme-swapguard.gds-hooks",
                 "nvme-swapguard.mode"), sys.argv[7:11]))
spec = importlib.util.spec_from_file_location("nfd", reader)
nfd = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nfd)
now = time.time()
written = os.stat(root + source).st_mtime
for f in (source, published):
    d = nfd.read(root + f, now)
    if d["errors"]:
        print(f"{f}: NFD's reading has errors: {d}")
    if d["labels"] != want:
        print(f"{f}: labels {d['labels']}, expected {want}")
    e = d["expiry"]
    if e is None or abs(e - (written + int(expiry))) > int(slack) + 1 or e <= now:
        print(f"{f}: expiry {e} is not {expiry} s after the daemon's write ({written})")
    lines = [l.strip() for l in open(root + f)]
    first = next(i for i, l in enumerate(lines) if l and not l.startswith("#"))
    if not any(l.startswith("# +expiry-time=") for l in lines[:first]):
        print(f"{f}: a label before the expiry directive")
    if "/dev/" in "".join(lines):
        print(f"{f}: a device path in the labels")
if any(n.startswith(".") for n in os.listdir(os.path.dirname(root + published))):
    print("a dot-file left in features.d")
PY
)
  [ -z "$out" ] && ok || fail "$out"
}

# nvidia_fs loaded on the host, its module asking for the hooks $1 (v1, v2):
# what the GPU Operator's nvidia-fs-ctr or the host provides. The hook name
# is a string of the module file, as in a real one's symbol table.
nvidia_fs() {
  fn ko /lib/modules/$rel extra/nvidia-fs.ko nvidia_fs - - "nvme_$1_register_nvfs_dma_ops=1"
  fn modules-dep /lib/modules/$rel
  fn module nvidia_fs 0 -
}

notify_listen

# --- idle, unloaded, swapped with GDS ready, then a stop --------------------
case_swap_ready() {
new_node
nvidia_fs v1
start_daemon
wait_state idle || return 1
expect_labels idle false none enforce
expect_log "Publishing node labels"
start_container
wait_state unloaded-waiting-driver || return 1
expect_labels unloaded-waiting-driver false none enforce
ready
wait_state swapped || return 1
expect_labels swapped true v1 enforce
stop_daemon
# the stop: a file without labels, expired from the moment it was written
json=$(nfd $source_file)
[ "$(jget labels <<<"$json")" = "{}" ] && ok || fail "labels after the stop: $json"
[ "$(jget all <<<"$json")" = "{}" ] && ok || fail "label lines after the stop: $(cat "$root$source_file")"
python3 -c 'import json,sys,time; e=json.loads(sys.argv[1])["expiry"]; sys.exit(0 if e is not None and e <= time.time() else 1)' "$json" \
  && ok || fail "the stopped file's expiry is ahead: $json"
copy && ok || fail "the copier refused the stopped file: $(cat "$tmp/copy.err")"
json=$(nfd $published)
[ "$(jget all <<<"$json")" = "{}" ] && ok || fail "published labels after the stop: $(cat "$root$published")"
stop_container
}
run_case swap-ready

# --- swapped but nvidia_fs asks for other hooks: not GDS-ready -------------
case_swap_not_ready() {
new_node
nvidia_fs v2
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
ready
wait_state swapped || return 1
expect_labels swapped false v1 enforce
stop_daemon
stop_container
}
run_case swap-not-ready

# --- blocked -----------------------------------------------------------------
case_blocked() {
new_node
fn mount nvme0n1p1 /var/lib/data xfs
start_daemon
start_container
wait_state blocked || return 1
expect_labels blocked false none enforce
stop_daemon
stop_container
}
run_case blocked

# --- the container exits before ready: restored ------------------------------
case_restored() {
new_node
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
stop_container
wait_state restored || return 1
expect_labels restored false none enforce
stop_daemon
}
run_case restored

# --- observe: what it would do, never ready -----------------------------------
case_observe() {
new_node
nvidia_fs v1
printf '[Swap]\nMode=observe\n' > "$root/etc/nvme-swapguard/nvme-swapguard.conf"
start_daemon
start_container
wait_state would-unload || return 1
expect_labels would-unload false none observe
ready
wait_state would-swap || return 1
expect_labels would-swap false none observe
stop_daemon
stop_container
}
run_case observe

# --- a crash: the labels left expire by themselves within the bound ----------
case_crash() {
new_node
nvidia_fs v1
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
ready
wait_state swapped || return 1
expect_labels swapped true v1 enforce
kill -KILL "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=
# nfd-worker's reading now, and at the file's own expiry + nfd-worker's 60 s
# re-read (computed from the file: no waiting for minutes)
json=$(nfd $published)
[ "$(jget "labels nvme-swapguard.gds-ready" <<<"$json")" = true ] && ok || fail "labels gone before their expiry: $json"
expiry=$(jget expiry <<<"$json")
written=$(stat -c %Y "$root$published")
python3 -c 'import sys; e,w=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if 0 < e - w <= 600 + 5 else 1)' "$expiry" "$written" \
  && ok || fail "the crashed daemon's labels live $(python3 -c "print($expiry - $written)") s, more than 600 s"
gone=$(nfd $published --now-epoch "$(python3 -c "print($expiry + 60)")")
[ "$(jget labels <<<"$gone")" = "{}" ] && ok || fail "labels still published after expiry + 60 s: $gone"
before=$(nfd $published --now-epoch "$(python3 -c "print($expiry - 1)")")
[ "$(jget "labels nvme-swapguard.state" <<<"$before")" = swapped ] && ok || fail "labels gone before the expiry: $before"
# the restart that follows writes them afresh
start_daemon
wait_state swapped || return 1
expect_labels swapped true v1 enforce
stop_daemon
stop_container
}
run_case crash

# --- no Node Feature Discovery: no file, labels off, nothing breaks; the
# directory appears (NFD installed) and a reload publishes -------------------
case_no_nfd() {
new_node
rm -rf "$root/etc/kubernetes"
start_daemon
wait_state idle || return 1
wait_log "Node labels off: no $features" && ok || fail "the daemon does not say labels are off"
grep -q "STATUS=idle: no driver container; node labels off: no $features" "$tmp/notify.log" \
  && ok || fail "STATUS= does not say labels are off: $(tail -3 "$tmp/notify.log")"
[ -e "$root$source_file" ] && fail "a labels file without NFD" || ok
copy && ok || fail "the copier failed without NFD's directory: $(cat "$tmp/copy.err")"
[ -e "$root/etc/kubernetes" ] && fail "the copier created /etc/kubernetes" || ok
mkdir -p "$root$features"
kill -HUP "$daemon_pid"
wait_label nvme-swapguard.state idle || return 1
stop_daemon
}
run_case no-nfd

# --- NodeLabelsDirectory= empty: off; the copier then removes its copy --------
case_off() {
new_node
start_daemon
wait_state idle || return 1
expect_labels idle false none enforce
printf '[Swap]\nNodeLabelsDirectory=\n' > "$root/etc/nvme-swapguard/nvme-swapguard.conf"
kill -HUP "$daemon_pid"
wait_log "Node labels off: NodeLabelsDirectory= is empty" && ok || fail "the daemon does not say labels are off"
for i in $(seq 100); do [ -e "$root$source_file" ] || break; sleep 0.1; done
[ -e "$root$source_file" ] && fail "the labels file stays with NodeLabelsDirectory= empty" || ok
copy && ok || fail "the copier failed: $(cat "$tmp/copy.err")"
[ -e "$root$published" ] && fail "the published file stays with labels off" || ok
stop_daemon
}
run_case off

# --- the copier refuses each kind of bad file, names file and line, and
# takes down what was published ------------------------------------------------
case_copier_refuses() {
new_node
mkdir -p "$root/run/nvme-swapguard"
now() { python3 -c "import datetime,sys; print((datetime.datetime.now(datetime.timezone.utc)+datetime.timedelta(seconds=int(sys.argv[1]))).strftime('%Y-%m-%dT%H:%M:%SZ'))" "$1"; }
good() { printf '# +expiry-time=%s\nnvme-swapguard.state=swapped\nnvme-swapguard.gds-ready=true\nnvme-swapguard.gds-hooks=v1\nnvme-swapguard.mode=enforce\n' "$(now 600)"; }
good > "$root$source_file"
copy && ok || fail "a good file refused: $(cat "$tmp/copy.err")"
[ "$(label $published nvme-swapguard.gds-ready)" = true ] && ok || fail "good file not published"
# refused: <what> <expected "file:line" or "file:"> <content>
refused() {
  local what=$1 where=$2
  good > "$root$source_file" && copy   # something published to take down
  rm -f "$root$source_file"
  printf '%b' "$3" > "$root$source_file"
  if copy; then fail "$what: accepted"; return; fi
  grep -q "labels: $root$source_file$where: refused" "$tmp/copy.err" && ok || fail "$what: error does not name $where: $(cat "$tmp/copy.err")"
  [ -e "$root$published" ] && fail "$what: the published file stays" || ok
}
exp="# +expiry-time=$(now 600)\\n"
refused "unknown name"        :2 "${exp}nvidia.com/gpu.present=true\n"
refused "another prefix"      :2 "${exp}feature.node.kubernetes.io/nvme-swapguard.state=swapped\n"
refused "bad value"           :2 "${exp}nvme-swapguard.gds-ready=maybe\n"
refused "label syntax"        :3 "${exp}nvme-swapguard.mode=enforce\nnvme-swapguard.state=swapped\\\\x\n"
refused "device path"         :2 "${exp}nvme-swapguard.state=/dev/nvme0n1\n"
refused "no expiry"           :1 "nvme-swapguard.state=swapped\n"
refused "expiry far ahead"    :1 "# +expiry-time=$(now 86400)\nnvme-swapguard.state=swapped\n"
refused "expiry not RFC3339"  :1 "# +expiry-time=in ten minutes\nnvme-swapguard.state=swapped\n"
refused "other directive"     :2 "${exp}# +no-label\nnvme-swapguard.state=swapped\n"
refused "twice"               :3 "${exp}nvme-swapguard.state=swapped\nnvme-swapguard.state=idle\n"
refused "expiry after labels" :3 "${exp}nvme-swapguard.state=swapped\n# +expiry-time=$(now 60)\n"
# not a regular file, or far too large: the whole file named
good > "$root$source_file" && copy
rm -f "$root$source_file"; ln -s /etc/shadow "$root$source_file"
copy && fail "a symlink accepted" || { grep -q "refused: a symbolic link" "$tmp/copy.err" && ok || fail "symlink: $(cat "$tmp/copy.err")"; }
[ -e "$root$published" ] && fail "symlink: the published file stays" || ok
rm -f "$root$source_file"; mkfifo "$root$source_file"
timeout 10 "$NVME_SWAPGUARD_KMOD" --root "$root" labels publish >"$tmp/copy.out" 2>"$tmp/copy.err" \
  && fail "a FIFO accepted" || { grep -q "refused: not a regular file" "$tmp/copy.err" && ok || fail "FIFO: $(cat "$tmp/copy.err")"; }
rm -f "$root$source_file"; { good; head -c 8192 /dev/zero | tr '\0' '#'; } > "$root$source_file"
copy && fail "a large file accepted" || { grep -q "refused: larger than" "$tmp/copy.err" && ok || fail "large: $(cat "$tmp/copy.err")"; }
# the daemon's file gone (stopped writing): the published one goes, exit 0
good > "$root$source_file" && copy
rm -f "$root$source_file"
copy && ok || fail "no source: $(cat "$tmp/copy.err")"
[ -e "$root$published" ] && fail "no source: the published file stays" || ok
}
run_case copier-refuses

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
