#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The plugin's reading of a multi-node `oc adm node-logs` answer, on outputs
the `oc` stand-in cannot produce because the real oc never does (interleaved
answers, lines without a prefix) and on the ones it does, line by line: what
is split where, which error goes to which node, and what is left unattributed.
The shape of the output is openshift/oc pkg/cli/admin/node/logs.go (RunLogs),
summed up in the plugin above split_by_prefix and in tests/fleet/oc.
plugin-test.sh runs the same code end to end against the stand-in."""

import importlib.machinery
import importlib.util
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the plugin in the source tree
here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "..", "..", "plugin", "kubectl-swapguard")
loader = importlib.machinery.SourceFileLoader("kubectl_swapguard", path)
spec = importlib.util.spec_from_loader(loader.name, loader)
sg = importlib.util.module_from_spec(spec)
loader.exec_module(sg)

failures = 0
checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print(f"FAIL: {what}")


def node(name, *addresses):
    return sg.Node(name, "", list(addresses))


DOC = '{\n  "state":"idle"\n}\n'


def prefixed(name, text):
    return "".join(f"{name} {line}\n" for line in text.splitlines())


# --- split_by_prefix --------------------------------------------------------
# a name that is the start of another's: worker-1 must not take worker-10's lines
got, bad = sg.split_by_prefix(prefixed("worker-10", DOC) + prefixed("worker-1.pool", DOC),
                              {"worker-1", "worker-10", "worker-1.pool"})
check(set(got) == {"worker-10", "worker-1.pool"} and not bad, f"prefix collision: {got} {bad}")
check("".join(l + "\n" for l in got["worker-10"]) == DOC, "worker-10's document, unchanged")

# interleaved: one node's lines in two runs
got, bad = sg.split_by_prefix("a {\nb {\na }\nb }\n", {"a", "b"})
check(set(bad) == {"a", "b"} and "pieces" in bad["a"], f"interleaved: {bad}")

# a line with no node name inside an answer taints that answer, not the next
got, bad = sg.split_by_prefix("a {\n}\nb {\nb }\n", {"a", "b"})
check(set(bad) == {"a"} and "without a node name" in bad["a"], f"stray line: {bad}")
# (one that could be a node's, "word rest", splits the answer in two: flagged all the same)
got, bad = sg.split_by_prefix("a {\nstray line\na }\nb {\nb }\n", {"a", "b"})
check(set(bad) == {"a"}, f"stray line with a space: {bad}")

# a node the listing did not have (joined the selection since): ignored, harmless
got, bad = sg.split_by_prefix("a {\na }\nnew-node {\nnew-node }\nb {\nb }\n", {"a", "b"})
check(set(got) == {"a", "b"} and not bad, f"unlisted node: {got} {bad}")

# the last line without "\n" (oc killed mid-line): kept, the document is judged whole or not
got, bad = sg.split_by_prefix("a {\na   \"state\":\"id", {"a"})
check(got == {"a": ["{", "  \"state\":\"id"]} and not bad, f"cut last line: {got}")
check(not sg.parses("".join(l + "\n" for l in got["a"])), "a cut document does not parse")

# an empty line of a document: "NODE " and nothing (oc writes the prefix, then the empty line)
got, bad = sg.split_by_prefix("a {\na \na }\n", {"a"})
check(got == {"a": ["{", "", "}"]}, f"empty line: {got}")


# --- attribute_errors -------------------------------------------------------
def answers_for(call, out, err):
    got, problems = sg.split_by_prefix(out, {n.name for n in call.nodes})
    answers = {k: sg.Answer("".join(l + "\n" for l in v), problem=problems.get(k)) for k, v in got.items()}
    answers.update(sg.attribute_errors(call, answers, sg.error_blocks(err) if err else []))
    return answers


NOT_FOUND = "error: the server could not find the requested resource\n  404 page not found\n"
DIAL = "error: error trying to reach service: dial tcp {}:10250: connect: no route to host\n"
nodes = [node("n1", "10.0.0.1"), node("n2", "10.0.0.12"), node("n3", "10.0.0.3"), node("n4", "10.0.0.4")]
call = sg.Call([], nodes, True)

# one 404, one unreachable named by its address (10.0.0.12 is n2's, not n1's 10.0.0.1)
a = answers_for(call, prefixed("n1", DOC) + prefixed("n4", DOC), NOT_FOUND + DIAL.format("10.0.0.12"))
check(a["n2"].error.startswith("error: error trying to reach service") and a["n2"].own, f"n2: {a['n2']}")
check(sg.is_not_found(a["n3"].error) and a["n3"].own, f"n3: {a['n3']}")
check(a["n1"].text == DOC and a["n4"].text == DOC, "n1, n4 answered")

# errors that name no node, as many as the silent nodes: the n-th is the n-th's (RunLogs' order)
a = answers_for(call, prefixed("n2", DOC) + prefixed("n4", DOC),
                "error: unexpected EOF\n" + NOT_FOUND)
check(a["n1"].error == "error: unexpected EOF" and sg.is_not_found(a["n3"].error), f"by order: {a}")

# a stream that broke: its lines, then an error, counted with the silent nodes' in order
a = answers_for(call, prefixed("n1", DOC) + prefixed("n2", DOC[:12]) + prefixed("n4", DOC),
                "error: unexpected EOF\n" + NOT_FOUND)
check(a["n2"].problem and "broke off: unexpected EOF" in a["n2"].problem, f"cut: {a['n2']}")
check(sg.is_not_found(a["n3"].error), f"after a cut: {a['n3']}")

# counts that do not agree: nobody gets another's error; said as not attributable
a = answers_for(call, prefixed("n1", DOC), NOT_FOUND)
for n in ("n2", "n3", "n4"):
    check(not a[n].own and "no answer; oc gave 1 error(s) for 3 nodes" in a[n].error, f"{n}: {a[n]}")
r = sg.report_of(nodes[2], a["n3"])
check(r["report"] == sg.UNREACHABLE, f"a 404 not known to be n3's is not no-daemon: {r}")

# a whole call refused (expired login): the same message for every node, none no-daemon
a = answers_for(call, "", "error: You must be logged in to the server (Unauthorized)\n")
check(all(not a[n.name].own and "Unauthorized" in a[n.name].error for n in nodes), f"refused: {a}")

# exit 0 and a node without a line: an empty document, or it left the selection
a = answers_for(call, prefixed("n1", DOC) + prefixed("n2", DOC) + prefixed("n3", DOC), "")
check("no error from oc" in a["n4"].error and not a["n4"].own, f"silent, no error: {a['n4']}")

# a name not found (removed since the listing): the builder's error names it
a = answers_for(call, prefixed("n1", DOC) + prefixed("n3", DOC) + prefixed("n4", DOC), 'error: nodes "n2" not found\n')
check(a["n2"].error == 'error: nodes "n2" not found' and a["n2"].own, f"not found: {a['n2']}")

# --- batches ----------------------------------------------------------------
os.environ["SWAPGUARD_BATCH_NODES"] = "3"
b = sg.batches([node(f"n{i}") for i in range(10)])
check([len(x) for x in b] == [3, 3, 3, 1], f"10 by 3: {[len(x) for x in b]}")
del os.environ["SWAPGUARD_BATCH_NODES"]
many = [node(f"ip-10-0-{i // 250}-{i % 250}.us-east-2.compute.internal") for i in range(1000)]
b = sg.batches(many)
check(all(sum(len(n.name) + 1 for n in x) <= sg.BATCH_CHARS for x in b), "characters per call bounded")
check(sum(len(x) for x in b) == 1000 and len(b) <= 5, f"1000 long names: {[len(x) for x in b]}")
check([n for x in b for n in x] == many, "batches keep the listing's order")

# --- what reaches the admin's terminal ---------------------------------------
# a document's text came from the node: no control character is printed as is
from swapguard_plugin.table import printable, row_of  # noqa: E402  (the package beside the plugin)

check(printable("a\nb\x1b[31m\x9bc\x7f") == "a\\012b\\033[31m\\233c\\177", f"escaped: {printable(chr(10))}")
check(printable("nqn.2026-12.io:sub é") == "nqn.2026-12.io:sub é", "printable text unchanged")
report = {"node": "w1\nFAKE-ROW", "report": "current", "state": "swapped", "mode": None, "error": None,
          "document": {"since_usec": None, "blockers": ["held by \x1b]0;pwned\x07/data"]}}
row = row_of(report, False, None, False)
check(not any(c in cell for cell in row for c in "\n\x1b\x07"), f"a control character in a row: {row}")
check(row[0] == "w1\\012FAKE-ROW", f"the node's name escaped: {row[0]}")

print(f"fanout: {checks} checks, {failures} failed")
sys.exit(1 if failures else 0)
