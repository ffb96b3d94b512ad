/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "publish/status-document.h"

static NodeModule swapped_modules[] = {
        { .name = (char *) "nvme_core", .origin = NODE_ORIGIN_NVIDIA, .gds_hooks = false },
        { .name = (char *) "nvme", .origin = NODE_ORIGIN_NVIDIA, .gds_hooks = true,
          .gds_generations = (char *) "v1" },
        { .name = (char *) "nvme_rdma", .origin = NODE_ORIGIN_ABSENT, .gds_hooks = false },
        { .name = (char *) "nvme_auth", .origin = NODE_ORIGIN_IN_TREE, .shared = true,
          .build = (char *) "shared-from-host" },
};
static NodeStack swapped_stack = { .modules = swapped_modules, .n_modules = 4 };

static NodeNamespace ns[] = { { .name = (char *) "nvme0n1", .serial = (char *) "SER1", .nsid = 1 } };
static NodeNamespaces nss = { .items = ns, .n = 1 };
static char *before[] = { (char *) "nvme", (char *) "nvme_core", NULL };

static StateFile swapped_record(void) {
        return (StateFile) {
                .state = SWAP_STATE_SWAPPED,
                .since_usec = 1764686400000000ULL,
                .container_id = (char *) "3f1c2a9b8e7d",
                .pod_name = (char *) "mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p",
                .container_pid = 4242,
                .modules_before = before,
                .namespaces_before = &nss,
                .message = (char *) "swapped (loaded by nvme-swapguard from the driver container)",
        };
}

static StatusFacts facts(const StateFile *record, const NodeStack *stack) {
        return (StatusFacts) {
                .record = record,
                .stack = stack,
                .boot_id = "5d3c2b1a-0f9e-4d8c-b7a6-958473625140",
                .hostname = "worker-0",
                .version = "0.1.0",
                .pid = 77,
                .written_at_usec = 1764686461000000ULL, /* 2025-12-02T14:41:01Z */
        };
}

static json_object *parse(const StatusFacts *f) {
        char *text = NULL;
        json_object *o;

        cr_assert_eq(status_document_to_json(f, &text), 0);
        o = json_tokener_parse(text);
        free(text);
        cr_assert_not_null(o, "the document is not JSON");
        return o;
}

static json_object *get(json_object *o, const char *path) {
        char buf[128], *save = NULL;

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
                cr_assert(json_object_object_get_ex(o, k, &o), "no key %s in %s", k, path);
        return o;
}

static const char *str(json_object *o, const char *path) {
        return json_object_get_string(get(o, path));
}

Test(status_document, the_state_file_facts_and_what_a_remote_reader_needs) {
        StateFile r = swapped_record();
        StatusFacts f = facts(&r, &swapped_stack);
        json_object *o = parse(&f);

        /* the state file's own facts, under its own names */
        cr_assert_str_eq(str(o, "state"), "swapped");
        cr_assert_eq(json_object_get_int64(get(o, "since_usec")), 1764686400000000LL);
        cr_assert_str_eq(str(o, "container.pod"), "mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p");
        cr_assert_str_eq(str(o, "message"), "swapped (loaded by nvme-swapguard from the driver container)");
        cr_assert_eq(json_object_array_length(get(o, "namespaces_before")), 1);
        cr_assert_eq(json_object_array_length(get(o, "missing_namespaces")), 0);
        cr_assert_eq(json_object_array_length(get(o, "blockers")), 0);
        /* the reader's */
        cr_assert_eq(json_object_get_int(get(o, "schema")), STATUS_DOCUMENT_SCHEMA);
        cr_assert_str_eq(str(o, "boot_id"), "5d3c2b1a-0f9e-4d8c-b7a6-958473625140");
        cr_assert_str_eq(str(o, "written_at"), "2025-12-02T14:41:01Z");
        cr_assert_eq(json_object_get_int64(get(o, "written_at_usec")), 1764686461000000LL);
        cr_assert_str_eq(str(o, "daemon.version"), "0.1.0");
        cr_assert_eq(json_object_get_int(get(o, "daemon.pid")), 77);
        cr_assert_str_eq(str(o, "hostname"), "worker-0");
        /* the swap's report */
        cr_assert_str_eq(str(o, "live_build"), "nvidia");
        cr_assert(json_object_get_boolean(get(o, "gds_hooks.present")));
        cr_assert_str_eq(str(o, "gds_hooks.module"), "nvme");
        cr_assert_eq(json_object_array_length(get(o, "modules")), 4);
        cr_assert_str_eq(json_object_get_string(get(json_object_array_get_idx(get(o, "modules"), 1), "origin")),
                         "nvidia");
        /* which build each is: the host's nvme_auth under NVIDIA's stack */
        cr_assert_str_eq(json_object_get_string(get(json_object_array_get_idx(get(o, "modules"), 3), "build")),
                         "shared-from-host");
        cr_assert(json_object_get_boolean(get(json_object_array_get_idx(get(o, "modules"), 3), "shared")));
        json_object_put(o);
}

