# SPDX-License-Identifier: Apache-2.0
"""The command line: arguments, their checks, and which command runs."""

import argparse
import signal
import sys

from .bundle import cmd_bundle
from .journal import cmd_logs
from .oc import stop_oc
from .states import STATES
from .status import cmd_status
from .version import version
from .watch import WATCH_INTERVAL, cmd_watch

# status's exit status (status.py decides it), said once for --help.
STATUS_EXIT_CODES = """Exit status:
  0    every selected node reports a current document, none blocked or failed
  1    some node is blocked or failed (oc swapguard logs NODE explains;
       before 3)
  2    usage error
  3    some node does not report a current document (no-daemon, unreachable,
       stale, invalid)
  4    the nodes could not be listed (oc get nodes failed)
  130  interrupted (Ctrl-C)
"""
LOGS_EXIT_CODES = """Exit status: 0 the journal was read; oc's own exit status when
oc adm node-logs failed (1: node not found or unreachable); 2 usage error."""


def usage_error(msg):
    print(f"kubectl-swapguard: {msg}", file=sys.stderr)
    sys.exit(2)


def main(argv, here):
    """here: the command's directory (the journal catalog may be beside it)."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends us quietly
    p = argparse.ArgumentParser(prog="oc swapguard", description="nvme-swapguard across the nodes",
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=STATUS_EXIT_CODES.replace("Exit status:", "Exit status of status:")
                                + "\n" + LOGS_EXIT_CODES + "\n\nRights needed: plugin/clusterrole.yaml "
                                "(get, list nodes; get nodes/proxy).")
    p.add_argument("--version", action="version", version=f"oc swapguard {version()}")
    sub = p.add_subparsers(dest="command", required=True)
    states = "\n".join(f"  {name:<24} {meaning}" for name, meaning in STATES.items())
    s = sub.add_parser("status", help="one line per node: (mode,) state, since, live build, GDS hooks, "
                                      "blocker, pin or what an observing node would do",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=f"{STATUS_EXIT_CODES}\nThe daemon's states:\n{states}\n"
                              "A node that reports no current document shows no-daemon, unreachable, "
                              "stale or invalid instead.")
    s.add_argument("nodes", nargs="*", metavar="NODE")
    s.add_argument("--role", help="nodes with the label node-role.kubernetes.io/ROLE (as oc adm node-logs --role)")
    s.add_argument("-l", "--selector", help="label selector, passed to oc get nodes -l")
    s.add_argument("-o", "--output", choices=["wide", "json"], help="more columns, or JSON")
    s.add_argument("-w", "--watch", action="store_true",
                   help="after the table, a line per node whose row changes (as oc get -w), until Ctrl-C")
    s.add_argument("--interval", type=float, metavar="SECONDS",
                   help=f"with -w: seconds between two polls (default {WATCH_INTERVAL}; "
                        "oc adm node-logs has no watch, so -w asks again)")
    l = sub.add_parser("logs", help="the daemon's journal on NODE, with explanations",
                       epilog=LOGS_EXIT_CODES)
    l.add_argument("node", metavar="NODE")
    l.add_argument("--since")
    l.add_argument("--until")
    l.add_argument("--tail", type=int)
    l.add_argument("--boot", type=int)
    b = sub.add_parser("bundle", help="a .tar.gz for a bug report: each NODE's Node object (without "
                                      "annotations), status document and the journals of nvme-swapguard and "
                                      "its connect unit; no secrets",
                       epilog="Exit status: 0 everything gathered; 3 something could not be read "
                              "(NAME.error in the bundle says why); 2 usage.")
    b.add_argument("nodes", nargs="+", metavar="NODE")
    b.add_argument("-o", "--output", metavar="FILE", help="default: nvme-swapguard-bundle-<UTC time>.tar.gz")
    args = p.parse_args(argv)
    if args.command == "logs":
        return cmd_logs(args, here)
    if args.command == "bundle":
        return cmd_bundle(args)
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
