#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ship: the journal catalog works where the MachineConfig puts it. Installs
# it under a scratch root at /usr/local/lib/systemd/catalog/ (the RHCOS
# path), builds the database as the unit's ExecStartPre does
# (journalctl --update-catalog), and checks that every MESSAGE_ID the daemon
# logs (daemon/publish/message-ids.h) has an entry, and no entry is orphaned.
#   catalog-check.sh CATALOG MESSAGE_IDS_H
set -euo pipefail
catalog=$1 ids_h=$2
[ -f "$catalog" ] || { echo "SKIP: $catalog does not exist (yet)"; exit 77; }
[ -f "$ids_h" ] || { echo "SKIP: $ids_h does not exist (yet)"; exit 77; }
command -v journalctl >/dev/null || { echo "SKIP: journalctl missing (Debian package systemd)"; exit 77; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/local/lib/systemd/catalog"
cp "$catalog" "$root/usr/local/lib/systemd/catalog/"
journalctl --root="$root" --update-catalog
[ -s "$root/var/lib/systemd/catalog/database" ] || { echo "FAIL: no catalog database built"; exit 1; }

listed=$(journalctl --root="$root" --list-catalog | awk '{print $1}' | sort -u)
wanted=$(grep -oE '"[0-9a-f]{32}"' "$ids_h" | tr -d '"' | sort -u)
echo "catalog entries: $(echo "$listed" | wc -l); MESSAGE_IDs in $(basename "$ids_h"): $(echo "$wanted" | wc -l)"
missing=$(comm -13 <(echo "$listed") <(echo "$wanted"))
orphans=$(comm -23 <(echo "$listed") <(echo "$wanted"))
[ -z "$missing" ] || { echo "FAIL: MESSAGE_IDs with no catalog entry (journalctl -x explains nothing): $missing"; exit 1; }
[ -z "$orphans" ] || { echo "FAIL: catalog entries for no MESSAGE_ID the daemon logs: $orphans"; exit 1; }
echo "catalog-check: passed"
