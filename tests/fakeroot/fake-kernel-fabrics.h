/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The fake kernel's /dev/nvme-fabrics (fake-kernel-fabrics.c) and what it
 * shares with fake-kernel.c (hidden: each shim has its own copy).
 *
 * An fd of <root>/dev/nvme-fabrics opened by the program answers as the
 * kernel's misc device (nvmf_dev_write(), nvmf_dev_show() in
 * drivers/nvme/host/fabrics.c): one write(2) of the options connects
 * (fake_node_fabrics_connect(): the fake node's targets) and fails with the
 * kernel's errno, or succeeds; a read(2) then gives
 * "instance=N,cntlid=1\n". A second write on the same fd is EINVAL, as in
 * the kernel. FAKE_KERNEL_SCRIPT rule "connect <subsysnqn> <ERRNO>" fails
 * the connect of that subsystem; FAKE_KERNEL_LOG gets
 * "connect <options> -> <0|ERRNAME>[ scripted][ not-dumpable]" (the last
 * when the writer had made itself non-dumpable). */

#include <stdio.h>

#include "fake-node.h"

#define FK_INTERNAL __attribute__((visibility("hidden")))

typedef struct Rule {
        char call[32];
        char module[256];
        int error;     /* 0: ok */
        int remaining; /* -1: always */
        char mount_dev[64];
        char mount_point[256];
        char mount_fstype[32];
} Rule;

/* fake-kernel.c */
FK_INTERNAL const char *fake_root(void);
FK_INTERNAL void klog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
FK_INTERNAL Rule *take_rule(const char *call, const char *module);
FK_INTERNAL FakeNode *node(void);
FK_INTERNAL const char *errno_name(int e);

/* fake-kernel-fabrics.c: after a successful open of path as fd. */
FK_INTERNAL void fake_fabrics_opened(const char *root, const char *path, int fd);
