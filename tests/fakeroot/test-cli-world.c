/* SPDX-License-Identifier: Apache-2.0 */
/* The fakeroot CLI suite's shared world: the nodes its cases build, running
 * the CLI and reading its JSON, and the checks on the module state and the
 * fake kernel's log (test-cli-world.h). */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-cli-world.h"

#define O_TRUNC_FLAG 0x200 /* KMOD_REMOVE_FORCE */

/* ---- building nodes ----------------------------------------------------- */

void module(const char *name, int refcnt, const char *const *holders, const char *taint) {
        cr_assert_eq(fake_node_add_module(node, name, refcnt, holders, taint), 0, "module %s", name);
}


void host_tree(void) {
        ko(HOST_TREE, "kernel/block/t10-pi.ko", "t10_pi", "", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme-core.ko", "nvme_core", "t10-pi", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme.ko", "nvme", "nvme-core", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme-fabrics.ko", "nvme_fabrics", "nvme-core", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme-tcp.ko", "nvme_tcp", "nvme-core,nvme-fabrics", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme-rdma.ko", "nvme_rdma", "nvme-core,nvme-fabrics", NULL, NULL);
        cr_assert_eq(fake_node_write_modules_dep(node, HOST_TREE), 0);
}

/* The in-tree stack for one PCIe namespace with two partitions. */
void plain_node(void) {
        host_tree();
        module("t10_pi", -1, HOLDERS("nvme_core"), "");
        module("nvme_core", -1, HOLDERS("nvme"), "");
        module("nvme", 0, NULL, "");
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 2), 0);
}

/* ...plus NVMe/TCP: nvme_tcp holds nvme_fabrics and nvme_core. */
void tcp_node(void) {
        host_tree();
        module("t10_pi", -1, HOLDERS("nvme_core"), "");
        module("nvme_core", -1, HOLDERS("nvme", "nvme_fabrics", "nvme_tcp"), "");
        module("nvme_fabrics", -1, HOLDERS("nvme_tcp"), "");
        module("nvme", 0, NULL, "");
        module("nvme_tcp", 0, NULL, "");
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 2), 0);
}

/* proc/modules, sorted: the module state, comparable before and after. */
char *module_state(void) {
        char path[256], *text, *lines[256], *out;
        size_t n = 0, len = 0;

        snprintf(path, sizeof(path), "%s/proc/modules", root);
        text = slurp(path);
        cr_assert_not_null(text);
        for (char *s = strtok(text, "\n"); s && n < 256; s = strtok(NULL, "\n"))
                lines[n++] = s;
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        if (strcmp(lines[i], lines[j]) > 0) {
                                char *t = lines[i];
                                lines[i] = lines[j];
                                lines[j] = t;
                        }
        for (size_t i = 0; i < n; i++)
                len += strlen(lines[i]) + 1;
        out = calloc(1, len + 1);
        for (size_t i = 0; i < n; i++) {
                strcat(out, lines[i]);
                strcat(out, "\n");
        }
        free(text);
        return out;
}

/* ---- running the CLI ---------------------------------------------------- */


struct json_object *parse(const CliRun *r) {
        struct json_object *o = json_tokener_parse(r->out);

        if (!o)
                dump(r);
        cr_assert_not_null(o, "stdout is not JSON");
        return o;
}

struct json_object *get(struct json_object *o, const char *key) {
        struct json_object *v = NULL;

        cr_assert(json_object_object_get_ex(o, key, &v), "no key \"%s\" in %s", key, json_object_to_json_string(o));
        return v;
}

struct json_object *find_named(struct json_object *array, const char *name) {
        for (size_t i = 0; i < json_object_array_length(array); i++) {
                struct json_object *e = json_object_array_get_idx(array, i);

                if (strcmp(json_object_get_string(get(e, "name")), name) == 0)
                        return e;
        }
        cr_assert_fail("no \"%s\" in %s", name, json_object_to_json_string(array));
        return NULL;
}

const char *str(struct json_object *o, const char *key) {
        return json_object_get_string(get(o, key));
}

/* Position of the log line "delete_module <m> ... -> 0", or -1. */
int removal_index(const char *klog, const char *m) {
        char needle[128];
        const char *p;

        snprintf(needle, sizeof(needle), "delete_module %s flags=", m);
        p = strstr(klog, needle);
        while (p && !strstr(p, "-> 0"))
                p = NULL;
        return p ? (int) (p - klog) : -1;
}

/* The module state is the one taken before the run (before: from
 * module_state(); freed here). */
void assert_module_state_is(char *before, const char *why) {
        char *after = module_state();

        cr_assert_str_eq(before, after, "%s", why);
        free(before);
        free(after);
}

/* The run made no module call and left the module state as it was. */
void assert_touched_nothing(const CliRun *r, char *before) {
        cr_assert_eq(count_lines_with(r->klog, "module"), 0, "the kernel was called");
        assert_module_state_is(before, "the module state changed");
}

/* Refused (exit 3), naming each of what blocks it (NULL-terminated), and
 * nothing touched. */
void assert_refused_untouched(const CliRun *r, char *before, const char *const *named) {
        cr_assert_eq(r->exit_code, 3);
        for (const char *const *s = named; *s; s++)
                cr_assert(strstr(r->out, *s), "blocker not named: %s", *s);
        assert_touched_nothing(r, before);
}

void assert_never_forced(const char *klog) {
        for (const char *p = strstr(klog, "flags=0x"); p; p = strstr(p + 1, "flags=0x")) {
                unsigned long flags = strtoul(p + 8, NULL, 16);

                cr_assert_eq(flags & O_TRUNC_FLAG, 0, "a call with the force flag: %.60s", p);
        }
}

struct json_object *plan_order(void) {
        CliRun r;
        struct json_object *o, *order;

        RUN(&r, NULL, "plan", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        o = parse(&r);
        order = json_object_get(get(o, "order"));
        cr_assert(json_object_get_boolean(get(o, "can_run")));
        json_object_put(o);
        cli_run_done(&r);
        return order;
}

int pos(struct json_object *order, const char *name) {
        for (size_t i = 0; i < json_object_array_length(order); i++)
                if (strcmp(json_object_get_string(json_object_array_get_idx(order, i)), name) == 0)
                        return (int) i;
        return -1;
}
