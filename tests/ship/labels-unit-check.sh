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
# shellcheck source=lib-unit-check.sh
. "$(dirname "$0")/lib-unit-check.sh" "$@"
features=/etc/kubernetes/node-feature-discovery/features.d

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

unit_verify nvme-swapguard-labels labels-unit-check
