#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ship: the node labels' copier (systemd/nvme-swapguard-labels.service.in)
# keeps its sandbox: root without any capability (uid 0 owns features.d),
# ProtectSystem=strict with Node Feature Discovery's features.d as its only
# writable path and as its start condition, no network; and its .path unit
# watches the daemon's labels file. Then `systemd-analyze verify` of both
# (where systemd-analyze runs here) and the unit's exposure, printed.
#   labels-unit-check.sh SERVICE_IN PATH_UNIT KMOD
set -euo pipefail
service_in=$1 path_unit=$2 kmod=$(realpath -m "$3")
features=/etc/kubernetes/node-feature-discovery/features.d
bad=0
fail() { echo "FAIL: $*"; bad=1; }
ok() { echo "ok: $*"; }

settings=$(grep -E '^[A-Za-z]+=' "$service_in")
has() { grep -qxF "$1" <<<"$settings"; }
none() { ! grep -qE "^($1)=" <<<"$settings"; }
all() { grep -E "^$1=" <<<"$settings" || true; }

none 'User|DynamicUser|Group' && ok "runs as root (no User=, DynamicUser=)" || fail "not root: $(all 'User|DynamicUser|Group')"
[ "$(all CapabilityBoundingSet)" = "CapabilityBoundingSet=" ] && ok "CapabilityBoundingSet= empty" ||
        fail "capabilities: $(all CapabilityBoundingSet)"
[ "$(all AmbientCapabilities)" = "AmbientCapabilities=" ] && ok "no ambient capability" ||
        fail "ambient capabilities: $(all AmbientCapabilities)"
has 'NoNewPrivileges=yes' && ok "NoNewPrivileges=yes" || fail "no NoNewPrivileges=yes"
has 'ProtectSystem=strict' && ok "ProtectSystem=strict" || fail "ProtectSystem= is not strict"
[ "$(all ReadWritePaths)" = "ReadWritePaths=$features" ] && ok "ReadWritePaths=$features only" ||
        fail "ReadWritePaths= is not $features alone: $(all ReadWritePaths)"
none 'StateDirectory|RuntimeDirectory|LogsDirectory|CacheDirectory' && ok "no other writable directory" ||
        fail "another writable directory: $(all 'StateDirectory|RuntimeDirectory|LogsDirectory|CacheDirectory')"
grep -qxF "ConditionPathIsDirectory=$features" "$service_in" && ok "ConditionPathIsDirectory=$features" ||
        fail "no ConditionPathIsDirectory=$features: without Node Feature Discovery the unit would fail"
has 'PrivateNetwork=yes' && has 'IPAddressDeny=any' && ok "no network" || fail "network: PrivateNetwork=yes and IPAddressDeny=any wanted"
has 'Type=oneshot' && ok "Type=oneshot" || fail "not Type=oneshot"
grep -qE "^ExecStart=@bindir@/nvme-swapguard-kmod labels publish /run/nvme-swapguard/node-labels $features\$" <<<"$settings" &&
        ok "ExecStart= publishes the daemon's labels into $features" || fail "ExecStart= is not labels publish: $(all ExecStart)"
grep -qxF 'PathChanged=/run/nvme-swapguard/node-labels' "$path_unit" && grep -qxF 'Unit=nvme-swapguard-labels.service' "$path_unit" &&
        grep -qxF 'WantedBy=nvme-swapguard.service' "$path_unit" &&
        ok "the path unit starts the copier on every change of the daemon's file" || fail "the path unit does not watch the labels"

if ! command -v systemd-analyze >/dev/null; then
        echo "note: systemd-analyze missing (Debian package systemd): verify skipped"
elif [ ! -x "$kmod" ]; then
        echo "note: $kmod not built: verify skipped"
else
        tmp=$(mktemp -d)
        trap 'rm -rf "$tmp"' EXIT
        sed "s|@bindir@|$(dirname "$kmod")|" "$service_in" >"$tmp/nvme-swapguard-labels.service"
        cp "$path_unit" "$tmp/nvme-swapguard-labels.path"
        if out=$(cd "$tmp" && systemd-analyze verify --man=no ./nvme-swapguard-labels.service ./nvme-swapguard-labels.path 2>&1) &&
           [ -z "$out" ]; then
                ok "systemd-analyze verify: clean"
        else
                fail "systemd-analyze verify: $out"
        fi
        if exposure=$(cd "$tmp" && systemd-analyze security --offline=true ./nvme-swapguard-labels.service 2>&1 | tail -1); then
                echo "exposure: ${exposure##*: }"
        else
                echo "note: systemd-analyze security --offline unavailable here"
        fi
fi
[ "$bad" = 0 ] && echo "labels-unit-check: passed" || exit 1
