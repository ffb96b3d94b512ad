/* SPDX-License-Identifier: Apache-2.0 */
#include <stdlib.h>
#include <string.h>

#include "container/container-match.h"
#include "util/macro.h"
#include "util/strv.h"

ContainerIdentity *container_identity_free(ContainerIdentity *c) {
        if (!c)
                return NULL;
        free(c->id);
        free(c->pod_namespace);
        free(c->pod_name);
        free(c->container_name);
        free(c->pod_uid);
        strv_free(c->env);
        free(c);
        return NULL;
}

ContainerIdentity *container_identity_copy(const ContainerIdentity *c) {
        ContainerIdentity *n = calloc(1, sizeof(*n));

        if (!n)
                return NULL;
        n->id = strdup(c->id);
        n->pod_namespace = strdup(c->pod_namespace);
        n->pod_name = strdup(c->pod_name);
        n->container_name = strdup(c->container_name);
        n->pod_uid = c->pod_uid ? strdup(c->pod_uid) : NULL;
        n->created_usec = c->created_usec;
        if (!n->id || !n->pod_namespace || !n->pod_name || !n->container_name || (c->pod_uid && !n->pod_uid) ||
            (c->env && strv_copy(c->env, &n->env) < 0))
                return container_identity_free(n);
        return n;
}

bool container_newer(const ContainerIdentity *a, const ContainerIdentity *b) {
        if (!b)
                return true;
        if (!a)
                return false;
        return a->created_usec > b->created_usec;
}

static bool streq_known(const char *a, const char *b) {
        return a && b && streq(a, b);
}

bool container_same_pod(const ContainerIdentity *a, const ContainerIdentity *b) {
        if (!a || !b)
                return false;
        if (a->pod_uid && b->pod_uid)
                return streq(a->pod_uid, b->pod_uid);
        return streq_known(a->pod_namespace, b->pod_namespace) && streq_known(a->pod_name, b->pod_name);
}

bool container_earlier_attempt(const ContainerIdentity *older, const ContainerIdentity *newer) {
        if (!container_same_pod(older, newer) || older->created_usec == 0 || newer->created_usec == 0)
                return false;
        return older->created_usec < newer->created_usec;
}

bool container_pair_conflicts(const ContainerIdentity *a, bool a_running, const ContainerIdentity *b,
                              bool b_running) {
        if (!a || !b || !a_running || !b_running)
                return false;
        return !container_same_pod(a, b);
}

bool container_match(const ContainerIdentity *c, const char *pod_namespace, const char *container_name,
                     const char *pod_name_prefix) {
        if (!c || !c->pod_namespace || !c->container_name || !c->pod_name)
                return false;
        if (!streq(c->pod_namespace, pod_namespace) || !streq(c->container_name, container_name))
                return false;
        return !pod_name_prefix || strneq(c->pod_name, pod_name_prefix, strlen(pod_name_prefix));
}
