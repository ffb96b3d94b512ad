/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "util/macro.h"
#include "util/string-util.h"

/* NULL until first use; then the prefix without trailing slash ("" = real host). */
static char *root_prefix;

static int normalize_root(const char *root, char **ret) {
        size_t n;
        char *copy;

        if (!root || root[0] == '\0' || streq(root, "/"))
                root = "";
        else if (root[0] != '/')
                return -EINVAL; /* a relative root would change meaning with the cwd */

        copy = strdup(root);
        if (!copy)
                return -ENOMEM;
        n = strlen(copy);
        while (n > 0 && copy[n - 1] == '/')
                copy[--n] = '\0';
        *ret = copy;
        return 0;
}

int host_root_set(const char *root) {
        char *copy;
        int r;

        r = normalize_root(root, &copy);
        if (r < 0)
                return r;
        free(root_prefix);
        root_prefix = copy;
        return 0;
}

const char *host_root(void) {
        if (!root_prefix && host_root_set(getenv("NVME_SWAPGUARD_ROOT")) < 0)
                return ""; /* an unusable variable must not redirect us somewhere odd */
        return root_prefix ? root_prefix : "";
}

bool host_root_is_real(void) {
        return host_root()[0] == '\0';
}

int host_path(const char *abs_path, char **ret) {
        char *p;

        if (!abs_path || abs_path[0] != '/')
                return -EINVAL;
        if (asprintf(&p, "%s%s", host_root(), abs_path) < 0)
                return -ENOMEM;
        *ret = p;
        return 0;
}

int host_pathf(char **ret, const char *fmt, ...) {
        _cleanup_free_ char *rel = NULL;
        va_list ap;

        va_start(ap, fmt);
        rel = strdup_vprintf(fmt, ap);
        va_end(ap);
        return rel ? host_path(rel, ret) : -ENOMEM;
}
