#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The monitoring manifests parse and carry what the cluster needs.

    manifests-check.py MONITORING_DIR

monitoring/ (applied with `oc apply -k`, not carried by the MachineConfig):
the exporter DaemonSet serves only the textfile collector from the
directory the daemon writes (the same path as daemon/publish/metrics.h and
the unit's StateDirectory=), read-only hostPath, no host network or PID,
non-root, no capability, read-only root, its SCC pinned and no wider than
that; its tolerations cover tainted (NicClusterPolicy) nodes; the PodMonitor
selects those pods and puts the node's name in `instance`; the rules are for
user-workload monitoring, carry every alert the design asks for, each with a
summary and a description naming the node and `oc swapguard logs`, and use
only series the daemon or the exporter write. Exit 0, or 1 with one FAIL
line per breach. Needs PyYAML (Debian python3-yaml): exit 77 without.
"""
import os
import re
import sys

try:
    import yaml
except ImportError:
    print("SKIP: PyYAML missing (Debian package python3-yaml)")
    sys.exit(77)

ALERTS = {
    "NvmeSwapguardBlocked", "NvmeSwapguardWaitingForDriver", "NvmeSwapguardDriverless",
    "NvmeSwapguardRestored", "NvmeSwapguardFailed", "NvmeSwapguardGdsHooksMissing",
    "NvmeSwapguardFabricsPending", "NvmeSwapguardFabricsLost", "NvmeSwapguardMetricsStale",
    "NvmeSwapguardMetricsUnparsable", "NvmeSwapguardMetricsMissing", "NvmeSwapguardExporterDown",
    "NvmeSwapguardNodeNotReporting",
}
EXPORTER_SERIES = {"up", "node_textfile_mtime_seconds", "node_textfile_scrape_error",
                   "kube_daemonset_status_desired_number_scheduled", "kube_daemonset_status_number_available"}

failed = 0


def check(cond, what):
    global failed
    print(f"{'ok' if cond else 'FAIL'}: {what}")
    if not cond:
        failed += 1
    return cond


def main():
    mon = os.path.abspath(sys.argv[1])
    top = os.path.dirname(mon)
    docs = {}
    files = sorted(f for f in os.listdir(mon) if f.endswith(".yaml"))
    for f in files:
        try:
            loaded = [d for d in yaml.safe_load_all(open(os.path.join(mon, f))) if d is not None]
        except yaml.YAMLError as e:
            check(False, f"{f} parses: {e}")
            continue
        check(True, f"{f} parses ({len(loaded)} object(s))")
        for d in loaded:
            docs.setdefault(d["kind"], []).append(d)
    kust = docs.get("Kustomization", [{}])[0]
    check(set(kust.get("resources", [])) == set(files) - {"kustomization.yaml"},
          "kustomization.yaml lists every manifest")

    ns = docs["Namespace"][0]["metadata"]["name"]
    check(not ns.startswith("openshift-") and ns != "default", f"namespace {ns} of its own, not openshift-*")
    for kind, objs in docs.items():
        for o in objs:
            if kind not in ("Namespace", "SecurityContextConstraints", "Kustomization"):
                check(o["metadata"].get("namespace") == ns, f"{kind} {o['metadata']['name']} in {ns}")

    # the path the daemon writes
    metrics_h = open(os.path.join(top, "daemon", "publish", "metrics.h")).read()
    metrics_dir = re.search(r'#define METRICS_DIR "([^"]+)"', metrics_h).group(1)
    unit = open(os.path.join(top, "systemd", "nvme-swapguard.service.in")).read()
    check(f"StateDirectory={os.path.basename(metrics_dir)}\n" in unit and metrics_dir.startswith("/var/lib/"),
          f"the unit's StateDirectory= is {metrics_dir} (never removed at a stop)")
    check(not re.search(r"^RestrictAddressFamilies=.*AF_INET", unit, re.M),
          "the daemon opens no IP socket (it writes, the exporter serves)")
    # The daemon writes, a stock exporter serves: nothing here needs the
    # daemon's network (the NVMe-oF connects run in their own unit).
    check(re.search(r"^PrivateNetwork=yes", unit, re.M) and re.search(r"^IPAddressDeny=any", unit, re.M),
          "the daemon's unit keeps PrivateNetwork=yes and IPAddressDeny=any")

    ds = docs["DaemonSet"][0]
    pod = ds["spec"]["template"]
    spec = pod["spec"]
    check(not spec.get("hostNetwork") and not spec.get("hostPID") and not spec.get("hostIPC"),
          "no hostNetwork, hostPID, hostIPC")
    check(spec.get("securityContext", {}).get("runAsNonRoot") is True, "pod runs as non-root")
    check(any(t.get("operator") == "Exists" and "key" not in t and "effect" not in t
              for t in spec.get("tolerations", [])),
          "tolerates every taint (the NicClusterPolicy's nodes are often tainted)")
    check(any(k.startswith("node-role.kubernetes.io/") for k in spec.get("nodeSelector", {})),
          "selects the MachineConfig pool's nodes")
    vols = {v["name"]: v for v in spec["volumes"]}
    check(len(spec["containers"]) == 1, "one container")
    c = spec["containers"][0]
    args = c.get("args", [])
    check("--collector.disable-defaults" in args and "--collector.textfile" in args,
          "node-exporter with the textfile collector only")
    tdir = [a.split("=", 1)[1] for a in args if a.startswith("--collector.textfile.directory=")]
    check(len(tdir) == 1, "one textfile directory")
    sc = c.get("securityContext", {})
    check(sc.get("readOnlyRootFilesystem") is True, "read-only root file system")
    check(sc.get("allowPrivilegeEscalation") is False and not sc.get("privileged"), "no privilege")
    check(sc.get("capabilities", {}).get("drop") == ["ALL"] and not sc.get("capabilities", {}).get("add"),
          "every capability dropped")
    for m in c.get("volumeMounts", []):
        v = vols[m["name"]]
        if "hostPath" in v:
            check(m.get("readOnly") is True, f"hostPath {v['hostPath']['path']} mounted read-only")
            check(v["hostPath"].get("type") == "Directory", "hostPath type Directory")
            check(v["hostPath"]["path"] == metrics_dir, f"hostPath is the daemon's {metrics_dir}")
            check(tdir and m["mountPath"] == tdir[0], "the textfile directory is the mount")
    check(all(set(v) <= {"name", "hostPath"} for v in vols.values()) and len(vols) == 1,
          "no volume but the metrics directory")
    ports = {p["name"] for p in c.get("ports", [])}
    check(all("hostPort" not in p for p in c.get("ports", [])), "no hostPort")

    scc_name = pod["metadata"].get("annotations", {}).get("openshift.io/required-scc")
    sccs = {s["metadata"]["name"]: s for s in docs.get("SecurityContextConstraints", [])}
    check(scc_name in sccs, f"pods pinned to the SCC shipped here (openshift.io/required-scc: {scc_name})")
    scc = sccs.get(scc_name, {})
    check(scc.get("allowHostDirVolumePlugin") is True, "SCC: hostPath")
    check(set(scc.get("volumes", [])) <= {"hostPath", "projected", "configMap", "secret", "emptyDir",
                                          "downwardAPI"}, "SCC: no other volume type than hostPath")
    for k in ("allowHostNetwork", "allowHostPID", "allowHostIPC", "allowHostPorts", "allowPrivilegedContainer",
              "allowPrivilegeEscalation"):
        check(scc.get(k) is False, f"SCC: {k} false")
    check(scc.get("requiredDropCapabilities") == ["ALL"] and not scc.get("allowedCapabilities"),
          "SCC: every capability dropped, none allowed")
    check(scc.get("readOnlyRootFilesystem") is True, "SCC: read-only root")
    check(scc.get("runAsUser", {}).get("type") in ("MustRunAsRange", "MustRunAsNonRoot"), "SCC: non-root")
    check(scc.get("seLinuxContext", {}).get("type") == "MustRunAs", "SCC: the namespace's SELinux level")
    check(not scc.get("users") and not scc.get("groups"), "SCC: granted through RBAC only")
    sa = spec.get("serviceAccountName")
    role_ok = any(r.get("resourceNames") == [scc_name] and "use" in r.get("verbs", [])
                  for role in docs.get("Role", []) for r in role["rules"])
    bind_ok = any(any(s["kind"] == "ServiceAccount" and s["name"] == sa for s in b["subjects"])
                  for b in docs.get("RoleBinding", []))
    check(role_ok and bind_ok, f"the SCC is usable by the pods' service account {sa} only")

    pm = docs["PodMonitor"][0]
    sel = pm["spec"]["selector"]["matchLabels"]
    check(all(pod["metadata"]["labels"].get(k) == v for k, v in sel.items()), "PodMonitor selects the exporter pods")
    eps = pm["spec"]["podMetricsEndpoints"]
    check(all(e.get("port") in ports for e in eps), "PodMonitor scrapes the exporter's port")
    check(all(any(r.get("sourceLabels") == ["__meta_kubernetes_pod_node_name"] and r.get("targetLabel") == "instance"
                  for r in e.get("relabelings", [])) for e in eps), "PodMonitor: instance is the node's name")
    job = pod["metadata"]["labels"].get(pm["spec"].get("jobLabel", ""), "")

    # the series the daemon writes
    metrics_c = open(os.path.join(top, "daemon", "publish", "metrics.c")).read()
    daemon_series = {"nvme_swapguard_" + n for n in re.findall(r'"([a-z_]+)", "(?:gauge|counter)"', metrics_c)}
    daemon_series |= {"nvme_swapguard_" + n for n in re.findall(r'put_(?:state_set|counter|gauge_seconds)\(f, "([a-z_]+)"',
                                                                    metrics_c)}
    rules = docs.get("PrometheusRule", [])
    check(any(r["metadata"].get("labels", {}).get("openshift.io/prometheus-rule-evaluation-scope") == "leaf-prometheus"
              for r in rules), "a PrometheusRule evaluated by the user-workload Prometheus (leaf-prometheus)")
    seen = set()
    for r in rules:
        for g in r["spec"]["groups"]:
            for rule in g["rules"]:
                a = rule.get("alert")
                if not a:
                    continue
                seen.add(a)
                ann = rule.get("annotations", {})
                d = ann.get("description", "")
                check(ann.get("summary") and d, f"{a}: summary and description")
                check("oc swapguard logs" in d and ("{{ $labels.instance }}" in d or "NODE" in d),
                      f"{a}: the description names the node and `oc swapguard logs`")
                check(rule.get("labels", {}).get("severity") in ("warning", "critical"), f"{a}: severity")
                names = set(re.findall(r"\b([a-z_:][a-z0-9_:]*)\s*(?:\{|\s*(?:==|>|<|-|$|\)|\n|unless|and|or))",
                                       rule["expr"]))
                names = {n for n in names if n.startswith(("nvme_swapguard_", "node_", "kube_", "up"))}
                unknown = {n for n in names if n not in daemon_series | EXPORTER_SERIES}
                check(not unknown, f"{a}: uses only series that exist ({', '.join(sorted(unknown)) or 'all known'})")
                for jm in re.findall(r'job="([^"]+)"', rule["expr"]):
                    check(jm == job, f"{a}: job {jm} is the PodMonitor's ({job})")
    check(ALERTS <= seen, f"every alert is there (missing: {', '.join(sorted(ALERTS - seen)) or 'none'})")
    print(f"manifests-check: {'FAILED' if failed else 'passed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
