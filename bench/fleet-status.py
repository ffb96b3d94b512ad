#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What `oc swapguard status` costs over a large pool (it must stay usable on
thousands of nodes): wall time, CPU and `oc` processes, against the `oc` stand-in (tests/fleet/oc) serving
1,000 and 5,000 nodes, every `oc` call delayed (OC_STANDIN_DELAY, default
0.2 s: process start, kubeconfig, TLS and a round trip, which a real `oc`
pays per call). A benchmark, not a test: nothing fails because it is slow.

  bench/fleet-status.py BUILD_DIR [WORK_DIR]

The documents are the real daemon's, from the last `meson test -C BUILD
--suite fleet` (BUILD/tests/fleet/documents/). Each node gets one: 1 in 20
has no daemon, 1 in 20 is blocked, 1 in 20 idle, 1 in 50 unreachable, the
rest swapped; names are AWS-style (ip-10-0-X-Y.us-east-2.compute.internal, 41
characters), so batches by name are bounded by length as on a real cluster.

Runs, each FLEET_REPS times (default 3; the old plugin once):
  selector  status --role worker -o json   (one oc adm node-logs --role)
  names     status -o json                 (every node, by name, in batches)
  before    the plugin that ran one oc per node (git show BEFORE:plugin/kubectl-swapguard,
            default c3b2144), --role worker -o json: one oc per node, 8 at a time
and, at 1,000 nodes, selector and names again with OC_STANDIN_NODE_DELAY
(default 0.01 s) per round trip inside a call: a real oc asks a call's nodes
one after another (two round trips a node by name), which the per-call delay
alone does not show. The old and new JSON reports are compared node by node.

Knobs (env): FLEET_SIZES="1000 5000", FLEET_REPS=3, FLEET_DELAY=0.2,
FLEET_NODE_DELAY=0.01, FLEET_BEFORE=c3b2144, FLEET_BEFORE_SIZES="1000"
(the old plugin at 5,000 nodes takes about 9 minutes).
"""

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
PLUGIN = os.path.join(SRC, "plugin", "kubectl-swapguard")
STANDIN = os.path.join(SRC, "tests", "fleet")


def env_list(name, default):
    return [int(x) for x in os.environ.get(name, default).split()]


def name_of(i):
    return f"ip-10-0-{i // 250}-{i % 250 + 2}.us-east-2.compute.internal"


def build_cluster(root, docs, n):
    """root/nodes/<name>/: node.json and the document its kubelet serves."""
    if os.path.exists(os.path.join(root, "done")):
        return
    shutil.rmtree(root, ignore_errors=True)
    texts = {c: open(os.path.join(docs, c, "status.json")).read() for c in ("swapped", "blocked", "idle")}
    boots = {c: open(os.path.join(docs, c, "boot_id")).read().strip() for c in texts}
    for i in range(n):
        name, case = name_of(i), ("nodaemon" if i % 20 == 0 else "blocked" if i % 20 == 1 else
                                  "idle" if i % 20 == 2 else "unreachable" if i % 50 == 7 else "swapped")
        d = os.path.join(root, "nodes", name)
        os.makedirs(os.path.join(d, "var", "log", "nvme-swapguard"))
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                      "node-role.kubernetes.io/worker": ""}},
                "status": {"addresses": [{"type": "InternalIP", "address": f"10.0.{i // 250}.{i % 250 + 2}"}],
                           "nodeInfo": {"bootID": boots.get(case, boots["swapped"])}}}
        with open(os.path.join(d, "node.json"), "w") as f:
            json.dump(node, f)
        if case in texts:
            with open(os.path.join(d, "var", "log", "nvme-swapguard", "status.json"), "w") as f:
                f.write(texts[case])
        elif case == "unreachable":
            with open(os.path.join(d, "var", "log", "nvme-swapguard", "status.json"), "w") as f:
                f.write(texts["swapped"])
            open(os.path.join(d, "unreachable"), "w").close()
    open(os.path.join(root, "done"), "w").close()


def run(plugin, args, cluster, work, node_delay):
    """(wall s, CPU s of the plugin and every oc, oc processes, exit code, stdout)."""
    log = os.path.join(work, "oc.log")
    open(log, "w").close()
    env = dict(os.environ, OC_STANDIN_CLUSTER=cluster, OC_STANDIN_LOG=log,
               OC_STANDIN_DELAY=os.environ.get("FLEET_DELAY", "0.2"),
               OC_STANDIN_NODE_DELAY=str(node_delay), PATH=STANDIN + os.pathsep + os.environ["PATH"])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, plugin] + args, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(log) as f:
        calls = sum(1 for _ in f)
    return wall, cpu, calls, p.returncode, p.stdout


def old_plugin(work):
    rev = os.environ.get("FLEET_BEFORE", "c3b2144")
    path = os.path.join(work, f"kubectl-swapguard-{rev}")
    text = subprocess.run(["git", "-C", SRC, "show", f"{rev}:plugin/kubectl-swapguard"],
                          capture_output=True, text=True, check=True).stdout
    with open(path, "w") as f:
        f.write(text)
    return path, rev


def line(n, how, node_delay, results):
    walls = [r[0] for r in results]
    cpus = [r[1] for r in results]
    calls = sorted({r[2] for r in results})
    codes = sorted({r[3] for r in results})
    span = f" ({min(walls):.1f}–{max(walls):.1f})" if len(walls) > 1 else ""
    print(f"| {n:,} | {how} | {node_delay:g} s | {statistics.median(walls):.1f} s{span} | "
          f"{statistics.median(cpus):.1f} s | {'/'.join(map(str, calls))} | {'/'.join(map(str, codes))} | {len(walls)} |",
          flush=True)


def main(argv):
    if len(argv) < 1:
        sys.exit(__doc__)
    build = os.path.abspath(argv[0])
    work = os.path.abspath(argv[1]) if len(argv) > 1 else os.path.join(build, "bench-work", "fleet")
    docs = os.path.join(build, "tests", "fleet", "documents")
    if not os.path.exists(os.path.join(docs, "swapped", "status.json")):
        sys.exit(f"no documents in {docs}: run meson test -C {build} --suite fleet first")
    os.makedirs(work, exist_ok=True)
    reps = int(os.environ.get("FLEET_REPS", "3"))
    node_delay = float(os.environ.get("FLEET_NODE_DELAY", "0.01"))
    before_sizes = env_list("FLEET_BEFORE_SIZES", "1000")
    old, rev = old_plugin(work)
    print(f"oc swapguard status, oc stand-in, {os.environ.get('FLEET_DELAY', '0.2')} s per oc call; "
          f"wall median (min–max); CPU: the plugin and every oc, user + system\n")
    print("| Nodes | Run | Per node in a call | Wall | CPU | oc processes | Exit | Runs |")
    print("|---|---|---|---|---|---|---|---|")
    for n in env_list("FLEET_SIZES", "1000 5000"):
        cluster = os.path.join(work, f"cluster-{n}")
        build_cluster(cluster, docs, n)
        plans = [("selector: `--role worker`", ["status", "--role", "worker", "-o", "json"], 0),
                 ("names: `status` (every node)", ["status", "-o", "json"], 0)]
        if n == 1000 and node_delay:
            plans += [(how, args, node_delay) for how, args, _ in plans]
        new_json = None
        for how, args, nd in plans:
            results = [run(PLUGIN, args, cluster, work, nd) for _ in range(reps)]
            line(n, how, nd, results)
            new_json = new_json or results[0][4]
        if n in before_sizes:
            r = run(old, ["status", "--role", "worker", "-o", "json"], cluster, work, 0)
            line(n, f"before ({rev}): `--role worker`", 0, [r])
            a, b = json.loads(new_json), json.loads(r[4])
            same = a["nodes"] == b["nodes"] and a["summary"] == b["summary"]
            print(f"|   | reports before and after: {'identical' if same else 'DIFFERENT'} "
                  f"({json.dumps(a['summary'], sort_keys=True)}) | | | | | | |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
