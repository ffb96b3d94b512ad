# SPDX-License-Identifier: Apache-2.0
"""A node's status document (the daemon's /var/log/nvme-swapguard/status.json,
daemon/status-document.h) read into the node's report: current, stale,
invalid, no daemon or unreachable; and what a pool of reports adds up to.

Mode=observe: a node that only observes says what it would do ("would
unload ...", "would refuse: ..."); its document carries "mode" and "would".
A blocked node counts as blocked in either mode: in observe it is the node
that enforce would leave blocked, which is what a rollout must find first."""

import json

from .oc import first_error_line, is_not_found

DOCUMENT_PATH = "nvme-swapguard/status.json"  # under the node's /var/log/
SCHEMA = 1                                     # daemon/status-document.h
BAD_STATES = ("blocked", "failed")
OBSERVE = "observe"

# What a node can report, besides the daemon's own states.
NO_DAEMON = "no-daemon"        # kubelet: 404, no such file
UNREACHABLE = "unreachable"    # oc could not get an answer from the node
STALE = "stale"                # a document from an earlier boot
INVALID = "invalid"            # not a status document we can read


# What an observing node's state says enforce would do there (daemon/vocabulary/swap-vocabulary.h).
OUTLOOK = {
    "would-unload": "would swap",   # the unload would go ahead; the load is checked at ready
    "would-swap": "would swap",     # ... and the container's tree has the build
    "blocked": "blocked",           # a namespace in use: enforce would wait, nothing swapped
    "no-build": "no build",         # the container gives no NVMe build: in-tree kept
    "swapped": "swapped",           # enforce swapped it before the switch: left as it is
    "failed": "failed",
    "restored": "would restore",    # the container went before its ready file
    "restoring": "would restore",
}


def outlook_of(mode, state):
    """In observe, what the state says enforce would do; None in enforce."""
    if mode != OBSERVE:
        return None
    return OUTLOOK.get(state, "waiting")  # idle, container-seen: no rehearsal yet


def gds_ready_of(doc):
    """Whether the document says what the daemon's gds-ready label says (daemon/publish/node-labels.h)."""
    return (doc.get("state") == "swapped" and doc.get("mode", "enforce") == "enforce"
            and doc.get("gds_match") == "same" and not doc.get("missing_namespaces"))


def label_disagreement(r):
    """Why the node's labels disagree with its current status document; None when they
    agree, or when either says nothing (no labels: no Node Feature Discovery, labels off).
    Both are written at the same moments, so a disagreement that lasts is a stuck copier,
    a node whose labels a person set by hand, or labels of a daemon that went away."""
    labels, doc = r["labels"], r["document"]
    if not labels:
        return None
    if r["report"] != "current":
        if labels.get("gds-ready") == "true":
            return f"labelled gds-ready, but the node reports no current status ({r['report']})"
        return None
    state = labels.get("state")
    if state and state != doc["state"]:
        return f"label says {state}, the node {doc['state']}"
    ready = labels.get("gds-ready")
    if ready in ("true", "false") and (ready == "true") != gds_ready_of(doc):
        return f"label says gds-ready={ready}, the node {'is' if gds_ready_of(doc) else 'is not'}"
    return None


def report_of(node, answer):
    """One node's report: a dict with node, report, state, error, document, and the
    node's labels beside them (labels, label_disagrees)."""
    r = report_without_labels(node, answer)
    r["labels"] = dict(getattr(node, "labels", None) or {})
    r["label_disagrees"] = label_disagreement(r)
    return r


def report_without_labels(node, answer):
    r = {"node": node.name, "node_boot_id": node.boot_id or None, "report": None, "state": None,
         "mode": None, "would": None, "outlook": None, "error": None, "document": None}
    if answer.text is None:
        if answer.own and is_not_found(answer.error):
            r["report"] = NO_DAEMON
            r["error"] = f"no /var/log/{DOCUMENT_PATH}: nvme-swapguard not installed, or not started since"
        else:
            r["report"] = UNREACHABLE
            r["error"] = first_error_line(answer.error)
        return r
    try:
        if answer.problem:
            raise ValueError(answer.problem)
        doc = json.loads(answer.text)
        if not isinstance(doc, dict) or not isinstance(doc.get("state"), str):
            raise ValueError("no \"state\"")
    except ValueError as e:
        r["report"] = INVALID
        r["error"] = f"/var/log/{DOCUMENT_PATH} is not a status document: {e}"
        return r
    return document_report(r, doc, node.boot_id)


def document_report(r, doc, boot_id):
    r["document"] = doc
    r["state"] = doc["state"]
    r["mode"] = doc.get("mode", "enforce")  # absent: a daemon from before Mode=
    r["would"] = doc.get("would")
    r["outlook"] = outlook_of(r["mode"], doc["state"])
    if doc.get("schema", SCHEMA) > SCHEMA:
        r["error"] = f"document schema {doc.get('schema')} is newer than this plugin's ({SCHEMA})"
    if boot_id and doc.get("boot_id") and doc["boot_id"] != boot_id:
        r["report"] = STALE
        r["error"] = (f"document from an earlier boot (written {doc.get('written_at', '?')}, said "
                      f"{doc['state']}): the daemon has not written since the node booted")
    else:
        r["report"] = "current"
        if not boot_id or not doc.get("boot_id"):
            # kubelet or the daemon did not say: shown, not guessed
            r["error"] = "boot not checked (no boot id from " + ("the node" if not boot_id else "the daemon") + ")"
    return r


def fabrics_warnings_of(doc):
    """The daemon's one line per fabrics connection not back; [] from a daemon that does not
    write the list (one older than the reconnect of NVMe over Fabrics connections)."""
    w = doc.get("fabrics_warnings")
    return [x for x in w if isinstance(x, str)] if isinstance(w, list) else []


def summary_of(reports):
    counts = {}
    for r in reports:
        key = r["state"] if r["report"] == "current" else r["report"]
        counts[key] = counts.get(key, 0) + 1
    return counts


def observe_summary(reports):
    """The pool line of a rollout: what the observing nodes would do, and what blocks whom."""
    observing = [r for r in reports if r["report"] == "current" and r["mode"] == OBSERVE]
    if not observing:
        return None
    counts = {}
    for r in observing:
        counts[r["outlook"]] = counts.get(r["outlook"], 0) + 1
    blocked = [{"node": r["node"], "why": "; ".join((r["document"] or {}).get("blockers") or [])
                or r["would"] or "in use"} for r in observing if r["outlook"] == "blocked"]
    return {"nodes": len(observing), "outlook": counts, "blocked": blocked}

