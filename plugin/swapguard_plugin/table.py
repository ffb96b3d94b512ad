# SPDX-License-Identifier: Apache-2.0
"""The status table: a row per node (its columns, the detail column's text)
and the summary lines under it. Shared by `status` and `status -w`."""

import unicodedata

from .documents import OBSERVE, fabrics_warnings_of
from .times import age, utc


def printable(text):
    """text for a terminal: every control character (C0, DEL and C1, Unicode
    category Cc) as a backslash and three octal digits, the spelling of the
    CLI (kmod-helper/lib/util/escape.h). What a node's document or journal
    holds came from the node (a target's NQN, a kernel message, a container
    path): a newline there must not start a row of its own, an escape
    sequence must not reach the admin's terminal."""
    return "".join(f"\\{ord(c):03o}" if unicodedata.category(c) == "Cc" else c for c in str(text))


def hooks_of(doc):
    h = doc.get("gds_hooks") or {}
    if h.get("present") is None:
        return "-"
    text = "yes" if h["present"] else "no"
    # the generation only beside hooks that exist ("none" says nothing more than "no")
    return f"{text} ({h['generation']})" if h["present"] and h.get("generation") else text



def detail_of(r, wide):
    if r["report"] != "current":
        return r["error"]
    doc = r["document"]
    parts = []
    if r.get("mode") == OBSERVE and doc.get("would") and not doc.get("blockers"):
        parts.append(doc["would"])  # "would unload nvme nvme_core for ..."
    blockers = doc.get("blockers") or []
    if blockers:
        parts.append("; ".join(blockers) if wide or len(blockers) == 1
                     else f"{blockers[0]} (+{len(blockers) - 1} more)")
    if doc.get("pins"):
        parts.append("pinned: " + "; ".join(doc["pins"]))
    missing = doc.get("missing_namespaces") or []
    if missing:
        parts.append("namespaces not back: " + ", ".join(missing))
    fabrics = fabrics_warnings_of(doc)
    if fabrics:
        # NVMe over Fabrics connections the swap dropped and could not bring back
        parts.append("NVMe-oF not back: " + ("; ".join(fabrics) if wide or len(fabrics) == 1
                     else f"{fabrics[0]} (+{len(fabrics) - 1} more)"))
    if not parts and r["state"] in ("failed", "restored", "restoring") and doc.get("message"):
        parts.append(doc["message"])
    if r["error"]:
        parts.append(r["error"])
    return "; ".join(parts) or "-"


def label_of(r):
    """The LABEL column: the node's state label, "+gds" when it says gds-ready, "!" in front
    when it disagrees with the node's own status."""
    labels = r.get("labels") or {}
    text = labels.get("state", "-") + ("+gds" if labels.get("gds-ready") == "true" else "")
    return ("!" + text) if r.get("label_disagrees") else text


def row_of(r, wide, now, modes, labels=False):
    doc = r["document"] or {}
    current = r["report"] == "current"
    state = r["state"] if current else r["report"]
    row = [r["node"]] + ([r["mode"] or "-"] if modes else []) + [state] + ([label_of(r)] if labels else []) + [
           age(doc.get("since_usec"), now) if current else "-",
           doc.get("live_build", "-") if current else "-",
           hooks_of(doc) if current else "-"]
    if wide:
        c = doc.get("container") or {}
        row += [c.get("pod", "-") if current else "-",
                (doc.get("daemon") or {}).get("version", "-"),
                utc(doc.get("written_at_usec")),
                (doc.get("boot_id") or "-")[:8]]
    return [printable(c) for c in row + [detail_of(r, wide)]]


def print_table(rows, header):
    widths = [max(len(str(x[i])) for x in rows + [header]) for i in range(len(header) - 1)]
    for row in [header] + rows:
        cells = [str(c).ljust(w) for c, w in zip(row, widths)] + [str(row[-1])]
        print("   ".join(cells).rstrip())



def header_of(wide, modes, labels=False):
    header = ["NODE"] + (["MODE"] if modes else []) + ["STATE"] + (["LABEL"] if labels else []) + \
        ["SINCE", "BUILD", "GDS-HOOKS"]
    if wide:
        header += ["DRIVER-POD", "VERSION", "WRITTEN", "BOOT"]
    return header + ["BLOCKER/PIN/DETAIL"]


def counts_line(reports, counts):
    return f"{len(reports)} node{'s' if len(reports) != 1 else ''}: " + \
        ", ".join(f"{n} {printable(k)}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))



def observe_line(o):
    order = sorted(o["outlook"].items(), key=lambda kv: (kv[0] != "would swap", -kv[1], kv[0]))
    text = f"{o['nodes']} node{'s' if o['nodes'] != 1 else ''} observing: " + \
        ", ".join(f"{n} {printable(k)}" for k, n in order)
    if o["blocked"]:
        text += ": " + ", ".join(f"{printable(b['node'])} ({printable(b['why'])})" for b in o["blocked"])
    return text

