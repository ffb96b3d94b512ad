#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A JSON patch (RFC 6902) that adds nvme-swapguard's node disruption
policy to the cluster's MachineConfiguration, or removes it, leaving every
other entry of the cluster's lists as it is.

  oc get MachineConfiguration cluster -o json | node-disruption-patch.py --add > add.json
  oc patch MachineConfiguration cluster --type=json --patch-file add.json

--remove instead of --add for the roll back. Our entries are those of
node-disruption-policy.yaml (next to this script), matched by file path or
unit name. --add appends the ones not there yet (a second run adds
nothing); an entry the cluster already has for one of our paths or units
with other actions is an error (someone else's policy: resolve it by
hand). Each removal is preceded by a "test" of the entry it removes, so a
policy changed between the read and the patch makes the API server refuse
the patch instead of removing another entry.

Exit status: 0 a patch was printed (maybe "[]": nothing to do); 1 the input
or the policy file is not what is expected; 2 usage."""

import argparse
import json
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = (("files", "path"), ("units", "name"))


def die(msg):
    print(f"node-disruption-patch: {msg}", file=sys.stderr)
    sys.exit(1)


def ours(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        return doc["spec"]["nodeDisruptionPolicy"]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as e:
        die(f"{path}: no spec.nodeDisruptionPolicy: {e}")


def add_patch(current, policy):
    spec = current.get("spec")
    if not isinstance(spec, dict):
        die("the MachineConfiguration read has no spec (is it `oc get MachineConfiguration cluster -o json`?)")
    have = spec.get("nodeDisruptionPolicy")
    if have is None:
        return [{"op": "add", "path": "/spec/nodeDisruptionPolicy", "value": policy}]
    patch = []
    for kind, key in KINDS:
        entries = have.get(kind)
        if entries is None:
            patch.append({"op": "add", "path": f"/spec/nodeDisruptionPolicy/{kind}", "value": policy[kind]})
            continue
        patch.append({"op": "test", "path": f"/spec/nodeDisruptionPolicy/{kind}", "value": entries})
        by_key = {e.get(key): e for e in entries}
        for e in policy[kind]:
            there = by_key.get(e[key])
            if there is None:
                patch.append({"op": "add", "path": f"/spec/nodeDisruptionPolicy/{kind}/-", "value": e})
            elif there != e:
                die(f"the cluster already has a {kind[:-1]} policy for {e[key]} with other actions "
                    f"({json.dumps(there['actions'])}): not ours to replace; resolve it by hand")
    return patch if any(op["op"] == "add" for op in patch) else []


def remove_patch(current, policy):
    have = (current.get("spec") or {}).get("nodeDisruptionPolicy") or {}
    patch = []
    for kind, key in KINDS:
        mine = {e[key]: e for e in policy[kind]}
        entries = have.get(kind) or []
        # Highest index first: each removal leaves the indices before it alone.
        for i in reversed(range(len(entries))):
            e = entries[i]
            if e.get(key) in mine and e == mine[e.get(key)]:
                p = f"/spec/nodeDisruptionPolicy/{kind}/{i}"
                patch += [{"op": "test", "path": p, "value": e}, {"op": "remove", "path": p}]
    return patch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--add", action="store_true", help="append our entries (the roll out)")
    g.add_argument("--remove", action="store_true", help="remove our entries (the roll back)")
    ap.add_argument("--policy", metavar="FILE", default=os.path.join(HERE, "node-disruption-policy.yaml"),
                    help="our entries (default: node-disruption-policy.yaml next to this script)")
    ap.add_argument("input", nargs="?", metavar="FILE",
                    help="the cluster's MachineConfiguration as JSON (default: standard input)")
    args = ap.parse_args()
    try:
        text = open(args.input, encoding="utf-8").read() if args.input else sys.stdin.read()
        current = json.loads(text)
    except OSError as e:
        die(f"{args.input}: {e.strerror}")
    except ValueError as e:
        die(f"{args.input or 'standard input'}: not JSON: {e}")
    if not isinstance(current, dict) or current.get("kind") != "MachineConfiguration":
        die("the input is not a MachineConfiguration (oc get MachineConfiguration cluster -o json)")
    policy = ours(args.policy)
    patch = add_patch(current, policy) if args.add else remove_patch(current, policy)
    json.dump(patch, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
