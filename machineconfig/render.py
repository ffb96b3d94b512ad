#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Render the nvme-swapguard MachineConfig, without butane, and check it.

    render.py --binaries DIR [--role worker] [--config FILE] [--output FILE] [--check]

Builds what `butane --files-dir DIR nvme-swapguard.bu` builds (see
nvme-swapguard.bu next to this script, the readable source): a MachineConfig
for one pool that writes

    /usr/local/bin/nvme-swapguard                         0755  gzip, data: URL
    /usr/local/bin/nvme-swapguard-kmod                    0755  the CLI: a script that
                                                                runs the daemon's binary
                                                                under the CLI's name
    /etc/nvme-swapguard/nvme-swapguard.conf               0644
    /usr/local/lib/systemd/catalog/nvme-swapguard.catalog 0644  (journalctl -x)

and installs nvme-swapguard.service enabled, with the NVMe over Fabrics
connect unit nvme-swapguard-fabrics.service and its path unit (enabled),
the node labels' copier nvme-swapguard-labels.service and its path unit
(enabled; nothing is created under /etc/kubernetes),
and nvme-swapguard-metrics-label.service (the SELinux label of the metrics
directory, for the monitoring pod). /usr is read-only on RHCOS;
/usr/local is writable (it lives in /var there) and systemd searches
/usr/local/lib/systemd/catalog/ for catalogs.

With --check it verifies what it wrote, from the file on disk:
  - the YAML parses and has the MachineConfig shape (apiVersion, kind, role
    label, Ignition 3.4.0);
  - the Ignition part passes `ignition-validate` (Debian package ignition);
  - every file decodes (base64, gunzip) to its source byte for byte, and the
    unit is the one rendered from systemd/nvme-swapguard.service.in;
  - one binary is shipped: nvme-swapguard-kmod is the wrapper script
    (nvme-swapguard-kmod.sh next to this script), which runs BINDIR's
    nvme-swapguard under the CLI's name; no second ELF file, no Ignition
    link (the Machine Config daemon refuses links on running nodes);
  - the whole object stays well under etcd's 1.5 MiB request limit (all
    MachineConfigs of a pool are merged into one rendered object there).
