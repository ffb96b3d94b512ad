# SPDX-License-Identifier: Apache-2.0
"""Every selected node's document in a fixed handful of `oc` processes,
whatever the pool's size: `oc adm node-logs --path=...` over many nodes at
once fans out inside one process and prefixes each line with the node's
name. With a selector (--role, -l) that is one call with the selector; with
node names (given, or every node when nothing is), calls of up to
BATCH_NODES names, BATCH_CALLS at a time. The answers are split by their
prefix; a node whose answer is missing, cut or interleaved with another's is
reported as such (unreachable, invalid), never merged with another node's.
Note that `oc` asks the nodes one after another inside a call: each node
costs one round trip to the API server (two by name: the Node is fetched
first)."""

import collections
import concurrent.futures
import json
import os
import re

from .documents import DOCUMENT_PATH
from .oc import OC_TIMEOUT_PER_NODE, OC_TIMEOUT_SEC, first_error_line, run_oc, stop_oc

BATCH_NODES = 250        # names per oc adm node-logs: oc asks them in turn, batches run side by side
BATCH_CHARS = 24000      # names' characters per call: under Windows' 32767 (CreateProcess), far under Linux's
BATCH_CALLS = 4          # oc processes at once

# openshift/oc pkg/cli/admin/node/logs.go (RunLogs), what this part relies on:
#  - the nodes are asked one after another, in the order given (names) or
#    listed (selector); with --path each answer is copied in turn, so one
#    node's lines come in one run;
#  - every line of an answer is prefixed "NODE " unless exactly one node was
#    named (a selector always prefixes, even when it matches one node);
#  - a node whose request fails adds nothing to stdout (or, if its stream
#    broke, the lines it had sent); its error is printed at the end as
#    "error: <message>" and "  <cause>" lines, in the nodes' order, without
#    the node's name; nodes named but not found come first, as
#    'nodes "X" not found'; any error makes oc exit 1;
#  - an empty file adds nothing and no error.

# One node's answer: the document's text, or oc's error for it; problem: why the
# text cannot be trusted (cut, interleaved); own: the error is this node's (not
# a whole call's, which says nothing of whether its daemon is there).
Answer = collections.namedtuple("Answer", "text error problem own", defaults=(None, None, None, True))
Call = collections.namedtuple("Call", "argv nodes prefixed")
# A Node object's name: a DNS-1123 subdomain (a line from a node the listing lacks)
NODE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


