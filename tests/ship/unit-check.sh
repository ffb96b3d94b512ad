#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ship: the systemd unit is valid and its sandbox does not weaken silently.
#   unit-check.sh UNIT_IN THRESHOLD [DAEMON_BINARY] [MAN_PAGE...]
#   (SWAPGUARD_KMOD in the environment: the CLI just built, @bindir@'s; a
#   stand-in when unset)
# 1. `systemd-analyze verify` on the unit, with ExecStart= pointing at the
#    binary just built and MANPATH at the man pages just built, so that a
#    Documentation=man:... that does not resolve fails too.
# 2. `systemd-analyze security --offline=true --threshold=THRESHOLD`: the
#    exposure figure (x10, systemd's scale) must not rise above THRESHOLD.
# 3. The sandbox must still let the daemon do its job: a lower figure
#    bought by ProtectKernelModules= or by dropping CAP_SYS_MODULE would
#    pass (2) and break every node, so those are asserted from the JSON.
set -euo pipefail

unit_in=$1 threshold=$2 daemon=${3:-}
shift 2; [ $# -gt 0 ] && shift
man_pages=("$@")

command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze not installed (Debian package systemd)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The binary: the one built here, or a stand-in when the daemon target does
# not exist in this tree yet (the unit's syntax and sandbox are still checked).
if [ -n "$daemon" ] && [ -x "$daemon" ]; then
        bindir=$(cd "$(dirname "$daemon")" && pwd)
        [ "$(basename "$daemon")" = nvme-swapguard ] || { ln -s "$daemon" "$tmp/nvme-swapguard"; bindir=$tmp; }
else
        echo "note: no daemon binary given or built; ExecStart= checked against a stand-in"
        printf '#!/bin/sh\nexit 0\n' >"$tmp/nvme-swapguard"; chmod +x "$tmp/nvme-swapguard"
        bindir=$tmp
fi
# @bindir@: the CLI (the reload gate's ExecStartPre=+), in a directory of its own.
mkdir "$tmp/bin"
if [ -n "${SWAPGUARD_KMOD:-}" ] && [ -x "$SWAPGUARD_KMOD" ]; then
        ln -s "$(realpath "$SWAPGUARD_KMOD")" "$tmp/bin/nvme-swapguard-kmod"
else
        echo "note: no CLI given (SWAPGUARD_KMOD); ExecStartPre= checked against a stand-in"
        printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/nvme-swapguard-kmod"; chmod +x "$tmp/bin/nvme-swapguard-kmod"
fi
unit=$tmp/nvme-swapguard.service
sed -e "s|@daemondir@|$bindir|g" -e "s|@bindir@|$tmp/bin|g" "$unit_in" >"$unit"
if grep -n '@[A-Za-z_]*@' "$unit"; then
        echo "FAIL: unsubstituted placeholder in $unit_in"; exit 1
fi

man_opt=--man=no
if [ ${#man_pages[@]} -gt 0 ] && ! command -v man >/dev/null; then
        echo "note: man not installed (Debian package man-db); Documentation= not checked"
elif [ ${#man_pages[@]} -gt 0 ]; then
        for p in "${man_pages[@]}"; do
                sect=${p##*.}
                mkdir -p "$tmp/man/man$sect"
                ln -s "$(realpath "$p")" "$tmp/man/man$sect/"
        done
        export MANPATH=$tmp/man
        man_opt=--man=yes
else
        echo "note: man pages not built (scdoc missing?); Documentation= not checked"
fi

echo "== systemd-analyze verify $man_opt"
out=$(systemd-analyze verify "$man_opt" "$unit" 2>&1) || { echo "$out"; echo "FAIL: verify"; exit 1; }
# verify exits 0 on some warnings; any output about our unit is a finding.
if [ -n "$out" ]; then echo "$out"; echo "FAIL: verify printed warnings"; exit 1; fi
echo "ok"

echo "== systemd-analyze security --offline=true --threshold=$threshold"
report=$(systemd-analyze security --offline=true "$unit" 2>&1) || true
figure=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for nvme-swapguard.service: \([0-9.]*\).*/\1/p')
[ -n "$figure" ] || { echo "$report"; echo "FAIL: no exposure figure in the report"; exit 1; }
echo "exposure: $figure (threshold $(awk "BEGIN{print $threshold/10}"))"
if ! systemd-analyze security --offline=true --threshold="$threshold" "$unit" >/dev/null 2>&1; then
        printf '%s\n' "$report" | grep '✗' || true
        echo "FAIL: exposure $figure is above $(awk "BEGIN{print $threshold/10}"): a sandbox setting was lost"
        exit 1
fi

echo "== the job is still possible"
systemd-analyze security --offline=true --json=short "$unit" | /usr/bin/python3 -c '
import json, sys
items = {e["name"]: e for e in json.load(sys.stdin)}
# name -> "set" value the daemon needs ("set" true means "protected")
need = {
    "ProtectKernelModules=": False,                       # it loads modules
    "CapabilityBoundingSet=~CAP_SYS_MODULE": False,       # finit_module, delete_module
    "SystemCallFilter=~@module": False,                   # the same, at the filter
    "CapabilityBoundingSet=~CAP_SYS_PTRACE": False,       # /proc/<pid>/root, /proc/<pid>/fd
    "PrivateDevices=": False,                             # exclusive open of /dev/nvme*
    "RestrictAddressFamilies=~AF_NETLINK": False,         # uevents
    "RestrictAddressFamilies=~AF_UNIX": False,            # sd_notify, journal, D-Bus
    "CapabilityBoundingSet=~CAP_SYS_ADMIN": True,         # and no more than that
    "RestrictAddressFamilies=~AF_(INET|INET6)": True,
    "ProtectSystem=": True,
}
bad = 0
for name, want in need.items():
    if name not in items:
        print(f"FAIL: {name} missing from the report"); bad = 1; continue
    if items[name]["set"] != want:
        got = items[name]["set"]
        print(f"FAIL: {name}: protected={got}, the daemon needs {want}"); bad = 1
    else:
        print(f"ok: {name} protected={want}")
sys.exit(bad)
'
# What a compromised daemon would want is denied, and it cannot
# take the node's memory or fork without bound.
for sc in process_vm_readv process_vm_writev userfaultfd io_uring_setup @keyring kcmp; do
        grep -qE "^SystemCallFilter=~(.* )?$sc( |$)" "$unit" || { echo "FAIL: $sc is not denied"; exit 1; }
done
# Other users' /proc/<pid>/fd must stay visible: ProtectProc=ptraceable shows
# every process we may ptrace (all, with CAP_SYS_PTRACE, asserted above);
# invisible or noaccess would hide them.
if grep -qE '^ProtectProc=(invisible|noaccess)' "$unit"; then echo "FAIL: ProtectProc= hides other users' processes"; exit 1; fi
for opt in '^MemoryMax=' '^TasksMax=' '^PrivateIPC=yes' '^DynamicUser=yes' '^ProtectProc=ptraceable'; do
        grep -qE "$opt" "$unit" || { echo "FAIL: $opt lost"; exit 1; }
done
grep -q '^RuntimeDirectoryPreserve=yes' "$unit" || { echo "FAIL: RuntimeDirectoryPreserve=yes lost: a restart would drop the state file"; exit 1; }
grep -q '^Type=notify' "$unit" || { echo "FAIL: Type=notify lost"; exit 1; }
# The daemon's identity is no way to root (docs/ARCHITECTURE.md, "Threat
# model"): exactly these three capabilities, never CAP_DAC_OVERRIDE; /run
# and /dev read-only but its own directory; the secrets hidden; modprobe
# configuration written only by root (the gate, ExecStartPre=+), never
# writable from the sandbox.
caps="CAP_SYS_MODULE CAP_SYS_PTRACE CAP_DAC_READ_SEARCH"
for k in CapabilityBoundingSet AmbientCapabilities; do
        got=$(sed -n "s/^$k=//p" "$unit" | tr ' ' '\n' | sort | xargs)
        [ "$got" = "$(printf '%s\n' $caps | sort | xargs)" ] || { echo "FAIL: $k=$got, expected exactly $caps"; exit 1; }
done
grep -q CAP_DAC_OVERRIDE <(grep -E '^(CapabilityBoundingSet|AmbientCapabilities)=' "$unit") && { echo "FAIL: CAP_DAC_OVERRIDE is back"; exit 1; }
grep -qxE 'ReadOnlyPaths=(.* )?/run( .*)?' "$unit" || { echo "FAIL: /run is not read-only"; exit 1; }
grep -qxE 'ReadOnlyPaths=(.* )?/dev( .*)?' "$unit" || { echo "FAIL: /dev is not read-only"; exit 1; }
rw=$(sed -n 's/^ReadWritePaths=//p' "$unit" | xargs)
[ "$rw" = /run/nvme-swapguard ] || { echo "FAIL: ReadWritePaths=$rw, expected only /run/nvme-swapguard"; exit 1; }
grep -qx 'InaccessiblePaths=/run/nvme-swapguard-secrets' "$unit" || { echo "FAIL: the secrets directory is not inaccessible"; exit 1; }
grep -qx 'ExecStartPre=+/bin/mkdir -p -m 0700 /run/nvme-swapguard-secrets' "$unit" || { echo "FAIL: the secrets directory is not created before the sandbox"; exit 1; }
grep -qE '^ExecStartPre=\+[^ ]*/nvme-swapguard-kmod reload-block install-gate$' "$unit" || { echo "FAIL: the reload gate is not written by root before the daemon"; exit 1; }
grep -q 'modprobe\.d' <(grep -E '^(ReadWritePaths|RuntimeDirectory|StateDirectory|LogsDirectory)=' "$unit") && { echo "FAIL: modprobe configuration writable from the sandbox"; exit 1; }
grep -qE '^ExecStopPost=-\+/bin/rm -f /run/modprobe.d/nvme-swapguard.conf /run/nvme-swapguard/reload-blocked$' "$unit" || { echo "FAIL: the gate or the flag may outlive the daemon"; exit 1; }
echo "unit-check: passed"
