/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel's claim: whether an exclusive open of a device would fail, from
 * what fake-node-users.c wrote (see fake-node-claim.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-node-private.h"

static bool text_has_token_line(const char *text, const char *needle) {
        for (const char *s = text; s && *s;) {
                const char *e = strchrnul(s, '\n');

                if (memmem(s, (size_t) (e - s), needle, strlen(needle)))
                        return true;
                s = *e ? e + 1 : e;
        }
        return false;
}

static int device_claimed_self(FakeNode *n, const char *dev) {
        _auto_free_ char *devno = NULL, *mi = NULL, *sw = NULL, *needle = NULL, *src = NULL, *busy = NULL;

        _auto_free_ char *holders = fnode_rpath(n, "sys/class/block/%s/holders", dev);
        char **h = NULL;
        bool has;

        if (!holders || asprintf(&busy, "dev/.busy/%s", dev) < 0)
                return -ENOMEM;
        if (fnode_exists_rel(n, busy))
                return 1;
        if (fnode_list_entries(holders, &h) >= 0) {
                has = h && h[0];
                fake_strv_free(h);
                if (has)
                        return 1;
        }
        if (asprintf(&src, " /dev/%s ", dev) < 0)
                return -ENOMEM;
        {
                _auto_free_ char *swp = fnode_rpath(n, "proc/swaps");
                _auto_free_ char *swneedle = NULL;

                if (!swp || asprintf(&swneedle, "/dev/%s ", dev) < 0)
                        return -ENOMEM;
                if (fnode_read_file(swp, &sw) >= 0 && text_has_token_line(sw, swneedle))
                        return 1;
        }
        {
                _auto_free_ char *mip = fnode_rpath(n, "proc/1/mountinfo");

                if (!mip)
                        return -ENOMEM;
                if (fnode_read_file(mip, &mi) < 0)
                        return 0;
        }
        if (text_has_token_line(mi, src))
                return 1;
        if (fnode_block_devno(n, dev, &devno) >= 0) {
                if (asprintf(&needle, " %s / ", devno) < 0)
                        return -ENOMEM;
                if (text_has_token_line(mi, needle))
                        return 1;
        }
        return 0;
}

int fake_node_device_claimed(FakeNode *n, const char *dev) {
        _auto_free_ char *dir = fnode_rpath(n, "sys/class/block/%s/", dev);
        char **entries = NULL;
        int r;

        if (!dir)
                return -ENOMEM;
        r = device_claimed_self(n, dev);
        if (r != 0)
                return r;
        /* A claimed partition makes the whole disk's exclusive open fail. */
        if (fnode_list_entries(dir, &entries) < 0)
                return 0;
        for (size_t i = 0; r == 0 && entries[i]; i++) {
                _auto_free_ char *part = NULL;

                if (strncmp(entries[i], dev, strlen(dev)) != 0 || entries[i][strlen(dev)] != 'p')
                        continue;
                if (asprintf(&part, "sys/class/block/%s/partition", entries[i]) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (fnode_exists_rel(n, part))
                        r = device_claimed_self(n, entries[i]);
        }
        fake_strv_free(entries);
        return r;
}
