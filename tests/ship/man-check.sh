#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ship: the man pages built from systemd/man/*.scd render without a warning
# from groff (what `man` runs), and each names itself in its header.
#   man-check.sh PAGE...
set -euo pipefail
[ $# -gt 0 ] || { echo "SKIP: no man pages were built (scdoc not installed: Debian package scdoc)"; exit 77; }
command -v groff >/dev/null || { echo "SKIP: groff not installed (Debian package groff-base, pulled by man-db)"; exit 77; }

fail=0
for page in "$@"; do
        name=$(basename "$page")           # nvme-swapguard.conf.5
        title=${name%.*} sect=${name##*.}
        warnings=$(LC_ALL=C.UTF-8 groff -man -ww -z -Tutf8 "$page" 2>&1) || true
        if [ -n "$warnings" ]; then
                echo "FAIL: $name: groff warnings:"; echo "$warnings"; fail=1; continue
        fi
        if ! grep -q "^\.TH \"$title\" \"$sect\"" "$page"; then
                echo "FAIL: $name: no .TH \"$title\" \"$sect\" header"; fail=1; continue
        fi
        lines=$(LC_ALL=C.UTF-8 groff -man -Tutf8 "$page" 2>/dev/null | wc -l)
        [ "$lines" -gt 40 ] || { echo "FAIL: $name renders to only $lines lines"; fail=1; continue; }
        echo "ok: $name ($lines lines)"
done
exit $fail
