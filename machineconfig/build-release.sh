#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One command for a release: build the binaries in a RHEL 9 userspace
# (Containerfile.rhel9), copy them out stripped, check their imports against
# RHEL 9's library levels, and render + check the MachineConfig.
#
#   machineconfig/build-release.sh [--role POOL] [--out DIR] [--config FILE]
#
#   --role POOL    the machine config pool (default worker): the MachineConfig
#                  is 99-POOL-nvme-swapguard, labelled with the pool's role
#   --out DIR      where the binaries, SHA256SUMS and the MachineConfig go
#                  (default dist)
#   --config FILE  the nvme-swapguard.conf to ship (default
#                  daemon/nvme-swapguard.conf, Mode=enforce); it must exist,
#                  be readable and pass the daemon's --check-config. A
#                  roll-out starts with one that says Mode=observe (README,
#                  "Roll out to a pool"). Its Mode= and UnloadAt= are printed
#                  and carried as the labels nvme-swapguard.io/mode and
#                  nvme-swapguard.io/unload-at (oc get mc -L nvme-swapguard.io/mode)
#   -h, --help     this text
#
# Exit status: 0 built, rendered and checked; 1 anything failed (a missing or
# unreadable --config is refused before anything is built); 2 usage.
#
# Needs podman (or docker with BuildKit) and network access to the CentOS
# Stream mirrors; the render and checks run on the host and need
# /usr/bin/python3 with PyYAML, ignition-validate, binutils and zopfli, whose
# smaller gzip the 300 KiB budget counts on (Debian: python3-yaml ignition
# binutils zopfli). Output: dist/nvme-swapguard (the one binary: the daemon,
# and the CLI when started as nvme-swapguard-kmod), dist/nvme-swapguard-kmod
# (the script the nodes get at that path, which runs it so), dist/build-env.txt
# (package versions used), and
# dist/99-<role>-nvme-swapguard.yaml to `oc apply -f`, and dist/SHA256SUMS of
# all of them. Builds for the machine's own architecture (x86_64 here): the
# Containerfile builds natively; an aarch64 (Grace) release needs an aarch64
# build machine or podman build --platform linux/arm64 with qemu-user-static,
# not done here.
set -euo pipefail

usage() { echo "build-release: $1 (--help says more)" >&2; exit 2; }
# An option's value: there, and not the next option.
value() { [ $# -ge 2 ] && [ -n "$2" ] && [ "${2#-}" = "$2" ] || usage "$1 needs a value"; }

role=worker
out=dist
config=
while [ $# -gt 0 ]; do
        case $1 in
        --role) value "$@"; role=$2; shift 2 ;;
        --out) value "$@"; out=$2; shift 2 ;;
        --config)
                value "$@"
                [ -e "$2" ] || { echo "build-release: --config $2: no such file" >&2; exit 1; }
                [ -f "$2" ] || { echo "build-release: --config $2: not a regular file" >&2; exit 1; }
                [ -r "$2" ] || { echo "build-release: --config $2: not readable" >&2; exit 1; }
                config=$(realpath "$2"); shift 2 ;;
        -h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) usage "unknown argument $1" ;;
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

echo "== shipping: ${config:-daemon/nvme-swapguard.conf (the defaults)}:"
grep -E '^(Mode|UnloadAt)=' "${config:-daemon/nvme-swapguard.conf}" | sed 's/^/   /' || echo "   (Mode=, UnloadAt=: the defaults)"
mkdir -p "$out"
echo "== building in CentOS Stream 9 (RHEL 9 libraries)"
# Only the sources go into the build context (no build dirs, no .git).
"${engine[@]}" -f machineconfig/Containerfile.rhel9 --target dist --output "type=local,dest=$out" \
        .
cat "$out/build-env.txt"

echo "== imports against RHEL 9's levels"
/usr/bin/python3 tests/ship/symbol-levels.py --levels tests/ship/rhel9-levels.ini --sources "$top" \
        "$out/nvme-swapguard"

echo "== MachineConfig for role $role"
/usr/bin/python3 machineconfig/render.py --daemon "$out/nvme-swapguard" --kmod-wrapper "$out/nvme-swapguard-kmod" \
        --role "$role" ${config:+--config "$config"} --check --output "$out/99-$role-nvme-swapguard.yaml"
(cd "$out" && sha256sum nvme-swapguard nvme-swapguard-kmod "99-$role-nvme-swapguard.yaml" > SHA256SUMS)
echo "== checksums ($out/SHA256SUMS)"
cat "$out/SHA256SUMS"
ls -l "$out"
echo "build-release: apply with: oc apply -f $out/99-$role-nvme-swapguard.yaml"
