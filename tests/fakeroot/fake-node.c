/* SPDX-License-Identifier: Apache-2.0 */
/* The fake node's skeleton: the directories and files every node has, and
 * its kernel release (see fake-node.h). The parts live beside it:
 * fake-node-modules.c, -nvme.c, -users.c, -claim.c, -ko.c, -depmod.c,
 * -containers.c; fake-node-files.c has the file primitives they share. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-node-private.h"

const char *fake_node_root(const FakeNode *n) {
        return n->root;
}

FakeNode *fake_node_free(FakeNode *n) {
        if (n) {
                free(n->root);
                free(n);
        }
        return NULL;
}

static int ensure_file(const FakeNode *n, const char *rel, const char *content) {
        return fnode_exists_rel(n, rel) ? 0 : fnode_writef(n, content, "%s", rel);
}

int fake_node_new(const char *dir, FakeNode **ret) {
        static const char *const dirs[] = {
                "proc/1", "proc/sys/kernel", "sys/module", "sys/class/block", "sys/block",
                "sys/class/nvme", "sys/class/nvme-subsystem", "sys/devices/virtual/block",
                "sys/devices/virtual/nvme-subsystem", "dev/.busy", "dev/mapper", "run", "etc",
        };
        FakeNode *n;
        char *release = NULL;
        int r;

        if (!dir || dir[0] != '/')
                return -EINVAL;
        n = calloc(1, sizeof(*n));
        if (n)
                n->next_minor = -1;
        if (!n || !(n->root = strdup(dir))) {
                free(n);
                return -ENOMEM;
        }
        for (size_t l = strlen(n->root); l > 1 && n->root[l - 1] == '/'; l--)
                n->root[l - 1] = '\0';

        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
                _auto_free_ char *p = fnode_rpath(n, "%s", dirs[i]);

                r = p ? fnode_mkdir_p(p) : -ENOMEM;
                if (r < 0)
                        goto fail;
        }
        if ((r = ensure_file(n, "proc/modules", "")) < 0 ||
            (r = ensure_file(n, "proc/kallsyms", "0000000000000000 T _stext\n")) < 0 ||
            (r = ensure_file(n, "proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")) < 0 ||
            (r = ensure_file(n, "proc/1/mountinfo",
                             "1 0 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n")) < 0 ||
            (r = ensure_file(n, "proc/1/comm", "systemd\n")) < 0 ||
            (r = ensure_file(n, "proc/sys/kernel/osrelease", FAKE_NODE_DEFAULT_RELEASE "\n")) < 0)
                goto fail;
        r = fake_node_get_osrelease(n, &release);
        if (r >= 0) {
                _auto_free_ char *p = fnode_rpath(n, "lib/modules/%s", release);

                r = p ? fnode_mkdir_p(p) : -ENOMEM;
                free(release);
        }
        if (r < 0)
                goto fail;
        *ret = n;
        return 0;
fail:
        fake_node_free(n);
        return r;
}

int fake_node_set_osrelease(FakeNode *n, const char *release) {
        _auto_free_ char *line = NULL, *p = NULL;
        int r;

        if (asprintf(&line, "%s\n", release) < 0)
                return -ENOMEM;
        r = fnode_writef(n, line, "proc/sys/kernel/osrelease");
        if (r < 0)
                return r;
        p = fnode_rpath(n, "lib/modules/%s", release);
        return p ? fnode_mkdir_p(p) : -ENOMEM;
}

int fake_node_get_osrelease(FakeNode *n, char **ret) {
        return fnode_read_line_rel(n, "proc/sys/kernel/osrelease", ret);
}
