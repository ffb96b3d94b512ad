/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics topology as data: builders, order, the describer and the
 * pure parsers of the kernel's attributes (see fabrics-topology.h). The
 * sysfs reader is fabrics-topology-sysfs.c. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "nvme/fabrics-topology.h"
#include "nvme/nvme-controllers.h"
#include "util/parse-util.h"
#include "util/string-util.h"
#include "util/strv.h"

static void namespace_done(FabricsNamespace *n) {
        free(n->name);
        free(n->nguid);
        free(n->uuid);
        free(n->eui);
}

static void controller_done(FabricsController *c) {
        char *strings[] = { c->name,      c->transport, c->traddr,  c->trsvcid, c->host_traddr,
                            c->host_iface, c->subsysnqn, c->hostnqn, c->hostid,  c->state,
                            c->tls_keyring, c->tls_configured_key };

        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                free(strings[i]);
        for (size_t i = 0; i < c->n_namespaces; i++)
                namespace_done(&c->namespaces[i]);
        free(c->namespaces);
}

FabricsTopology *fabrics_topology_free(FabricsTopology *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_controllers; i++)
                controller_done(&t->controllers[i]);
        free(t->controllers);
        free(t);
        return NULL;
}

FabricsController *fabrics_topology_add_controller(FabricsTopology *t) {
        FabricsController *c;
        FabricsController *grown = reallocarray(t->controllers, t->n_controllers + 1, sizeof(*grown));

        if (!grown)
                return NULL;
        t->controllers = grown;
        c = &t->controllers[t->n_controllers++];
        *c = (FabricsController) {
                .ctrl_loss_tmo = FABRICS_OPT_UNSET, .reconnect_delay = FABRICS_OPT_UNSET,
                .fast_io_fail_tmo = FABRICS_OPT_UNSET, .kato = FABRICS_OPT_UNSET,
                .nr_io_queues = FABRICS_OPT_UNSET, .queue_size = FABRICS_OPT_UNSET,
                .nr_write_queues = FABRICS_OPT_UNSET, .nr_poll_queues = FABRICS_OPT_UNSET,
        };
        return c;
}

void fabrics_topology_drop_last(FabricsTopology *t) {
        if (t->n_controllers > 0)
                controller_done(&t->controllers[--t->n_controllers]);
}

FabricsNamespace *fabrics_controller_add_namespace(FabricsController *c) {
        FabricsNamespace *grown = reallocarray(c->namespaces, c->n_namespaces + 1, sizeof(*grown));

        if (!grown)
                return NULL;
        c->namespaces = grown;
        grown[c->n_namespaces] = (FabricsNamespace) {};
        return &grown[c->n_namespaces++];
}

static bool copy_string(char **to, const char *from) {
        *to = from ? strdup(from) : NULL;
        return !from || *to;
}

static int copy_namespaces(FabricsController *to, const FabricsController *from) {
        for (size_t i = 0; i < from->n_namespaces; i++) {
                const FabricsNamespace *f = &from->namespaces[i];
                FabricsNamespace *n = fabrics_controller_add_namespace(to);

                if (!n)
                        return -ENOMEM;
                n->nsid = f->nsid;
                if (!copy_string(&n->name, f->name) || !copy_string(&n->nguid, f->nguid) ||
                    !copy_string(&n->uuid, f->uuid) || !copy_string(&n->eui, f->eui))
                        return -ENOMEM;
        }
        return 0;
}

int fabrics_topology_add_copy(FabricsTopology *t, const FabricsController *from) {
        FabricsController *c = fabrics_topology_add_controller(t);

        if (!c)
                return -ENOMEM;
        *c = *from;
        c->namespaces = NULL, c->n_namespaces = 0;
        c->name = c->transport = c->traddr = c->trsvcid = c->host_traddr = c->host_iface = NULL;
        c->subsysnqn = c->hostnqn = c->hostid = c->state = c->tls_keyring = c->tls_configured_key = NULL;
        if (!copy_string(&c->tls_keyring, from->tls_keyring) ||
            !copy_string(&c->tls_configured_key, from->tls_configured_key))
                return -ENOMEM;
        if (!copy_string(&c->name, from->name) || !copy_string(&c->transport, from->transport) ||
            !copy_string(&c->traddr, from->traddr) || !copy_string(&c->trsvcid, from->trsvcid) ||
            !copy_string(&c->host_traddr, from->host_traddr) || !copy_string(&c->host_iface, from->host_iface) ||
            !copy_string(&c->subsysnqn, from->subsysnqn) || !copy_string(&c->hostnqn, from->hostnqn) ||
            !copy_string(&c->hostid, from->hostid) || !copy_string(&c->state, from->state))
                return -ENOMEM;
        return copy_namespaces(c, from);
}

int fabrics_topology_merge(FabricsTopology *into, const FabricsTopology *from) {
        size_t n = into->n_controllers;

        for (size_t i = 0; from && i < from->n_controllers; i++) {
                bool have = false;
                int r;

                for (size_t j = 0; j < n && !have; j++)
                        have = fabrics_controller_same_connection(&into->controllers[j], &from->controllers[i]);
                if (!have && (r = fabrics_topology_add_copy(into, &from->controllers[i])) < 0)
                        return r;
        }
        return 0;
}

void fabrics_topology_remove(FabricsTopology *t, size_t i) {
        if (i >= t->n_controllers)
                return;
        controller_done(&t->controllers[i]);
        memmove(&t->controllers[i], &t->controllers[i + 1], (t->n_controllers - i - 1) * sizeof(FabricsController));
        t->n_controllers--;
}

