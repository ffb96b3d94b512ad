#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The taken-over daemon: run as the SHIPPED nvme-swapguard.service with only
# its ExecStart= (and Type=, WatchdogSec=, Restart=) replaced by this script
# (lib-swapguard.sh, sg_probe_unit), so with the daemon's dynamic user,
# capabilities, sandbox and paths. It tries each way to root or to a secret a
# node's security team asks about (FIELD-NOTES section 14) and prints one
# line per attempt:
#   "OPEN: ..."                     it worked and must not (the test fails);
#   "blocked: ... (<error>)"        it failed, as it must;
#   "known open (the reader's): ..." it worked with the unit's identity,
#                                   which the daemon's privileged reader keeps
#                                   (CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH) and the
#                                   daemon gives up after forking it: printed,
#                                   not failed; the daemon's own identity is
#                                   section 7's, where the same must fail;
#   "not tried: ... (why)".
# What it manages to create it removes at once; what it renames it puts back.
# PROBE_VICTIM: the pid of an unrelated root process (environ, mem);
# PROBE_DEV_VICTIM: a /dev node root made for it to unlink.
#
# Then, re-executed by setpriv without CAP_DAC_READ_SEARCH (the capability
# the daemon's privileged reader keeps and the daemon itself gives up once
# the reader is forked, kmod-helper/lib/sandbox/daemon-capabilities.h: this
# is the daemon's own identity from then on; sg_start checks the running
# daemon's sets), it checks on this kernel each premise of that design,
# every line prefixed "[no DAC_READ_SEARCH] ":
#   "blocked: ..."      environ, mem, sysfs dhchap_*: must fail (the test
#                       fails on "OPEN: ...");
#   "reachable: ..."    /proc/<pid>/root, /proc/1/mountinfo: a ptrace check
#                       alone, which CAP_SYS_PTRACE passes: must work (the
#                       test fails on "UNREACHABLE: ...");
#   "reader's: ..."     what only the reader can do: another user's
#                       /proc/<pid>/fd, CRI-O's store, the NVMe device nodes;
#                       printed either way, for the design.
set -u
export LC_ALL=C

echo "# identity: uid=$(id -u) $(grep CapEff /proc/self/status | tr -s '\t' ' ')"

# try WHAT CMD...: a must-fail attempt.
try() {
	local what=$1 err
	shift
	if err=$("$@" 2>&1); then
		echo "OPEN: $what"
	else
		echo "blocked: $what (${err##*: })"
	fi
}
# known WHAT CMD...: a known-open attempt (printed either way).
known() {
	local what=$1 err
	shift
	if err=$("$@" 2>&1); then
		echo "known open (the reader's; the daemon gives it up): $what"
	else
		echo "blocked (known open before): $what (${err##*: })"
	fi
}
write_new() { # PATH: create PATH with a line, then remove it
	printf 'install zz_probe /bin/true\n' >"$1" && rm -f "$1"
}

