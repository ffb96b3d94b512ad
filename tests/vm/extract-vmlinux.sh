#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# extract-vmlinux.sh OUT [KVER]
#
# Unpacks the ELF vmlinux from Debian's compressed bzImage.  QEMU boots an
# ELF kernel with a PVH note directly (Debian builds CONFIG_PVH=y), which
# skips the real-mode setup and, above all, the decompression that costs
# ~5 s under TCG: the VM then reaches /init in ~1.5 s instead of ~7 s.
#
# Any compression the kernel's boot decompressor knows: the payload is found
# from the boot protocol's setup header (Documentation/arch/x86/boot.rst:
# setup_sects at 0x1f1, payload_offset/payload_length at 0x248/0x24c, from
# the start of the protected-mode code), not by scanning for a magic; its
# last 4 bytes are the uncompressed size that arch/x86/boot/compressed's
# Makefile appends (the *_with_size rules), so they are cut before the
# decompressor sees them.  6.1's bzImage is xz, 6.12's zstd.
#
# Exit 0: OUT is the ELF.  Exit 3: it cannot be extracted here (unknown
# compression, no decompressor installed, no PVH note): the reason is on
# stderr and run-vm.sh boots the bzImage itself (slower, same kernel).
# Cached: redone only when the bzImage changes (OUT.stamp).
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 OUT [KVER]" >&2; exit 1; }
out=$1
kver=${2:-$("$(dirname "$0")/default-kver.sh")}
bz=/boot/vmlinuz-$kver
[ -r "$bz" ] || { echo "extract-vmlinux: no $bz" >&2; exit 1; }

mkdir -p "$(dirname "$out")"
key=$(stat -c '%n %s %Y' "$bz"; sha256sum "$0" | cut -d' ' -f1)
exec 9>"$out.lock"
flock 9
[ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$key" ] && exit 0
rm -f "$out.stamp"

# (exit 3 from python ends the script with 3: set -e)
/usr/bin/python3 - "$bz" "$out.tmp" <<'PY'
import shutil, struct, subprocess, sys

def skip(why):
    print(f"extract-vmlinux: {why}; booting the bzImage instead", file=sys.stderr)
    sys.exit(3)

data = open(sys.argv[1], "rb").read()
if len(data) < 0x250 or data[0x202:0x206] != b"HdrS":
    skip("not a bzImage with a boot-protocol header")
setup_sects = data[0x1f1] or 4
pm = (setup_sects + 1) * 512
off, length = struct.unpack_from("<II", data, 0x248)
payload = data[pm + off:pm + off + length]
if len(payload) != length or length < 8:
    skip("payload_offset/payload_length point outside the file")
# (magic, name, decompressor command); the size trailer goes first.
formats = [
    (b"\xfd7zXZ\x00", "xz", ["xz", "-dc"]),
    (b"\x28\xb5\x2f\xfd", "zstd", ["zstd", "-qdc"]),
    (b"\x1f\x8b", "gzip", ["gzip", "-dc"]),
    (b"BZh", "bzip2", ["bzip2", "-dc"]),
    (b"\x02\x21\x4c\x18", "lz4", ["lz4", "-dc"]),
    (b"\x89LZO", "lzo", ["lzop", "-dc"]),
    (b"\x5d\x00\x00", "lzma", ["xz", "--format=lzma", "-dc"]),
]
for magic, name, cmd in formats:
    if payload.startswith(magic):
        break
else:
    if payload[:4] == b"\x7fELF":
        open(sys.argv[2], "wb").write(payload)   # CONFIG_KERNEL_UNCOMPRESSED
        sys.exit(0)
    skip(f"unknown payload compression (magic {payload[:4].hex()})")
if not shutil.which(cmd[0]):
    skip(f"{name} payload and no {cmd[0]} installed")
p = subprocess.run(cmd, input=payload[:-4], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
elf = p.stdout
if p.returncode != 0 and name in ("gzip", "lz4", "lzo", "bzip2") and elf[:4] == b"\x7fELF":
    pass  # these tools may complain about the trailer-less end; the ELF is whole
elif p.returncode != 0:
    skip(f"{' '.join(cmd)} failed: {p.stderr.decode(errors='replace').strip()}")
if elf[:4] != b"\x7fELF":
    skip(f"the {name} payload is not an ELF image")
open(sys.argv[2], "wb").write(elf)
PY
# QEMU's -kernel takes an ELF only through its PVH entry point
# (XEN_ELFNOTE_PHYS32_ENTRY, note type 18 in the "Xen" namespace).
if ! readelf -n "$out.tmp" 2>/dev/null | grep -A0 'Xen' | grep -q '0x00000012'; then
	rm -f "$out.tmp"
	echo "extract-vmlinux: $bz has no PVH entry note (CONFIG_PVH); booting the bzImage instead" >&2
	exit 3
fi
mv "$out.tmp" "$out"
echo "$key" >"$out.stamp"
