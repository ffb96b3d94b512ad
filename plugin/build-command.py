#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Packs the plugin into the one file that is installed: a zip archive that
Python runs as a script (the zipapp format), the launcher as its
__main__.py and the package beside it.

  plugin/build-command.py OUTPUT [FILE...]

FILEs: the launcher and the package's modules (meson passes them, so that a
change rebuilds); without them, every module in plugin/swapguard_plugin/.
The archive does not depend on when or where it was built: its entries are
sorted and carry one fixed time. It carries the release's version
(swapguard_plugin/release.py, from meson.build's project(): the one place
the binaries take it from too) for `oc swapguard --version`."""

import glob
import os
import re
import stat
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
LAUNCHER = os.path.join(HERE, "kubectl-swapguard")
PACKAGE = "swapguard_plugin"
EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can carry


def members(files):
    """{name in the archive: path}; an error naming the file that does not belong or is missing."""
    modules = sorted(glob.glob(os.path.join(HERE, PACKAGE, "*.py")))
    if not files:
        files = [LAUNCHER] + modules
    out = {}
    for f in files:
        path = os.path.abspath(f)
        if path == LAUNCHER:
            out["__main__.py"] = path
        elif os.path.dirname(path) == os.path.join(HERE, PACKAGE) and path.endswith(".py"):
            out[f"{PACKAGE}/{os.path.basename(path)}"] = path
        else:
            sys.exit(f"build-command: {f}: not the launcher nor a module of plugin/{PACKAGE}/")
    missing = [m for m in modules if f"{PACKAGE}/{os.path.basename(m)}" not in out]
    if "__main__.py" not in out:
        missing.insert(0, LAUNCHER)
    if missing:
        sys.exit(f"build-command: {', '.join(missing)}: not given (plugin/meson.build lists every module)")
    return out


def project_version():
    """meson.build's project(version : '...'), the release's one version."""
    with open(os.path.join(HERE, "..", "meson.build"), encoding="utf-8") as f:
        m = re.search(r"^\s*version\s*:\s*'([^']+)'", f.read(), re.M)
    if not m:
        sys.exit("build-command: no version in meson.build's project()")
    return m.group(1)


def main(argv):
    if not argv:
        sys.exit("usage: plugin/build-command.py OUTPUT [FILE...]")
    output = argv[0]
    files = members(argv[1:])
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    tmp = output + ".tmp"
    with open(tmp, "wb") as f:
        f.write(b"#!/usr/bin/env python3\n")
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
            for name in sorted(files):
                info = zipfile.ZipInfo(name, EPOCH)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                with open(files[name], "rb") as src:
                    z.writestr(info, src.read())
            info = zipfile.ZipInfo(f"{PACKAGE}/release.py", EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            z.writestr(info, f'"""Written by plugin/build-command.py."""\nVERSION = "{project_version()}"\n')
    os.chmod(tmp, 0o755)
    os.replace(tmp, output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