Every file it is given (--config, --catalog, --butane, the units) must exist
and be readable, or it stops with an error naming the option and the file:
a mistyped --config must never ship the built-in Mode=enforce instead. The
configuration is validated by the daemon itself (--check-config) and what
will be shipped is printed (Mode=, UnloadAt=); the MachineConfig carries
them and the release's version as labels, for `oc get mc -L
nvme-swapguard.io/mode -L nvme-swapguard.io/unload-at -L
nvme-swapguard.io/version`.

Only the Python standard library and PyYAML (Debian python3-yaml, RHEL
python3-pyyaml) are used. Exit 0 when all is well, 1 otherwise.
"""

import argparse
import base64
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import zlib

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

BINDIR = "/usr/local/bin"
UNIT_NAME = "nvme-swapguard.service"
FABRICS_UNIT_NAME = "nvme-swapguard-fabrics.service"
FABRICS_PATH_NAME = "nvme-swapguard-fabrics.path"
LABELS_UNIT_NAME = "nvme-swapguard-labels.service"
LABELS_PATH_NAME = "nvme-swapguard-labels.path"
IGNITION_VERSION = "3.4.0"
LABEL_MODE = "nvme-swapguard.io/mode"
LABEL_UNLOAD_AT = "nvme-swapguard.io/unload-at"
LABEL_VERSION = "nvme-swapguard.io/version"
ETCD_LIMIT = 1536 * 1024  # etcd's default request size limit: 1.5 MiB

# Budgets, far below the limit: the pool's rendered MachineConfig also holds
# every other MachineConfig of the pool (OpenShift's own are several hundred
# KiB), so ours must stay a small part of it: 300 KiB, what the operators
# asked for.
DEFAULT_MAX_TOTAL = 300 * 1024
DEFAULT_MAX_BINARY_GZ = 200 * 1024

# The CLI on the nodes: the daemon's binary runs it when started under this
# name (kmod-helper/cli/kmod-cli.h), which the wrapper script gives it. One
# binary in the MachineConfig instead of two that both carried the guard
# library: about 90 KiB of the budget. A script rather than an Ignition
# link: the Machine Config daemon applies files and units to running nodes
# but refuses a config with storage.links ("ignition links section contains
# changes", machine-config-operator pkg/controller/common/reconcile.go): the
# pool would go Degraded on the first update.
KMOD_NAME = "nvme-swapguard-kmod"
KMOD_EXEC = f'exec -a {KMOD_NAME} {BINDIR}/nvme-swapguard "$@"\n'


def die(msg):
    print(f"render: {msg}", file=sys.stderr)
    sys.exit(1)


def gzip_bytes(data):
    """A gzip stream of data: zopfli's when the tool is installed (Debian and
    EPEL package zopfli), Python's level 9 otherwise. Both are plain gzip
    (RFC 1952), which Ignition's `compression: gzip` inflates; zopfli's is
    about 4% smaller on our binaries (116.5 against 121.8 KB for the
    daemon), room the 300 KiB budget below needs. Both write mtime 0 and no
    file name: the same input always gives the same output, so a re-render
    of unchanged binaries changes nothing on the cluster."""
    # A test that renders many times sets SWAPGUARD_RENDER_GZIP_CACHE to a
    # directory: a stream made once is reused for the same input bytes
    # (zopfli takes seconds per binary), and only if it inflates back to
    # them. The reproducibility check renders without it.
    cache = os.environ.get("SWAPGUARD_RENDER_GZIP_CACHE")
    cached = None
    if cache:
        cached = os.path.join(cache, hashlib.sha256(data).hexdigest() + ".gz")
        if os.path.isfile(cached):
            with open(cached, "rb") as f:
                out = f.read()
            if gzip.decompress(out) != data:
                die(f"SWAPGUARD_RENDER_GZIP_CACHE: {cached} does not inflate to its input")
            return out
    out = gzip_compress(data)
    if cached:
        with open(cached + ".tmp", "wb") as f:
            f.write(out)
        os.replace(cached + ".tmp", cached)
    return out


def gzip_compress(data):
    """gzip_bytes without the cache."""
    zopfli = shutil.which("zopfli")
    if zopfli is None:
        return gzip.compress(data, compresslevel=9, mtime=0)
    with tempfile.NamedTemporaryFile() as src:
        src.write(data)
        src.flush()
        out = subprocess.run([zopfli, "--gzip", "-c", src.name],
                             check=True, stdout=subprocess.PIPE).stdout
    # zopfli's header: no name, mtime 0 (checked, so the output stays
    # reproducible whatever its version); the content round-trips.
    if out[:10] != b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03" or gzip.decompress(out) != data:
        die(f"{zopfli} wrote an unexpected gzip stream")
    return out


def data_url(data):
    """The shorter of gzip+base64 and plain percent-encoding, as butane
    chooses: binaries compress, a short text file stays readable."""
    gz = "data:;base64," + base64.b64encode(gzip_bytes(data)).decode("ascii")
    try:
        plain = "data:," + urllib.parse.quote(data.decode("utf-8"), safe="")
    except UnicodeDecodeError:
        return gz, "gzip"
    return (plain, None) if len(plain) <= len(gz) else (gz, "gzip")


def decode_data_url(source, compression):
    if not source.startswith("data:"):
        raise ValueError("not a data: URL")
    meta, sep, payload = source[5:].partition(",")
    if not sep:
        raise ValueError("data: URL without a comma")
    if meta.endswith(";base64"):
        raw = base64.b64decode(payload, validate=True)
    else:
        raw = urllib.parse.unquote_to_bytes(payload)
    if compression == "gzip":
        raw = gzip.decompress(raw)
    elif compression not in (None, ""):
        raise ValueError(f"unknown compression {compression!r}")
    return raw


def read(path):
    with open(path, "rb") as f:
        return f.read()


def render_unit(unit_in):
    text = read(unit_in).decode("utf-8").replace("@daemondir@", BINDIR).replace("@bindir@", BINDIR)
    left = re.findall(r"@[A-Za-z_]+@", text)
    if left:
        die(f"{unit_in}: unsubstituted {', '.join(sorted(set(left)))}")
    return text


def unit_as_shipped(name, text):
    """A unit as the MachineConfig carries it: its settings without the
    comments. Units travel uncompressed in Ignition, and the comments (the
    why of each sandbox setting, several times the settings' size) would be
    a twentieth of our budget; they stay in the source the header names and
    in the man pages. systemd reads both the same: comment lines only."""
    kept, blank = [], True
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("#", ";")):
            continue
        if not stripped:
            if not blank:
                kept.append("")
            blank = True
            continue
        kept.append(line)
        blank = False
    while kept and not kept[-1]:
        kept.pop()
    head = (f"# {name}: nvme-swapguard, rendered by machineconfig/render.py without the\n"
            f"# source's comments (they say why each setting is there): systemd/ or machineconfig/\n"
            f"# in the project, man nvme-swapguard(8).\n")
    return head + "\n".join(kept) + "\n"


def strip_copy(src, tmpdir):
    """The binary as shipped: without symbols or debug info (a fraction of
    the size; the release build strips too). Returns the stripped copy."""
    strip = shutil.which("strip")
    if not strip:
        die("--strip needs strip(1) (Debian package binutils)")
    dst = os.path.join(tmpdir, os.path.basename(src))
    subprocess.run([strip, "--strip-all", "-o", dst, src], check=True)
    return dst


class Payload:
    """One file of the MachineConfig and where its bytes came from."""

    def __init__(self, path, mode, overwrite, source, data, origin):
        self.path, self.mode, self.overwrite = path, mode, overwrite
        self.source, self.data, self.origin = source, data, origin


def readable_file(option, path):
    """A file named on the command line: there, a regular file, readable."""
    try:
        with open(path, "rb") as f:
            if not os.path.isfile(path):
                die(f"{option} {path}: not a regular file")
            f.read(1)
    except IsADirectoryError:
        die(f"{option} {path}: is a directory, not a file")
    except FileNotFoundError:
        die(f"{option} {path}: no such file")
    except OSError as e:
        die(f"{option} {path}: cannot be read: {e.strerror}")
    return path


def shipped_settings(daemon, config, tmpdir):
    """(Mode, UnloadAt) the configuration gives on the nodes, after the daemon
    itself validated it. The defaults are the daemon's (--dump-doc-tables:
    its configuration table), not assumed here."""
    check_dir = os.path.join(tmpdir, "check-config")
    os.makedirs(check_dir)  # alone, so that no conf.d/ beside the admin's file is read
    copy = os.path.join(check_dir, "nvme-swapguard.conf")
    shutil.copyfile(config, copy)
    try:
        r = subprocess.run([daemon, "--check-config", "--config", copy], capture_output=True, text=True)
        table = subprocess.run([daemon, "--dump-doc-tables"], capture_output=True, text=True)
    except OSError as e:
        die(f"{daemon}: cannot run it to check --config: {e.strerror}")
    if r.returncode != 0:
        die(f"--config {config}: the daemon refuses it:\n" + r.stderr.replace(copy, config).rstrip())
    values = {}
    for line in table.stdout.splitlines():
        f = line.split("\t")
        if f[0] == "option" and len(f) == 6:
            values[(f[1], f[2])] = f[3]
    if ("Swap", "Mode") not in values:
        die(f"{daemon}: --dump-doc-tables gave no Mode= default (a daemon older than this render.py?)")
    section = None
    with open(config, encoding="utf-8-sig") as f:  # the daemon accepted it: simple INI
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line[1:line.index("]")]
                continue
            key, sep, value = line.partition("=")
            if not sep:
                key, sep, value = line.partition(":")
            values[(section, key.strip())] = value.strip()
    return values[("Swap", "Mode")], values[("Swap", "UnloadAt")]


def daemon_version(daemon):
    r = subprocess.run([daemon, "--version"], capture_output=True, text=True)
    m = re.fullmatch(r"nvme-swapguard (\S+)\n?", r.stdout)
    if r.returncode != 0 or not m:
        die(f"{daemon} --version: unexpected answer {r.stdout!r}")
    # A label value: at most 63 of [A-Za-z0-9._-], alphanumeric at both ends.
    v = re.sub(r"[^A-Za-z0-9._-]", "_", m.group(1))[:63].strip("._-")
    return v or "unknown"


def local_files(args, tmpdir):
    """What the .bu's `local:` names stand for: butane's --files-dir, built
    from the build's outputs and the sources. Maps name -> (path, origin)."""
    daemon = args.daemon or os.path.join(args.binaries, "nvme-swapguard")
    if not os.path.isfile(daemon) or not os.access(daemon, os.X_OK):
        die(f"{daemon}: no such executable (build it first, or pass --binaries DIR)")
    files = {"nvme-swapguard": (strip_copy(daemon, tmpdir) if args.strip else daemon,
                                daemon + (" (stripped)" if args.strip else "")),
             KMOD_NAME: (args.kmod_wrapper, args.kmod_wrapper)}
    unit = os.path.join(tmpdir, "nvme-swapguard.service")
    with open(unit, "w") as f:
        f.write(render_unit(args.unit))
    files["nvme-swapguard.service"] = (unit, args.unit + f" (@daemondir@={BINDIR})")
    fabrics = os.path.join(tmpdir, FABRICS_UNIT_NAME)
    with open(fabrics, "w") as f:
        f.write(render_unit(args.fabrics_unit))
    files[FABRICS_UNIT_NAME] = (fabrics, args.fabrics_unit + f" (@bindir@={BINDIR})")
    files[FABRICS_PATH_NAME] = (args.fabrics_path, args.fabrics_path)
    labels = os.path.join(tmpdir, LABELS_UNIT_NAME)
    with open(labels, "w") as f:
        f.write(render_unit(args.labels_unit))
    files[LABELS_UNIT_NAME] = (labels, args.labels_unit + f" (@bindir@={BINDIR})")
    files[LABELS_PATH_NAME] = (args.labels_path, args.labels_path)
    files["nvme-swapguard-metrics-label.service"] = (args.label_unit, args.label_unit)
    files["nvme-swapguard.conf"] = (args.config, args.config)
    files["nvme-swapguard.catalog"] = (args.catalog, args.catalog)
    return files


def load_butane(path, role, labels):
    bu = yaml.safe_load(read(path))
    if bu.get("variant") != "openshift" or not str(bu.get("version", "")).startswith("4."):
        die(f"{path}: expected variant openshift, version 4.x")
    if set(bu) - {"variant", "version", "metadata", "storage", "systemd"}:
        die(f"{path}: render.py handles metadata, storage.files and systemd.units only; "
            f"found {sorted(set(bu) - {'variant', 'version', 'metadata', 'storage', 'systemd'})}")
    bu["metadata"]["name"] = f"99-{role}-nvme-swapguard"
    bu["metadata"]["labels"]["machineconfiguration.openshift.io/role"] = role
    bu["metadata"]["labels"].update(labels)
    return bu


def collect(bu, local):
    payloads = []
    for f in bu.get("storage", {}).get("files", []):
        name = f["contents"]["local"]
        src, origin = local[name]
        if not os.path.isfile(src):
            die(f"{src}: missing (for {f['path']})")
        payloads.append(Payload(f["path"], f.get("mode", 0o644), f.get("overwrite", False),
                                src, read(src), origin))
    units = []
    for u in bu.get("systemd", {}).get("units", []):
        src, origin = local[u["contents_local"]]
        units.append({"name": u["name"], "enabled": u.get("enabled", False),
                      "contents": unit_as_shipped(u["name"], read(src).decode("utf-8"))})
    return payloads, units


def machine_config(bu, payloads, units):
    files = []
    for p in payloads:
        source, compression = data_url(p.data)
        contents = {"source": source}
        if compression:
            contents["compression"] = compression
        files.append({"path": p.path, "mode": p.mode, "overwrite": p.overwrite, "contents": contents})
    return {
        "apiVersion": "machineconfiguration.openshift.io/v1",
        "kind": "MachineConfig",
        "metadata": bu["metadata"],
        "spec": {
            "config": {
                "ignition": {"version": IGNITION_VERSION},
                "storage": {"files": files},
                "systemd": {"units": units},
            }
        },
    }


def header(role, payloads):
    lines = [
        "# SPDX-License-Identifier: Apache-2.0",
        f"# nvme-swapguard for the '{role}' pool. Generated by machineconfig/render.py;",
        "# do not edit (edit the sources and render again). Apply: oc apply -f <this file>",
    ]
    for p in payloads:
        lines.append(f"#   {p.path}  sha256:{hashlib.sha256(p.data).hexdigest()}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- checks ---

class Checker:
    def __init__(self):
        self.failed = 0

    def ok(self, cond, what):
        print(f"{'ok' if cond else 'FAIL'}: {what}")
        if not cond:
            self.failed += 1
        return cond


def check_ignition(c, ign, validator):
    """ignition-validate on the Ignition part. Debian 12's Ignition (2.14)
    knows spec 3.4.0 only by its pre-release name 3.4.0-experimental (it
    was stabilised unchanged for what we use in 2.15), so the config is
    validated under that name, and under 3.3.0 as well: we use nothing newer
    than 3.3, and the older, stable schema must accept it too."""
    exe = shutil.which(validator) or (validator if os.access(validator, os.X_OK) else None)
    if not exe:
        c.ok(False, f"{validator} not found (Debian package ignition)")
        return
    for version in ("3.4.0-experimental", "3.3.0"):
        cfg = json.loads(json.dumps(ign))
        cfg["ignition"]["version"] = version
        with tempfile.NamedTemporaryFile("w", suffix=".ign", delete=False) as f:
            json.dump(cfg, f)
        try:
            r = subprocess.run([exe, f.name], capture_output=True, text=True)
        finally:
            os.unlink(f.name)
        out = (r.stdout + r.stderr).strip()
        # Warnings count: e.g. "enabled, but has no install section".
        c.ok(r.returncode == 0 and not out,
             f"ignition-validate (spec {version}){': ' + out if out else ''}")


def check_kmod(c, ign, files, payloads):
    """The CLI's path is the wrapper that runs the shipped daemon under the
    CLI's name; the daemon's binary is the only one shipped."""
    kmod, daemon = f"{BINDIR}/{KMOD_NAME}", f"{BINDIR}/nvme-swapguard"
    elves = [p.path for p in payloads if p.data.startswith(b"\x7fELF")]
    c.ok(elves == [daemon], f"one binary shipped, {daemon} (ELF files: {', '.join(elves) or 'none'})")
    wrapper = next((p for p in payloads if p.path == kmod), None)
    if not c.ok(wrapper is not None and kmod in files, f"{kmod} present"):
        return
    text = wrapper.data.decode("utf-8", "replace")
    lines = [line for line in text.splitlines(keepends=True) if line.strip() and not line.startswith("#")]
    c.ok(text.startswith("#!/bin/bash\n") and wrapper.mode == 0o755,
         f"{kmod} is a bash script, mode 0755 (exec -a is bash's)")
    c.ok(lines == [KMOD_EXEC], f"{kmod} runs only {KMOD_EXEC.strip()}")
    links = [link.get("path") for link in ign.get("storage", {}).get("links", [])]
    c.ok(not links, f"no Ignition link (the Machine Config daemon refuses them on running nodes): "
                    f"{', '.join(map(str, links)) or 'none'}")


def check(path, role, payloads, units, args, labels):
    c = Checker()
    blob = read(path)
    try:
        mc = yaml.safe_load(blob)
    except yaml.YAMLError as e:
        c.ok(False, f"YAML parses: {e}")
        return c.failed
    c.ok(isinstance(mc, dict), "YAML parses to one object")
    c.ok(mc.get("apiVersion") == "machineconfiguration.openshift.io/v1", "apiVersion")
    c.ok(mc.get("kind") == "MachineConfig", "kind")
    want_labels = labels
    labels = mc.get("metadata", {}).get("labels", {})
    c.ok(labels.get("machineconfiguration.openshift.io/role") == role, f"role label is '{role}'")
    for k, v in want_labels.items():
        c.ok(labels.get(k) == v, f"label {k}={v} (what the shipped configuration says)")
    ign = mc.get("spec", {}).get("config", {})
    c.ok(ign.get("ignition", {}).get("version") == IGNITION_VERSION, f"Ignition version {IGNITION_VERSION}")

    check_ignition(c, ign, args.ignition_validate)

    files = {f["path"]: f for f in ign.get("storage", {}).get("files", [])}
    c.ok(len(files) == len(payloads), f"{len(payloads)} files, each path once")
    for p in payloads:
        f = files.get(p.path)
        if not c.ok(f is not None, f"{p.path} present"):
            continue
        c.ok(f.get("mode") == p.mode, f"{p.path} mode {p.mode:04o}")
        try:
            got = decode_data_url(f["contents"]["source"], f["contents"].get("compression"))
        except (ValueError, KeyError, OSError, EOFError, zlib.error) as e:
            c.ok(False, f"{p.path} decodes: {e}")
            continue
        c.ok(got == p.data, f"{p.path} decodes to {p.origin} byte for byte ({len(got)} bytes)")

    got_units = {u.get("name"): u for u in ign.get("systemd", {}).get("units", [])}
    c.ok(UNIT_NAME in got_units and got_units[UNIT_NAME].get("enabled") is True,
         f"{UNIT_NAME} present and enabled")
    for u in units:
        c.ok(got_units.get(u["name"], {}).get("contents") == u["contents"],
             f"{u['name']} is its source byte for byte")
    unit_text = got_units.get(UNIT_NAME, {}).get("contents", "")
    c.ok(f"ExecStart={BINDIR}/nvme-swapguard\n" in unit_text, f"ExecStart= runs {BINDIR}/nvme-swapguard")
    fabrics_text = got_units.get(FABRICS_UNIT_NAME, {}).get("contents", "")
    c.ok(f"ExecStart={BINDIR}/nvme-swapguard-kmod fabrics serve-request " in fabrics_text,
         f"{FABRICS_UNIT_NAME} present, ExecStart= runs {BINDIR}/nvme-swapguard-kmod fabrics serve-request")
    c.ok(got_units.get(FABRICS_PATH_NAME, {}).get("enabled") is True, f"{FABRICS_PATH_NAME} present and enabled")
    labels_text = got_units.get(LABELS_UNIT_NAME, {}).get("contents", "")
    c.ok(f"ExecStart={BINDIR}/nvme-swapguard-kmod labels publish " in labels_text,
         f"{LABELS_UNIT_NAME} present, ExecStart= runs {BINDIR}/nvme-swapguard-kmod labels publish")
    c.ok(got_units.get(LABELS_PATH_NAME, {}).get("enabled") is True, f"{LABELS_PATH_NAME} present and enabled")
    check_kmod(c, ign, files, payloads)
    # The MachineConfig creates nothing under /etc/kubernetes: Node Feature
    # Discovery owns that tree; no directory there, no labels.
    c.ok(not any(p.startswith("/etc/kubernetes") for p in files), "no file under /etc/kubernetes")

    size = len(blob)
    print(f"size: MachineConfig {size} bytes ({size / 1024:.1f} KiB), "
          f"{100.0 * size / ETCD_LIMIT:.1f}% of etcd's 1.5 MiB request limit")
    for p in payloads:
        if p.data.startswith(b"\x7fELF"):
            gz = len(gzip_bytes(p.data))
            print(f"size: {p.path}: {len(p.data)} bytes, {gz} gzip-compressed "
                  f"({gz / 1024:.1f} KiB), {gz * 4 // 3} as base64")
            c.ok(gz <= args.max_binary_gz, f"{os.path.basename(p.path)} compressed "
                 f"{gz / 1024:.1f} KiB <= {args.max_binary_gz / 1024:.0f} KiB")
    c.ok(size <= args.max_total, f"MachineConfig {size / 1024:.1f} KiB <= {args.max_total / 1024:.0f} KiB")
    return c.failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog="Exit status: 0 written (and checked); 1 a file missing or "
                                        "unreadable, a configuration the daemon refuses, or a failed check; "
                                        "2 usage.")
    ap.add_argument("--binaries", metavar="DIR", default=".",
                    help="directory holding nvme-swapguard, the one binary shipped (default: .)")
    ap.add_argument("--daemon", metavar="PATH", help="the daemon binary (default DIR/nvme-swapguard); "
                    "it is the CLI too, run by the wrapper --kmod-wrapper")
    ap.add_argument("--kmod-wrapper", metavar="FILE", default=os.path.join(HERE, "nvme-swapguard-kmod.sh"),
                    help=f"the script shipped as {BINDIR}/{KMOD_NAME} (default: nvme-swapguard-kmod.sh "
                         "next to this script)")
    ap.add_argument("--role", default="worker",
                    help="machine config pool the MachineConfig is for: its role label and name "
                         "99-ROLE-nvme-swapguard (default: worker)")
    ap.add_argument("--config", metavar="FILE", default=os.path.join(TOP, "daemon", "nvme-swapguard.conf"),
                    help="the nvme-swapguard.conf to ship as /etc/nvme-swapguard/nvme-swapguard.conf "
                         "(default: daemon/nvme-swapguard.conf, Mode=enforce); must exist and pass the "
                         "daemon's --check-config; its Mode= and UnloadAt= become labels")
    ap.add_argument("--catalog", metavar="FILE",
                    default=os.path.join(TOP, "daemon", "catalog", "nvme-swapguard.catalog"),
                    help="the journal catalog to ship (default: daemon/catalog/nvme-swapguard.catalog)")
    ap.add_argument("--butane", metavar="FILE", default=os.path.join(HERE, "nvme-swapguard.bu"),
                    help="the Butane source to render (default: next to this script)")
    ap.add_argument("--unit", metavar="FILE", default=os.path.join(TOP, "systemd", "nvme-swapguard.service.in"),
                    help="the daemon's unit source (default: systemd/nvme-swapguard.service.in)")
    ap.add_argument("--fabrics-unit", metavar="FILE",
                    default=os.path.join(TOP, "systemd", "nvme-swapguard-fabrics.service.in"),
                    help="the NVMe over Fabrics connect unit's source "
                         "(default: systemd/nvme-swapguard-fabrics.service.in)")
    ap.add_argument("--fabrics-path", metavar="FILE",
                    default=os.path.join(TOP, "systemd", "nvme-swapguard-fabrics.path"),
                    help="its path unit (default: systemd/nvme-swapguard-fabrics.path)")
    ap.add_argument("--labels-unit", metavar="FILE",
                    default=os.path.join(TOP, "systemd", "nvme-swapguard-labels.service.in"),
                    help="the node labels' copier unit source (default: systemd/nvme-swapguard-labels.service.in)")
    ap.add_argument("--labels-path", metavar="FILE",
                    default=os.path.join(TOP, "systemd", "nvme-swapguard-labels.path"),
                    help="its path unit (default: systemd/nvme-swapguard-labels.path)")
    ap.add_argument("--label-unit", metavar="FILE",
                    default=os.path.join(HERE, "nvme-swapguard-metrics-label.service"),
                    help="the metrics directory's SELinux label unit (default: next to this script)")
    ap.add_argument("--output", "-o", metavar="FILE",
                    help="where to write the MachineConfig (default: ./99-ROLE-nvme-swapguard.yaml)")
    ap.add_argument("--strip", action="store_true", help="ship stripped copies of the binaries (strip(1))")
    ap.add_argument("--check", action="store_true", help="verify the written file (see above)")
    ap.add_argument("--verify-only", action="store_true",
                    help="do not write --output; check the existing one against the sources")
    ap.add_argument("--ignition-validate", default="ignition-validate", metavar="PATH",
                    help="the ignition-validate program for --check (default: from PATH)")
    ap.add_argument("--max-total", type=int, default=DEFAULT_MAX_TOTAL, metavar="BYTES",
                    help=f"--check: the MachineConfig's size budget (default {DEFAULT_MAX_TOTAL})")
    ap.add_argument("--max-binary-gz", type=int, default=DEFAULT_MAX_BINARY_GZ, metavar="BYTES",
                    help=f"--check: each binary's compressed budget (default {DEFAULT_MAX_BINARY_GZ})")
    args = ap.parse_args()

    # A pool name is a Kubernetes name and becomes part of ours.
    if not re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", args.role) or len(args.role) > 200:
        die(f"--role: '{args.role}' is not a machine config pool name")
    output = args.output or f"99-{args.role}-nvme-swapguard.yaml"
    for option in ("kmod_wrapper", "config", "catalog", "butane", "unit", "fabrics_unit", "fabrics_path", "labels_unit",
                   "labels_path", "label_unit"):
        readable_file("--" + option.replace("_", "-"), getattr(args, option))

    with tempfile.TemporaryDirectory() as tmpdir:
        local = local_files(args, tmpdir)
        daemon = args.daemon or os.path.join(args.binaries, "nvme-swapguard")
        mode, unload_at = shipped_settings(daemon, args.config, tmpdir)
        labels = {LABEL_MODE: mode, LABEL_UNLOAD_AT: unload_at, LABEL_VERSION: daemon_version(daemon)}
        print(f"render: shipping Mode={mode} UnloadAt={unload_at} (from {args.config}), "
              f"nvme-swapguard {labels[LABEL_VERSION]}, for pool '{args.role}'")
        bu = load_butane(args.butane, args.role, labels)
        payloads, units = collect(bu, local)
        mc = machine_config(bu, payloads, units)
        text = header(args.role, payloads) + yaml.safe_dump(mc, sort_keys=False, width=1 << 30)
        if args.verify_only:
            print(f"render: verifying {output} against the sources, not writing it")
        else:
            tmp_out = output + ".tmp"
            with open(tmp_out, "w") as f:
                f.write(text)
            os.replace(tmp_out, output)
            print(f"render: wrote {output} ({len(text.encode())} bytes) for role '{args.role}'")
        if args.check or args.verify_only:
            failed = check(output, args.role, payloads, units, args, labels)
            if failed:
                die(f"{failed} check(s) failed")
            print("render: all checks passed")


if __name__ == "__main__":
    main()
