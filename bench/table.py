#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""table.py WORK_DIR: the one table of run-all.sh, in Markdown, from what
the benchmarks left in WORK_DIR: scale.tsv (check-scale.sh), vm.tsv
(vm-reaction.sh), fabrics.tsv (vm-fabrics-reconnect.sh), idle.tsv (daemon-idle.sh), size.tsv (size.sh). A missing
or empty file gives a row saying so."""

import os
import sys


def read_lines(work, name):
    try:
        with open(os.path.join(work, name)) as f:
            return [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]
    except OSError:
        return []


def kv(lines):
    return {l[0]: l[1] for l in lines if len(l) >= 2}


def ms(v):
    v = float(v)
    return f"{v:.0f} ms" if v >= 100 else f"{v:.1f} ms"


def ratio_str(r):
    return f"{r:.2f}" if r >= 0.1 else f"{r:.3f}"


def scale_rows(work):
    lines = read_lines(work, "scale.tsv")
    if not lines:
        return [("In-use check at scale", "not run", "", "", "")]
    by = {}
    for ns, mounts, label, runs, med, mn, mx, cpu, rss, st in lines:
        by.setdefault((int(ns), int(mounts)), {})[label] = (int(runs), float(med), float(mn), float(mx),
                                                             float(cpu), int(rss))

    def cell(v):
        runs, med, mn, mx, cpu, rss = v
        return f"{ms(med)} ({ms(mn)}–{ms(mx)}); CPU {ms(cpu)}"

    rows = []
    for (ns, mounts), d in sorted(by.items()):
        n = ns + mounts
        ul = d.get("util-linux")
        for label, what in (("guard-json", "`check --json`"), ("guard-text", "`check` (text)")):
            if label not in d:
                continue
            v = d[label]
            ratio = f"{ratio_str(v[1] / ul[1])} wall, {ratio_str(v[4] / ul[4])} CPU" if ul else "–"
            rows.append((f"In-use check, {ns:,} ns / {mounts:,} mounts, {what}",
                         f"wall median (min–max) of {v[0]}, CPU median; {v[4] * 1e3 / n:.1f} µs CPU per "
                         f"mount+ns; peak RSS {v[5] / 1024:.1f} MiB",
                         cell(v), cell(ul) if ul else "–", ratio))
        for label in ("lsblk", "findmnt"):
            if label in d:
                v = d[label]
                rows.append((f"  … `{label}` alone, {ns:,} / {mounts:,}", f"{v[4] * 1e3 / n:.1f} µs CPU per mount+ns",
                             "", cell(v), ""))
    return rows


def vm_rows(work):
    lines = read_lines(work, "vm.tsv")
    if not lines:
        return [("Reaction time on the real kernel", "not run", "", "", "")]
    if lines[0][0].startswith("SKIP"):
        return [("Reaction time on the real kernel", lines[0][0], "", "", "")]
    stats = {l[0]: l for l in lines if l[0] != "ratio" and len(l) == 5}
    ratios = {(l[1], l[2]): l[3] for l in lines if l[0] == "ratio"}
    names = {
        "cli-unload": "Unload, CLI `unload`", "daemon-unload": "Unload, daemon: container start → stack gone",
        "cli-load": "Load, CLI `load --from` container root", "daemon-load": "Load, daemon: ready file → nvme live",
    }
    floors = {"floor-rmmod": "`rmmod nvme nvme_core`", "floor-modprobe-r": "`modprobe -r nvme nvme_core`",
              "floor-insmod": "`insmod` nvme-core.ko, nvme.ko"}
    rows = []
    for label, title in (("cli-version", "CLI `--version` (exec + dynamic linking)"),
                         ("cli-check", "CLI `check` (the usage check alone)")):
        if label in stats:
            _, n, med, mn, mx = stats[label]
            rows.append((f"{title} (TCG)", f"median (min–max) of {n}, same VM", f"{ms(med)} ({ms(mn)}–{ms(mx)})",
                         "", ""))
    for label, title in names.items():
        if label not in stats:
            continue
        _, n, med, mn, mx = stats[label]
        for (l, floor), ratio in ratios.items():
            if l != label or floor not in stats:
                continue
            f = stats[floor]
            rows.append((f"{title} (TCG)", f"median (min–max) of {n}; floor {floors[floor]} (n={f[1]})",
                         f"{ms(med)} ({ms(mn)}–{ms(mx)})", f"{ms(f[2])} ({ms(f[3])}–{ms(f[4])})", ratio))
    return rows


def fabrics_rows(work):
    title = "NVMe/TCP reconnect by the connect unit"
    lines = read_lines(work, "fabrics.tsv")
    if not lines:
        return [(title, "not run", "", "", "")]
    if lines[0][0].startswith("SKIP"):
        return [(title, lines[0][0], "", "", "")]
    stats = {l[0]: l for l in lines if l[0] != "ratio" and len(l) == 5}
    rows = []
    for l in lines:
        if l[0] != "ratio" or l[1] not in stats or l[2] not in stats:
            continue
        _, n, med, mn, mx = stats[l[1]]
        f = stats[l[2]]
        who, count = l[1].split("-")[:2]
        what = "request → result.json, all live" if who == "ours" else "`fabrics connect` from a root shell, no unit"
        rows.append((f"{title}, {count} controller(s): {what} (TCG)",
                     f"median (min–max) of {n}; floor `nvme connect` of each (n={f[1]})",
                     f"{ms(med)} ({ms(mn)}–{ms(mx)})", f"{ms(f[2])} ({ms(f[3])}–{ms(f[4])})", l[3]))
    return rows


def idle_rows(work):
    d = kv(read_lines(work, "idle.tsv"))
    if not d:
        return [("Daemon idle cost", "not run", "", "", "")]
    secs = d.get("idle_seconds", "?")
    cpu = d.get("idle_cpu_ms_schedstat", d.get("idle_cpu_ms_ticks", "?"))
    wake = int(d.get("idle_voluntary_ctxt_switches", 0)) + int(d.get("idle_involuntary_ctxt_switches", 0))
    rows = [
        ("Daemon start-up to READY=1 (fake root)",
         f"wall median (min–max) of {d.get('starts', '?')} starts, fork to READY=1; CPU time by READY=1; "
         f"SIGTERM to exit {d.get('sigterm_exit_ms_median', '?')} ms",
         f"{d['startup_ready_ms_median']} ms ({d['startup_ready_ms_min']}–{d['startup_ready_ms_max']}); "
         f"CPU {d.get('startup_cpu_ms_median', '?')} ms", "", ""),
        (f"Daemon idle, {secs} s, no container, WatchdogSec=2min",
         f"CPU time; wake-ups = context switches ({d.get('idle_voluntary_ctxt_switches')} vol + "
         f"{d.get('idle_involuntary_ctxt_switches')} invol); WATCHDOG=1 pings",
         f"{cpu} ms CPU, {wake} wake-ups, {d.get('idle_watchdog_pings', '?')} pings", "", ""),
    ]
    if "wd10s_idle_seconds" in d:
        wake10 = int(d["wd10s_idle_voluntary_ctxt_switches"]) + int(d["wd10s_idle_involuntary_ctxt_switches"])
        cpu10 = d.get("wd10s_idle_cpu_ms_schedstat", d.get("wd10s_idle_cpu_ms_ticks", "?"))
        rows.append((f"  control: same {d['wd10s_idle_seconds']} s with a 10 s watchdog",
                     "the meter sees the pings: wake-ups should equal pings (± preemptions)",
                     f"{cpu10} ms CPU, {wake10} wake-ups, {d['wd10s_idle_watchdog_pings']} pings", "", ""))
    rows.append(("Daemon RSS", "VmRSS (of which anonymous) after the idle minute",
                 f"{int(d['rss_kib']) / 1024:.1f} MiB ({int(d['rss_anon_kib']) / 1024:.1f} MiB anon)", "", ""))
    return rows


def size_rows(work):
    d = kv(read_lines(work, "size.tsv"))
    if not d:
        return [("Size", "not run", "", "", "")]
    rows = []
    for exe in ("nvme-swapguard", "nvme-swapguard-kmod"):
        if f"{exe}_stripped" in d:
            rows.append((f"`{exe}` binary", f"stripped (gzip -9); built {d.get('buildtype', '?')}: "
                         f"{int(d[exe + '_built']) / 1024:.0f} KiB with debug info",
                         f"{int(d[exe + '_stripped']) / 1024:.0f} KiB ({int(d[exe + '_stripped_gz']) / 1024:.0f} KiB)",
                         "", ""))
    mc = d.get("machineconfig")
    if mc and mc != "failed":
        rows.append(("Rendered MachineConfig", "bytes; share of etcd's 1.5 MiB request limit",
                     f"{int(mc) / 1024:.0f} KiB", "", f"{d.get('machineconfig_etcd_share_percent', '?')} %"))
    return rows


def main():
    work = sys.argv[1]
    rows = scale_rows(work) + vm_rows(work) + fabrics_rows(work) + idle_rows(work) + size_rows(work)
    print("| Benchmark | Measure | nvme-swapguard | Alternative / floor | Ratio |")
    print("|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
