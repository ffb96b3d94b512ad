#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The ClusterRole covers exactly what the plugin asks of oc.

  rbac-coverage.py ROLE.yaml CALLS.log

CALLS.log: the oc stand-in's record of every call (one JSON argv a line).
Each call is mapped to the API requests oc makes for it (verb, resource);
fails on a call it cannot map (a new kind of oc call: map it here and
grant it in the role), on a request no rule of the role allows, and on a
rule that grants what no call used (least privilege)."""

import json
import sys

import yaml

# oc's options that take a value as the next argument (the plugin's calls).
VALUE_FLAGS = {"-l", "--selector", "-o", "--output", "-u", "--unit", "--path", "--since", "--until",
               "--tail", "--boot", "--role"}


def positionals(args):
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a.startswith("-"):
            skip = a in VALUE_FLAGS
        else:
            out.append(a)
    return out


def requests(argv):
    """[(verb, resource)] the API server authorizes for `oc argv`; None: not understood."""
    if argv[:2] == ["get", "nodes"]:
        return [("get", "nodes")] if positionals(argv[2:]) else [("list", "nodes")]
    if argv[:2] == ["adm", "node-logs"]:
        # The nodes by name (a GET each) or by selector (a LIST), then each
        # node's kubelet /logs/ through the API server's proxy.
        found = [("get", "nodes")] if positionals(argv[2:]) else [("list", "nodes")]
        return found + [("get", "nodes/proxy")]
    return None


def granted(role):
    g = set()
    for rule in role.get("rules", []):
        if rule.get("apiGroups") != [""] or rule.get("resourceNames") or rule.get("nonResourceURLs"):
            sys.exit(f"rbac-coverage: rule {rule}: only core-group resource rules are understood here")
        for r in rule["resources"]:
            for v in rule["verbs"]:
                if "*" in (r, v):
                    sys.exit(f"rbac-coverage: rule {rule}: a wildcard is not least privilege")
                g.add((v, r))
    return g


def main(role_path, calls_path):
    with open(role_path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    roles = [d for d in docs if d.get("kind") == "ClusterRole"]
    if len(roles) != 1:
        sys.exit(f"rbac-coverage: {role_path}: expected one ClusterRole, found {len(roles)}")
    allowed = granted(roles[0])
    used, fail = set(), 0
    with open(calls_path) as f:
        calls = [json.loads(l) for l in f if l.strip()]
    if not calls:
        sys.exit(f"rbac-coverage: {calls_path}: no oc call recorded")
    kinds = set()
    for argv in calls:
        reqs = requests(argv)
        if reqs is None:
            print(f"FAIL: oc {' '.join(argv)}: a call this check does not know; map it in "
                  "tests/fleet/rbac-coverage.py and grant it in the role")
            fail = 1
            continue
        kinds.add(" ".join(argv[:2]))
        for r in reqs:
            used.add(r)
            if r not in allowed:
                print(f"FAIL: oc {' '.join(argv)}: needs {r[0]} {r[1]}, which the role does not grant")
                fail = 1
    for r in sorted(allowed - used):
        print(f"FAIL: the role grants {r[0]} {r[1]}, which no call of the plugin used")
        fail = 1
    print(f"rbac-coverage: {len(calls)} oc calls ({', '.join(sorted(kinds))}), "
          f"requests {sorted(used)}, role grants {sorted(allowed)}: {'FAILED' if fail else 'covered'}")
    return fail


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
