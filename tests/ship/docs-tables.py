#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The documentation's facts from their one owner, the code.

The configuration keys (name, default, accepted values, meaning: the table
in daemon/config/daemon-config.c) and the states (name, meaning:
daemon/vocabulary/swap-vocabulary.c) are read from the built daemon's hidden
--dump-doc-tables, and written into:

  README.md                         the configuration table, the states table
  systemd/man/nvme-swapguard.conf.5.scd   the option list and the defaults example
  systemd/man/nvme-swapguard.8.scd  each state's first line under STATES
  daemon/nvme-swapguard.conf        the whole file
  daemon/catalog/nvme-swapguard.catalog   the states in the "started in state" entry
  plugin/swapguard_plugin/states.py the plugin's list of the daemon's states

between "generated" markers. --write rewrites them; --check fails on any
difference, and also on:
  - a default stated anywhere in the docs ("Key=value (the default)",
    "Default: *value*" under a key in nvme-swapguard.conf(5)) that is not the code's;
  - an absolute path in the docs that no unit, MachineConfig, code or
    manifest uses (ALLOWED_PATHS: the user's and the cluster's own);
  - a link to a README section that does not exist (#anchor links, and
    README.md, "Section" references), or to a file that does not exist.

Regenerate after changing either table (one command):
  meson compile -C build update-docs
or: python3 tests/ship/docs-tables.py --daemon build/daemon/nvme-swapguard --write
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
import textwrap

REGEN = "meson compile -C build update-docs"

FILES = {
    "readme": "README.md",
    "conf5": "systemd/man/nvme-swapguard.conf.5.scd",
    "man8": "systemd/man/nvme-swapguard.8.scd",
    "conf": "daemon/nvme-swapguard.conf",
    "catalog": "daemon/catalog/nvme-swapguard.catalog",
    "plugin": "plugin/swapguard_plugin/states.py",
}

# Where the docs' paths must be used: units, the MachineConfig, code, manifests.
USED_IN = ["daemon", "kmod-helper", "systemd", "machineconfig", "plugin", "monitoring"]
USED_EXT = (".c", ".h", ".in", ".path", ".service", ".bu", ".py", ".yaml", ".sh", ".conf")
# Documents whose paths are checked.
DOCS = ["README.md", "docs", "systemd/man", "daemon/catalog"]

# Paths that are the user's, the cluster's, the kernel's or another
# program's, which the docs name as examples or as what the admin runs:
# none of our code or units has to use them.
ALLOWED_PATHS = {
    "/var/lib/data", "/var/lib/containers", "/data", "/mnt", "/boot", "/sysroot",  # a user's mounts
    "/host",                                  # oc debug's mount of the node
    "/dev/nvme0n1", "/dev/nvme0n1p1", "/dev/nvme1n1", "/dev/nvme0",  # examples of devices
    "/usr/lib/systemd/catalog", "/etc/systemd/catalog",  # systemd's own catalog paths
    "/etc/modprobe.d", "/usr/lib/modprobe.d", "/lib/modprobe.d",  # modprobe.d(5)
    "/etc/containers", "/var/run/containers/storage",  # CRI-O's configuration, an example value
    "/etc/machine-config-daemon",             # the MCO's own files
    "/usr", "/usr/local", "/etc", "/run", "/var", "/proc", "/sys", "/dev", "/lib",
    "/usr/src/ofa_kernel", "/usr/src",        # the driver container's build tree
    "/etc/nvme/hostnqn", "/etc/nvme/hostid",  # nvme-cli's
    "/lib/modules", "/usr/lib/modules",       # the kernel's module trees
    "/etc/os-release", "/root",
    "/proc/sys/kernel/tainted", "/proc/self/mountinfo", "/sys/fs/cgroup",
    "/sys/kernel/debug", "/var/log/journal",
    "/proc/mdstat",                           # the kernel's, read by the admin
    "/usr/share/doc",
    "/etc/fstab", "/etc/nvme/discovery.conf",  # the admin's, nvme-cli's
    "/usr/bin/time", "/run/systemd/system",   # tools and systemd's own, in benchmarks
}
ALLOWED_PREFIXES = ("/etc/nvme-swapguard/conf.d/",  # the admin's own drop-ins
                    "/tmp/", "/work/", "/home/", "/usr/share/man/", "/host/", "/proc/self/",
                    "/usr/src/", "/etc/yum.repos.d/", "/var/lib/kubelet/", "/run/containers/storage/",
                    "/etc/kubernetes/", "/var/lib/containers/", "/usr/share/mlnx_ofed/",
                    "/sys/kernel/debug/", "/dev/disk/", "/lib/modules/", "/usr/lib/modules/")


