#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Read a Node Feature Discovery local feature file as nfd-worker does.

    nfd-feature-file.py FILE [--now RFC3339|--now-epoch SECONDS] [--expect-prefix]

Written from NFD's sources, not from nvme-swapguard's writer:
source/local/local.go (parseFeatureFile, parseDirectives, getFileContent)
and pkg/apis/nfd/validate/validate.go (Label) with Kubernetes'
IsQualifiedName / IsValidLabelValue, which it calls:
  - the file split on "\\n", each line strings.TrimSpace'd, empty ones skipped;
  - a line starting with "#" is a comment, unless it starts with "# +": a
    directive "# +<key>[=<value>]" (key: expiry-time, no-label, no-feature;
    any other is an error logged for that line, and the line is skipped);
    expiry-time's value, TrimSpace'd, parsed with Go's time.RFC3339 layout;
  - the expiry starts as "now": a label line is dropped when the expiry in
    force (the last directive before it) is before now;
  - "name=value" split at the first "="; "name" alone means "true";
  - a file over 64 KiB is not read; dot-files are skipped (by the caller);
  - each label: the name gets feature.node.kubernetes.io/ when it has no
    prefix; IsQualifiedName on it (prefix a DNS-1123 subdomain <= 253,
    name <= 63 of [A-Za-z0-9._-] starting and ending alphanumeric), the
    kubernetes.io / *.kubernetes.io namespaces refused except
    feature.node.kubernetes.io and its sub-namespaces; the value <= 63,
    empty or of the same characters, starting and ending alphanumeric.
Prints one JSON object: {"expiry": <epoch seconds or null>, "labels": {...}
(what nfd-worker would publish at --now), "all": {...} (every label line,
expired or not), "errors": [...] (directive and validation errors)}.
Exit 1 when the file has errors.
"""

import datetime
import json
import re
import sys

MAX_FEATURE_FILE_SIZE = 65536
DEFAULT_NS = "feature.node.kubernetes.io"
NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
# Go's time.RFC3339 = "2006-01-02T15:04:05Z07:00"; Parse also takes a fraction.
RFC3339_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def parse_rfc3339(s):
    m = RFC3339_RE.match(s)
    if not m:
        raise ValueError(f"cannot parse {s!r} as RFC3339")
    y, mo, d, h, mi, sec = (int(x) for x in m.groups()[:6])
    zone = m.group(8)
    tz = datetime.timezone.utc if zone == "Z" else datetime.timezone(
        (1 if zone[0] == "+" else -1) * datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
    frac = float(m.group(7)) if m.group(7) else 0.0
    return datetime.datetime(y, mo, d, h, mi, sec, tzinfo=tz).timestamp() + frac


def validate_label(key, value):
    """validate.Label after nfd-master's addNs: None or the error."""
    if "/" not in key:
        key = DEFAULT_NS + "/" + key
    prefix, _, name = key.rpartition("/")
    if key.count("/") > 1:
        return f"{key!r}: a qualified name has at most one '/'"
    if not prefix or len(prefix) > 253 or not SUBDOMAIN_RE.match(prefix):
        return f"{key!r}: prefix is not a DNS-1123 subdomain"
    if not name or len(name) > 63 or not NAME_RE.match(name):
        return f"{key!r}: name part must be <= 63 characters of [A-Za-z0-9._-], alphanumeric at both ends"
    if (prefix == "kubernetes.io" or prefix.endswith(".kubernetes.io")) and \
            not (prefix == DEFAULT_NS or prefix.endswith("." + DEFAULT_NS)):
        return f"{key!r}: namespace is not allowed"
    if len(value) > 63 or not VALUE_RE.match(value):
        return f"{key!r}: value {value!r} is not a valid label value"
    return None


def read(path, now):
    data = open(path, "rb").read()
    if len(data) > MAX_FEATURE_FILE_SIZE:
        return {"expiry": None, "labels": {}, "all": {}, "errors": ["file size limit exceeded"]}
    errors, labels, every = [], {}, {}
    expiry = now
    seen_expiry = None
    for raw in data.decode("utf-8", "replace").split("\n"):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("# +"):
                key, sep, value = line[3:].partition("=")
                if key == "expiry-time":
                    if not sep:
                        errors.append(f"invalid directive format in {line!r}")
                        continue
                    try:
                        expiry = parse_rfc3339(value.strip())
                        seen_expiry = expiry
                    except ValueError as e:
                        errors.append(f"failed to parse expiry-date directive: {e}")
                elif key in ("no-label", "no-feature"):
                    pass
                else:
                    errors.append(f"unknown feature file directive {key!r}")
            continue
        key, sep, value = line.partition("=")
        value = value if sep else "true"
        every[key] = value
        err = validate_label(key, value)
        if err:
            errors.append(err)
        if expiry < now:
            continue
        labels[key] = value
    return {"expiry": seen_expiry, "labels": labels, "all": every, "errors": errors}


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    now = datetime.datetime.now(datetime.timezone.utc).timestamp()
    if "--now" in args:
        now = parse_rfc3339(args[args.index("--now") + 1])
    if "--now-epoch" in args:
        now = float(args[args.index("--now-epoch") + 1])
    out = read(args[0], now)
    print(json.dumps(out, sort_keys=True))
    sys.exit(1 if out["errors"] else 0)


if __name__ == "__main__":
    main()
