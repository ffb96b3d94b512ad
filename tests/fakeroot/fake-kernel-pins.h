/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The fake kernel's model of what an open controller char device pins
 * (seen on Linux 6.1, tests/kmod-helper/vm/guard-pin-refs.sh): while a
 * process holds <root>/dev/nvmeN open, delete_module of that controller's
 * transport module (<root>/sys/class/nvme/nvmeN/transport: pcie -> nvme,
 * tcp -> nvme_tcp, ...) and of nvme_core fails with EWOULDBLOCK, whoever
 * calls it. Opens are registered at open() time in
 * <root>/run/fake-kernel-pins/<pid>.<fd>; an entry counts only while
 * /proc/<pid>/fd/<fd> still points at that node, so a close or the death
 * of the holder (SIGKILL included) ends the pin, as in the kernel. */

/* After a successful open of path as fd by this process. */
void fake_pins_opened(const char *root, const char *path, int fd);

/* Whether some live process's open controller pins module. */
int fake_pins_hold(const char *root, const char *module);