# reach WHAT CMD...: must work (a premise of the design).
reach() {
	local what=$1 err
	shift
	if err=$("$@" 2>&1); then
		echo "reachable: $what"
	else
		echo "UNREACHABLE: $what (${err##*: })"
	fi
}
# readers WHAT CMD...: printed either way.
readers() {
	local what=$1 err
	shift
	if err=$("$@" 2>&1); then
		echo "reader's: $what: possible without it too"
	else
		echo "reader's: $what: needs it (${err##*: })"
	fi
}
if [ -n "${PROBE_WITHOUT_DRS:-}" ]; then
	v=${PROBE_VICTIM:-}
	if [ -n "$v" ] && [ -d "/proc/$v" ]; then
		try "read /proc/$v/environ (root's)" sh -c "tr '\\0' '\\n' </proc/$v/environ | grep -q '^SWAPGUARD_PROBE_SECRET='"
		try "open /proc/$v/mem (root's)" sh -c "exec 3</proc/$v/mem"
		reach "/proc/$v/root (root's: its /etc listed)" sh -c "ls /proc/$v/root/etc | grep -q ."
		reach "/proc/$v/mountinfo (root's)" sh -c "grep -q . /proc/$v/mountinfo"
		readers "list /proc/$v/fd (root's, 0500)" sh -c "ls /proc/$v/fd | grep -q ."
	else
		echo "not tried: environ, mem, root, fd (PROBE_VICTIM not given)"
	fi
	reach "/proc/1/mountinfo (the host's mount table)" sh -c "grep -q . /proc/1/mountinfo"
	shopt -s nullglob
	secrets=(/sys/class/nvme/*/dhchap_secret /sys/class/nvme/*/dhchap_ctrl_secret)
	for f in "${secrets[@]}"; do try "read $f" cat "$f"; done
	[ ${#secrets[@]} -gt 0 ] || echo "not tried: sysfs dhchap_* (none on $(uname -r))"
	for d in /run/containers/storage/overlay-containers /var/lib/containers/storage/overlay-containers; do
		if [ -e "${d%/*}" ]; then readers "list $d (CRI-O's store)" sh -c "ls -A $d >/dev/null"
		else echo "not tried: $d (no CRI-O here)"; fi
	done
	for n in /dev/nvme[0-9] /dev/nvme[0-9]n[0-9]; do
		[ -e "$n" ] && readers "open $n read-only ($(stat -c '%U:%G %a' "$n"))" sh -c "exec 3<$n"
	done
	echo "# probe done"
	exit 0
fi

# 1. modprobe configuration, in every directory modprobe reads.
for d in /etc/modprobe.d /run/modprobe.d /usr/local/lib/modprobe.d /lib/modprobe.d /usr/lib/modprobe.d; do
	if [ -d "$d" ]; then
		try "write $d/zz-probe.conf" write_new "$d/zz-probe.conf"
	else
		try "mkdir $d (absent) for modprobe configuration" mkdir -p "$d"
	fi
done
gate=/run/modprobe.d/nvme-swapguard.conf
if [ -e "$gate" ]; then
	try "rename the reload gate $gate" mv "$gate" "$gate.probe"
	[ -e "$gate.probe" ] && mv "$gate.probe" "$gate"
	try "replace the reload gate's content" sh -c ": >>$gate"
	try "replace the reload gate by a link" ln -sf /dev/null "$gate"
	try "unlink the reload gate" rm "$gate"
else
	echo "not tried: the reload gate ($gate absent: a unit without ExecStartPre= install-gate)"
fi

# 2. /dev: create, rename, remove entries.
try "mkfifo /dev/zz-probe-fifo" sh -c 'mkfifo /dev/zz-probe-fifo && rm -f /dev/zz-probe-fifo'
try "symlink /dev/zz-probe-link" sh -c 'ln -s /dev/sda /dev/zz-probe-link && rm -f /dev/zz-probe-link'
try "create /dev/zz-probe-file" write_new /dev/zz-probe-file
if [ -e /dev/nvme-fabrics ]; then
	try "rename /dev/nvme-fabrics" sh -c 'mv /dev/nvme-fabrics /dev/nvme-fabrics.probe && mv /dev/nvme-fabrics.probe /dev/nvme-fabrics'
else
	echo "not tried: rename /dev/nvme-fabrics (absent: nvme_fabrics not loaded)"
fi
if [ -n "${PROBE_DEV_VICTIM:-}" ] && [ -e "$PROBE_DEV_VICTIM" ]; then
	try "unlink $PROBE_DEV_VICTIM (root's /dev node)" rm -f "$PROBE_DEV_VICTIM"
else
	echo "not tried: unlink a /dev node (PROBE_DEV_VICTIM not given)"
fi

# 3. The NVMe over Fabrics secrets.
try "read /run/nvme-swapguard-secrets/secrets.json" cat /run/nvme-swapguard-secrets/secrets.json
# InaccessiblePaths= puts an empty mode-0000 directory there, which
# CAP_DAC_READ_SEARCH may list: open only if it shows what root put there.
try "list /run/nvme-swapguard-secrets (its entries)" sh -c 'l=$(ls -A /run/nvme-swapguard-secrets) || exit 1; [ -n "$l" ] || { echo "shows: nothing, an empty stand-in"; exit 1; }' 
if [ -e /run/nvme-swapguard-fabrics/secrets.json ]; then
	try "read /run/nvme-swapguard-fabrics/secrets.json (the old place)" cat /run/nvme-swapguard-fabrics/secrets.json
else
	echo "not tried: /run/nvme-swapguard-fabrics/secrets.json (absent: nothing kept there)"
fi

# 4. Another process's environment and memory (root's, unrelated).
if [ -n "${PROBE_VICTIM:-}" ] && [ -d "/proc/$PROBE_VICTIM" ]; then
	known "read /proc/$PROBE_VICTIM/environ (root's)" sh -c "tr '\\0' '\\n' </proc/$PROBE_VICTIM/environ | grep -q '^SWAPGUARD_PROBE_SECRET='"
	addr=$(sed -n '1s/-.*//p' "/proc/$PROBE_VICTIM/maps" 2>/dev/null)
	if [ -n "$addr" ]; then
		known "read /proc/$PROBE_VICTIM/mem at 0x$addr (root's)" \
			sh -c "dd if=/proc/$PROBE_VICTIM/mem bs=4096 skip=\$((0x$addr / 4096)) count=1 status=none | head -c 16 | od -An | grep -q ."
	else
		known "open /proc/$PROBE_VICTIM/mem (root's; its maps unreadable)" sh -c "exec 3</proc/$PROBE_VICTIM/mem"
	fi
else
	echo "not tried: another process's environ/mem (PROBE_VICTIM not given)"
fi

# 5. Files anywhere else root acts on what it finds.
for f in /run/systemd/system/zz-probe.service /run/udev/rules.d/99-zz-probe.rules /run/zz-probe \
	/etc/zz-probe /var/lib/zz-probe /usr/local/zz-probe /run/systemd/generator/zz-probe.service; do
	if [ -d "${f%/*}" ]; then
		try "create $f" write_new "$f"
	else
		try "mkdir ${f%/*} (absent) and create $f" sh -c "mkdir -p '${f%/*}' && printf x >'$f' && rm -f '$f'"
	fi
done

# 6. sysfs's DH-HMAC-CHAP secrets of a fabrics controller.
shopt -s nullglob
secrets=(/sys/class/nvme/*/dhchap_secret /sys/class/nvme/*/dhchap_ctrl_secret)
if [ ${#secrets[@]} -gt 0 ]; then
	for f in "${secrets[@]}"; do
		known "read $f" cat "$f"
		try "write $f" sh -c "printf 'DHHC-1:00:probe:' >'$f'"
	done
else
	echo "not tried: sysfs dhchap_* (no fabrics controller with them: $(ls /sys/class/nvme 2>/dev/null | xargs), kernel $(uname -r))"
fi
echo "# probe done"

# 7. The identity without CAP_DAC_READ_SEARCH (see the top).
if [ -z "${PROBE_WITHOUT_DRS:-}" ]; then
	if PROBE_WITHOUT_DRS=1 setpriv --inh-caps -dac_read_search --ambient-caps -dac_read_search -- \
		/bin/bash "${BASH_SOURCE[0]}" >/run/nvme-swapguard/probe-without-drs.log 2>&1; then
		sed 's/^/[no DAC_READ_SEARCH] /' /run/nvme-swapguard/probe-without-drs.log
	else
		echo "[no DAC_READ_SEARCH] FAILED: setpriv could not run the probe: $(tail -n 3 /run/nvme-swapguard/probe-without-drs.log)"
	fi
	rm -f /run/nvme-swapguard/probe-without-drs.log
fi
exit 0
