/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fake-node-scratch.h"

int fake_node_scratch_open(FakeNodeScratch *s, const char *label) {
        int n;

        *s = (FakeNodeScratch) {};
        n = snprintf(s->dir, sizeof(s->dir), "/tmp/sg-%s-XXXXXX", label);
        if (n < 0 || (size_t) n >= sizeof(s->dir))
                return -ENAMETOOLONG;
        if (!mkdtemp(s->dir))
                return -errno;
        snprintf(s->root, sizeof(s->root), "%s/root", s->dir);
        return fake_node_new(s->root, &s->node);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

void fake_node_scratch_close(FakeNodeScratch *s) {
        s->node = fake_node_free(s->node);
        if (s->dir[0] && !getenv("FAKEROOT_KEEP"))
                nftw(s->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
        s->dir[0] = '\0';
}