Test(status_document, facts_not_reported_yet_are_null_not_absent) {
        StateFile r = swapped_record();
        StatusFacts f = facts(&r, &swapped_stack);
        json_object *o = parse(&f);

        /* present as keys (a reader can tell "not reported by this daemon")
         * and null (not "none") */
        cr_assert_null(get(o, "pins"));
        cr_assert_null(get(o, "gds_hooks.generation"));
        json_object_put(o);

        f.hooks_generation = "v2";
        f.pins_reported = true;
        o = parse(&f);
        cr_assert_str_eq(str(o, "gds_hooks.generation"), "v2");
        cr_assert(json_object_is_type(get(o, "pins"), json_type_array), "reported pins, none: []");
        cr_assert_eq(json_object_array_length(get(o, "pins")), 0);
        json_object_put(o);

        char *pins[] = { (char *) "nvidia-fs holds nvme (GDS process 812)", NULL };
        f.pins = pins;
        o = parse(&f);
        cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(get(o, "pins"), 0)),
                         "nvidia-fs holds nvme (GDS process 812)");
        json_object_put(o);
}

Test(status_document, unreadable_stack_and_boot_id_say_unknown) {
        StateFile r = { .state = SWAP_STATE_BLOCKED, .blockers = (char *[]) { (char *) "nvme0n1p1 is mounted on /var/lib/data", NULL } };
        StatusFacts f = facts(&r, NULL);
        json_object *o;

        f.boot_id = NULL;
        o = parse(&f);
        cr_assert_str_eq(str(o, "live_build"), "unknown");
        cr_assert_null(get(o, "gds_hooks.present"), "unknown, not a hook reported missing");
        cr_assert_null(get(o, "modules"));
        cr_assert_null(get(o, "boot_id"));
        cr_assert_str_eq(str(o, "state"), "blocked");
        cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(get(o, "blockers"), 0)),
                         "nvme0n1p1 is mounted on /var/lib/data");
        json_object_put(o);
}

Test(status_document, live_build_is_nvme_then_nvme_core_then_absent) {
        NodeModule in_tree[] = { { .name = (char *) "nvme_core", .origin = NODE_ORIGIN_IN_TREE },
                                  { .name = (char *) "nvme", .origin = NODE_ORIGIN_ABSENT } };
        NodeModule none[] = { { .name = (char *) "nvme_core", .origin = NODE_ORIGIN_ABSENT } };
        NodeStack s1 = { .modules = in_tree, .n_modules = 2 }, s2 = { .modules = none, .n_modules = 1 };
        StateFile r = { .state = SWAP_STATE_IDLE };
        StatusFacts f = facts(&r, &s1);
        json_object *o = parse(&f);

        cr_assert_str_eq(str(o, "live_build"), "in-tree");
        cr_assert(!json_object_get_boolean(get(o, "gds_hooks.present")));
        cr_assert_null(get(o, "gds_hooks.module"));
        json_object_put(o);
        f.stack = &s2;
        o = parse(&f);
        cr_assert_str_eq(str(o, "live_build"), "absent");
        json_object_put(o);
}

