#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ship: a shipped unit's exposure (`systemd-analyze security --offline=true`)
# stays at or below the figure written in its header comment and in the
# README's security section, and the sandbox settings that figure relies on
# are still there.
#   exposure-check.sh UNIT_FILE THRESHOLD_X10 [KEY=VALUE...]
# THRESHOLD_X10: systemd's scale (25 for 2.5). Each KEY=VALUE must be a
# line of the unit as written (what the unit cannot do without: a lower
# figure bought by dropping it would pass the threshold and break the job).
set -euo pipefail
unit_in=$1 threshold=$2
shift 2
command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze not installed (Debian package systemd)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
name=$(basename "$unit_in" .in)
# @bindir@ or @daemondir@: any existing directory does for the rating
sed -e "s|@bindir@|/usr/bin|g" -e "s|@daemondir@|/usr/bin|g" "$unit_in" >"$tmp/$name"

bad=0
for want in "$@"; do
        grep -qxF "$want" "$tmp/$name" && echo "ok: $want" || { echo "FAIL: $want is gone from $unit_in"; bad=1; }
done

report=$(cd "$tmp" && systemd-analyze security --offline=true "./$name" 2>&1) || true
figure=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
[ -n "$figure" ] || { echo "$report"; echo "FAIL: no exposure figure for $name"; exit 1; }
limit=$(awk "BEGIN{print $threshold/10}")
echo "exposure of $name: $figure (threshold $limit)"
if awk "BEGIN{exit !($figure > $limit)}"; then
        printf '%s\n' "$report" | grep '✗' || true
        echo "FAIL: $name's exposure $figure is above $limit: a sandbox setting was lost"
        bad=1
fi
# The figure written in the unit's header must be the one measured (a
# tighter unit updates its comment, a looser one fails above).
grep -qF "# $figure (checked in tests/ship/exposure-check.sh" "$unit_in" && echo "ok: the header says $figure" ||
        { echo "FAIL: $unit_in's header does not say \"$figure (checked in tests/ship/exposure-check.sh\""; bad=1; }
[ "$bad" = 0 ] && echo "exposure-check: passed" || exit 1
