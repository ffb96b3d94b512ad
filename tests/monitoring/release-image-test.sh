#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# monitoring: monitoring/release-image/set-image.sh writes the overlay that
# replaces daemonset.yaml's image by the release payload's, by digest, from
# what `oc adm release info --image-for=prometheus-node-exporter` answers (a
# stand-in oc here), and refuses an answer that is not an image by digest.
#   release-image-test.sh SOURCE_ROOT
set -uo pipefail
src=$1
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null ||
        { echo "SKIP: python3 with PyYAML needed (Debian python3-yaml)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/monitoring"
cp "$src/monitoring/daemonset.yaml" "$tmp/monitoring/"
cp -r "$src/monitoring/release-image" "$tmp/monitoring/"
rm -f "$tmp/monitoring/release-image/kustomization.yaml"
digest=sha256:$(printf 'node-exporter' | sha256sum | cut -d' ' -f1)
cat > "$tmp/oc" <<OC
#!/bin/sh
echo "\$@" >> "$tmp/oc.log"
[ "\$*" = "adm release info --image-for=prometheus-node-exporter" ] || { echo "unexpected: \$*" >&2; exit 1; }
echo "quay.io/openshift-release-dev/ocp-v4.0-art-dev@$digest"
OC
chmod +x "$tmp/oc"
fail=0
SWAPGUARD_OC=$tmp/oc bash "$tmp/monitoring/release-image/set-image.sh" || { echo "FAIL: set-image.sh failed"; fail=1; }
python3 - "$tmp/monitoring/release-image/kustomization.yaml" "$tmp/monitoring/daemonset.yaml" "$digest" <<'PY' || fail=1
import sys, yaml
k = yaml.safe_load(open(sys.argv[1]))
ds = yaml.safe_load(open(sys.argv[2]))
image = ds["spec"]["template"]["spec"]["containers"][0]["image"]
want = {"name": image.split("@")[0].rsplit(":", 1)[0],
        "newName": "quay.io/openshift-release-dev/ocp-v4.0-art-dev", "digest": sys.argv[3]}
if k.get("resources") != [".."] or k.get("images") != [want]:
    print(f"FAIL: overlay {k}, expected resources [..] and images [{want}]"); sys.exit(1)
print(f"ok: overlay replaces {want['name']} by the payload's image by digest")
PY
for bad in "quay.io/x/node-exporter:v4.14" "" "quay.io/x/y@sha256:123"; do
        if bash "$tmp/monitoring/release-image/set-image.sh" "$bad" 2>"$tmp/err"; then
                echo "FAIL: set-image.sh accepted \"$bad\""; fail=1
        else
                echo "ok: refused \"$bad\": $(cat "$tmp/err")"
        fi
done
exit $fail
