/* SPDX-License-Identifier: Apache-2.0 */
/* The status documents (report-json.h): the node as it is (modules,
 * namespaces, their usages, the NVMe inventory), a usage check and an
 * unload's plan. The actions' results: report-json-result.c. */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "nvme/nvme-names.h"
#include "report/report-json.h"
#include "util/json-util.h"
#include "util/macro.h"
#include "util/strv.h"

int report_module_json(const ModuleStack *stack, const ModuleInfo *m, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_string(o, "name", m->name)) < 0 ||
            (r = json_add_bool(o, "loaded", m->loaded)) < 0 ||
            (r = json_add_string(o, "origin", module_origin_to_string(m->origin))) < 0 ||
            (r = json_add_string(o, "role", module_role_to_string(m->role))) < 0 ||
            (r = json_add_string(o, "build", module_build_to_string(module_stack_build_of(stack, m)))) < 0 ||
            (r = json_add_int(o, "refcnt", m->refcnt)) < 0 ||
            (r = json_add_strv(o, "holders", m->holders)) < 0 ||
            (r = json_add_int(o, "refs_beyond_holders", module_info_refs_beyond_holders(m))) < 0 ||
            (r = json_add_string(o, "initstate", m->initstate)) < 0 ||
            (r = json_add_string(o, "taint", m->taint)) < 0 ||
            (r = json_add_string(o, "srcversion", m->srcversion)) < 0 ||
            (r = json_add_bool(o, "holds_mlx_compat", m->depends_on_mlx_compat)) < 0 ||
            (r = json_add_bool(o, "gds_hooks", m->has_gds_hooks)) < 0 ||
            (r = json_add_string(o, "gds_generations", m->gds_generations)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

/* {"inode", "process_count", "processes": [{"pid", "command"}], "container": {...} or null}:
 * a mount held only in another mount namespace than the host's. */
static int mount_namespace_json(const UsageMountNamespace *m, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object(), *procs = json_object_new_array(),
                                          *c = NULL;
        int r;

        if (!o || !procs)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_named; i++) {
                struct json_object *p = json_object_new_object();

                if (!p || json_array_add(procs, p) < 0 || json_add_int(p, "pid", m->pids[i]) < 0 ||
                    json_add_string(p, "command", m->commands[i]) < 0)
                        return -ENOMEM;
        }
        if (m->container_id) {
                if (!(c = json_object_new_object()))
                        return -ENOMEM;
                if ((r = json_add_string(c, "id", m->container_id)) < 0 ||
                    (r = json_add_string(c, "pod_namespace", m->pod_namespace)) < 0 ||
                    (r = json_add_string(c, "pod_name", m->pod_name)) < 0 ||
                    (r = json_add_string(c, "container_name", m->container_name)) < 0)
                        return r;
        }
        if ((r = json_add_int(o, "inode", (int64_t) m->inode)) < 0 ||
            (r = json_add_int(o, "process_count", (int64_t) m->n_processes)) < 0 ||
            (r = json_add(o, "processes", TAKE_PTR(procs))) < 0 || (r = json_add(o, "container", TAKE_PTR(c))) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int report_usage_json(const Usage *u, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        _cleanup_free_ char *text = NULL;
        int r;

        if (!o)
                return -ENOMEM;
        r = usage_describe(u, &text);
        if (r < 0)
                return r;
        if ((r = json_add_string(o, "kind", usage_kind_to_string(u->kind))) < 0 ||
            (r = json_add_string(o, "device", u->device)) < 0 ||
            (r = json_add_string(o, "where", u->where)) < 0 ||
            (r = json_add_string(o, "what", u->what)) < 0 ||
            (r = u->pid > 0 ? json_add_int(o, "pid", u->pid) : json_add(o, "pid", NULL)) < 0 ||
            (r = json_add_string(o, "description", text)) < 0)
                return r;
        /* "mount_namespace": null for the host's own mounts and every other kind. */
        if (u->mount_ns) {
                struct json_object *m = NULL;

                if ((r = mount_namespace_json(u->mount_ns, &m)) < 0 || (r = json_add(o, "mount_namespace", m)) < 0)
                        return r;
        } else if ((r = json_add(o, "mount_namespace", NULL)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

/* The usages of one device; whole namespaces also collect their partitions'.
 * By name, not by looking the usage's device up: a lookup per (device, usage)
 * pair made --json cubic on a node of 1,024 namespaces (bench/check-scale.sh). */
static bool usage_concerns(const Usage *u, const NvmeBlockDevice *d) {
        return d->is_partition ? streq(u->device, d->name) : nvme_name_belongs_to(u->device, d->name);
}

static int users_json(const UsageReport *usage, const NvmeBlockDevice *d, struct json_object **ret) {
        _cleanup_json_ struct json_object *a = json_object_new_array();
        int r;

        if (!a)
                return -ENOMEM;
        for (size_t i = 0; usage && i < usage->n_usages; i++) {
                struct json_object *u;

                if (d && !usage_concerns(&usage->usages[i], d))
                        continue;
                r = report_usage_json(&usage->usages[i], &u);
                if (r < 0)
                        return r;
                r = json_array_add(a, u);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(a);
        return 0;
}

int report_json_add_users(struct json_object *o, const UsageReport *usage, const NvmeBlockDevice *d) {
        struct json_object *a;
        int r;

        r = users_json(usage, d, &a);
        return r < 0 ? r : json_add(o, "users", a);
}

static int partitions_json(const NvmeBlockDevices *devs, const char *ns, struct json_object **ret) {
        _cleanup_json_ struct json_object *a = json_object_new_array();

        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < devs->n_devices; i++) {
                const NvmeBlockDevice *p = &devs->devices[i];
                struct json_object *v;

                if (!p->is_partition || !p->namespace_name || !streq(p->namespace_name, ns))
                        continue;
                v = json_object_new_string(p->name);
                if (!v || json_array_add(a, v) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(a);
        return 0;
}

static int namespace_json(const UsageReport *usage, const NvmeBlockDevice *d, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        struct json_object *parts = NULL;
        int r;

        if (!o)
                return -ENOMEM;
        r = partitions_json(usage->devices, d->name, &parts);
        if (r < 0)
                return r;
        if ((r = json_add_string(o, "name", d->name)) < 0 ||
            (r = json_add_bool(o, "in_use", usage_report_device_in_use(usage, d->name))) < 0 ||
            (r = report_json_add_users(o, usage, d)) < 0 ||
            (r = json_add_int(o, "size_bytes", (int64_t) d->size_bytes)) < 0 ||
            (r = json_add_bool(o, "multipath", d->multipath_head)) < 0 ||
            (r = json_add_int(o, "nsid", d->nsid)) < 0 ||
            (r = json_add_string(o, "serial", d->serial)) < 0 ||
            (r = json_add_string(o, "subsystem_nqn", d->subsystem_nqn)) < 0 ||
            (r = json_add(o, "partitions", parts)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

static int controller_json(const NvmeInventoryController *c, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_string(o, "name", c->name)) < 0 || (r = json_add_string(o, "transport", c->transport)) < 0 ||
            (r = json_add_string(o, "address", c->address)) < 0 || (r = json_add_string(o, "serial", c->serial)) < 0 ||
            (r = json_add_string(o, "model", c->model)) < 0 || (r = json_add_string(o, "state", c->state)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

static int inventory_namespace_json(const NvmeInventoryNamespace *n, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_string(o, "name", n->name)) < 0 || (r = json_add_int(o, "nsid", n->nsid)) < 0 ||
            (r = json_add_int(o, "size_bytes", (int64_t) n->size_bytes)) < 0 ||
            (r = json_add_bool(o, "multipath", n->multipath_head)) < 0 ||
            (r = json_add_string(o, "controller", n->controller)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

static int subsystem_json(const NvmeInventorySubsystem *s, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        _cleanup_json_ struct json_object *ctrls = json_object_new_array();
        _cleanup_json_ struct json_object *nss = json_object_new_array();
        int r;

        if (!o || !ctrls || !nss)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_controllers; i++) {
                struct json_object *c;

                if ((r = controller_json(&s->controllers[i], &c)) < 0 || (r = json_array_add(ctrls, c)) < 0)
                        return r;
        }
        for (size_t i = 0; i < s->n_namespaces; i++) {
                struct json_object *n;

                if ((r = inventory_namespace_json(&s->namespaces[i], &n)) < 0 || (r = json_array_add(nss, n)) < 0)
                        return r;
        }
        if ((r = json_add_string(o, "name", s->name)) < 0 || (r = json_add_string(o, "nqn", s->nqn)) < 0 ||
            (r = json_add(o, "controllers", TAKE_PTR(ctrls))) < 0 || (r = json_add(o, "namespaces", TAKE_PTR(nss))) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int report_inventory_json(const NvmeInventory *inv, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        _cleanup_json_ struct json_object *subs = json_object_new_array();
        int r;

        if (!o || !subs)
                return -ENOMEM;
        for (size_t i = 0; i < inv->n_subsystems; i++) {
                struct json_object *s = NULL;

                if ((r = subsystem_json(&inv->subsystems[i], &s)) < 0 || (r = json_array_add(subs, s)) < 0)
                        return r;
        }
        if ((r = json_add_string(o, "source", inv->source)) < 0 || (r = json_add(o, "subsystems", TAKE_PTR(subs))) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int report_status_json(const ModuleStack *stack, const UsageReport *usage, const NvmeInventory *inventory,
                       struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        struct json_object *inv = NULL;
        _cleanup_json_ struct json_object *mods = json_object_new_array();
        _cleanup_json_ struct json_object *nss = json_object_new_array();
        int r;

        if (!o || !mods || !nss)
                return -ENOMEM;
        for (size_t i = 0; stack && i < stack->n_modules; i++) {
                struct json_object *m;

                r = report_module_json(stack, &stack->modules[i], &m);
                if (r < 0)
                        return r;
                r = json_array_add(mods, m);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; usage && usage->devices && i < usage->devices->n_devices; i++) {
                const NvmeBlockDevice *d = &usage->devices->devices[i];
                struct json_object *n;

                if (d->is_partition)
                        continue;
                r = namespace_json(usage, d, &n);
                if (r < 0)
                        return r;
                r = json_array_add(nss, n);
                if (r < 0)
                        return r;
        }
        if (inventory && (r = report_inventory_json(inventory, &inv)) < 0)
                return r;
        if ((r = json_add(o, "modules", TAKE_PTR(mods))) < 0 ||
            (r = json_add(o, "namespaces", TAKE_PTR(nss))) < 0 || (r = json_add(o, "inventory", inv)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

static int device_json(const UsageReport *usage, const NvmeBlockDevice *d, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        bool in_use = false;
        int r;

        if (!o)
                return -ENOMEM;
        for (size_t i = 0; i < usage->n_usages; i++)
                in_use = in_use || usage_concerns(&usage->usages[i], d);
        if ((r = json_add_string(o, "name", d->name)) < 0 ||
            (r = json_add_string(o, "namespace", d->namespace_name)) < 0 ||
            (r = json_add_bool(o, "partition", d->is_partition)) < 0 ||
            (r = json_add_bool(o, "in_use", in_use)) < 0 ||
            (r = report_json_add_users(o, usage, d)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int report_check_json(const UsageReport *usage, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        _cleanup_json_ struct json_object *devs = json_object_new_array();
        int r;

        if (!o || !devs)
                return -ENOMEM;
        for (size_t i = 0; usage->devices && i < usage->devices->n_devices; i++) {
                struct json_object *d;

                r = device_json(usage, &usage->devices->devices[i], &d);
                if (r < 0)
                        return r;
                r = json_array_add(devs, d);
                if (r < 0)
                        return r;
        }
        if ((r = json_add_bool(o, "in_use", usage_report_in_use(usage))) < 0 ||
            (r = json_add(o, "devices", TAKE_PTR(devs))) < 0)
                return r;
        {
                struct json_object *all;

                r = users_json(usage, NULL, &all);
                if (r < 0 || (r = json_add(o, "usages", all)) < 0)
                        return r;
        }
        r = json_add_strv(o, "notes", usage->notes);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int report_plan_json(const RemovalPlan *plan, const UsageReport *usage, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        bool in_use = usage && usage_report_in_use(usage);
        bool blocked = plan->blockers && plan->blockers[0];
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_strv(o, "order", plan->order)) < 0 ||
            (r = json_add_strv(o, "blockers", plan->blockers)) < 0 ||
            (r = json_add_strv(o, "kept", plan->kept)) < 0 ||
            (r = json_add_bool(o, "in_use", in_use)) < 0 ||
            (r = report_json_add_users(o, usage, NULL)) < 0 ||
            (r = json_add_bool(o, "can_run", !in_use && !blocked)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int report_json_print(struct json_object *o, FILE *f) {
        const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                              JSON_C_TO_STRING_SPACED |
                                                              JSON_C_TO_STRING_NOSLASHESCAPE);

        if (!s)
                return -ENOMEM;
        if (fputs(s, f) < 0 || fputc('\n', f) < 0)
                return -EIO;
        return 0;
}
