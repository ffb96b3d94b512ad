/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* While the in-tree NVMe stack is unloaded and NVIDIA's build is not yet
 * loaded, the host must not load the in-tree stack back by itself (udev
 * coldplug, a PCI rescan, a `modprobe nvme` in some script). The guard is a
 * runtime modprobe.d file, /run/modprobe.d/nvme-swapguard.conf, that
 * blacklists each stack module's aliases and turns `modprobe <m>` into
 * /bin/false. See reload-block.c for why our own loads are not affected. */

#include <stdbool.h>

#define RELOAD_BLOCK_PATH "/run/modprobe.d/nvme-swapguard.conf"

/* The text of the file for these modules (NULL-terminated). Pure. */
int reload_block_render(const char *const *modules, char **ret);
/* Writes the file atomically (host_path()'d). 0 or -errno. */
int reload_block_install(const char *const *modules);
/* Removes it; 0 when it was not there. */
int reload_block_remove(void);
bool reload_block_installed(void);
