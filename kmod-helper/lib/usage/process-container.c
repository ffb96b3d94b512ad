/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/crio.h"
#include "host/host-root.h"
#include "usage/process-container.h"
#include "util/fileio.h"
#include "util/macro.h"

int process_container_parse_config(const char *json, ProcessContainer *c) {
        _cleanup_(crio_config_freep) CrioConfig *cfg = NULL;
        int r;

        r = crio_config_parse(json, strlen(json), &cfg);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return -EBADMSG;
        c->pod_namespace = TAKE_PTR(cfg->pod_namespace);
        c->pod_name = TAKE_PTR(cfg->pod_name);
        c->container_name = TAKE_PTR(cfg->container_name);
        return 0;
}

ProcessContainer *process_container_free(ProcessContainer *c) {
        if (!c)
                return NULL;
        free(c->pod_namespace);
        free(c->pod_name);
        free(c->container_name);
        free(c);
        return NULL;
}

/* The identity from the store; a config we cannot read or parse leaves the
 * id alone (still worth naming: crictl inspect finds it). */
static int read_config(ProcessContainer *c) {
        _cleanup_free_ char *dir = NULL, *config = NULL, *path = NULL, *text = NULL;
        int r;

        if (crio_containers_dir(CRIO_STORE_DEFAULT, &dir) < 0 ||
            crio_userdata_file(dir, c->id, CRIO_CONFIG_FILE, &config) < 0 || host_path(config, &path) < 0)
                return -ENOMEM;
        r = read_regular_file(path, CRIO_CONFIG_MAX, &text, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        r = process_container_parse_config(text, c);
        return r == -ENOMEM ? r : 0;
}

int process_container_read(pid_t pid, ProcessContainer **ret) {
        _cleanup_(process_container_freep) ProcessContainer *c = NULL;
        _cleanup_free_ char *path = NULL, *text = NULL;
        char id[65];
        int r;

        if (host_pathf(&path, "/proc/%d/cgroup", (int) pid) < 0)
                return -ENOMEM;
        r = read_full_file(path, &text, NULL); /* procfs: size 0 in stat, read to EOF */
        if (r == -ENOMEM)
                return r;
        if (r < 0 || !crio_id_from_cgroup(text, id))
                return 0; /* gone, unreadable, or not a container's */
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        memcpy(c->id, id, sizeof(id));
        r = read_config(c);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 1;
}
