# SPDX-License-Identifier: Apache-2.0
"""The plugin's version: the release's (meson.build's project()), which
plugin/build-command.py writes into the installed archive as release.py; in a
checkout, read from meson.build itself."""

import os
import re


def version():
    try:
        from .release import VERSION  # the installed archive
        return VERSION
    except ImportError:
        pass
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "meson.build")
    try:
        with open(path, encoding="utf-8") as f:
            m = re.search(r"^\s*version\s*:\s*'([^']+)'", f.read(), re.M)
        return m.group(1) if m else "unknown"
    except OSError:
        return "unknown"
