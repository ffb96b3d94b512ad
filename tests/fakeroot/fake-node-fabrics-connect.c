/* SPDX-License-Identifier: Apache-2.0 */
/* The fake kernel's /dev/nvme-fabrics connect and a transport module's
 * removal (see fake-node-fabrics.h), after drivers/nvme/host/fabrics.c:
 * nvmf_parse_options() (opt_tokens), nvmf_create_ctrl() (no handler for a
 * transport whose module is not loaded: EINVAL), the transports' "found
 * same ctrl" check (EALREADY). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-node-private.h"

#define FAKE_CPUS 4 /* num_online_cpus(): the kernel's cap on nr_io_queues */

/* opt_tokens of 6.12; the last four are unknown to 6.1 (EINVAL there). */
static const char *const tokens[] = {
        "transport", "traddr", "trsvcid", "nqn", "queue_size", "nr_io_queues", "reconnect_delay",
        "ctrl_loss_tmo", "keep_alive_tmo", "hostnqn", "host_traddr", "host_iface", "hostid",
        "duplicate_connect", "disable_sqflow", "hdr_digest", "data_digest", "nr_write_queues",
        "nr_poll_queues", "tos", "fast_io_fail_tmo", "discovery", "dhchap_secret", "dhchap_ctrl_secret",
        "keyring", "tls_key", "tls", "concat", NULL,
};
#define FIRST_612_TOKEN 24

typedef struct Parsed {
        char *values[32]; /* by token index; "" for a flag */
        FakeFabricsNamespace ns[16];
        char *ns_text[16][2];
        size_t n_ns;
} Parsed;

static void parsed_done(Parsed *p) {
        for (size_t i = 0; i < 32; i++)
                free(p->values[i]);
        for (size_t i = 0; i < 16; i++)
                free(p->ns_text[i][0]), free(p->ns_text[i][1]);
}

static const char *value(const Parsed *p, const char *token) {
        for (size_t i = 0; tokens[i]; i++)
                if (strcmp(tokens[i], token) == 0)
                        return p->values[i];
        return NULL;
}

static int parse(FakeNode *n, const char *options, Parsed *p) {
        _auto_free_ char *copy = strdup(options), *release = NULL;
        char *save = NULL;
        bool old = fake_node_get_osrelease(n, &release) >= 0 && strncmp(release, "6.1.", 4) == 0;

        if (!copy)
                return -ENOMEM;
        for (char *t = strtok_r(copy, ",\n", &save); t; t = strtok_r(NULL, ",\n", &save)) {
                char *eq = strchr(t, '=');
                size_t k;

                if (eq)
                        *eq = '\0';
                for (k = 0; tokens[k] && strcmp(tokens[k], t) != 0; k++)
                        ;
                if (!tokens[k] || (old && k >= FIRST_612_TOKEN))
                        return -EINVAL; /* "unknown parameter or missing value" */
                free(p->values[k]);
                p->values[k] = strdup(eq ? eq + 1 : "");
                if (!p->values[k])
                        return -ENOMEM;
        }
        return value(p, "transport") && value(p, "nqn") ? 0 : -EINVAL;
}

static bool field_eq(const char *field, const char *want) {
        return strcmp(field, want ? want : "-") == 0;
}

/* The registered target's namespaces: "<transport> <traddr> <trsvcid> <nqn> nsid:nguid:uuid...". */
static int find_target(FakeNode *n, Parsed *p) {
        _auto_free_ char *path = fnode_rpath(n, "fake-fabrics/targets"), *text = NULL;
        char *save = NULL;

        if (!path || fnode_read_file(path, &text) < 0)
                return -ECONNREFUSED;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *f[20] = {}, *s2 = NULL;
                size_t k = 0;

                for (char *t = strtok_r(line, " ", &s2); t && k < 20; t = strtok_r(NULL, " ", &s2))
                        f[k++] = t;
                if (k < 4 || !field_eq(f[0], value(p, "transport")) || !field_eq(f[1], value(p, "traddr")) ||
                    !field_eq(f[2], value(p, "trsvcid")) || !field_eq(f[3], value(p, "nqn")))
                        continue;
                for (size_t i = 4; i < k && p->n_ns < 16; i++) {
                        char *nguid = strchr(f[i], ':'), *uuid = nguid ? strchr(nguid + 1, ':') : NULL;
                        size_t j = p->n_ns++;

                        if (!uuid)
                                return -EIO;
                        *nguid++ = '\0', *uuid++ = '\0';
                        p->ns[j].nsid = (unsigned) atoi(f[i]);
                        p->ns_text[j][0] = strcmp(nguid, "-") ? strdup(nguid) : NULL;
                        p->ns_text[j][1] = strcmp(uuid, "-") ? strdup(uuid) : NULL;
                        p->ns[j].nguid = p->ns_text[j][0], p->ns[j].uuid = p->ns_text[j][1];
                }
                return 0;
        }
        return -ECONNREFUSED;
}

