#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One command for a release: build the binaries in a RHEL 9 userspace
# (Containerfile.rhel9), copy them out stripped, check their imports against
# RHEL 9's library levels, and render + check the MachineConfig.
#
#   machineconfig/build-release.sh [--role worker] [--out dist] [--config FILE]
#
# --config: the nvme-swapguard.conf to ship (default daemon/nvme-swapguard.conf);
# a roll-out starts with one that says Mode=observe (README, "Roll out").
#
# Needs podman (or docker with BuildKit) and network access to the CentOS
# Stream mirrors; the render and checks run on the host and need
# /usr/bin/python3 with PyYAML, ignition-validate and binutils (Debian:
# python3-yaml ignition binutils). Output: dist/nvme-swapguard,
# dist/nvme-swapguard-kmod, dist/build-env.txt (package versions used), and
# dist/99-<role>-nvme-swapguard.yaml to `oc apply -f`.
set -euo pipefail

role=worker
out=dist
config=
while [ $# -gt 0 ]; do
        case $1 in
        --role) role=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --config) config=$(realpath "$2"); shift 2 ;;
        -h|--help) sed -n '3,17p' "$0"; exit 0 ;;
        *) echo "build-release: unknown argument $1" >&2; exit 1 ;;
        esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if command -v podman >/dev/null; then
        engine=(podman build --ignorefile machineconfig/Containerfile.rhel9.dockerignore)
elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
        engine=(env DOCKER_BUILDKIT=1 docker build)
else
        echo "build-release: needs podman, or docker with a running daemon" >&2
        exit 1
fi

mkdir -p "$out"
echo "== building in CentOS Stream 9 (RHEL 9 libraries)"
# Only the sources go into the build context (no build dirs, no .git).
"${engine[@]}" -f machineconfig/Containerfile.rhel9 --target dist --output "type=local,dest=$out" \
        .
cat "$out/build-env.txt"

echo "== imports against RHEL 9's levels"
/usr/bin/python3 tests/ship/symbol-levels.py --levels tests/ship/rhel9-levels.ini --sources "$top" \
        "$out/nvme-swapguard" "$out/nvme-swapguard-kmod"

echo "== MachineConfig for role $role"
/usr/bin/python3 machineconfig/render.py --daemon "$out/nvme-swapguard" --kmod "$out/nvme-swapguard-kmod" \
        --role "$role" ${config:+--config "$config"} --check --output "$out/99-$role-nvme-swapguard.yaml"
ls -l "$out"
echo "build-release: apply with: oc apply -f $out/99-$role-nvme-swapguard.yaml"
