#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""ship: would our binaries link and start on RHEL 9 / RHCOS?

    symbol-levels.py --levels rhel9-levels.ini [--sources DIR] BINARY...

Lists every dynamic symbol each binary imports (nm -D --undefined-only
--with-symbol-versions) and every library it needs (readelf -d), and checks
each against RHEL 9's levels in the data file: version nodes no newer than
glibc 2.34, libkmod 28, libnvme 1.3, util-linux 2.37, systemd 252, json-c
0.14, and for libraries whose nodes say too little (libkmod, inih) the exact
symbol names. A library the file does not know fails too: someone must look
up its RHEL 9 level first. Prints per library the newest node used and the
symbols at that node, so a floor question (e.g. which libnvme 1.3 symbols we
need) has an answer. With --sources, also greps the sources for identifiers
that are not symbols (constants) but exist only in newer headers.

The binaries checked are the ones built here, on Debian 12, against newer
libraries: a symbol that passes was resolved to a node RHEL 9 has, so the
same source also links there (the release build in UBI 9 is what proves it).
"""

import argparse
import configparser
import os
import re
import subprocess
import sys


def level(s):
    """'2.34' / '2_37' / '1_3' / '252' -> comparable tuple of ints."""
    return tuple(int(x) for x in re.findall(r"\d+", s))


def needed(binary):
    out = subprocess.run(["readelf", "-d", "-W", binary], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def version_files(binary):
    """version node -> soname, from the binary's .gnu.version_r."""
    out = subprocess.run(["readelf", "-V", "-W", binary], capture_output=True, text=True, check=True).stdout
    m, cur = {}, None
    for line in out.splitlines():
        f = re.search(r"File: (\S+)", line)
        if f:
            cur = f.group(1)
            continue
        n = re.search(r"Name: (\S+)", line)
        if n and cur and "Version needs" not in line:
            m[n.group(1)] = cur
    return m


def imports(binary):
    """[(name, version or None, weak)]"""
    out = subprocess.run(["nm", "-D", "--undefined-only", "--with-symbol-versions", binary],
                         capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.split("\n"):
        parts = line.split()
        if len(parts) != 2:
            continue
        kind, sym = parts
        name, _, ver = sym.partition("@")
        syms.append((name, ver.lstrip("@") or None, kind in ("w", "v")))
    return syms


def load_levels(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=None, comment_prefixes=("#",))
    cp.optionxform = str
    cp.read(path)
    libs = {}
    for sec in cp.sections():
        if sec == "sources":
            continue
        s = cp[sec]
        libs[sec] = {
            "sonames": s.get("sonames", "").split(),
            "node": s.get("node"),
            "max": level(s["max"]) if "max" in s else None,
            "max_text": s.get("max"),
            "symbols": set(s.get("symbols", "").split()) or None,
            "forbid": set(s.get("forbid", "").split()),
            "why": s.get("why", ""),
        }
    forbid_src = []
    if cp.has_section("sources"):
        for line in cp["sources"].get("forbid", "").strip().splitlines():
            ident, _, why = line.strip().partition(":")
            forbid_src.append((ident.strip(), why.strip()))
    return libs, forbid_src


def check_binary(binary, libs):
    bad = []
    by_soname = {so: lib for lib, d in libs.items() for so in d["sonames"]}
    for so in needed(binary):
        if so not in by_soname:
            bad.append(f"needs {so}, whose RHEL 9 level is not in the levels file: look it up and add it")
    vfile = version_files(binary)
    per_lib = {}
    for name, ver, weak in imports(binary):
        lib = by_soname.get(vfile.get(ver)) if ver else None
        if lib is None and ver:
            lib = next((l for l, d in libs.items() if d["node"] and ver.startswith(d["node"])), None)
        if lib is None and not ver:
            lib = next((l for l, d in libs.items() if d["symbols"] and name in d["symbols"]), None)
        if lib is None:
            if weak:
                continue  # optional hooks (__gmon_start__, _ITM_*): resolved or not, fine
            bad.append(f"{name}{'@' + ver if ver else ''}: from no library the levels file knows")
            continue
        d = libs[lib]
        per_lib.setdefault(lib, []).append((name, ver))
        if ver and ver in d["forbid"]:
            bad.append(f"{name}@{ver}: private node of {lib}. {d['why']}")
        elif ver and d["node"] and d["max"] and ver.startswith(d["node"]) and \
                level(ver[len(d["node"]):]) > d["max"]:
            bad.append(f"{name}@{ver} is newer than {lib} {d['max_text']}. {d['why']}")
        if d["symbols"] is not None and name not in d["symbols"]:
            bad.append(f"{name}: not exported by {lib} at RHEL 9's level. {d['why']}")
    return per_lib, bad


def summary(lib, syms, libs):
    d = libs[lib]
    vers = sorted({v for _, v in syms if v and d["node"] and v.startswith(d["node"])},
                  key=lambda v: level(v[len(d["node"]):]))
    newest = vers[-1] if vers else "(unversioned)"
    at_newest = sorted(n for n, v in syms if v == newest) if vers else []
    line = f"  {lib}: {len(syms)} symbols, newest node {newest}"
    if at_newest and lib != "glibc":
        line += f" ({', '.join(at_newest[:8])}{', ...' if len(at_newest) > 8 else ''})"
    elif at_newest:
        line += f" ({len(at_newest)} at it: {', '.join(at_newest[:6])}{', ...' if len(at_newest) > 6 else ''})"
    return line


def strip_comments(text):
    """C comments out, newlines kept (so line numbers stay right): a comment
    that says "no KMOD_REMOVE_NOLOG on RHEL 9" is not a use."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def grep_sources(top, forbid):
    bad = []
    for root, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
        for f in files:
            # The canary uses them on purpose, to prove the check fails.
            if not f.endswith((".c", ".h")) or f == "symbol-levels-canary.c":
                continue
            p = os.path.join(root, f)
            with open(p, errors="replace") as fh:
                text = strip_comments(fh.read())
            for i, line in enumerate(text.split("\n"), 1):
                for ident, why in forbid:
                    if re.search(r"\b" + re.escape(ident) + r"\b", line):
                        bad.append(f"{os.path.relpath(p, top)}:{i}: {ident}: {why}")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--levels", required=True)
    ap.add_argument("--sources", help="source tree to grep for identifiers newer than RHEL 9's headers")
    ap.add_argument("binaries", nargs="+")
    args = ap.parse_args()

    for tool in ("nm", "readelf"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode:
            print(f"SKIP: {tool} missing (Debian package binutils)")
            return 77
    missing = [b for b in args.binaries if not os.access(b, os.X_OK)]
    if missing:
        print(f"SKIP: not built (yet): {' '.join(missing)}")
        return 77

    libs, forbid_src = load_levels(args.levels)
    failures = 0
    for b in args.binaries:
        per_lib, bad = check_binary(b, libs)
        print(f"{os.path.basename(b)}: needs {' '.join(needed(b))}")
        for lib in sorted(per_lib):
            print(summary(lib, per_lib[lib], libs))
        for msg in bad:
            print(f"  FAIL: {msg}")
        failures += len(bad)
    if args.sources:
        bad = grep_sources(args.sources, forbid_src)
        for msg in bad:
            print(f"FAIL: {msg}")
        failures += len(bad)
        print(f"sources: {len(forbid_src)} identifiers newer than RHEL 9 looked for, {len(bad)} found")
    if failures:
        print(f"symbol-levels: {failures} problem(s): these binaries would not link or start on RHEL 9")
        return 1
    print("symbol-levels: every import exists at RHEL 9's levels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
