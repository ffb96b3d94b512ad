/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "host/host-kernel.h"
#include "host/host-root.h"
#include "util/fileio.h"
#include "util/macro.h"

static bool release_valid(const char *s) {
        return s[0] && !strpbrk(s, "/ \t");
}

int host_kernel_release(char **ret) {
        _cleanup_free_ char *path = NULL, *line = NULL;
        struct utsname u;
        char *copy;
        int r;

        r = host_path("/proc/sys/kernel/osrelease", &path);
        if (r < 0)
                return r;
        r = read_one_line_file(path, &line);
        if (r >= 0 && release_valid(line)) {
                *ret = TAKE_PTR(line);
                return 0;
        }
        if (!host_root_is_real())
                return r < 0 ? r : -EINVAL;
        if (uname(&u) < 0)
                return -errno;
        if (!release_valid(u.release))
                return -EINVAL;
        copy = strdup(u.release);
        if (!copy)
                return -ENOMEM;
        *ret = copy;
        return 0;
}
