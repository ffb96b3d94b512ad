# SPDX-License-Identifier: Apache-2.0
"""The command line: arguments, their checks, and which command runs."""

import argparse
import signal
import sys

from .journal import cmd_logs
from .oc import stop_oc
from .status import cmd_status
from .watch import WATCH_INTERVAL, cmd_watch


def usage_error(msg):
    print(f"kubectl-swapguard: {msg}", file=sys.stderr)
    sys.exit(2)


def main(argv, here):
    """here: the command's directory (the journal catalog may be beside it)."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends us quietly
    p = argparse.ArgumentParser(prog="oc swapguard", description="nvme-swapguard across the nodes")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("status", help="one line per node: (mode,) state, since, live build, GDS hooks, "
                                      "blocker, pin or what an observing node would do")
    s.add_argument("nodes", nargs="*", metavar="NODE")
    s.add_argument("--role", help="nodes with the label node-role.kubernetes.io/ROLE (as oc adm node-logs --role)")
    s.add_argument("-l", "--selector", help="label selector, passed to oc get nodes -l")
    s.add_argument("-o", "--output", choices=["wide", "json"], help="more columns, or JSON")
    s.add_argument("-w", "--watch", action="store_true",
                   help="after the table, a line per node whose row changes (as oc get -w), until Ctrl-C")
    s.add_argument("--interval", type=float, metavar="SECONDS",
                   help=f"with -w: seconds between two polls (default {WATCH_INTERVAL}; "
                        "oc adm node-logs has no watch, so -w asks again)")
    l = sub.add_parser("logs", help="the daemon's journal on NODE, with explanations")
    l.add_argument("node", metavar="NODE")
    l.add_argument("--since")
    l.add_argument("--until")
    l.add_argument("--tail", type=int)
    l.add_argument("--boot", type=int)
    args = p.parse_args(argv)
    if args.command == "logs":
        return cmd_logs(args, here)
    check_watch_args(args)
    check_selection(args)
    try:
        return cmd_watch(args) if args.watch else cmd_status(args)
    except KeyboardInterrupt:  # Ctrl-C: no traceback, and no oc left running
        stop_oc()
        return 130


def check_watch_args(args):
    if args.interval is not None and not args.watch:
        usage_error("--interval goes with -w/--watch")
    if args.watch and args.output == "json":
        usage_error("-o json is one snapshot: run it again rather than -w")
    if args.interval is None:
        args.interval = WATCH_INTERVAL
    if not 1 <= args.interval <= 3600:
        usage_error("--interval: between 1 and 3600 seconds (each poll asks every node)")


def check_selection(args):
    if args.nodes and (args.role or args.selector):
        usage_error("node names and a selector (--role, -l) cannot both be given")
    if args.role and args.selector:
        usage_error("--role and -l/--selector cannot both be given")
