# SPDX-License-Identifier: Apache-2.0
"""`oc swapguard logs NODE`: the daemon's journal on a node (oc adm
node-logs -u nvme-swapguard -o json), each entry with its explanation from
the journal catalog."""

import json
import re
import sys

from .catalog import catalog_paths, load_catalog
from .oc import run_oc
from .table import printable
from .times import utc

UNIT = "nvme-swapguard"


def field(entry, key, default=""):
    """A journal field: journalctl -o json gives non-UTF-8 values as byte arrays."""
    v = entry.get(key, default)
    if isinstance(v, list):
        v = bytes(x for x in v if isinstance(x, int) and 0 <= x < 256).decode("utf-8", "replace")
    return str(v)


def substitute(text, entry):
    return re.sub(r"@([A-Z0-9_]+)@", lambda m: field(entry, m.group(1), "?"), text)


PRIORITIES = ["emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"]


def print_entry(entry, catalog):
    try:
        usec = int(field(entry, "__REALTIME_TIMESTAMP", "0"))
    except ValueError:
        usec = 0
    try:
        prio = PRIORITIES[int(field(entry, "PRIORITY", "6"))]
    except (ValueError, IndexError):
        prio = "info"
    print(f"{utc(usec)} {prio:<7} {printable(field(entry, 'MESSAGE'))}")
    mid = field(entry, "MESSAGE_ID")
    if catalog and mid in catalog:
        subject, body = catalog[mid]
        print(f"   | {printable(substitute(subject, entry))}")
        for line in substitute(body, entry).splitlines():
            print(f"   | {printable(line)}".rstrip())


def cmd_logs(args, here):
    cmd = ["adm", "node-logs", args.node, "-u", UNIT, "-o", "json"]
    for flag in ("since", "until", "tail", "boot"):
        if getattr(args, flag) is not None:
            cmd.append(f"--{flag}={getattr(args, flag)}")
    rc, out, err, _ = run_oc(cmd)
    if rc != 0:
        sys.stderr.write(err)
        return rc
    catalog = load_catalog(here)
    if catalog is None:
        print("kubectl-swapguard: no journal catalog found (" + ", ".join(catalog_paths(here)) +
              "): entries are shown without explanations", file=sys.stderr)
    plain = 0
    for line in out.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        if isinstance(entry, dict):
            print_entry(entry, catalog)
        elif line.strip():
            plain += 1
            print(printable(line))
    if plain:
        print(f"kubectl-swapguard: {plain} line(s) were not journal JSON (the node's kubelet ignored "
              "-o json?): shown as they came, without explanations", file=sys.stderr)
    return 0