static char *fake_root(void) {
        char *root = strdup("/tmp/test-status-document-XXXXXX");
        char path[256];

        cr_assert_not_null(mkdtemp(root));
        snprintf(path, sizeof(path), "%s/var", root);
        cr_assert_eq(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/var/log", root);
        cr_assert_eq(mkdir(path, 0755), 0);
        cr_assert_eq(host_root_set(root), 0);
        return root;
}

Test(status_document, written_atomically_readable_and_replaced) {
        StateFile r = swapped_record();
        StatusFacts f = facts(&r, &swapped_stack);
        char *root = fake_root(), path[256], cmd[300];
        json_object *o;
        struct stat st;

        umask(0077); /* the unit's UMask= */
        cr_assert_eq(status_document_write(&f), 0);
        snprintf(path, sizeof(path), "%s/var/log/nvme-swapguard/status.json", root);
        cr_assert_eq(stat(path, &st), 0);
        cr_assert_eq(st.st_mode & 0777, 0644, "mode %o", st.st_mode & 0777);
        o = json_object_from_file(path);
        cr_assert_str_eq(str(o, "state"), "swapped");
        json_object_put(o);

        r.state = SWAP_STATE_RESTORED;
        cr_assert_eq(status_document_write(&f), 0);
        o = json_object_from_file(path);
        cr_assert_str_eq(str(o, "state"), "restored");
        json_object_put(o);
        snprintf(path, sizeof(path), "%s/var/log/nvme-swapguard/.status.json.tmp", root);
        cr_assert_neq(access(path, F_OK), 0, "temporary file left behind");

        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        cr_assert_eq(system(cmd), 0);
        free(root);
}

Test(status_document, no_var_log_is_an_error_not_a_tree_created) {
        char root[] = "/tmp/test-status-document-XXXXXX", cmd[128];
        StateFile r = swapped_record();
        StatusFacts f = facts(&r, &swapped_stack);

        cr_assert_not_null(mkdtemp(root));
        cr_assert_eq(host_root_set(root), 0);
        cr_assert_eq(status_document_write(&f), -ENOENT);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        cr_assert_eq(system(cmd), 0);
}

Test(status_document, publish_reads_the_hosts_boot_id) {
        StateFile r = swapped_record();
        char *root = fake_root(), path[256], cmd[300];
        json_object *o;
        FILE *fp;

        snprintf(cmd, sizeof(cmd), "mkdir -p %s/proc/sys/kernel/random", root);
        cr_assert_eq(system(cmd), 0);
        snprintf(path, sizeof(path), "%s/proc/sys/kernel/random/boot_id", root);
        cr_assert_not_null(fp = fopen(path, "we"));
        fputs("0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b\n", fp);
        fclose(fp);
        cr_assert_eq(status_document_publish(&r, &swapped_stack), 0);
        snprintf(path, sizeof(path), "%s/var/log/nvme-swapguard/status.json", root);
        o = json_object_from_file(path);
        cr_assert_not_null(o);
        cr_assert_str_eq(str(o, "boot_id"), "0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b");
        /* the daemon reports the live build's hook generation (was null after a swap to v1) */
        cr_assert_str_eq(str(o, "gds_hooks.generation"), "v1");
        cr_assert_eq(json_object_get_boolean(get(o, "gds_hooks.present")), true);
        cr_assert_eq(json_object_get_int(get(o, "daemon.pid")), getpid());
        cr_assert(json_object_get_int64(get(o, "written_at_usec")) > 1700000000000000LL);
        json_object_put(o);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        cr_assert_eq(system(cmd), 0);
        free(root);
}

Test(status_document, hooks_generation_of_the_live_build) {
        NodeModule in_tree[] = { { .name = (char *) "nvme_core", .origin = NODE_ORIGIN_IN_TREE },
                                  { .name = (char *) "nvme", .origin = NODE_ORIGIN_IN_TREE } };
        NodeStack in_tree_stack = { .modules = in_tree, .n_modules = 2 };
        NodeModule rdma_only[] = { { .name = (char *) "nvme_core", .origin = NODE_ORIGIN_NVIDIA },
                                    { .name = (char *) "nvme", .origin = NODE_ORIGIN_ABSENT,
                                      .gds_generations = (char *) "v2" },
                                    { .name = (char *) "nvme_rdma", .origin = NODE_ORIGIN_NVIDIA,
                                      .gds_hooks = true, .gds_generations = (char *) "v1" } };
        NodeStack rdma_stack = { .modules = rdma_only, .n_modules = 3 };

        cr_assert_str_eq(status_hooks_generation(&swapped_stack), "v1");
        cr_assert_str_eq(status_hooks_generation(&in_tree_stack), "none", "read, and no hooks: not null");
        cr_assert_null(status_hooks_generation(NULL), "unreadable stack: null");
        /* a module that is not loaded says nothing */
        cr_assert_str_eq(status_hooks_generation(&rdma_stack), "v1");
}
