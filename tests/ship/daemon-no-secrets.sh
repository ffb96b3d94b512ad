#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# ship: the daemon's code calls none of the NVMe over Fabrics code that
# touches secrets or the kernel's connect: the capture (DH-HMAC-CHAP secrets,
# secrets.json) and the connect (/dev/nvme-fabrics) are
# nvme-swapguard-fabrics.service's, through the CLI. A link of that code
# into the daemon (a new call into the library's fabrics record, secrets or
# reconnect, or its sysfs topology read that looks at dhchap_secret) fails
# here. Given the daemon linked without the CLI
# (nvme-swapguard-daemon-only): the shipped binary is the CLI too when
# started as nvme-swapguard-kmod, and so carries that code (the canary).
#   daemon-no-secrets.sh DAEMON_BINARY
set -euo pipefail

daemon=$1
command -v nm >/dev/null || { echo "SKIP: nm not installed (Debian package binutils)"; exit 77; }
command -v objcopy >/dev/null || { echo "SKIP: objcopy not installed (Debian package binutils)"; exit 77; }
[ -x "$daemon" ] || { echo "FAIL: $daemon is not built"; exit 1; }

fail=0
symbols=$(nm "$daemon")
for sym in fabrics_secrets_ fabrics_record_ fabrics_reconnect fabrics_connect fabrics_topology_read; do
        if found=$(printf '%s\n' "$symbols" | grep -E " [TtDdBbRr] ${sym}" | head -3) && [ -n "$found" ]; then
                echo "FAIL: $daemon defines $sym*: $found"
                fail=1
        fi
done
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
objcopy -O binary --only-section=.rodata "$daemon" "$tmp"
for text in /dev/nvme-fabrics secrets.json dhchap_secret dhchap_ctrl_secret tls_key; do
        if grep -qaF -- "$text" "$tmp"; then
                echo "FAIL: $daemon's read-only data holds \"$text\""
                fail=1
        fi
done
[ "$fail" = 0 ] && echo "ok: no fabrics secrets or connect code in $daemon"
exit "$fail"
