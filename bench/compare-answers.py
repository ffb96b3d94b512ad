#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""compare-answers.py GUARD.json LSBLK.json FINDMNT.json

Checks that the contenders of the in-use benchmark answer the same question
on the same tree, before anything is timed: which NVMe block devices are
mounted, used as swap, or held by a stacked device. Prints one line of
counts per source and exits 1 when the sets differ. Processes with an open
device are only in the guard's answer (neither lsblk nor findmnt looks at
/proc/<pid>/fd): counted, not compared."""

import json
import sys


def guard_sets(path):
    with open(path) as f:
        report = json.load(f)
    sets = {"mounted": set(), "swap": set(), "holder": set(), "open-by-process": set()}
    for u in report["usages"]:
        sets.setdefault(u["kind"], set()).add(u["device"])
    return sets


def lsblk_sets(path):
    with open(path) as f:
        tree = json.load(f)
    mounted, swap, held = set(), set(), set()

    def walk(dev, parent):
        name = dev["name"]
        points = [p for p in dev.get("mountpoints") or [] if p]
        if name.startswith("nvme"):
            if any(p != "[SWAP]" for p in points):
                mounted.add(name)
            if "[SWAP]" in points:
                swap.add(name)
        elif parent and parent.startswith("nvme"):
            held.add(parent)  # a dm/md/lvm child of an NVMe device
        for child in dev.get("children") or []:
            walk(child, name)

    for dev in tree["blockdevices"]:
        walk(dev, None)
    return mounted, swap, held


def findmnt_set(path):
    with open(path) as f:
        tree = json.load(f)
    sources = set()

    def walk(fs):
        src = fs.get("source") or ""
        if src.startswith("/dev/nvme"):
            sources.add(src[len("/dev/"):])
        for child in fs.get("children") or []:
            walk(child)

    for fs in tree["filesystems"]:
        walk(fs)
    return sources


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    g = guard_sets(sys.argv[1])
    mounted, swap, held = lsblk_sets(sys.argv[2])
    found = findmnt_set(sys.argv[3])
    print(f"guard: mounted={len(g['mounted'])} swap={len(g['swap'])} holder={len(g['holder'])} "
          f"open-by-process={len(g['open-by-process'])} (devices)")
    print(f"lsblk: mounted={len(mounted)} swap={len(swap)} holder={len(held)}; "
          f"findmnt: mounted={len(found)} (devices)")
    ok = True
    for what, ours, theirs in (("mounted (lsblk)", g["mounted"], mounted),
                               ("mounted (findmnt)", g["mounted"], found),
                               ("swap", g["swap"], swap), ("holder", g["holder"], held)):
        if ours != theirs:
            ok = False
            print(f"DIFFERENT {what}: only guard {sorted(ours - theirs)[:5]}, "
                  f"only util-linux {sorted(theirs - ours)[:5]}")
    print("same answer" if ok else "answers differ")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
