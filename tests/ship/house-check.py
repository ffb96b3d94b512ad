#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The house rules that a reader cannot keep by eye:

  * no include cycle among a component's files: foo.c and foo.h are one
    unit, and a unit that includes another depends on it;
  * no call cycle among the daemon's objects: an object that uses a symbol
    another defines depends on it (nm on the static library, so a call
    made through a prototype in some shared header still counts);
  * no product .c file over 650 lines;
  * no cleanup helper (DEFINE_TRIVIAL_CLEANUP_FUNC, a static *_freep())
    defined in a product .c file: the header of the type owns it, once;
  * no comment that names an issue by its number in the code files of the
    --no-issue-refs folders: a comment says why the code is as it is, in
    words a reader understands without the tracker; the history is in git
    log. Code files: C, Python (its docstrings count as comments), shell,
    meson, systemd units, configuration and YAML, scripts without a suffix;
  * no include cycle among a component's folders (--folder-cycles): a
    folder is the first directory under it, its top files being one more
    (the manager's); a file of folder A that includes one of folder B is an
    edge A -> B, and any circle of edges is a breach, named with one file
    and include line per edge. File-level cycles hide behind folders: two
    folders that each include a different unit of the other have no file
    cycle, yet neither can be read, built or changed without the other;
  * a leaf folder includes nothing of its component outside itself
    (--leaf): the words every folder uses (the daemon's vocabulary/) depend
    on none of them;
  * the seams between rooms (--only-view, --no-include, --no-include-up):
    a room that publishes reads the swap only through its read-only view
    headers, the event sources (watch/) know nothing of their users (the
    driver container's room builds on them, never the other way), and no
    room includes the
    top-level headers of the manager that owns it (an include runs down,
    never back up, other than to a shared util/);
  * the event loop is the manager's (--no-loop-calls): no code under the
    given folders names an sd_event_* function, source or handler type; they
    arm and disarm the manager's timers through a table of callbacks;
  * a function with one caller (--only-callers NAME:DIR:ALLOWED[,ALLOWED...]):
    under DIR only the ALLOWED files or folders call NAME (as f( or ->f( ,
    comments aside): the module stack is read by the step's snapshot only,
    the state file written by the record's one writer only;
  * what headers name (--header-names PREFIX:DIR:ALLOWED[,ALLOWED...]):
    under DIR only the ALLOWED headers name an identifier starting with
    PREFIX (an empty list: none does): no prototype under swap/ takes the
    Manager;
  * names with one home (--only-names PREFIX:DIR:ALLOWED[,ALLOWED...]):
    under DIR only the ALLOWED files or folders name an identifier that
    starts with PREFIX (comments aside): the states (SWAP_STATE_*) are named
    by the core's pure files and the vocabulary; everyone else asks what a
    state means (swap_state_build_loaded(), ...).

  house-check.py --source-root DIR [--component DIR]... [--product DIR]...
                 [--archive LIB.a]... [--allow-long FILE]... [--allow-cleanup FILE]...
                 [--no-issue-refs DIR]... [--allow-issue-refs FILE]...
                 [--only-view FROM:TO:HEADER[,HEADER...]]... [--no-include A:B]...
                 [--no-include-up ROOT:PATTERN]... [--allow-include FILE:HEADER]...
                 [--no-loop-calls DIR]... [--only-callers NAME:DIR:ALLOWED[,ALLOWED...]]...
                 [--only-names PREFIX:DIR:ALLOWED[,ALLOWED...]]...
                 [--header-names PREFIX:DIR:ALLOWED[,ALLOWED...]]...
                 [--folder-cycles DIR]... [--leaf FOLDER:ROOT]...

Exit 0 when all hold, 1 with one line per breach.
"""
import argparse
import io
import os
import re
import subprocess
import sys
import tokenize

MAX_LINES = 650
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
CLEANUP = re.compile(r'^(?:DEFINE_TRIVIAL_CLEANUP_FUNC\(|static\s+(?:inline\s+)?void\s+\w+_freep\()', re.M)
# The word issue (or issues, any case) and a number, also with the number
# wrapped onto the comment's next line; not another project's issue #N (a
# citation, not our history).
ISSUE_REF = re.compile(r'\bissues?(?:[ \t]+|[ \t]*\n[ \t]*(?:#|//|\*)?[ \t]*)([0-9]+)', re.I)
HASH_SUFFIXES = ('.sh', '.in', '.service', '.path', '.socket', '.timer', '.conf', '.yaml', '.yml', '.bu',
                 '.ini', '.catalog')
HASH_NAMES = ('meson.build', 'meson_options.txt', 'Containerfile.rhel9')


def unit_of(path):
    # X-internal.h is the private half of X's interface (the struct its
    # files share), so it belongs to X, like X.h does.
    return re.sub(r'(-internal)?\.[ch]$', '', path)


def include_graph(root):
    """{unit: {unit it includes}} for the .c/.h files under root; an
    include resolves against root (the way the build's -I names it) or
    the including file's folder; others (system, other components) are
    outside the graph."""
    files = {}
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(('.c', '.h')):
                p = os.path.relpath(os.path.join(d, n), root)
                with open(os.path.join(d, n), encoding='utf-8', errors='replace') as f:
                    files[p] = INCLUDE.findall(f.read())
    graph = {}
    for p, incs in files.items():
        u = unit_of(p)
        edges = graph.setdefault(u, set())
        for i in incs:
            for cand in (os.path.normpath(i), os.path.normpath(os.path.join(os.path.dirname(p), i))):
                if cand in files:
                    if unit_of(cand) != u:
                        edges.add(unit_of(cand))
                    break
    return graph


def includes_under(root, folder, bases):
    """[(file, included path)] for the .c/.h files in folder (from root),
    the path resolved against the file's own folder or one of bases (the
    build's -I folders, from root), whichever has it, relative to root."""
    out = []
    for d, _, names in os.walk(os.path.join(root, folder)):
        for n in sorted(names):
            if not n.endswith(('.c', '.h')):
                continue
            p = os.path.join(d, n)
            rel = os.path.relpath(p, root)
            with open(p, encoding='utf-8', errors='replace') as f:
                for i in INCLUDE.findall(f.read()):
                    cands = [os.path.normpath(os.path.join(b, i)) for b in [os.path.dirname(rel)] + bases]
                    found = [c for c in cands if os.path.exists(os.path.join(root, c))]
                    if found:
                        out.append((rel, found[0]))
    return out


def include_lines(root, folder, bases):
    """[(file, line number, include text, included path)] for the .c/.h files
    under folder, resolved the way includes_under() does (unresolved ones
    left out)."""
    out = []
    for d, dirs, names in os.walk(os.path.join(root, folder)):
        dirs.sort()
        for n in sorted(names):
            if not n.endswith(('.c', '.h')):
                continue
            rel = os.path.relpath(os.path.join(d, n), root)
            with open(os.path.join(d, n), encoding='utf-8', errors='replace') as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                i = m.group(1)
                cands = [os.path.normpath(os.path.join(b, i)) for b in [os.path.dirname(rel)] + bases]
                found = [c for c in cands if os.path.isfile(os.path.join(root, c))]
                if found:
                    out.append((rel, text.count('\n', 0, m.start()) + 1, m.group(0).strip(), found[0]))
    return out


def folder_of(path, top):
    """The folder of path (from the source root) in component top: the first
    directory under top, or top itself for its top files."""
    parts = os.path.relpath(path, top).split(os.sep)
    return parts[0] if len(parts) > 1 else '(top)'


def folder_cycle_breaches(root, top, bases):
    """One line per circle among top's folders (see the module's text)."""
    graph, witness = {}, {}
    for rel, line, text, target in include_lines(root, top, bases):
        if not under(target, top):
            continue
        a, b = folder_of(rel, top), folder_of(target, top)
        graph.setdefault(a, set())
        if a != b:
            graph[a].add(b)
            witness.setdefault((a, b), '%s:%d %s' % (rel, line, text))
    bad, seen = [], set()
    for comp in cycles(graph):
        # A shortest circle through each folder of the knot: one knot of
        # folders often holds several circles, and each is to be cut.
        for start in comp:
            path = one_cycle(graph, [start] + [x for x in comp if x != start])
            ring = frozenset(zip(path, path[1:]))
            if ring in seen:
                continue
            seen.add(ring)
            edges = ['%s -> %s (%s)' % (x, y, witness[(x, y)]) for x, y in zip(path, path[1:])]
            bad.append('folder include cycle in %s/: %s: %s' % (top, ' -> '.join(path), '; '.join(edges)))
    return bad


def leaf_breaches(root, spec, bases):
    """One line per include from the leaf folder to the rest of its root."""
    leaf, top = (os.path.normpath(x) for x in spec.split(':', 1))
    return ['%s:%d %s: %s/ is a leaf: it includes nothing of %s/ outside itself' % (rel, line, text, leaf, top)
            for rel, line, text, target in include_lines(root, leaf, bases)
            if under(target, top) and not under(target, leaf)]


def under(path, folder):
    return path == folder or path.startswith(folder.rstrip('/') + '/')


def seam_breaches(root, bases, only_view, no_include, no_include_up, allowed):
    """One line per include that crosses a seam (see the module's text)."""
    bad = []

    def refuse(rel, target, why):
        if (rel, target) in allowed:
            print('note: %s includes %s (%s), allowed for now' % (rel, target, why))
        else:
            bad.append('%s includes %s: %s' % (rel, target, why))

    for spec in only_view:
        src, dst, views = spec.split(':', 2)
        views = {os.path.normpath(v) for v in views.split(',') if v}
        for rel, target in includes_under(root, src, bases):
            if under(target, dst) and target not in views:
                refuse(rel, target, '%s/ reads %s/ only through %s' % (src, dst, ', '.join(sorted(views))))
    for spec in no_include:
        a, b = spec.split(':', 1)
        for rel, target in includes_under(root, a, bases):
            if under(target, b):
                refuse(rel, target, '%s/ does not include %s/' % (a, b))
    for spec in no_include_up:
        top, pattern = spec.split(':', 1)
        for d in sorted(os.listdir(os.path.join(root, top))):
            room = os.path.join(top, d)
            if not os.path.isdir(os.path.join(root, room)):
                continue
            for rel, target in includes_under(root, room, bases):
                if os.path.dirname(target) == os.path.normpath(top) and re.fullmatch(pattern, os.path.basename(target)):
                    refuse(rel, target, 'a room of %s/ does not include back up into %s' % (top, os.path.basename(target)))
    return bad


SD_EVENT = re.compile(r'\bsd_event_\w+')
C_COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def loop_calls(root, folders):
    """One line per sd_event_* name (a call, a source, a handler type) in the
    code, comments aside, of the .c/.h files under the folders."""
    bad = []
    for folder in folders:
        for d, dirs, names in os.walk(os.path.join(root, folder)):
            dirs.sort()
            for n in sorted(names):
                if not n.endswith(('.c', '.h')):
                    continue
                p = os.path.join(d, n)
                with open(p, encoding='utf-8', errors='replace') as f:
                    text = f.read()
                # comments blanked, their newlines kept for the line numbers
                code = C_COMMENT.sub(lambda m: '\n' * m.group(0).count('\n'), text)
                for m in SD_EVENT.finditer(code):
                    bad.append('%s:%d: %s: the event loop is the manager\'s; %s/ reaches its timers through '
                               'the manager\'s table' % (os.path.relpath(p, root), code.count('\n', 0, m.start()) + 1,
                                                          m.group(0), folder))
    return bad


def only_callers(root, specs, prefix=False, exts=('.c', '.h')):
    """One line per call of NAME (prefix: per identifier starting with NAME)
    under DIR outside its ALLOWED files and folders (paths from the source
    root), comments aside; only files ending in one of exts."""
    bad = []
    for spec in specs:
        name, folder, allowed = spec.split(':', 2)
        allowed = [os.path.normpath(x) for x in allowed.split(',') if x]
        call = re.compile(r'\b%s\w*' % re.escape(name) if prefix else r'(?:\b|->|\.)%s\s*\(' % re.escape(name))
        for d, dirs, names in os.walk(os.path.join(root, folder)):
            dirs.sort()
            for n in sorted(names):
                if not n.endswith(exts):
                    continue
                p = os.path.join(d, n)
                rel = os.path.relpath(p, root)
                if any(rel == a or rel.startswith(a + os.sep) for a in allowed):
                    continue
                with open(p, encoding='utf-8', errors='replace') as f:
                    code = C_COMMENT.sub(lambda m: '\n' * m.group(0).count('\n'), f.read())
                # strings blanked too: a name in a message is not a use
                code = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', code)
                for m in call.finditer(code):
                    if prefix:
                        who = ('only %s name' % ', '.join(allowed)) if allowed else ('nothing under %s names' % folder)
                        bad.append('%s:%d: %s: %s %s*%s' % (rel, code.count('\n', 0, m.start()) + 1,
                                                           m.group(0), who, name,
                                                           ' in a header' if exts == ('.h',) else ''))
                    else:
                        bad.append('%s:%d: %s(): only %s call it' % (rel, code.count('\n', 0, m.start()) + 1,
                                                                     name, ', '.join(allowed)))
    return bad


def archive_graph(archive):
    """{object: {object whose symbols it uses}} inside one static library."""
    out = subprocess.run(['nm', '-A', archive], check=True, capture_output=True, text=True).stdout
    defined, used = {}, {}
    for line in out.splitlines():
        # "lib.a:obj.o:0000000000000000 T name" or "lib.a:obj.o:                 U name"
        head, _, rest = line.rpartition(':')
        obj = os.path.basename(head.split(':')[-1])
        fields = rest.split()
        if len(fields) < 2:
            continue
        kind, name = fields[-2], fields[-1]
        if kind == 'U':
            used.setdefault(obj, set()).add(name)
        elif kind in 'TDBR':
            defined[name] = obj
            used.setdefault(obj, set())
    return {o: {defined[s] for s in syms if s in defined and defined[s] != o} for o, syms in used.items()}


def c_comments(text):
    """[(line, comment text)] of a C file: /* */ and //, not inside string or character literals."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            i = j + 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append((text.count('\n', 0, i) + 1, text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append((text.count('\n', 0, i) + 1, text[i:j]))
            i = j
        else:
            i += 1
    return out


def python_comments(text):
    """[(line, text)] of a Python file's comments and docstrings (a string that is a statement)."""
    out, prev = [], tokenize.NEWLINE
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out.append((tok.start[0], tok.string))
            elif tok.type == tokenize.STRING and prev in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT,
                                                          tokenize.DEDENT):
                out.append((tok.start[0], tok.string))
            if tok.type not in (tokenize.COMMENT, tokenize.NL):
                prev = tok.type
    except (tokenize.TokenError, SyntaxError):
        return hash_comments(text)
    return out


def hash_comments(text):
    """[(line, text)]: from a '#' that begins a word to the end of its line (shell, meson, units,
    YAML), and whole lines that begin with ';' (units, ini); consecutive lines joined, so that a
    number wrapped onto the comment's next line is seen."""
    out = []
    for no, line in enumerate(text.split('\n'), 1):
        m = re.search(r'(?:^|(?<=\s))#.*', line) or re.match(r'\s*;.*', line)
        if not m:
            continue
        if out and out[-1][0] + out[-1][1].count('\n') == no - 1:
            out[-1] = (out[-1][0], out[-1][1] + '\n' + m.group(0))
        else:
            out.append((no, m.group(0)))
    return out


def comments_of(path):
    """The comments of a code file, [(line, text)]; None for a file that is not code."""
    name = os.path.basename(path)
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
    except OSError:
        return None
    if name.endswith(('.c', '.h')):
        return c_comments(text)
    if name.endswith('.py') or re.match(r'#![^\n]*python', text):
        return python_comments(text)
    if name.endswith(HASH_SUFFIXES) or name in HASH_NAMES or text.startswith('#!'):
        return hash_comments(text)
    return None


def issue_refs(root, folders, allowed):
    """(breaches, notes): one line per comment that names an issue, outside the allowed files."""
    bad, notes, seen = [], [], set()
    for folder in folders:
        for d, dirs, names in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(x for x in dirs if x != '__pycache__')
            for n in sorted(names):
                p = os.path.join(d, n)
                rel = os.path.relpath(p, root)
                comments = comments_of(p)
                if comments is None:
                    continue
                hits = [(line + c.count('\n', 0, m.start()), m.group(1))
                        for line, c in comments for m in ISSUE_REF.finditer(c)]
                if rel in allowed:
                    seen.add(rel)
                    if hits:
                        notes.append('note: %s: %d comment(s) naming an issue, allowed for now' % (rel, len(hits)))
                    else:
                        notes.append('note: %s names no issue any more: drop it from --allow-issue-refs' % rel)
                    continue
                bad += ['%s:%d: a comment names issue %s: say the reason in words (git log keeps the history)'
                        % (rel, line, ref) for line, ref in hits]
    notes += ['note: %s (--allow-issue-refs) is not a code file under %s' % (f, ', '.join(folders))
              for f in sorted(set(allowed) - seen)]
    return bad, notes


def cycles(graph):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def one_cycle(graph, comp):
    """A shortest cycle through comp's first node, for the message."""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--source-root', required=True)
    ap.add_argument('--component', action='append', default=[],
                    help='folder (from the source root) whose includes must not circle')
    ap.add_argument('--product', action='append', default=[],
                    help='folder (from the source root) whose .c files must stay short')
    ap.add_argument('--archive', action='append', default=[],
                    help='static library whose objects must not call in a circle')
    ap.add_argument('--allow-long', action='append', default=[],
                    help='a .c file (from the source root) still over the limit, being split elsewhere: '
                         'named, not failed')
    ap.add_argument('--allow-cleanup', action='append', default=[],
                    help='a .c file (from the source root) that still defines a cleanup helper, being '
                         'changed elsewhere: named, not failed')
    ap.add_argument('--no-issue-refs', action='append', default=[],
                    help='folder (from the source root) whose code files\' comments must not name an issue')
    ap.add_argument('--allow-issue-refs', action='append', default=[],
                    help='a file (from the source root) whose comments still name issues, being rewritten '
                         'elsewhere: named, not failed')
    ap.add_argument('--only-view', action='append', default=[],
                    help='FROM:TO:HEADER[,HEADER...]: the files under FROM include nothing under TO but '
                         'those headers (paths from the source root)')
    ap.add_argument('--no-include', action='append', default=[],
                    help='A:B: no file under A includes one under B (one way: give B:A too for both)')
    ap.add_argument('--no-include-up', action='append', default=[],
                    help='ROOT:PATTERN: no file in a folder under ROOT includes a header directly in ROOT '
                         'whose name matches PATTERN (a regular expression)')
    ap.add_argument('--allow-include', action='append', default=[],
                    help='FILE:HEADER (from the source root): one include that crosses a seam, being removed '
                         'elsewhere: named, not failed')
    ap.add_argument('--no-loop-calls', action='append', default=[],
                    help='folder (from the source root) whose code names no sd_event_* function, source or '
                         'handler type')
    ap.add_argument('--only-callers', action='append', default=[],
                    help='NAME:DIR:ALLOWED[,ALLOWED...]: under DIR only the ALLOWED files or folders (from the '
                         'source root) call NAME')
    ap.add_argument('--only-names', action='append', default=[],
                    help='PREFIX:DIR:ALLOWED[,ALLOWED...]: under DIR only the ALLOWED files or folders name an '
                         'identifier starting with PREFIX')
    ap.add_argument('--header-names', action='append', default=[],
                    help='PREFIX:DIR:ALLOWED[,ALLOWED...]: under DIR only the ALLOWED headers name an identifier '
                         'starting with PREFIX (its prototypes take other types)')
    ap.add_argument('--folder-cycles', action='append', default=[],
                    help='folder (from the source root) whose folders must not include each other in a circle '
                         '(its top files being one more folder)')
    ap.add_argument('--leaf', action='append', default=[],
                    help='FOLDER:ROOT: no file under FOLDER includes a file under ROOT outside FOLDER')
    a = ap.parse_args()
    bad = seam_breaches(a.source_root, a.component, a.only_view, a.no_include, a.no_include_up,
                        {tuple(os.path.normpath(x) for x in s.split(':', 1)) for s in a.allow_include})

    for top in a.folder_cycles:
        bad += folder_cycle_breaches(a.source_root, top, [top] + a.component)
    for spec in a.leaf:
        bad += leaf_breaches(a.source_root, spec, [spec.split(':', 1)[1]] + a.component)
    for comp in a.component:
        g = include_graph(os.path.join(a.source_root, comp))
        for c in cycles(g):
            bad.append('include cycle in %s/: %s' % (comp, ' -> '.join(one_cycle(g, c))))
    for lib in a.archive:
        g = archive_graph(lib)
        for c in cycles(g):
            bad.append('call cycle in %s: %s' % (os.path.basename(lib), ' -> '.join(one_cycle(g, c))))
    for prod in a.product:
        for d, _, names in os.walk(os.path.join(a.source_root, prod)):
            for n in sorted(names):
                if n.endswith('.c'):
                    p = os.path.join(d, n)
                    with open(p, encoding='utf-8', errors='replace') as f:
                        text = f.read()
                    lines = text.count('\n')
                    rel = os.path.relpath(p, a.source_root)
                    local = len(CLEANUP.findall(text))
                    if local and rel in a.allow_cleanup:
                        print('note: %s: %d cleanup helper(s) defined locally, allowed for now' % (rel, local))
                    elif local:
                        bad.append('%s: %d cleanup helper(s) defined here, not in the header of the type'
                                   % (rel, local))
                    if lines > MAX_LINES and rel in a.allow_long:
                        print('note: %s: %d lines, over %d, allowed for now' % (rel, lines, MAX_LINES))
                    elif lines > MAX_LINES:
                        bad.append('%s: %d lines (at most %d)' % (os.path.relpath(p, a.source_root), lines,
                                                                  MAX_LINES))
    loop = loop_calls(a.source_root, a.no_loop_calls)
    bad += loop
    if a.no_loop_calls and not loop:
        print('house: no sd_event_* in %s: the loop is the manager\'s' % ', '.join(a.no_loop_calls))
    callers = only_callers(a.source_root, a.only_callers)
    bad += callers
    named = only_callers(a.source_root, a.only_names, prefix=True)
    bad += named
    in_headers = only_callers(a.source_root, a.header_names, prefix=True, exts=('.h',))
    bad += in_headers
    if a.header_names and not in_headers:
        print('house: in headers: %s' % '; '.join('%s* in %s' % (s.split(':', 2)[0], s.split(':', 2)[2] or
                                                                 'no header under ' + s.split(':', 2)[1])
                                                  for s in a.header_names))
    if a.only_names and not named:
        print('house: one home each: %s' % '; '.join('%s* in %s' % (s.split(':', 2)[0], s.split(':', 2)[2])
                                                     for s in a.only_names))
    if a.only_callers and not callers:
        print('house: one caller each: %s' % '; '.join('%s() in %s' % (s.split(':', 2)[0], s.split(':', 2)[2])
                                                       for s in a.only_callers))
    refs, notes = issue_refs(a.source_root, a.no_issue_refs, a.allow_issue_refs)
    bad += refs
    for line in notes:
        print(line)
    for b in bad:
        print(b)
    if not bad and (a.component or a.archive or a.product):
        print('house: %s without include cycles, %s without call cycles, no .c over %d lines and no local '
              'cleanup helper in %s; %d seam(s) kept' %
              (', '.join(a.component) or '-', ', '.join(os.path.basename(x) for x in a.archive) or '-',
               MAX_LINES, ', '.join(a.product) or '-',
               len(a.only_view) + len(a.no_include) + len(a.no_include_up) + len(a.leaf)))
    if not bad and a.folder_cycles:
        print('house: no include cycle among the folders of %s%s' % (', '.join(a.folder_cycles), '; %s a leaf' %
              ', '.join(x.split(':', 1)[0] for x in a.leaf) if a.leaf else ''))
    if not bad and a.no_issue_refs:
        print('house: no comment names an issue in %s%s' % (', '.join(a.no_issue_refs), ' (but the %d file(s) '
              'allowed for now)' % len(a.allow_issue_refs) if a.allow_issue_refs else ''))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
