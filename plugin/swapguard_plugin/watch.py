# SPDX-License-Identifier: Apache-2.0
"""`oc swapguard status -w`: polls every --interval seconds (oc adm
node-logs has no watch) and prints one line per node whose row changed, the
way `oc get -w` does, keeping the summary line current; Ctrl-C ends it
(exit 130)."""

import datetime
import os
import shutil
import sys
import time

from .documents import observe_summary, summary_of
from .nodes import NodesError
from .oc import stop_oc
from .status import exit_code_of, poll
from .table import counts_line, detail_of, header_of, hooks_of, printable, row_of
from .times import now_utc

WATCH_INTERVAL = 5       # seconds between polls of status -w


def signature_of(r, wide):
    """What a row shows, less what moves with the clock (SINCE's age, WRITTEN): a
    daemon rewriting the same state is not a change; entering a state again is."""
    doc = r["document"] or {}
    return (r["report"], r["state"], r["mode"], doc.get("since_usec"), doc.get("live_build"),
            hooks_of(doc), detail_of(r, wide),
            ((doc.get("container") or {}).get("pod"), (doc.get("daemon") or {}).get("version"),
             doc.get("boot_id")) if wide else None)


def watch_summary(reports):
    line = counts_line(reports, summary_of(reports))
    o = observe_summary(reports)
    if o:
        line += f"; {o['nodes']} observing: " + ", ".join(
            f"{n} {k}" for k, n in sorted(o["outlook"].items(), key=lambda kv: (kv[0] != "would swap", -kv[1], kv[0])))
    return line


class Watch:
    """The table once, then a line per node whose row changed, and the summary
    line: rewritten in place on a terminal, printed again when it changed otherwise."""

    def __init__(self, args):
        self.wide = args.output == "wide"
        self.tty = sys.stdout.isatty()
        self.seen, self.modes, self.widths, self.summary = {}, None, None, None

    def draw(self, reports):
        modes = observe_summary(reports) is not None
        now = now_utc()
        changed = [r for r in reports if self.seen.get(r["node"]) != signature_of(r, self.wide)]
        gone = [n for n in self.seen if n not in {r["node"] for r in reports}]
        rows = [row_of(r, self.wide, now, modes) for r in changed]
        self.clear_summary()
        if modes != self.modes:  # the first table, or MODE comes or goes: a header again
            header = header_of(self.wide, modes)
            self.widths = [max(len(str(x[i])) for x in rows + [header]) for i in range(len(header) - 1)]
            self.print_row(header)
            self.modes = modes
        for row in rows:
            self.print_row(row)
        for n in gone:
            print(f"{printable(n).ljust(self.widths[0])}   (no longer selected)")
            del self.seen[n]
        self.seen.update((r["node"], signature_of(r, self.wide)) for r in changed)
        self.show_summary(watch_summary(reports) if reports else "No nodes selected.")

    def print_row(self, row):
        print("   ".join([str(c).ljust(w) for c, w in zip(row, self.widths)] + [str(row[-1])]).rstrip())

    def clear_summary(self):
        if self.tty and self.summary is not None:
            sys.stdout.write("\r\033[K")

    def show_summary(self, text):
        if self.tty:  # the last line, with the poll's time, rewritten at the next poll
            text = f"{text} (at {datetime.datetime.now().strftime('%H:%M:%S')})"
            sys.stdout.write(text[:shutil.get_terminal_size().columns - 1])
        elif text != self.summary:
            print(text)
        self.summary = text
        sys.stdout.flush()

    def end(self):
        if self.tty and self.summary is not None:
            print()


def cmd_watch(args):
    polls = int(os.environ.get("SWAPGUARD_WATCH_POLLS") or 0)  # tests: stop after that many
    w, n, code = Watch(args), 0, 0
    try:
        while True:
            n += 1
            try:
                reports = poll(args)
                code = exit_code_of(reports)
                w.draw(reports)
            except NodesError as e:
                if w.summary is None:  # the first listing: as status does
                    print(e, file=sys.stderr)
                    return 4
                print(f"{e}; again in {args.interval:g} s", file=sys.stderr)
            if polls and n >= polls:
                break
            time.sleep(args.interval)
    except KeyboardInterrupt:
        stop_oc()
        w.end()
        return 130
    w.end()
    return code

