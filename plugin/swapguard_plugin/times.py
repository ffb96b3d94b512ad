# SPDX-License-Identifier: Apache-2.0
"""Times as the plugin shows them: an age (SINCE) and a UTC instant (WRITTEN,
the journal's entries), from the daemon's microseconds."""

import datetime


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).timestamp()


def age(usec, now):
    if not usec:
        return "-"
    s = max(0, int(now - usec / 1e6))
    for unit, n in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= n:
            return f"{s // n}{unit}"
    return f"{s}s"


def utc(usec):
    if not usec:
        return "-"
    return datetime.datetime.fromtimestamp(usec / 1e6, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

