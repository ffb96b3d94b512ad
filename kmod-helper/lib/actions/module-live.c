/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "actions/module-live.h"
#include "host/host-root.h"
#include "util/macro.h"

int module_is_present(const char *name) {
        _cleanup_free_ char *dir = NULL, *initstate = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        char state[16] = "";
        struct stat st;
        int r;

        if (!name || !name[0] || strchr(name, '/'))
                return -EINVAL;
        r = host_pathf(&dir, "/sys/module/%s", name);
        if (r < 0)
                return r;
        if (stat(dir, &st) < 0)
                return errno == ENOENT ? 0 : -errno;

        r = host_pathf(&initstate, "/sys/module/%s/initstate", name);
        if (r < 0)
                return r;
        f = fopen(initstate, "re");
        if (!f)
                return errno == ENOENT ? 1 : -errno; /* built in */
        if (!fgets(state, sizeof(state), f))
                return 1;
        return strneq(state, "going", 5) ? 0 : 1;
}
