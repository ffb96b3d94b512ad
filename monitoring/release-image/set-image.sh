#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The exporter's image from the cluster's own release payload: the
# node-exporter that this cluster's version ships, by digest, instead of the
# tag daemonset.yaml names. Writes the kustomize overlay next to this
# script (kustomization.yaml: monitoring/ with that image), to apply with
#
#   monitoring/release-image/set-image.sh      # asks oc for the image
#   oc apply -k monitoring/release-image/
#
# Run it again after a cluster upgrade. Needs `oc` logged in (it runs
# `oc adm release info --image-for=prometheus-node-exporter`), or the
# pullspec as its argument. Exit status: 0 written; 1 no image or not a
# pullspec by digest; 2 usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The image daemonset.yaml names (without its tag): what the overlay replaces.
base=$(sed -n 's/^ *image: \([^:@ ]*\)[:@].*/\1/p' "$here/../daemonset.yaml" | head -1)
[ -n "$base" ] || { echo "set-image: no image in $here/../daemonset.yaml" >&2; exit 1; }
case $# in
0) pullspec=$("${SWAPGUARD_OC:-oc}" adm release info --image-for=prometheus-node-exporter) ||
        { echo "set-image: oc adm release info failed (logged in? oc whoami)" >&2; exit 1; } ;;
1) pullspec=$1 ;;
*) echo "usage: set-image.sh [PULLSPEC@sha256:DIGEST]" >&2; exit 2 ;;
esac
pullspec=$(printf '%s' "$pullspec" | tr -d '[:space:]')
if ! [[ $pullspec =~ ^([a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+)@(sha256:[0-9a-f]{64})$ ]]; then
        echo "set-image: \"$pullspec\" is not an image by digest (registry/name@sha256:...)" >&2
        exit 1
fi
cat > "$here/kustomization.yaml.tmp" <<YAML
# SPDX-License-Identifier: Apache-2.0
# Written by set-image.sh: monitoring/ with the node-exporter of this
# cluster's release payload. oc apply -k monitoring/release-image/
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ..
images:
  - name: $base
    newName: ${BASH_REMATCH[1]}
    digest: ${BASH_REMATCH[3]}
YAML
mv "$here/kustomization.yaml.tmp" "$here/kustomization.yaml"
echo "set-image: $base -> ${BASH_REMATCH[1]}@${BASH_REMATCH[3]} ($here/kustomization.yaml)"
