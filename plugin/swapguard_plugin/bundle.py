# SPDX-License-Identifier: Apache-2.0
"""`oc swapguard bundle NODE...`: what a bug report needs, in one .tar.gz,
through the same two oc calls as status and logs (the ClusterRole covers
them): per node its Node object, its status document, and the journals of
nvme-swapguard and of its NVMe over Fabrics connect unit, as JSON. No
secrets: the daemon keeps none in its journal or documents (the connect
unit's DH-HMAC-CHAP secrets stay in a 0600 file on the node, never read
here), and the Node object's annotations are dropped (other operators keep
tokens of their own there)."""

import io
import json
import sys
import tarfile
import time

from .documents import DOCUMENT_PATH
from .oc import run_oc
from .version import version

UNITS = ("nvme-swapguard", "nvme-swapguard-fabrics")


def node_object(name):
    rc, out, err, _ = run_oc(["get", "nodes", name, "-o", "json"])
    if rc != 0:
        return None, err
    try:
        node = json.loads(out)
    except ValueError as e:
        return None, f"oc get nodes {name}: no JSON: {e}\n"
    node.get("metadata", {}).pop("annotations", None)
    node.get("metadata", {}).pop("managedFields", None)
    return json.dumps(node, indent=1) + "\n", ""


def gather(name):
    """{file name in the bundle: text} for one node; each failure as NAME.error."""
    files = {}
    text, err = node_object(name)
    files["node.json" if text else "node.json.error"] = text or err
    calls = [("status.json", ["adm", "node-logs", name, f"--path={DOCUMENT_PATH}"])]
    calls += [(f"journal-{u}.json", ["adm", "node-logs", name, "-u", u, "-o", "json"]) for u in UNITS]
    for fname, argv in calls:
        rc, out, err, _ = run_oc(argv)
        files[fname if rc == 0 else fname + ".error"] = out if rc == 0 else err
    return files


def cmd_bundle(args):
    out = args.output or f"nvme-swapguard-bundle-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.tar.gz"
    failed = 0
    with tarfile.open(out, "w:gz") as tar:
        def add(path, text):
            data = text.encode("utf-8")
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
            tar.addfile(info, io.BytesIO(data))

        add("bundle.json", json.dumps({"plugin_version": version(), "nodes": args.nodes,
                                       "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
                                      indent=1) + "\n")
        for name in args.nodes:
            files = gather(name)
            for fname, text in sorted(files.items()):
                add(f"{name}/{fname}", text)
            errors = [f for f in files if f.endswith(".error")]
            failed += bool(errors)
            print(f"{name}: {', '.join(sorted(files))}", file=sys.stderr)
    print(out)
    return 3 if failed else 0
