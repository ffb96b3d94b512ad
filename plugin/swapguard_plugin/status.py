# SPDX-License-Identifier: Apache-2.0
"""`oc swapguard status`: every selected node's report, as a table or JSON.

Exit status: 0 every selected node reports a current document and none is
blocked or failed; 1 some node is blocked or failed; 3 none is, but some
node could not be told (no daemon, unreachable, stale or invalid document);
4 the nodes could not be listed; 2 usage. With -w: the last poll's, or 130
on Ctrl-C."""

import json
import sys

from .documents import BAD_STATES, fabrics_warnings_of, observe_summary, report_of, summary_of
from .fanout import fetch_all
from .nodes import NodesError, list_nodes
from .table import counts_line, header_of, observe_line, print_table, printable, row_of
from .times import now_utc


def exit_code_of(reports):
    if any(r["report"] == "current" and r["state"] in BAD_STATES for r in reports):
        return 1
    if any(r["report"] != "current" for r in reports):
        return 3
    return 0


def poll(args):
    """Every selected node's report: one oc get nodes, a few oc adm node-logs."""
    nodes = list_nodes(args)
    answers = fetch_all(args, nodes)
    return [report_of(n, answers[n.name]) for n in nodes]



def cmd_status(args):
    try:
        reports = poll(args)
    except NodesError as e:
        print(printable(e), file=sys.stderr)
        return 4
    code = exit_code_of(reports)
    counts = summary_of(reports)
    observing = observe_summary(reports)
    if args.output == "json":
        json.dump({"nodes": reports, "summary": counts, "observe": observing, "exit_code": code},
                  sys.stdout, indent=2)
        print()
        return code
    if not reports:
        print("No nodes selected.")
        return 0
    wide = args.output == "wide"
    # MODE only while a node observes (a rollout): an enforcing fleet's table stays as it was.
    modes = observing is not None
    # LABEL only where some node has the daemon's node labels (Node Feature Discovery).
    labels = any(r.get("labels") for r in reports)
    now = now_utc()
    print_table([row_of(r, wide, now, modes, labels) for r in reports], header_of(wide, modes, labels))
    print()
    print(counts_line(reports, counts))
    if observing:
        print(observe_line(observing))
    bad = [r["node"] for r in reports if r["report"] == "current" and r["state"] in BAD_STATES]
    if bad:
        print(f"Blocked or failed: {printable(', '.join(bad))} (oc swapguard logs NODE explains)")
    unknown = [r["node"] for r in reports if r["report"] != "current"]
    if unknown:
        print(f"Not reporting a current status: {printable(', '.join(unknown))}")
    disagree = [f"{r['node']} ({r['label_disagrees']})" for r in reports if r.get("label_disagrees")]
    if disagree:
        print(f"Node labels disagree with the node's status: {printable(', '.join(disagree))}")
    lost = [r["node"] for r in reports if r["report"] == "current" and fabrics_warnings_of(r["document"])]
    if lost:
        print(f"NVMe over Fabrics connections not back: {printable(', '.join(lost))} (oc swapguard logs NODE explains)")
    return code

