/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON and text faces of the CLI: render results built by hand, parse
 * the JSON back with json-c and check the contract's fields. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions/stack-load.h"
#include "actions/stack-unload.h"
#include "report/report-json.h"
#include "report/report-text.h"
#include "util/strv.h"

static char **strv(const char *const *l) {
        char **c = NULL;

        cr_assert_eq(strv_copy((char *const *) l, &c), 0);
        return c;
}
#define STRV(...) strv((const char *const[]) { __VA_ARGS__, NULL })

static struct json_object *roundtrip(struct json_object *o) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        struct json_object *back;

        cr_assert_not_null(f);
        cr_assert_eq(report_json_print(o, f), 0);
        fclose(f);
        json_object_put(o);
        back = json_tokener_parse(buf);
        cr_assert_not_null(back, "not JSON: %s", buf);
        free(buf);
        return back;
}

static struct json_object *get(struct json_object *o, const char *key) {
        struct json_object *v = NULL;

        cr_assert(json_object_object_get_ex(o, key, &v), "no key %s in %s", key, json_object_to_json_string(o));
        return v;
}

static const char *gets(struct json_object *o, const char *key) {
        return json_object_get_string(get(o, key));
}

/* Two modules: nvme_core held by nvme and pinned by one more reference. */
static ModuleStack *stack_fixture(void) {
        ModuleStack *s = calloc(1, sizeof(*s));

        s->modules = calloc(2, sizeof(ModuleInfo));
        s->n_modules = 2;
        s->modules[0] = (ModuleInfo) { .name = strdup("nvme_core"), .loaded = true, .initstate = strdup("live"),
                                       .refcnt = 2, .holders = STRV("nvme"), .n_holders = 1, .taint = strdup("OE"),
                                       .srcversion = strdup("ABC"), .depends_on_mlx_compat = true,
                                       .origin = MODULE_ORIGIN_NVIDIA };
        s->modules[1] = (ModuleInfo) { .name = strdup("nvme_tcp"), .loaded = false, .refcnt = -1,
                                       .holders = STRV(""), .origin = MODULE_ORIGIN_ABSENT };
        free(s->modules[1].holders[0]);
        s->modules[1].holders[0] = NULL;
        return s;
}

/* nvme0n1 with partition nvme0n1p1 mounted on /data. */
static UsageReport *usage_fixture(bool in_use) {
        UsageReport *u = calloc(1, sizeof(*u));
        NvmeBlockDevices *d = calloc(1, sizeof(*d));

        d->devices = calloc(2, sizeof(NvmeBlockDevice));
        d->n_devices = 2;
        d->devices[0] = (NvmeBlockDevice) { .name = strdup("nvme0n1"), .namespace_name = strdup("nvme0n1"),
                                            .size_bytes = 1 << 30, .nsid = 1, .serial = strdup("S1") };
        d->devices[1] = (NvmeBlockDevice) { .name = strdup("nvme0n1p1"), .namespace_name = strdup("nvme0n1"),
                                            .is_partition = true, .nsid = 1 };
        u->devices = d;
        u->notes = STRV("could not read /proc/99/fd");
        if (in_use) {
                u->usages = calloc(1, sizeof(Usage));
                u->usages[0] = (Usage) { .kind = USAGE_MOUNTED, .device = strdup("nvme0n1p1"),
                                         .where = strdup("/data"), .what = strdup("xfs") };
                u->n_usages = 1;
        }
        return u;
}

