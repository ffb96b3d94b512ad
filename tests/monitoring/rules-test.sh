#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The alerting rules with the real promtool (Debian package prometheus):
# the rule groups of every PrometheusRule object in RULES (their spec, which
# is what promtool reads) must pass `promtool check rules`, and TESTS
# (promtool's unit-test format) must pass `promtool test rules`.
#   rules-test.sh RULES TESTS
set -euo pipefail
rules=$1 tests=$2
command -v promtool >/dev/null || { echo "SKIP: promtool not installed (Debian package prometheus)"; exit 77; }
python3 -c 'import yaml' 2>/dev/null || { echo "SKIP: PyYAML missing (Debian package python3-yaml)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$rules" "$tmp/rules.yaml" <<'PY'
import sys, yaml
groups = []
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc is None:
        continue
    assert doc["kind"] == "PrometheusRule", f"{sys.argv[1]}: {doc['kind']} is not a PrometheusRule"
    groups += doc["spec"]["groups"]
yaml.safe_dump({"groups": groups}, open(sys.argv[2], "w"), sort_keys=False)
PY
cp "$tests" "$tmp/rules-test.yaml"
echo "== promtool check rules"
promtool check rules "$tmp/rules.yaml"
echo "== promtool test rules"
cd "$tmp" && promtool test rules rules-test.yaml
