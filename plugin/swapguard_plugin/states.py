# SPDX-License-Identifier: Apache-2.0
"""The daemon's states and what each means, generated from the code
(daemon/vocabulary/swap-vocabulary.c) by tests/ship/docs-tables.py: meson compile -C build update-docs."""

STATES = {
    'idle': 'no driver container running (or one only created, not started): nothing to do',
    'container-seen': 'driver container running, in-tree stack still loaded: just before the unload, or until the ready file when that is the moment',
    'blocked': 'wanted to unload, but a namespace is in use; nothing was touched',
    'unloaded-waiting-driver': "in-tree stack gone, waiting for the container's ready file",
    'loading': "loading NVIDIA's build from the container's module tree",
    'swapped': "NVIDIA's (or another out-of-tree) build is loaded",
    'restoring': 'putting the in-tree stack back',
    'restored': 'in-tree stack back: the swap was abandoned, or the pod ended and its build was taken back as RESTORE_DRIVER_ON_POD_TERMINATION=true asks',
    'failed': 'the daemon gave up; the journal says why',
    'repairing': 'putting the in-tree stack back while a driver container is still expected',
    'no-build': 'the driver container has no usable NVMe build: not a swap, in-tree stack kept',
    'would-unload': 'Mode=observe: the unload would have gone ahead; nothing was unloaded',
    'would-swap': 'Mode=observe: the load from the container would have gone ahead too; in-tree stack still loaded',
}