Test(report, status_json_fields) {
        ModuleStack *s = stack_fixture();
        UsageReport *u = usage_fixture(true);
        struct json_object *o = NULL, *m, *ns;

        cr_assert_eq(report_status_json(s, u, NULL, &o), 0);
        o = roundtrip(o);
        m = json_object_array_get_idx(get(o, "modules"), 0);
        cr_assert_str_eq(gets(m, "name"), "nvme_core");
        cr_assert(json_object_get_boolean(get(m, "loaded")));
        cr_assert_str_eq(gets(m, "origin"), "nvidia");
        cr_assert_eq(json_object_get_int(get(m, "refcnt")), 2);
        cr_assert_eq(json_object_get_int(get(m, "refs_beyond_holders")), 1);
        cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(get(m, "holders"), 0)), "nvme");
        m = json_object_array_get_idx(get(o, "modules"), 1);
        cr_assert_str_eq(gets(m, "origin"), "absent");
        cr_assert(json_object_is_type(get(m, "taint"), json_type_null), "absent values are null");

        cr_assert_eq(json_object_array_length(get(o, "namespaces")), 1, "partitions are not namespaces");
        ns = json_object_array_get_idx(get(o, "namespaces"), 0);
        cr_assert_str_eq(gets(ns, "name"), "nvme0n1");
        cr_assert(json_object_get_boolean(get(ns, "in_use")));
        cr_assert_eq(json_object_array_length(get(ns, "users")), 1, "the partition's mount is the namespace's user");
        cr_assert_str_eq(gets(json_object_array_get_idx(get(ns, "users"), 0), "where"), "/data");
        cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(get(ns, "partitions"), 0)), "nvme0n1p1");
        cr_assert(json_object_is_type(get(o, "inventory"), json_type_null));
        json_object_put(o);
        module_stack_free(s);
        usage_report_free(u);
}

Test(report, check_json_fields) {
        UsageReport *u = usage_fixture(true);
        struct json_object *o = NULL, *usage, *dev;

        cr_assert_eq(report_check_json(u, &o), 0);
        o = roundtrip(o);
        cr_assert(json_object_get_boolean(get(o, "in_use")));
        usage = json_object_array_get_idx(get(o, "usages"), 0);
        cr_assert_str_eq(gets(usage, "kind"), "mounted");
        cr_assert_str_eq(gets(usage, "device"), "nvme0n1p1");
        cr_assert_str_eq(gets(usage, "what"), "xfs");
        cr_assert(json_object_is_type(get(usage, "pid"), json_type_null));
        cr_assert(strstr(gets(usage, "description"), "/data"));
        dev = json_object_array_get_idx(get(o, "devices"), 1);
        cr_assert_str_eq(gets(dev, "name"), "nvme0n1p1");
        cr_assert(json_object_get_boolean(get(dev, "partition")));
        cr_assert(json_object_get_boolean(get(dev, "in_use")));
        cr_assert_eq(json_object_array_length(get(o, "notes")), 1);
        json_object_put(o);
        usage_report_free(u);
}

Test(report, check_json_free) {
        UsageReport *u = usage_fixture(false);
        struct json_object *o = NULL;

        cr_assert_eq(report_check_json(u, &o), 0);
        o = roundtrip(o);
        cr_assert_not(json_object_get_boolean(get(o, "in_use")));
        cr_assert_eq(json_object_array_length(get(o, "usages")), 0);
        cr_assert_not(json_object_get_boolean(get(json_object_array_get_idx(get(o, "devices"), 0), "in_use")));
        json_object_put(o);
        usage_report_free(u);
}

Test(report, plan_json_blocked) {
        RemovalPlan p = { .order = STRV("nvme_tcp", "nvme_core"), .blockers = STRV("nvme_core has 1 reference") };
        struct json_object *o = NULL;

        cr_assert_eq(report_plan_json(&p, NULL, &o), 0);
        o = roundtrip(o);
        cr_assert_eq(json_object_array_length(get(o, "order")), 2);
        cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(get(o, "order"), 1)), "nvme_core");
        cr_assert_not(json_object_get_boolean(get(o, "can_run")));
        json_object_put(o);
        strv_free(p.order);
        strv_free(p.blockers);
}

