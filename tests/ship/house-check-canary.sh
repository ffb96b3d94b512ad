#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ship: the house check's folder rules can fail. On a copy of the daemon's
# sources it plants, one at a time, an include that closes a circle between
# two folders, an include from the vocabulary leaf into a folder and a call
# of the event loop in swap/, a second reader of the stack, a second writer
# of the state file, a state named outside the core and the Manager in a
# converted header of swap/, and expects house-check.py to fail on each,
# naming it; the unplanted copy must pass.
#   house-check-canary.sh PYTHON HOUSE_CHECK_PY SOURCE_ROOT RULE...
# RULE...: the house test's own rules on the daemon's sources
# (tests/ship/meson.build's house_source_rules), so the canary checks the
# rules as they are, not a copy of them.
set -euo pipefail
python=$1 script=$2 src=$3
shift 3
rules=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check() {
        "$python" "$script" --source-root "$work/src" "${rules[@]}"
}

fresh() {
        rm -rf "$work/src"
        mkdir -p "$work/src"
        cp -R "$src/daemon" "$work/src/daemon"
}

# plant FILE LINE: appends LINE to FILE of the copy.
plant() {
        [ -f "$work/src/$1" ] || { echo "FAIL: $1 is not in the sources: update the canary"; exit 1; }
        printf '%s\n' "$2" >> "$work/src/$1"
}

# expect NAME EXPECTED-TEXT: the check fails and says EXPECTED-TEXT.
expect() {
        local name=$1 want=$2 out rc=0
        out=$(check 2>&1) || rc=$?
        if [ "$rc" -eq 0 ]; then
                echo "FAIL: $name: the house check passed:"; echo "$out"; exit 1
        fi
        if ! grep -qF -- "$want" <<<"$out"; then
                echo "FAIL: $name: the house check failed without saying \"$want\":"; echo "$out"; exit 1
        fi
        echo "ok: $name: $(grep -F -- "$want" <<<"$out" | head -1)"
}

fresh
out=$(check 2>&1) || { echo "FAIL: the unplanted copy does not pass the house check:"; echo "$out"; exit 1; }
echo "ok: the unplanted copy passes: $out"

# publish/ tells and swap/ includes it: publish/ including swap/ closes a
# circle, which no file-level cycle shows (log.c and swap-state.h do not
# include each other back).
fresh
plant daemon/publish/log.c '#include "swap/swap-state.h"'
expect "folder circle publish <-> swap" \
        'publish -> swap (daemon/publish/log.c:'

# node/ is below swap/: node/ including swap/ closes a circle too.
fresh
plant daemon/node/node-ops.c '#include "swap/swap-context.h"'
expect "folder circle through node/" \
        'node -> swap (daemon/node/node-ops.c:'

fresh
plant daemon/vocabulary/swap-vocabulary.c '#include "config/daemon-config.h"'
expect "the vocabulary includes a folder" \
        'daemon/vocabulary/ is a leaf'

# The loop is the manager's: swap/ arming a source of its own.
fresh
plant daemon/swap/pod-end.c 'static void planted(sd_event *e) { (void) sd_event_add_defer(e, NULL, NULL, NULL); }'
expect "swap/ calls the event loop" \
        'daemon/swap/pod-end.c:'

# One step, one snapshot: a report reading the stack itself.
fresh
plant daemon/swap/swap-report.c 'static int planted_read(Manager *m, NodeStack **s) { return m->ops->read_stack(m->ops->userdata, s); }'
expect "swap/ reads the stack beside the snapshot" \
        'daemon/swap/swap-report.c:'

# One writer of the state file: an action writing it itself.
fresh
plant daemon/swap/swap-actions.c 'static int planted_write(Manager *m) { return state_file_write(&m->swap.record); }'
expect "a second writer of the state file" \
        'state_file_write(): only'

# The states are the core's words: a handler naming one asks no meaning.
fresh
plant daemon/manager-signals.c 'static int planted_state(Manager *m) { return m->swap.state == SWAP_STATE_SWAPPED; }'
expect "a state named outside the core" \
        'daemon/manager-signals.c:'

# A prototype under swap/ takes the owners it uses: the Manager in a
# header under swap/ (pod-end.h) is named.
fresh
plant daemon/swap/pod-end.h 'SwapEvent pod_end_planted(Manager *m);'
expect "the Manager in a header under swap/" \
        'daemon/swap/pod-end.h:'
