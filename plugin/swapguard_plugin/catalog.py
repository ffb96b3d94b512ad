# SPDX-License-Identifier: Apache-2.0
"""The journal catalog (daemon/catalog/nvme-swapguard.catalog, systemd's
format): the explanation of each of the daemon's messages, by MESSAGE_ID.
Looked for beside the command, as a checkout or an install lays it out, or
where SWAPGUARD_CATALOG says."""

import os
import re


def catalog_paths(here):
    """Where the catalog may be, first found first; here: the command's directory."""
    env = os.environ.get("SWAPGUARD_CATALOG")
    return ([env] if env else []) + [
        os.path.join(here, "nvme-swapguard.catalog"),
        os.path.join(here, "..", "daemon", "catalog", "nvme-swapguard.catalog"),
        os.path.join(here, "..", "share", "nvme-swapguard", "nvme-swapguard.catalog"),
    ]


def load_catalog(here):
    """MESSAGE_ID -> (subject, body) from the journal catalog (systemd's format)."""
    for path in catalog_paths(here):
        if os.path.isfile(path):
            break
    else:
        return None
    entries, mid, lines = {}, None, []

    def close():
        if mid:
            head = [l for l in lines if re.match(r"^[A-Za-z-]+: ", l)]
            subject = next((l[len("Subject: "):] for l in head if l.startswith("Subject: ")), "")
            body = "\n".join(lines[len(head):]).strip("\n")
            entries[mid] = (subject, body)

    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            m = re.match(r"^-- ([0-9a-f]{32})(\s.*)?$", line)
            if m:
                close()
                mid, lines = m.group(1), []
            elif line.startswith(("#", ";")):
                continue  # comments, as journalctl's catalog parser skips them
            elif mid:
                lines.append(line)
    close()
    return entries