Test(report, unload_json_failed_restored) {
        UnloadResult r = {
                .outcome = UNLOAD_OUTCOME_FAILED_RESTORED,
                .planned = STRV("nvme_tcp", "nvme", "nvme_core"),
                .removed = STRV("nvme_tcp", "nvme"),
                .restored = STRV("nvme", "nvme_tcp"),
                .plan_blockers = STRV("x"),
                .failed_module = strdup("nvme_core"),
                .failed_errno = EAGAIN,
        };
        struct json_object *o = NULL;
        char *text = NULL;
        size_t size = 0;
        FILE *f;

        free(r.plan_blockers[0]);
        r.plan_blockers[0] = NULL;
        cr_assert_eq(report_unload_json(&r, false, &o), 0);
        o = roundtrip(o);
        cr_assert_str_eq(gets(o, "outcome"), "failed-restored");
        cr_assert_str_eq(gets(o, "failed_module"), "nvme_core");
        cr_assert_eq(json_object_get_int(get(o, "failed_errno")), EAGAIN);
        cr_assert_str_eq(gets(o, "failed_error"), strerror(EAGAIN));
        cr_assert_eq(json_object_array_length(get(o, "removed")), 2);
        cr_assert_eq(json_object_array_length(get(o, "restored")), 2);
        cr_assert(json_object_is_type(get(o, "restore_failed_module"), json_type_null));
        cr_assert_not(json_object_get_boolean(get(o, "in_use")));
        json_object_put(o);

        f = open_memstream(&text, &size);
        cr_assert_eq(report_unload_text(&r, false, f), 0);
        fclose(f);
        cr_assert(strstr(text, "nvme_core") && strstr(text, "put back: nvme nvme_tcp"), "%s", text);
        free(text);
        strv_free(r.planned);
        strv_free(r.removed);
        strv_free(r.restored);
        strv_free(r.plan_blockers);
        free(r.failed_module);
}

Test(report, unload_outcome_names_roundtrip) {
        for (int i = 0; i < _UNLOAD_OUTCOME_MAX; i++) {
                const char *s = unload_outcome_to_string(i);

                cr_assert_not_null(s);
                cr_assert_eq(unload_outcome_from_string(s), i);
        }
        cr_assert_null(unload_outcome_to_string(_UNLOAD_OUTCOME_MAX));
        cr_assert_eq(unload_outcome_from_string("gone"), _UNLOAD_OUTCOME_INVALID);
}

Test(report, load_json_failed) {
        LoadedModule mods[] = {
                { .name = "mlx_compat", .already_loaded = true },
                { .name = "nvme_core", .path = "/proc/7/root/lib/modules/6.1/extra/nvme-core.ko" },
        };
        LoadResult r = {
                .modules = mods, .n_modules = 2,
                .failed_module = "nvme", .failed_errno = EKEYREJECTED,
                .failed_reason = "nvme: signature rejected",
                .release = "6.1", .tree = "/proc/7/root/lib/modules/6.1",
        };
        struct json_object *o = NULL, *m;

        r.rolled_back = STRV("nvme_core");
        cr_assert_eq(report_load_json(&r, &o), 0);
        o = roundtrip(o);
        cr_assert_not(json_object_get_boolean(get(o, "ok")));
        cr_assert_str_eq(gets(o, "failed_module"), "nvme");
        cr_assert_eq(json_object_get_int(get(o, "failed_errno")), EKEYREJECTED);
        cr_assert_str_eq(gets(o, "release"), "6.1");
        m = json_object_array_get_idx(get(o, "modules"), 0);
        cr_assert(json_object_get_boolean(get(m, "already_loaded")));
        cr_assert(json_object_is_type(get(m, "path"), json_type_null));
        m = json_object_array_get_idx(get(o, "modules"), 1);
        cr_assert_str_eq(gets(m, "path"), "/proc/7/root/lib/modules/6.1/extra/nvme-core.ko");
        cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(get(o, "rolled_back"), 0)), "nvme_core");
        json_object_put(o);
        strv_free(r.rolled_back);
}