/* The same connection is there already (transport, traddr, trsvcid, nqn). */
static bool connected(FakeNode *n, const Parsed *p) {
        _auto_free_ char *dir = fnode_rpath(n, "sys/class/nvme");
        char **names = NULL;
        bool found = false;

        if (!dir || fnode_list_entries(dir, &names) < 0)
                return false;
        for (size_t i = 0; names[i] && !found; i++) {
                _auto_free_ char *nqn = NULL, *tr = NULL, *addr = NULL, *rel = NULL, *want = NULL;

                if (asprintf(&rel, "sys/class/nvme/%s", names[i]) < 0 ||
                    asprintf(&want, "traddr=%s,trsvcid=%s", value(p, "traddr") ?: "", value(p, "trsvcid") ?: "") < 0)
                        break;
                char *a = fnode_rpath(n, "%s/subsysnqn", rel), *b = fnode_rpath(n, "%s/transport", rel),
                     *c = fnode_rpath(n, "%s/address", rel), *h = fnode_rpath(n, "%s/hostnqn", rel);
                _auto_free_ char *host = NULL;
                if (a && b && c && h && fnode_read_file(a, &nqn) >= 0 && fnode_read_file(b, &tr) >= 0 &&
                    fnode_read_file(c, &addr) >= 0 && fnode_read_file(h, &host) >= 0)
                        /* nvmf_ctlr_matches_baseopts(): the host NQN is part of it */
                        found = strncmp(nqn, value(p, "nqn"), strlen(value(p, "nqn"))) == 0 &&
                                strncmp(tr, value(p, "transport"), strlen(value(p, "transport"))) == 0 &&
                                strncmp(addr, want, strlen(want)) == 0 &&
                                (!value(p, "hostnqn") || strncmp(host, value(p, "hostnqn"), strlen(value(p, "hostnqn"))) == 0);
                free(a), free(b), free(c), free(h);
        }
        fake_strv_free(names);
        return found;
}

static unsigned free_instance(FakeNode *n) {
        unsigned i = 0;

        for (;; i++) {
                _auto_free_ char *rel = NULL;

                if (asprintf(&rel, "sys/class/nvme/nvme%u", i) < 0 || !fnode_exists_rel(n, rel))
                        return i;
        }
}

static int number(const Parsed *p, const char *token, int def) {
        const char *v = value(p, token);

        return v ? atoi(v) : def;
}

/* The options as the kernel shows them again (core.c 6.1). */
static int shown(const Parsed *p, char buf[4][16], FakeFabrics *f) {
        int delay = number(p, "reconnect_delay", 10), tmo = number(p, "ctrl_loss_tmo", 600);
        int fail = number(p, "fast_io_fail_tmo", -1), nr = number(p, "nr_io_queues", FAKE_CPUS);

        if (delay <= 0 || nr <= 0)
                return -EINVAL;
        snprintf(buf[0], 16, "%d", delay);
        if (tmo < 0)
                snprintf(buf[1], 16, "off");
        else
                snprintf(buf[1], 16, "%d", (tmo + delay - 1) / delay * delay);
        if (fail < 0)
                snprintf(buf[2], 16, "off");
        else
                snprintf(buf[2], 16, "%d", fail);
        snprintf(buf[3], 16, "%d", number(p, "keep_alive_tmo", 5));
        f->reconnect_delay = buf[0], f->ctrl_loss_tmo = buf[1], f->fast_io_fail_tmo = buf[2], f->kato = buf[3];
        f->queue_count = (unsigned) (nr < FAKE_CPUS ? nr : FAKE_CPUS) + 1;
        f->sqsize = (unsigned) number(p, "queue_size", 128) - 1;
        return 0;
}

static int transport_loaded(FakeNode *n, const char *transport) {
        _auto_free_ char *module = NULL;

        if (asprintf(&module, "nvme_%s", transport) < 0)
                return -ENOMEM;
        return fake_node_module_loaded(n, module);
}

