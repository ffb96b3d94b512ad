/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "nvme/nvme-controllers.h"
#include "nvme/nvme-names.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

/* The directory that holds the namespace: a controller's or a subsystem's. */
static int namespace_parent(const char *namespace_name, char **ret) {
        _cleanup_free_ char *link = NULL;
        char resolved[PATH_MAX], *slash;
        int r;

        r = host_pathf(&link, "/sys/class/block/%s", namespace_name);
        if (r < 0)
                return r;
        if (!realpath(link, resolved))
                return -errno;
        slash = strrchr(resolved, '/');
        if (!slash || slash == resolved)
                return -EINVAL;
        *slash = '\0';
        *ret = strdup(resolved);
        return *ret ? 0 : -ENOMEM;
}

int nvme_namespace_controllers(const char *namespace_name, char ***ret) {
        _cleanup_strv_free_ char **entries = NULL, **ctrls = NULL;
        _cleanup_free_ char *parent = NULL;
        const char *base;
        int r;

        r = namespace_parent(namespace_name, &parent);
        if (r < 0)
                return r;
        base = path_basename(parent);
        ctrls = strv_new_empty();
        if (!ctrls)
                return -ENOMEM;
        if (nvme_name_is_controller(base)) {
                if (strv_extend(&ctrls, base) < 0)
                        return -ENOMEM;
        } else if (strneq(base, "nvme-subsys", strlen("nvme-subsys"))) {
                r = read_dir_names(parent, &entries);
                if (r < 0)
                        return r;
                STRV_FOREACH(e, entries)
                        if (nvme_name_is_controller(*e) && strv_extend(&ctrls, *e) < 0)
                                return -ENOMEM;
        }
        *ret = TAKE_PTR(ctrls);
        return 0;
}

const char *nvme_transport_module(const char *transport) {
        static const struct {
                const char *transport, *module;
        } table[] = {
                { "pcie", "nvme" }, { "tcp", "nvme_tcp" }, { "rdma", "nvme_rdma" },
                { "fc", "nvme_fc" }, { "loop", "nvme_loop" },
        };

        for (size_t i = 0; transport && i < ELEMENTSOF(table); i++)
                if (streq(table[i].transport, transport))
                        return table[i].module;
        return NULL;
}

int nvme_controller_transport_module(const char *ctrl, const char **ret) {
        _cleanup_free_ char *path = NULL, *transport = NULL;
        const char *module;
        int r;

        r = host_pathf(&path, "/sys/class/nvme/%s/transport", ctrl);
        if (r < 0)
                return r;
        r = read_one_line_file(path, &transport);
        if (r < 0)
                return r;
        module = nvme_transport_module(transport);
        if (!module)
                return -EINVAL;
        *ret = module;
        return 0;
}
