#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ship: the docs check can fail. On a copy of the sources it plants, one at
# a time, a wrong default, a path nothing uses, a link to a missing README
# section and an edit inside a generated table, and expects docs-tables.py
# --check to fail on each, naming it; the unplanted copy must pass.
#   docs-check-canary.sh PYTHON DOCS_TABLES_PY DAEMON SOURCE_ROOT
set -euo pipefail
python=$1 script=$2 daemon=$3 src=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fresh() {
        rm -rf "$work/src"
        mkdir -p "$work/src"
        # Everything but the build directories and git (links may point anywhere).
        tar -C "$src" --exclude=./build --exclude='./build-*' --exclude=./.git --exclude=./dist -cf - . |
                tar -C "$work/src" -xf -
}

# expect NAME EXPECTED-TEXT: the check fails and says EXPECTED-TEXT.
expect() {
        local name=$1 want=$2 out rc=0
        out=$("$python" "$script" --daemon "$daemon" --source-root "$work/src" --check 2>&1) || rc=$?
        if [ "$rc" -eq 0 ]; then
                echo "FAIL: $name: the docs check passed"; exit 1
        fi
        if ! grep -qF -- "$want" <<<"$out"; then
                echo "FAIL: $name: the docs check failed without saying \"$want\":"; echo "$out"; exit 1
        fi
        echo "ok: $name: $(grep -F -- "$want" <<<"$out" | head -1)"
}

fresh
"$python" "$script" --daemon "$daemon" --source-root "$work/src" --check >/dev/null ||
        { echo "FAIL: the unplanted copy does not pass the docs check"; exit 1; }
echo "ok: the unplanted copy passes"

fresh
printf '\nWith `LoadTimeoutSec=30` (the default) the load has 30 seconds.\n' >> "$work/src/docs/MONITORING.md"
expect "wrong default in prose" "docs/MONITORING.md:"
fresh
sed -i 's/^\tThe file the driver container creates when its drivers are loaded.$/&\n\tDefault: _\/run\/mellanox\/.ready_./' \
        "$work/src/systemd/man/nvme-swapguard.conf.5.scd"
expect "wrong default in nvme-swapguard.conf(5)" "ReadyFile='s default is said to be /run/mellanox/.ready"
fresh
printf '\nWith *UnloadAt=container-start* (the default) the daemon unloads now.\n' >> "$work/src/systemd/man/nvme-swapguard.8.scd"
expect "wrong default in nvme-swapguard(8)" "says UnloadAt=container-start is the default; the code's is UnloadAt=auto"
fresh
printf '\nThe daemon keeps its history in `/var/lib/nvme-swapguard/history.db`.\n' >> "$work/src/README.md"
expect "dead path" "/var/lib/nvme-swapguard/history.db: no unit, MachineConfig, code or manifest uses this path"
fresh
printf '\nSee [the rollout](../README.md#rolling-out).\n' >> "$work/src/docs/MONITORING.md"
expect "dead link from docs/" "docs/MONITORING.md:"
fresh
printf '\nSee [rolling out](#rolling-out).\n' >> "$work/src/README.md"
expect "dead link" "link to README section #rolling-out, which does not exist"
fresh
printf '\nSee README.md, "Rolling out".\n' >> "$work/src/daemon/catalog/nvme-swapguard.catalog"
expect "dead section reference" "reference to README section \"Rolling out\""
fresh
sed -i 's/^| `\[Swap\] Mode=` | `enforce` |/| `[Swap] Mode=` | `observe` |/' "$work/src/README.md"
expect "hand edit of a generated table" "README.md differs from what the code says"
echo "docs-check-canary: passed"
