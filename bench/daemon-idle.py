#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""daemon-idle.py DAEMON ROOT [--starts N] [--idle SECONDS] [--watchdog-usec USEC]

Start-up time and idle cost of the nvme-swapguard daemon against a fake
root (ROOT, made by the caller: modules loaded, one namespace, an empty
container store), run as systemd would run it: NOTIFY_SOCKET points to a
unix datagram socket this script listens on, WATCHDOG_USEC/WATCHDOG_PID as
the unit's WatchdogSec=2min sets them.

1. N times: start the daemon, time from just before fork() to the READY=1
   datagram, then SIGTERM and time to its exit.
2. Once: start it, wait for READY=1, then over SECONDS with no container:
   CPU time (utime+stime from /proc/<pid>/stat), context switches
   (voluntary + involuntary from /proc/<pid>/status: each is a wake-up or a
   preemption), RSS and the notifications it sent (WATCHDOG=1 pings).

Prints "key<TAB>value" lines. Nothing is asserted."""

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def proc_status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return out


def proc_cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is state (field 3); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_cpu_ns(pid):
    """On-CPU time in ns from schedstat (finer than the 10 ms ticks of stat),
    or None when the kernel has no schedstats."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def ctx_switches(pid):
    s = proc_status(pid)
    return int(s["voluntary_ctxt_switches"]), int(s["nonvoluntary_ctxt_switches"])


class Daemon:
    def __init__(self, args, sock_path, log):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(sock_path)
        env = dict(os.environ, NOTIFY_SOCKET=sock_path, WATCHDOG_USEC=str(args.watchdog_usec))
        cmd = [args.daemon, "--root", args.root, "--log-target", "stderr"]
        # WATCHDOG_PID must be the daemon's own pid: exec from a shell that
        # exports its $$ (sd_watchdog_enabled() compares it with getpid()).
        shell = 'export WATCHDOG_PID=$$; exec "$@"'
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(["/bin/sh", "-c", shell, "sh"] + cmd, env=env, stdout=log, stderr=log)
        self.messages = []

    def recv(self, timeout):
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(4096)
        except socket.timeout:
            return None
        t = time.monotonic()
        self.messages.append((t, data.decode(errors="replace")))
        return t, data.decode(errors="replace")

    def wait_ready(self, timeout=30):
        """Seconds from fork to READY=1; self.ready_cpu_ns: the daemon's CPU
        time by then (not stretched by other load on the machine, unlike
        the wall time)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = self.recv(max(0.01, deadline - time.monotonic()))
            if m and "READY=1" in m[1].split("\n"):
                self.ready_cpu_ns = proc_cpu_ns(self.proc.pid)
                return m[0] - self.t0
            if self.proc.poll() is not None:
                break
        raise RuntimeError("no READY=1 from the daemon")

    def stop(self):
        t = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=30)
        self.sock.close()
        return time.monotonic() - t, rc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("daemon")
    p.add_argument("root")
    p.add_argument("--starts", type=int, default=7)
    p.add_argument("--idle", type=float, default=60)
    p.add_argument("--watchdog-usec", type=int, default=120_000_000)
    p.add_argument("--log", default=os.devnull)
    p.add_argument("--prefix", default="", help="prefix of the idle keys (for a second window)")
    args = p.parse_args()
    px = args.prefix

    tmp = tempfile.mkdtemp(prefix="sg-notify-")
    with open(args.log, "a") as log:
        ready, ready_cpu, stop = [], [], []
        for i in range(args.starts):
            d = Daemon(args, f"{tmp}/notify-{i}", log)
            ready.append(d.wait_ready() * 1e3)
            if d.ready_cpu_ns is not None:
                ready_cpu.append(d.ready_cpu_ns / 1e6)
            s, rc = d.stop()
            if rc != 0:
                print(f"daemon exited {rc} on SIGTERM", file=sys.stderr)
                return 1
            stop.append(s * 1e3)
        if ready:
            print(f"startup_ready_ms_median\t{statistics.median(ready):.2f}")
            print(f"startup_ready_ms_min\t{min(ready):.2f}")
            print(f"startup_ready_ms_max\t{max(ready):.2f}")
            if ready_cpu:
                print(f"startup_cpu_ms_median\t{statistics.median(ready_cpu):.2f}")
            print(f"sigterm_exit_ms_median\t{statistics.median(stop):.2f}")
            print(f"starts\t{args.starts}")

        d = Daemon(args, f"{tmp}/notify-idle", log)
        d.wait_ready()
        time.sleep(1)  # let start-up work (first scan, state file) settle
        pid = d.proc.pid
        n_before = len(d.messages)
        cpu0, ns0, (v0, i0) = proc_cpu_seconds(pid), proc_cpu_ns(pid), ctx_switches(pid)
        t_end = time.monotonic() + args.idle
        while time.monotonic() < t_end:
            d.recv(max(0.01, t_end - time.monotonic()))
        cpu1, ns1, (v1, i1) = proc_cpu_seconds(pid), proc_cpu_ns(pid), ctx_switches(pid)
        st = proc_status(pid)
        msgs = [m for _, m in d.messages[n_before:]]
        print(f"{px}idle_seconds\t{args.idle:.0f}")
        print(f"{px}idle_cpu_ms_ticks\t{(cpu1 - cpu0) * 1e3:.0f}")
        if ns0 is not None and ns1 is not None:
            print(f"{px}idle_cpu_ms_schedstat\t{(ns1 - ns0) / 1e6:.3f}")
        print(f"{px}idle_voluntary_ctxt_switches\t{v1 - v0}")
        print(f"{px}idle_involuntary_ctxt_switches\t{i1 - i0}")
        print(f"{px}idle_notify_messages\t{len(msgs)}")
        print(f"{px}idle_watchdog_pings\t{sum('WATCHDOG=1' in m.split(chr(10)) for m in msgs)}")
        print(f"{px}rss_kib\t{st['VmRSS'].split()[0]}")
        print(f"{px}rss_anon_kib\t{st.get('RssAnon', '0 kB').split()[0]}")
        print(f"{px}vm_hwm_kib\t{st['VmHWM'].split()[0]}")
        print(f"{px}watchdog_usec\t{args.watchdog_usec}")
        d.stop()
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