def die(msg):
    print(f"docs-tables: {msg}", file=sys.stderr)
    sys.exit(2)


def read_tables(daemon):
    try:
        out = subprocess.run([daemon, "--dump-doc-tables"], check=True, capture_output=True,
                             text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        die(f"{daemon} --dump-doc-tables: {e}")
    options, states = [], []
    for n, line in enumerate(out.splitlines(), 1):
        f = line.split("\t")
        if f[0] == "option" and len(f) == 6:
            options.append(dict(section=f[1], key=f[2], default=f[3], range=f[4], meaning=f[5]))
        elif f[0] == "state" and len(f) == 3:
            states.append(dict(name=f[1], meaning=f[2]))
        else:
            die(f"{daemon} --dump-doc-tables: line {n} not understood: {line!r}")
    if not options or not states:
        die(f"{daemon} --dump-doc-tables: no options or no states")
    return options, states


# --- the generated blocks ---------------------------------------------------

def begin(kind, comment):
    return f"{comment} generated: {kind} (from the code by tests/ship/docs-tables.py; edit the code, then {REGEN})"


def end(kind, comment):
    return f"{comment} end generated: {kind}"


def replace_block(text, kind, comment, body, path, suffix=""):
    """text with the lines between the markers of `kind` replaced by body."""
    b, e = begin(kind, comment) + suffix, end(kind, comment) + suffix
    pat = re.compile(re.escape(comment) + r" generated: " + re.escape(kind) + r" \(.*\n", re.M)
    m = pat.search(text)
    if not m:
        die(f"{path}: no line \"{b}\" (the generated {kind} go there)")
    j = text.find(e + "\n", m.end())
    if j < 0:
        die(f"{path}: no line \"{e}\" after the generated {kind}")
    return text[:m.start()] + b + "\n" + body + e + "\n" + text[j + len(e) + 1:]


def md_cell(s):
    return s.replace("|", "\\|")


def md_code(s):
    return f"`{s}`" if s else "(empty)"


def readme_options(options):
    rows = ["| key | default | accepted | meaning |", "| --- | --- | --- | --- |"]
    for o in options:
        rows.append(f"| `[{o['section']}] {o['key']}=` | {md_code(o['default'])} | "
                    f"{md_cell(o['range'])} | {md_cell(o['meaning'])} |")
    return "\n".join(rows) + "\n"


def readme_states(states, old_text):
    """The states table: state and meaning from the code; "what to do" kept
    from the README (hand-written, per state)."""
    todo = {}
    for line in old_text.splitlines():
        m = re.match(r"\| `([a-z-]+)` \| .* \| (.*) \|$", line)
        if m:
            todo[m.group(1)] = m.group(2)
    rows = ["| state | meaning | what to do |", "| --- | --- | --- |"]
    for s in states:
        rows.append(f"| `{s['name']}` | {md_cell(s['meaning'])} | "
                    f"{todo.get(s['name'], 'WRITE WHAT TO DO: a new state')} |")
    return "\n".join(rows) + "\n"


def scd_escape(s):
    return s.replace("*", "\\*").replace("_", "\\_")


def conf5_options(options):
    out = []
    for o in options:
        d = f"*{scd_escape(o['default'])}*" if o["default"] else "empty"
        out.append(f"*[{o['section']}] {o['key']}=*\n\t{scd_escape(o['meaning'])}. "
                   f"Accepted: {scd_escape(o['range'])}. Default: {d}.\n")
    return "\n".join(out)


def conf5_example(options):
    out, section = ["```"], None
    for o in options:
        if o["section"] != section:
            if section:
                out.append("")
            out.append(f"[{o['section']}]")
            section = o["section"]
        out.append(f"{o['key']}={o['default']}")
    return "\n".join(out + ["```"]) + "\n"


def shipped_conf(options):
    out = ["# SPDX-License-Identifier: Apache-2.0",
           "# nvme-swapguard configuration; the values below are the defaults.",
           "# Drop-ins: /etc/nvme-swapguard/conf.d/*.conf, read after this file in",
           "# lexical order; a key set there overrides this one. Every key in full:",
           "# man nvme-swapguard.conf. Validate with: nvme-swapguard --check-config",
           f"# (Generated from the code by tests/ship/docs-tables.py: {REGEN}.)"]
    section = None
    for o in options:
        if o["section"] != section:
            out += ["", f"[{o['section']}]"]
            section = o["section"]
        for line in textwrap.wrap(o["meaning"], 74):
            out.append("# " + line)
        for line in textwrap.wrap("accepted: " + o["range"], 74):
            out.append("# " + line)
        out.append(f"{o['key']}={o['default']}")
    return "\n".join(out) + "\n"


def man8_states(states, old_text, path):
    """Each state's entry under STATES: its first line is the code's meaning;
    the lines after it (hand-written detail) are kept."""
    m = re.search(r"^# STATES\n(.*?)(?=^# )", old_text, re.S | re.M)
    if not m:
        die(f"{path}: no STATES section")
    section = m.group(1)
    parts = re.split(r"^\*([a-z-]+)\*\n", section, flags=re.M)
    intro, entries = parts[0], dict(zip(parts[1::2], parts[2::2]))
    unknown = [n for n in entries if n not in {s["name"] for s in states}]
    out = [intro]
    for s in states:
        body = entries.get(s["name"], "\n")
        lines = body.split("\n")
        detail = lines[1:] if lines and lines[0].startswith("\t") else lines
        out.append(f"*{s['name']}*\n\t{scd_escape(s['meaning'])}.\n" + "\n".join(detail))
    for n in unknown:  # kept, so that --check shows them as a difference to remove
        out.append(f"*{n}*\n\tNOT A STATE OF THE CODE: remove this entry.\n\n")
    new = "".join(out)
    if not new.endswith("\n\n"):
        new = new.rstrip("\n") + "\n\n"
    return old_text[:m.start(1)] + new + old_text[m.end(1):]


def catalog_states(states):
    out = []
    for s in states:
        wrapped = textwrap.wrap(f"{s['name']}: {s['meaning']}", 72, subsequent_indent="    ")
        out += ["  " + w for w in wrapped]
    return "\n".join(out) + "\n"


def plugin_states(states):
    out = ["# SPDX-License-Identifier: Apache-2.0",
           '"""The daemon\'s states and what each means, generated from the code',
           f'(daemon/vocabulary/swap-vocabulary.c) by tests/ship/docs-tables.py: {REGEN}."""',
           "",
           "STATES = {"]
    for s in states:
        out.append(f"    {s['name']!r}: {s['meaning']!r},")
    return "\n".join(out + ["}"]) + "\n"


def generate(root, options, states):
    """{relative path: (old text, new text)}"""
    res = {}

    def old(k):
        p = os.path.join(root, FILES[k])
        try:
            with open(p, encoding="utf-8") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    t = old("readme")
    n = replace_block(t, "options", "<!--", readme_options(options), FILES["readme"], " -->")
    m = re.search(r"<!-- generated: states .*?\n(.*?)<!-- end generated: states -->", n, re.S)
    n = replace_block(n, "states", "<!--", readme_states(states, m.group(1) if m else ""),
                      FILES["readme"], " -->")
    res[FILES["readme"]] = (t, n)
    t = old("conf5")
    n = replace_block(t, "options", ";", conf5_options(options), FILES["conf5"])
    n = replace_block(n, "defaults", ";", conf5_example(options), FILES["conf5"])
    res[FILES["conf5"]] = (t, n)
    t = old("man8")
    res[FILES["man8"]] = (t, man8_states(states, t, FILES["man8"]))
    res[FILES["conf"]] = (old("conf"), shipped_conf(options))
    t = old("catalog")
    res[FILES["catalog"]] = (t, replace_block(t, "states", "#", catalog_states(states), FILES["catalog"]))
    res[FILES["plugin"]] = (old("plugin"), plugin_states(states))
    return res


# --- the checks beyond the generated blocks ---------------------------------

def doc_files(root):
    for d in DOCS:
        p = os.path.join(root, d)
        if os.path.isfile(p):
            yield d
        elif os.path.isdir(p):
            for dirpath, _, names in os.walk(p):
                for n in sorted(names):
                    if n.endswith((".md", ".scd", ".catalog")):
                        yield os.path.relpath(os.path.join(dirpath, n), root)


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


def check_defaults(root, options):
    """A default stated anywhere that is not the code's."""
    defaults = {o["key"]: o["default"] for o in options}
    errors = []
    stated = re.compile(r"[`*]?\b([A-Z][A-Za-z]+)=([A-Za-z0-9_./-]*)[`*]?\s*\((?:the |its )?default\b")
    for rel in doc_files(root):
        text = read(root, rel)
        for m in stated.finditer(text):
            key, value = m.group(1), m.group(2)
            if key in defaults and value != defaults[key]:
                line = text.count("\n", 0, m.start()) + 1
                errors.append(f"{rel}:{line}: says {key}={value} is the default; the code's is "
                              f"{key}={defaults[key] or '(empty)'}")
    # nvme-swapguard.conf(5): "Default: *x*" and "*x* (default)" under each key.
    rel = FILES["conf5"]
    text = read(root, rel)
    for m in re.finditer(r"^\*(?:\[\w+\] )?([A-Z][A-Za-z]+)=\*\n((?:\t.*\n|\n)*)", text, re.M):
        key, body = m.group(1), m.group(2)
        if key not in defaults:
            line = text.count("\n", 0, m.start()) + 1
            errors.append(f"{rel}:{line}: {key}= is no key of the code's configuration table")
            continue
        body = re.sub(r"\s+", " ", body.replace("\\", ""))
        said = re.findall(r"Default: [*_]([^*_]+)[*_]", body) + \
            re.findall(r"\*([\w./-]+)\* \((?:the )?default\)", body)
        if re.search(r"\bEmpty \(the default\)|Default: empty", body):
            said.append("")
        for v in said:
            if v != defaults[key]:
                line = text.count("\n", 0, m.start()) + 1
                errors.append(f"{rel}:{line}: {key}='s default is said to be {v or '(empty)'}; "
                              f"the code's is {defaults[key] or '(empty)'}")
    return errors


PATH_RE = re.compile(r"(?<![A-Za-z0-9.~/:$@<>{}-])(/(?:etc|run|var|usr|proc|sys|dev|lib|opt|boot|host|data|mnt)"
                     r"(?:/[A-Za-z0-9._@%<>*{}\\-]+)*)")


def used_strings(root):
    """What the units, the MachineConfig, the code and the manifests say:
    every file's text, plus the C preprocessor's concatenated path macros
    resolved (#define FILE DIR "/name")."""
    texts, defines = [], {}
    for d in USED_IN:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for n in names:
                if not n.endswith(USED_EXT) and "." in n:
                    continue
                p = os.path.join(dirpath, n)
                if os.path.relpath(p, root) in FILES.values():
                    continue  # generated docs are not uses
                try:
                    with open(p, encoding="utf-8") as f:
                        t = f.read()
                except (UnicodeDecodeError, OSError):
                    continue
                texts.append(t)
                if n.endswith(".bu"):  # Ignition writes systemd.units to /etc/systemd/system/
                    texts += [f'"/etc/systemd/system/{u}"' for u in
                              re.findall(r"^\s*- name: (\S+\.(?:service|path|timer))$", t, re.M)]
                for m in re.finditer(r'^#define (\w+)[ \t]+((?:\w+|"[^"\n]*")(?:[ \t]+(?:\w+|"[^"\n]*"))*)[ \t]*$', t, re.M):
                    defines[m.group(1)] = re.findall(r'\w+|"[^"\n]*"', m.group(2))
    resolved = {}

    def resolve(name, depth=0):
        if name in resolved or depth > 8:
            return resolved.get(name)
        out = ""
        for tok in defines[name]:
            if tok.startswith('"'):
                out += tok[1:-1]
            elif tok in defines:
                r = resolve(tok, depth + 1)
                if r is None:
                    return None
                out += r
            else:
                return None
        resolved[name] = out
        return out

    for name in defines:
        r = resolve(name)
        if r and r.startswith("/"):
            texts.append(f'"{r}"')
    return "\n".join(texts)


def path_used(path, corpus, patterns):
    # A placeholder component (<pid>, NODE, *, {..}) ends what must match literally.
    parts = path.split("/")
    for i, c in enumerate(parts):
        if re.search(r"[<>*{}\\%]|^[A-Z]+$", c):
            literal = "/".join(parts[:i])
            glob = True
            break
    else:
        literal, glob = path, False
    if path in ALLOWED_PATHS or literal in ALLOWED_PATHS or path.startswith(ALLOWED_PREFIXES):
        return True
    if not literal or literal.count("/") < 2:
        return True  # "/proc/<pid>" alone says too little to check
    if re.search(re.escape(literal) + (r"(?![A-Za-z0-9._-])" if not glob else ""), corpus):
        return True
    return any(p.fullmatch(path) or (glob and p.match(literal)) for p in patterns)


def check_paths(root):
    corpus = used_strings(root)
    # printf formats in code ("/proc/%d/root/lib/modules/%s") match a doc's
    # placeholders or a concrete example.
    patterns = []
    for m in re.finditer(r'"(/[^"\s]*%[sdu][^"\s]*)"', corpus):
        rx = re.escape(m.group(1)).replace("%s", "[^/]+").replace("%d", "[^/]+").replace("%u", "[^/]+")
        patterns.append(re.compile(rx))
    errors = []
    for rel in doc_files(root):
        text = read(root, rel)
        for m in PATH_RE.finditer(text):
            path = m.group(1).rstrip(".,;:)'\"`_*\\")
            path = path.replace("\\", "")
            if path.endswith("/"):
                path = path.rstrip("/")
            if not path_used(path, corpus, patterns):
                line = text.count("\n", 0, m.start()) + 1
                errors.append(f"{rel}:{line}: {path}: no unit, MachineConfig, code or manifest uses this path "
                              "(a path of the user's or the cluster's belongs in ALLOWED_PATHS)")
    return errors


def slug(heading):
    """GitHub's anchor for a heading."""
    s = re.sub(r"[`*_]", "", heading.strip()).lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def check_links(root):
    readme = read(root, "README.md")
    headings = re.findall(r"^#{1,6} (.+)$", re.sub(r"```.*?```", "", readme, flags=re.S), re.M)
    anchors = {slug(h) for h in headings}
    names = {h.strip().lower() for h in headings}
    errors = []
    for rel in doc_files(root):
        text = read(root, rel)
        base = os.path.dirname(rel)

        def err(m, msg):
            errors.append(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: {msg}")

        for m in re.finditer(r"\]\(([^)\s]*)\)", text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            if file:
                p = os.path.normpath(os.path.join(root, base, file))
                if not os.path.exists(p):
                    err(m, f"link to {file}, which does not exist")
                    continue
            on_readme = (not file and rel == "README.md") or (file and os.path.basename(file) == "README.md"
                                                               and os.path.normpath(os.path.join(base, file)) == "README.md")
            if anchor and on_readme and anchor not in anchors:
                err(m, f"link to README section #{anchor}, which does not exist")
        # Prose references: README.md, "Section" / README, section "Section".
        for m in re.finditer(r"(?<![/\w.])README(?:\.md)?,?\s+(?:section\s+)?[\"“]([^\"”]+)[\"”]", text):
            if re.sub(r"\s+", " ", m.group(1)).strip().lower() not in names:
                err(m, f"reference to README section \"{m.group(1)}\", which does not exist")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--daemon", required=True, help="the built nvme-swapguard")
    ap.add_argument("--source-root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="rewrite the generated parts")
    g.add_argument("--check", action="store_true", help="fail on any difference and on the docs checks")
    a = ap.parse_args()
    root = a.source_root
    options, states = read_tables(a.daemon)
    gen = generate(root, options, states)
    if a.write:
        for rel, (old, new) in gen.items():
            if old != new:
                with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                    f.write(new)
                print(f"docs-tables: wrote {rel}")
        return 0
    fail = 0
    for rel, (old, new) in gen.items():
        if old != new:
            fail = 1
            print(f"FAIL: {rel} differs from what the code says (run {REGEN}):")
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                       rel, rel + " (from the code)", n=1))
    for name, errs in (("defaults", check_defaults(root, options)), ("paths", check_paths(root)),
                       ("links", check_links(root))):
        for e in errs:
            print(f"FAIL ({name}): {e}")
        fail |= bool(errs)
    print(f"docs-tables: {len(options)} options, {len(states)} states, {len(list(doc_files(root)))} documents: "
          + ("FAILED" if fail else "passed"))
    return fail


if __name__ == "__main__":
    sys.exit(main())
