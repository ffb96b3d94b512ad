/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "host/host-root.h"
#include "publish/state-file.h"
#include "util/strv.h"

Test(state_file, round_trip_through_a_fake_root) {
        char root[] = "/tmp/test-daemon-state-XXXXXX";
        NodeNamespace ns[] = { { .name = (char *) "nvme0n1", .serial = (char *) "SER1", .nsid = 1 },
                                { .name = (char *) "nvme1n1", .serial = (char *) "SER2", .nsid = 3 } };
        NodeNamespaces nss = { .items = ns, .n = 2 };
        char *mods[] = { (char *) "nvme", (char *) "nvme_core", NULL };
        char *builds[] = { (char *) "nvme: container", (char *) "nvme_auth: shared-from-host", NULL };
        char *build_mods[] = { (char *) "nvme_auth", (char *) "nvme_core", (char *) "nvme", NULL };
        StateFile s = {
                .build_container_id = (char *) "abc",
                .build_modules = build_mods,
                .module_builds = builds,
                .state = SWAP_STATE_UNLOADED_WAITING_DRIVER,
                .since_usec = 12345,
                .container_id = (char *) "abc",
                .pod_name = (char *) "mofed-x",
                .container_pid = 777,
                .modules_before = mods,
                .namespaces_before = &nss,
                .ready_deadline_usec = 99999,
                .message = (char *) "unloaded: nvme nvme_core",
                .gds_nvme = (char *) "v1",
                .gds_nvidia_fs = (char *) "v2",
                .gds_match = (char *) "different",
        };
        StateFile *back = NULL;
        char cmd[128];

        cr_assert_not_null(mkdtemp(root));
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/run", root);
        cr_assert_eq(system(cmd), 0);
        cr_assert_eq(host_root_set(root), 0);
        cr_assert_eq(state_file_read(&back), -ENOENT);
        cr_assert_eq(state_file_write(&s), 0);
        cr_assert_eq(state_file_read(&back), 0);
        cr_assert_eq(back->state, SWAP_STATE_UNLOADED_WAITING_DRIVER);
        cr_assert_eq(back->since_usec, 12345);
        cr_assert_str_eq(back->container_id, "abc");
        cr_assert_str_eq(back->pod_name, "mofed-x");
        cr_assert_eq(back->container_pid, 777);
        cr_assert_eq(strv_length(back->modules_before), 2);
        cr_assert_str_eq(back->modules_before[1], "nvme_core");
        cr_assert_eq(back->namespaces_before->n, 2);
        cr_assert_str_eq(back->namespaces_before->items[1].serial, "SER2");
        cr_assert_eq(back->namespaces_before->items[1].nsid, 3);
        cr_assert_eq(back->ready_deadline_usec, 99999);
        cr_assert_str_eq(back->message, "unloaded: nvme nvme_core");
        /* the generation of each, for machines */
        cr_assert_str_eq(back->gds_nvme, "v1");
        cr_assert_str_eq(back->gds_nvidia_fs, "v2");
        cr_assert_str_eq(back->gds_match, "different");
        cr_assert_null(back->gds, "not written when absent");
        /* which build each module is */
        cr_assert_eq(strv_length(back->module_builds), 2);
        cr_assert_str_eq(back->module_builds[1], "nvme_auth: shared-from-host");
        /* what the build brought, recorded at load, kept by a restart */
        cr_assert_eq(strv_length(back->build_modules), 3);
        cr_assert_str_eq(back->build_modules[0], "nvme_auth");
        {
                StateFile fresh = {};

                state_file_keep_build(&fresh, back);
                cr_assert_str_eq(fresh.build_container_id, "abc");
                cr_assert(strv_contains(fresh.build_modules, "nvme_auth"));
                state_file_clear(&fresh);
        }
        state_file_free(back);
        snprintf(cmd, sizeof(cmd), "test ! -e %s/run/nvme-swapguard/state.json.tmp", root);
        cr_assert_eq(system(cmd), 0, "no temporary file left behind");
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        (void) !system(cmd);
}

Test(state_file, bad_input) {
        StateFile *s = NULL;

        cr_assert_eq(state_file_from_json("{", &s), -EBADMSG);
        cr_assert_eq(state_file_from_json("[]", &s), -EBADMSG);
        cr_assert_eq(state_file_from_json("{\"state\":\"dancing\"}", &s), -EBADMSG);
        cr_assert_null(s);
        cr_assert_eq(state_file_from_json("{\"state\":\"idle\",\"modules_before\":7}", &s), 0);
        cr_assert_null(s->modules_before);
        state_file_free(s);
}

Test(state_file, namespaces_missing) {
        NodeNamespace before_items[] = { { .name = (char *) "nvme0n1", .serial = (char *) "A", .nsid = 1 },
                                          { .name = (char *) "nvme1n1", .serial = (char *) "B", .nsid = 1 } };
        NodeNamespace now_items[] = { { .name = (char *) "nvme1n1", .serial = (char *) "A", .nsid = 1 } };
        NodeNamespaces before = { .items = before_items, .n = 2 }, now = { .items = now_items, .n = 1 };
        char **missing = NULL;

        cr_assert_eq(node_namespaces_missing(&before, &now, &missing), 0);
        cr_assert_eq(strv_length(missing), 1, "matched by serial+nsid, not by name");
        cr_assert_str_eq(missing[0], "B/1 (nvme1n1)");
        strv_free(missing);
        cr_assert_eq(node_namespaces_missing(&now, &before, &missing), 0);
        cr_assert_null(missing);
}

/* Mode=observe: the mode and the would-do line go through the
 * file; a file from before them reads as enforce with nothing to say. */
Test(state_file, mode_and_would) {
        StateFile s = { .state = SWAP_STATE_WOULD_UNLOAD, .mode = SWAP_MODE_OBSERVE,
                        .would = (char *) "would unload nvme nvme_core for abc" };
        _cleanup_free_ char *text = NULL;
        StateFile *back = NULL;

        cr_assert_eq(state_file_to_json(&s, &text), 0);
        cr_assert_eq(state_file_from_json(text, &back), 0);
        cr_assert_eq(back->state, SWAP_STATE_WOULD_UNLOAD);
        cr_assert_eq(back->mode, SWAP_MODE_OBSERVE);
        cr_assert_str_eq(back->would, "would unload nvme nvme_core for abc");
        back = state_file_free(back);

        cr_assert_eq(state_file_from_json("{\"state\": \"swapped\"}", &back), 0);
        cr_assert_eq(back->mode, SWAP_MODE_ENFORCE);
        cr_assert_null(back->would);
        back = state_file_free(back);

        cr_assert_eq(state_file_from_json("{\"state\": \"swapped\", \"mode\": \"maybe\"}", &back), -EBADMSG);
}
