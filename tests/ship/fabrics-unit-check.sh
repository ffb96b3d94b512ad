#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ship: the connect unit (systemd/nvme-swapguard-fabrics.service.in) keeps
# what the kernel needs of the process that writes /dev/nvme-fabrics
# (FIELD-NOTES 12): root, the host's network without an IP filter, only
# /dev/nvme-fabrics among the devices, no core dump, a start timeout; and
# its .path unit watches the daemon's request. Then `systemd-analyze verify`
# of both (where systemd-analyze runs here) and the unit's exposure, printed.
#   fabrics-unit-check.sh SERVICE_IN PATH_UNIT KMOD
set -euo pipefail
# shellcheck source=lib-unit-check.sh
. "$(dirname "$0")/lib-unit-check.sh" "$@"

none 'User|DynamicUser|Group' && ok "runs as root (no User=, DynamicUser=)" || fail "not root: $(grep -E '^(User|DynamicUser|Group)=' <<<"$settings")"
none 'PrivateNetwork' && ok "no PrivateNetwork=" || fail "PrivateNetwork= set: the connection's sockets would live in a private namespace"
none 'IPAddressDeny|IPAddressAllow' && ok "no IPAddressDeny=" || fail "an IP filter on the cgroup would drop the connection's traffic"
none 'MemoryMax|MemoryHigh' && ok "no MemoryMax= on the sockets' cgroup" || fail "a memory limit on the sockets' cgroup"
has 'DevicePolicy=closed' && ok "DevicePolicy=closed" || fail "DevicePolicy= is not closed"
devices=$(grep -E '^DeviceAllow=' <<<"$settings" || true)
[ "$devices" = 'DeviceAllow=/dev/nvme-fabrics rw' ] && ok "DeviceAllow=/dev/nvme-fabrics rw only" ||
        fail "DeviceAllow= is not /dev/nvme-fabrics rw alone: ${devices:-none}"
has 'LimitCORE=0' && ok "LimitCORE=0" || fail "no LimitCORE=0: a crash would dump the secrets"
grep -qE '^TimeoutStartSec=[1-9]' <<<"$settings" && ok "$(grep -E '^TimeoutStartSec=' <<<"$settings")" ||
        fail "no TimeoutStartSec="
has 'Type=oneshot' && ok "Type=oneshot" || fail "not Type=oneshot"
grep -qE '^ExecStart=@bindir@/nvme-swapguard-kmod fabrics serve-request /run/nvme-swapguard/fabrics-request$' <<<"$settings" &&
        ok "ExecStart= serves the daemon's request" || fail "ExecStart= is not the serve-request of the daemon's request"
has 'RuntimeDirectory=nvme-swapguard-fabrics' && has 'RuntimeDirectoryPreserve=yes' &&
        ok "RuntimeDirectory=nvme-swapguard-fabrics, preserved" || fail "RuntimeDirectory= or its preservation missing"
has 'ReadWritePaths=-/run/nvme-swapguard-secrets' && has 'ExecStartPre=+/bin/mkdir -p -m 0700 /run/nvme-swapguard-secrets' &&
        ok "the secrets directory: made 0700, writable" || fail "the secrets directory /run/nvme-swapguard-secrets is not made 0700 and writable"
grep -qxF 'PathExists=/run/nvme-swapguard/fabrics-request' "$path_unit" && grep -qxF 'Unit=nvme-swapguard-fabrics.service' "$path_unit" &&
        grep -qxF 'WantedBy=nvme-swapguard.service' "$path_unit" &&
        ok "the path unit starts the service on the daemon's request" || fail "the path unit does not watch the request"

unit_verify nvme-swapguard-fabrics fabrics-unit-check