int fake_node_fabrics_connect(FakeNode *n, const char *options, unsigned *ret_instance) {
        Parsed p = {};
        char buf[4][16];
        FakeFabrics f = {};
        unsigned instance = 0;
        int r;

        r = parse(n, options, &p);
        if (r >= 0 && transport_loaded(n, value(&p, "transport")) <= 0)
                r = -EINVAL; /* "no handler found for transport" */
        if (r >= 0 && connected(n, &p) && !value(&p, "duplicate_connect"))
                r = -EALREADY;
        if (r >= 0)
                r = find_target(n, &p);
        if (r >= 0)
                r = shown(&p, buf, &f);
        if (r >= 0) {
                f.transport = value(&p, "transport"), f.traddr = value(&p, "traddr"), f.trsvcid = value(&p, "trsvcid");
                f.host_traddr = value(&p, "host_traddr"), f.host_iface = value(&p, "host_iface");
                f.subsysnqn = value(&p, "nqn"), f.hostnqn = value(&p, "hostnqn"), f.hostid = value(&p, "hostid");
                f.dhchap_secret = value(&p, "dhchap_secret"), f.dhchap_ctrl_secret = value(&p, "dhchap_ctrl_secret");
                f.tls = value(&p, "tls") != NULL;
                f.namespaces = p.ns, f.n_namespaces = p.n_ns;
                instance = free_instance(n);
                r = fake_node_add_fabrics_controller(n, instance, &f);
        }
        parsed_done(&p);
        if (r < 0)
                return r;
        *ret_instance = instance;
        return 0;
}

/* ---- a transport module's removal --------------------------------------- */

/* <root>/<dir>/<name>, removed. */
static int remove_rel(FakeNode *n, const char *dir, const char *name) {
        _auto_free_ char *path = fnode_rpath(n, "%s/%s", dir, name);

        return path ? fnode_rm_rf(path) : -ENOMEM;
}

static int remove_block(FakeNode *n, const char *name) {
        int r;

        if ((r = remove_rel(n, "sys/class/block", name)) < 0 || (r = remove_rel(n, "sys/block", name)) < 0)
                return r;
        return remove_rel(n, "dev", name);
}

/* Controller nvme<ctrl> and what hangs off it, as nvme_delete_ctrl() and
 * the last path's removal of each head leave sysfs. */
static int remove_controller(FakeNode *n, const char *ctrl) {
        _auto_free_ char *dir = fnode_rpath(n, "sys/class/nvme/%s", ctrl), *real = NULL;
        _auto_free_ char *subsys = fnode_rpath(n, "sys/class/nvme-subsystem/nvme-subsys%s", ctrl + 4);
        _auto_free_ char *subsys_name = NULL;
        char **entries = NULL, **heads = NULL;
        int r = 0;

        if (asprintf(&subsys_name, "nvme-subsys%s", ctrl + 4) < 0)
                return -ENOMEM;
        if (!dir || !subsys || !(real = realpath(dir, NULL)))
                return -ENOMEM;
        if (fnode_list_entries(dir, &entries) < 0 || fnode_list_entries(subsys, &heads) < 0)
                r = -EIO;
        for (size_t i = 0; r >= 0 && entries && entries[i]; i++)
                if (strncmp(entries[i], "nvme", 4) == 0 && strchr(entries[i] + 4, 'n'))
                        r = remove_block(n, entries[i]);
        for (size_t i = 0; r >= 0 && heads && heads[i]; i++)
                if (strncmp(heads[i], "nvme", 4) == 0 && strchr(heads[i] + 4, 'n') && !strchr(heads[i] + 4, 'c'))
                        r = remove_block(n, heads[i]);
        fake_strv_free(entries);
        fake_strv_free(heads);
        if (r >= 0) {
                _auto_free_ char *sreal = realpath(subsys, NULL);

                if (sreal)
                        r = fnode_rm_rf(sreal);
        }
        if (r >= 0 && (r = remove_rel(n, "sys/class/nvme-subsystem", subsys_name)) >= 0 &&
            (r = fnode_rm_rf(real)) >= 0 && (r = remove_rel(n, "sys/class/nvme", ctrl)) >= 0)
                r = remove_rel(n, "dev", ctrl);
        return r;
}

int fake_node_fabrics_module_removed(FakeNode *n, const char *module) {
        _auto_free_ char *dir = fnode_rpath(n, "sys/class/nvme");
        const char *transport = strncmp(module, "nvme_", 5) == 0 ? module + 5 : NULL;
        char **names = NULL;
        int r = 0;

        if (!transport || strcmp(transport, "core") == 0 || strcmp(transport, "fabrics") == 0)
                return 0;
        if (!dir || fnode_list_entries(dir, &names) < 0)
                return -ENOMEM;
        for (size_t i = 0; names[i] && r >= 0; i++) {
                _auto_free_ char *tr = NULL, *rel = NULL;

                if (asprintf(&rel, "sys/class/nvme/%s/transport", names[i]) < 0)
                        r = -ENOMEM;
                else if (fnode_read_line_rel(n, rel, &tr) >= 0 && strcmp(tr, transport) == 0)
                        r = remove_controller(n, names[i]);
        }
        fake_strv_free(names);
        return r;
}
