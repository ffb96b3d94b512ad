/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The reload gate: a root-owned runtime modprobe.d file that turns every
 * load of the host kernel's NVMe host modules (drivers/nvme/host and
 * drivers/nvme/common of /lib/modules/<release>) into "refuse while the flag
 * file exists, otherwise load as usual":
 *
 *   install nvme test ! -e /run/nvme-swapguard/reload-blocked && /sbin/modprobe --ignore-install nvme $CMDLINE_OPTS
 *
 * Written by `nvme-swapguard-kmod reload-block install-gate`, run as root by
 * the daemon's unit before the daemon starts (ExecStartPre=+). The daemon,
 * which runs as an unprivileged dynamic user, only creates or removes the
 * flag in its own runtime directory: it can make NVMe loads fail or pass,
 * never choose what modprobe runs as root. Why a flag and not a file the
 * daemon writes: modprobe runs an `install` command as full root on every
 * request for that module, the kernel's request_module() included, so
 * whoever may write modprobe configuration is root.
 *
 * What kmod does with it (libkmod-module.c, kmod_module_probe_insert_module):
 *  - a load by alias (udev's coldplug of pci:v...; the kernel's
 *    request_module()) resolves the alias to the module first, then runs its
 *    install command: aliases are covered without a blacklist;
 *  - the install commands of a module's dependencies run too (each
 *    dependency of the probe list that has one): `modprobe nvme` with the
 *    flag fails at nvme_core's command, before anything is inserted;
 *  - --ignore-install applies to the named module only, so the inner
 *    modprobe runs the dependencies' commands, which load them;
 *  - a module with a softdep (modprobe.d `softdep` or modules.softdep) has
 *    its install command ignored; none of these modules has one in the
 *    kernels we ship for (6.1, 6.12), and a node's own `softdep nvme ...`
 *    line would open the gate for nvme: said in docs/ARCHITECTURE.md.
 *  - libkmod's kmod_module_insert_module() (our own loads, by path) applies
 *    no install command: the gate never stops the guard's loads.
 */

#include "actions/module-tree.h"

#define RELOAD_GATE_PATH "/run/modprobe.d/nvme-swapguard.conf"
/* In the daemon's RuntimeDirectory= (systemd/nvme-swapguard.service.in). */
#define RELOAD_GATE_FLAG "/run/nvme-swapguard/reload-blocked"

/* Pure: the names of t's modules whose file lies under drivers/nvme/host/
 * or drivers/nvme/common/ (kernel/, updates/, extra/ alike), sorted, each
 * once; names that are not plain module names ([A-Za-z0-9_-]) are left
 * out (they go into a shell command). 0 or -ENOMEM; never NULL. */
int reload_gate_modules(const ModuleTree *t, char ***ret);
/* Pure: the file's text for these modules and this modprobe path (absolute,
 * [A-Za-z0-9/._-] only: -EINVAL otherwise). */
int reload_gate_render(char *const *modules, const char *modprobe, char **ret);
/* The modprobe the node has: the first executable of /sbin/modprobe,
 * /usr/sbin/modprobe, /bin/modprobe, /usr/bin/modprobe (host_path()'d).
 * -ENOENT when none. */
int reload_gate_find_modprobe(const char **ret);
/* Reads the running kernel's host tree and writes RELOAD_GATE_PATH
 * atomically, 0644 (its directory created 0755 when missing). With
 * ret_modules, the modules it lists. 0 or -errno. */
int reload_gate_install(char ***ret_modules);
/* Removes the gate and the flag; 0 when they were not there. */
int reload_gate_remove(void);
