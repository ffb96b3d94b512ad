/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* While the in-tree NVMe stack is unloaded and NVIDIA's build is not yet
 * loaded, the host must not load the in-tree stack back by itself (udev
 * coldplug, a PCI rescan, a `modprobe nvme` in some script). The block is a
 * flag file in our own runtime directory, RELOAD_BLOCK_PATH: the reload
 * gate, a root-owned /run/modprobe.d file written before we start by the
 * unit's ExecStartPre=+ (kmod-helper/lib/actions/reload-gate.h), refuses
 * every NVMe host module's load while it exists. See reload-block.c for why
 * we never write modprobe configuration ourselves, and why our own loads
 * are not affected. */

#include <stdbool.h>

#include "actions/reload-gate.h"

#define RELOAD_BLOCK_PATH RELOAD_GATE_FLAG

/* Creates the flag (host_path()'d); 0 or -errno. The modules are those the
 * gate must hold back; the gate lists every NVMe host module of the
 * kernel's tree, so this only checks that it is there (-ENOENT when
 * missing: nothing would be blocked, and the caller says so). */
int reload_block_install(const char *const *modules);
/* Removes the flag; 0 when it was not there. */
int reload_block_remove(void);
bool reload_block_installed(void);
/* Whether the root-owned gate is in place (what the flag acts through). */
bool reload_block_gate_present(void);