FabricsController *fabrics_topology_find(const FabricsTopology *t, const FabricsController *c) {
        for (size_t i = 0; t && i < t->n_controllers; i++)
                if (fabrics_controller_same_connection(&t->controllers[i], c))
                        return &t->controllers[i];
        return NULL;
}

static const char *const entry_states[_FABRICS_ENTRY_STATE_MAX] = {
        [FABRICS_ENTRY_PENDING] = "pending",
        [FABRICS_ENTRY_LOST] = "lost",
};

const char *fabrics_entry_state_to_string(FabricsEntryState s) {
        return s >= 0 && s < _FABRICS_ENTRY_STATE_MAX ? entry_states[s] : NULL;
}

FabricsEntryState fabrics_entry_state_from_string(const char *s) {
        for (int i = 0; s && i < _FABRICS_ENTRY_STATE_MAX; i++)
                if (streq(entry_states[i], s))
                        return (FabricsEntryState) i;
        return _FABRICS_ENTRY_STATE_INVALID;
}

static int cmp_controller(const void *a, const void *b) {
        return strverscmp(((const FabricsController *) a)->name ?: "", ((const FabricsController *) b)->name ?: "");
}

static int cmp_namespace(const void *a, const void *b) {
        unsigned x = ((const FabricsNamespace *) a)->nsid, y = ((const FabricsNamespace *) b)->nsid;

        return x < y ? -1 : x > y;
}

void fabrics_topology_sort(FabricsTopology *t) {
        if (t->n_controllers > 1)
                qsort(t->controllers, t->n_controllers, sizeof(FabricsController), cmp_controller);
        for (size_t i = 0; i < t->n_controllers; i++)
                if (t->controllers[i].n_namespaces > 1)
                        qsort(t->controllers[i].namespaces, t->controllers[i].n_namespaces,
                              sizeof(FabricsNamespace), cmp_namespace);
}

char *fabrics_controller_address(const FabricsController *c) {
        bool v6 = c->traddr && strchr(c->traddr, ':') && !strneq(c->traddr, "nn-", 3);

        if (!c->traddr)
                return strdup("");
        if (!c->trsvcid)
                return strdup(c->traddr);
        return strdup_printf(v6 ? "[%s]:%s" : "%s:%s", c->traddr, c->trsvcid);
}

char *fabrics_controller_describe(const FabricsController *c) {
        _cleanup_free_ char *address = fabrics_controller_address(c);
        const char *via = c->host_iface ?: c->host_traddr;

        if (!address)
                return NULL;
        return strdup_printf("%s: %s%s%s %s%s%s", c->name ?: "?", c->transport ?: "?", *address ? " " : "",
                             address, c->subsysnqn ?: "?", via ? " via " : "", via ?: "");
}

static bool eq_null(const char *a, const char *b) {
        return a && b ? streq(a, b) : a == b;
}

bool fabrics_controller_same_connection(const FabricsController *a, const FabricsController *b) {
        return eq_null(a->transport, b->transport) && eq_null(a->traddr, b->traddr) &&
               eq_null(a->trsvcid, b->trsvcid) && eq_null(a->subsysnqn, b->subsysnqn) &&
               eq_null(a->host_traddr, b->host_traddr) && eq_null(a->host_iface, b->host_iface) &&
               eq_null(a->hostnqn, b->hostnqn) && eq_null(a->hostid, b->hostid);
}

int fabrics_topology_transport_modules(const FabricsTopology *t, char ***ret) {
        _cleanup_strv_free_ char **modules = strv_new_empty();

        if (!modules)
                return -ENOMEM;
        for (size_t i = 0; t && i < t->n_controllers; i++) {
                const char *m = nvme_transport_module(t->controllers[i].transport);

                if (!m || streq(m, "nvme"))
                        return -EINVAL;
                if (!strv_contains(modules, m) && strv_extend(&modules, m) < 0)
                        return -ENOMEM;
        }
        strv_sort(modules);
        *ret = TAKE_PTR(modules);
        return 0;
}

/* The address fields the kernel prints (nvmf_get_address(), fabrics.c;
 * nvme_tcp_get_address() appends src_addr, the local end the kernel chose:
 * not a connect option, ignored). */
static char **address_field(FabricsController *c, const char *key, size_t len) {
        static const char *const keys[] = { "traddr", "trsvcid", "host_traddr", "host_iface" };
        char **fields[] = { &c->traddr, &c->trsvcid, &c->host_traddr, &c->host_iface };

        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (strlen(keys[i]) == len && strneq(keys[i], key, len))
                        return fields[i];
        return NULL;
}

int fabrics_parse_address(const char *address, FabricsController *c) {
        const char *p = address;

        while (p && *p && *p != '\n') {
                size_t len = strcspn(p, ",\n");
                const char *eq = memchr(p, '=', len);
                char **field;

                if (!eq || eq == p)
                        return -EINVAL;
                field = address_field(c, p, (size_t) (eq - p));
                if (field) {
                        char *v = strndup(eq + 1, len - (size_t) (eq - p) - 1);

                        if (!v)
                                return -ENOMEM;
                        free(*field);
                        *field = v;
                }
                p += len;
                if (*p == ',')
                        p++;
        }
        return 0;
}

int fabrics_parse_option(const char *text, int *ret) {
        int v;

        if (!text)
                return -EINVAL;
        if (streq(text, "off") || streq(text, "off\n")) {
                *ret = FABRICS_OPT_OFF;
                return 0;
        }
        if (safe_atoi(text, &v) < 0 || v < -1)
                return -EINVAL;
        *ret = v;
        return 0;
}
