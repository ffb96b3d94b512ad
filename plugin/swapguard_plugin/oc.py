# SPDX-License-Identifier: Apache-2.0
"""The seam to the cluster: every `oc` process the plugin starts goes
through run_oc, and how oc's errors read is said here. Tests put a stand-in
first on PATH (tests/fleet/oc), or name one with SWAPGUARD_OC."""

import os
import shutil
import subprocess
import sys
import threading

OC_TIMEOUT_SEC = 60      # per call, plus OC_TIMEOUT_PER_NODE for each node it asks
OC_TIMEOUT_PER_NODE = 1  # oc asks a call's nodes one after another


# oc processes running now: Ctrl-C kills them rather than leave them to finish.
LIVE = set()
LIVE_LOCK = threading.Lock()
STOPPING = threading.Event()


def oc_program():
    oc = os.environ.get("SWAPGUARD_OC", "oc")
    if not shutil.which(oc):
        sys.exit(f"kubectl-swapguard: `{oc}` is not on PATH; the plugin needs the OpenShift client "
                 "(oc adm node-logs has no kubectl equivalent)")
    return oc


def run_oc(args, timeout=OC_TIMEOUT_SEC):
    """(exit code, stdout, stderr, timed out) of `oc args`; never raises for oc's failures.
    Past the timeout oc is killed, and what it wrote until then is kept (a
    fan-out's first nodes)."""
    if STOPPING.is_set():
        return 130, "", "error: interrupted\n", False
    p = subprocess.Popen([oc_program()] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with LIVE_LOCK:
        LIVE.add(p)
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        p.kill()
        out, err = p.communicate()  # the output so far is not lost (Popen.communicate)
    except BaseException:
        p.kill()
        p.wait()
        raise
    finally:
        with LIVE_LOCK:
            LIVE.discard(p)
    out, err = (b.decode("utf-8", "replace") for b in (out, err))
    if timed_out:
        return 124, out, err + f"error: no answer within {timeout:g} s\n", True
    return p.returncode, out, err, False


def stop_oc():
    """Ctrl-C: no new oc, and the running ones killed (a terminal's Ctrl-C reached them too)."""
    STOPPING.set()
    with LIVE_LOCK:
        for p in LIVE:
            p.kill()



def first_error_line(err):
    """oc adm node-logs prints 'error: <message>' and then the causes, indented."""
    lines = [l.strip() for l in err.splitlines() if l.strip()]
    msg = lines[0] if lines else "oc gave no error text"
    return msg[len("error: "):] if msg.startswith("error: ") else msg


def is_not_found(err):
    # kubelet's /logs/ file server answers 404 with a text body; client-go
    # turns it into "the server could not find the requested resource" with
    # the body ("404 page not found") as its cause.
    return "could not find the requested resource" in err or "404 page not found" in err

