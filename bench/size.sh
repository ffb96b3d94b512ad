#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# size.sh BUILD_DIR WORK_DIR: the size of what ships.
#   - each executable as built, stripped (a copy, `strip --strip-all`), and
#     the stripped copy gzip -9'd (what the MachineConfig carries);
#   - the shared libraries each one links directly (DT_NEEDED), which
#     RHCOS provides: named, not counted;
#   - the rendered MachineConfig (meson compile -C BUILD_DIR machineconfig):
#     its bytes, and its share of etcd's 1.5 MiB request limit.
# Prints "key<TAB>value" lines (bytes).
set -euo pipefail

build=$(realpath "${1:?usage: size.sh BUILD_DIR WORK_DIR}")
work=$(realpath -m "${2:?usage: size.sh BUILD_DIR WORK_DIR}")
mkdir -p "$work"

for exe in daemon/nvme-swapguard kmod-helper/nvme-swapguard-kmod; do
	name=${exe##*/}
	src=$build/$exe
	[ -x "$src" ] || { echo "size: missing $src (meson compile -C $build)" >&2; exit 1; }
	cp "$src" "$work/$name.stripped"
	strip --strip-all "$work/$name.stripped"
	gzip -9 -n -c "$work/$name.stripped" >"$work/$name.stripped.gz"
	printf '%s_built\t%s\n' "$name" "$(stat -c %s "$src")"
	printf '%s_stripped\t%s\n' "$name" "$(stat -c %s "$work/$name.stripped")"
	printf '%s_stripped_gz\t%s\n' "$name" "$(stat -c %s "$work/$name.stripped.gz")"
	printf '%s_libs\t%s\n' "$name" \
		"$(readelf -d "$src" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ' | sed 's/ $//')"
	rm -f "$work/$name.stripped" "$work/$name.stripped.gz"
done

# What the compiler was asked for (the project sets debug, optimization and
# b_lto, so meson's "buildtype" alone would say "debug").
printf 'buildtype\t%s\n' "$(meson introspect --buildoptions "$build" |
	python3 -c 'import json,sys; o={x["name"]: x["value"] for x in json.load(sys.stdin)}; print("-O%s%s%s" % (o["optimization"], " -g" if o["debug"] else "", " LTO" if o.get("b_lto") else ""))')"
if meson compile -C "$build" machineconfig >"$work/machineconfig.log" 2>&1; then
	mc=$build/machineconfig/99-worker-nvme-swapguard.yaml
	bytes=$(stat -c %s "$mc")
	printf 'machineconfig\t%s\n' "$bytes"
	printf 'machineconfig_etcd_share_percent\t%s\n' "$(python3 -c "print(f'{$bytes / (1.5 * 1024 * 1024) * 100:.1f}')")"
else
	echo "size: meson compile machineconfig failed (see $work/machineconfig.log)" >&2
	printf 'machineconfig\tfailed\n'
fi