def batches(nodes):
    """Nodes in runs of at most BATCH_NODES names and BATCH_CHARS characters, evened out."""
    per = int(os.environ.get("SWAPGUARD_BATCH_NODES") or BATCH_NODES)
    chars = sum(len(n.name) + 1 for n in nodes)
    count = max(-(-len(nodes) // per), -(-chars // BATCH_CHARS), 1)
    target = -(-len(nodes) // count)
    out, cur, size = [], [], 0
    for n in nodes:
        if cur and (len(cur) == target or size + len(n.name) + 1 > BATCH_CHARS):
            out.append(cur)
            cur, size = [], 0
        cur.append(n)
        size += len(n.name) + 1
    return out + ([cur] if cur else [])


def node_logs_calls(args, nodes):
    """The oc adm node-logs calls that bring every selected node's document."""
    path = f"--path={DOCUMENT_PATH}"
    if not nodes:
        return []
    if args.role or args.selector:  # what the user gave: one call, oc lists the nodes itself
        sel = ["--role", args.role] if args.role else ["-l", args.selector]
        return [Call(["adm", "node-logs"] + sel + [path], nodes, True)]
    once = list({n.name: n for n in nodes}.values())  # `status a a`: two rows, one answer
    return [Call(["adm", "node-logs"] + [n.name for n in b] + [path], b, len(b) > 1) for b in batches(once)]


def run_call(call):
    """{node name: Answer} for every node the call asks."""
    timeout = float(os.environ.get("SWAPGUARD_OC_TIMEOUT") or
                    OC_TIMEOUT_SEC + OC_TIMEOUT_PER_NODE * len(call.nodes))
    rc, out, err, timed_out = run_oc(call.argv, timeout)
    if not call.prefixed:  # one node named: its file as is, and oc's error is its own
        return {call.nodes[0].name: Answer(error=err) if rc != 0 else Answer(text=out)}
    got, problems = split_by_prefix(out, {n.name for n in call.nodes})
    answers = {name: Answer("".join(l + "\n" for l in lines), problem=problems.get(name))
               for name, lines in got.items()}
    if timed_out:
        answers.update(stopped_answers(call, answers, timeout))
    else:
        answers.update(attribute_errors(call, answers, error_blocks(err) if rc != 0 else []))
    return answers


def split_by_prefix(out, names):
    """({node: its lines}, {node: why its answer cannot be trusted}) from a fan-out's
    stdout. The prefix is the name up to the first space: worker-1 never takes
    worker-10's lines."""
    lines = out.split("\n")
    if lines[-1] == "":
        lines.pop()
    got, problems, previous = {}, {}, None
    for line in lines:
        name, sep, rest = line.partition(" ")
        if sep and name in names:
            if name != previous and name in got:
                problems[name] = "its answer came in pieces, between other nodes' lines"
            got.setdefault(name, []).append(rest)
            previous = name
        elif sep and NODE_NAME.match(name):
            previous = name  # a node the listing did not have (selected since): not shown
        elif previous in got:
            problems[previous] = "a line without a node name within its answer"
    return got, problems


def error_blocks(err):
    """oc's errors, each "error: <message>" with its indented causes."""
    blocks = []
    for line in err.splitlines():
        if line.startswith("error: "):
            blocks.append(line)
        elif line.startswith("  ") and blocks:
            blocks[-1] += "\n" + line
    if not blocks and err.strip():
        blocks.append(err.strip())
    return blocks or ["error: oc failed without saying why"]


def parses(text):
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def address_in(block, node):
    return any(re.search(r"(?<![\w.-])" + re.escape(a) + r"(?![\w.-])", block) for a in node.addresses)


def take_named_errors(blocks, silent):
    """Errors that name their node ('nodes "X" not found', its address): {node: error}, the rest."""
    own, rest = {}, []
    for b in blocks:
        m = re.search(r'nodes "([^"]+)" not found', b)
        who = [n for n in silent if (m and n.name == m.group(1)) or (not m and address_in(b, n))]
        if len(who) == 1 and who[0].name not in own:
            own[who[0].name] = b
        else:
            rest.append(b)
    return own, rest


def attribute_errors(call, answers, blocks):
    """Answers for the nodes without one. oc prints one error per failed node, in
    the nodes' order: when the counts agree, the n-th error is the n-th silent
    node's (or, counting the answers that break off, the n-th of those)."""
    silent = [n for n in call.nodes if n.name not in answers]
    own, blocks = take_named_errors(blocks, silent)
    out = {name: Answer(error=b) for name, b in own.items()}
    silent = [n for n in silent if n.name not in own]
    cut = [n.name for n in call.nodes if n.name in answers and not answers[n.name].problem
           and not parses(answers[n.name].text)]
    if blocks and len(blocks) == len(silent):
        out.update((n.name, Answer(error=b)) for n, b in zip(silent, blocks))
    elif blocks and len(blocks) == len(silent) + len(cut):
        order = [n.name for n in call.nodes if n.name in cut or n in silent]
        for name, b in zip(order, blocks):
            out[name] = answers[name]._replace(problem=f"its answer broke off: {first_error_line(b)}") \
                if name in cut else Answer(error=b)
    elif silent:
        out.update((n.name, Answer(error=unattributed(blocks, len(silent)), own=False)) for n in silent)
    return out


def unattributed(blocks, silent):
    if not blocks:
        return ("error: no answer from this node, and no error from oc: its document is empty, "
                "or it left the selection after it was listed")
    said = list(dict.fromkeys(first_error_line(b) for b in blocks))
    text = "; ".join(said[:3]) + (f" (+{len(said) - 3} more)" if len(said) > 3 else "")
    return f"error: no answer; oc gave {len(blocks)} error(s) for {silent} nodes without one: {text}"


def stopped_answers(call, answers, timeout):
    """oc was stopped: a node without a whole document did not answer in time."""
    why = (f"error: no answer within {timeout:g} s (oc adm node-logs asks its "
           f"{len(call.nodes)} nodes one after another)")
    return {n.name: Answer(error=why, own=False) for n in call.nodes
            if n.name not in answers or not parses(answers[n.name].text)}


def fetch_all(args, nodes):
    """{node name: Answer} for every node, BATCH_CALLS oc processes at a time."""
    answers = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=BATCH_CALLS) as pool:
        try:
            for a in pool.map(run_call, node_logs_calls(args, nodes)):
                answers.update(a)
        except KeyboardInterrupt:
            stop_oc()
            raise
    return answers

