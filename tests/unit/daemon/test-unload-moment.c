/* SPDX-License-Identifier: Apache-2.0 */
/* UnloadAt=auto's decision, one rule at a time, and the reading of the
 * container's openibd check_if_ok_to_stop. */

#include <criterion/criterion.h>

#include "swap/unload-moment.h"

/* Every rule holding: a first swap on a node with no NVIDIA build, no
 * nvme_rdma, a current image whose openibd does not stop on nvme. */
static UnloadMomentInput safe(void) {
        return (UnloadMomentInput) {
                .unload_storage_modules = ENV_FLAG_UNSET,
                .openibd_lists_nvme = KNOWN_NO,
                .image_loads_nvme = KNOWN_NO,
        };
}

static void expect(const UnloadMomentInput *in, UnloadAt at, UnloadMomentWhy why) {
        UnloadMoment d = unload_moment_decide(in);

        cr_assert_eq(d.at, at, "at %d, expected %d (why %s)", d.at, at, unload_moment_why_to_string(d.why));
        cr_assert_eq(d.why, why, "why: %s", unload_moment_why_to_string(d.why));
        cr_assert_not_null(unload_moment_why_to_string(d.why));
}

Test(unload_moment, first_swap_with_every_rule_is_at_the_ready_file) {
        UnloadMomentInput in = safe();

        expect(&in, UNLOAD_AT_DRIVER_READY, UNLOAD_MOMENT_SAFE_AT_READY);
}

Test(unload_moment, nvidia_build_loaded_is_at_the_start) {
        UnloadMomentInput in = safe();

        in.replacement_loaded = true;
        expect(&in, UNLOAD_AT_CONTAINER_START, UNLOAD_MOMENT_BUILD_LOADED);
        in = safe();
        in.earlier_build = true;
        expect(&in, UNLOAD_AT_CONTAINER_START, UNLOAD_MOMENT_BUILD_LOADED);
}

Test(unload_moment, nvme_rdma_only_when_the_container_unloads_it) {
        UnloadMomentInput in = safe();

        in.nvme_rdma_loaded = true;
        expect(&in, UNLOAD_AT_CONTAINER_START, UNLOAD_MOMENT_NVME_RDMA);
        in.unload_storage_modules = ENV_FLAG_FALSE;
        expect(&in, UNLOAD_AT_CONTAINER_START, UNLOAD_MOMENT_NVME_RDMA);
        in.unload_storage_modules = ENV_FLAG_TRUE;
        expect(&in, UNLOAD_AT_DRIVER_READY, UNLOAD_MOMENT_SAFE_AT_READY);
}

Test(unload_moment, openibd_that_stops_on_nvme_or_unread_is_at_the_start) {
        UnloadMomentInput in = safe();

        in.openibd_lists_nvme = KNOWN_YES;
        expect(&in, UNLOAD_AT_CONTAINER_START, UNLOAD_MOMENT_OPENIBD_LISTS_NVME);
        in.openibd_lists_nvme = KNOWN_UNKNOWN;
        expect(&in, UNLOAD_AT_CONTAINER_START, UNLOAD_MOMENT_OPENIBD_UNKNOWN);
}

Test(unload_moment, an_older_image_or_an_unknown_one_is_at_the_start) {
        UnloadMomentInput in = safe();

        in.image_loads_nvme = KNOWN_YES;
        expect(&in, UNLOAD_AT_CONTAINER_START, UNLOAD_MOMENT_IMAGE_LOADS_NVME);
        in.image_loads_nvme = KNOWN_UNKNOWN;
        expect(&in, UNLOAD_AT_CONTAINER_START, UNLOAD_MOMENT_IMAGE_UNKNOWN);
}

Test(unload_moment, the_build_loaded_wins_over_every_other_reason) {
        UnloadMomentInput in = { .replacement_loaded = true, .nvme_rdma_loaded = true,
                                 .openibd_lists_nvme = KNOWN_YES, .image_loads_nvme = KNOWN_YES };

        expect(&in, UNLOAD_AT_CONTAINER_START, UNLOAD_MOMENT_BUILD_LOADED);
}

/* ---- the container's openibd --------------------------------------------- */

/* As mlnx-ofa_kernel's mod_load_funcs has it (26.04), and 26.07 with nvme
 * added to the list. */
static const char openibd_2604[] =
        "is_module()\n{\n    local RC\n}\n"
        "check_if_ok_to_stop()\n"
        "{\n"
        "    # nvme: see unload_mlx_compat, /sys/module/mlx_compat/holders/nvme\n"
        "    for mod in ib_isert nvme_rdma nvmet_rdma rpcrdma xprtrdma ib_srpt\n"
        "    do\n"
        "        if is_module $mod && ! is_ref $mod; then\n"
        "            echo \"Please close all sessions and unload '$mod' module.\"\n"
        "        fi\n"
        "    done\n"
        "}\n"
        "unload_mlx_compat()\n{\n    if [ -d /sys/module/mlx_compat/holders/nvme ]; then modprobe -r nvme; fi\n}\n"
        "stop()\n{\n    check_if_ok_to_stop\n}\n";

static const char openibd_2607[] =
        "check_if_ok_to_stop() {\n"
        "    for mod in ib_isert nvme_rdma nvmet_rdma rpcrdma xprtrdma ib_srpt nvme\n"
        "    do\n"
        "        :\n"
        "    done\n"
        "}\n";

/* 26.04's body says nvme in its messages (mlnx-ofa_kernel
 * ofed_scripts/mod_load_funcs, check_if_ok_to_stop: a case on the blocking
 * module that echoes a sentence per module, an awk program in quotes). */
static const char openibd_2604_messages[] =
        "check_if_ok_to_stop() {\n"
        "    local blocking_modules cannot_continue\n"
        "    entries=$(lsof -nP | awk '{print $1 \" \" $NF}' | sort -u) # don't look at nvme here\n"
        "    for mod in ib_isert nvme_rdma nvmet_rdma rpcrdma xprtrdma ib_srpt; do\n"
        "        case \"$mod\" in\n"
        "        nvme_rdma) echo \"Please close all nvme sessions and unload 'nvme_rdma' module.\";;\n"
        "        esac\n"
        "    done\n"
        "    echo \"# modprobe -rv ${blocking_modules} \\\"nvme\\\"\"\n"
        "}\n";

Test(unload_moment, openibd_check_if_ok_to_stop) {
        cr_assert_eq(openibd_check_lists_nvme(openibd_2604_messages), KNOWN_NO, "nvme in a quoted sentence");
        cr_assert_eq(openibd_check_lists_nvme("check_if_ok_to_stop() {\n  echo \"don't\"\n  for m in 'nvme'; do :; done\n}\n"),
                     KNOWN_YES, "a quoted single word after a sentence");
        cr_assert_eq(openibd_check_lists_nvme(openibd_2604), KNOWN_NO, "nvme_rdma, comments, paths are not nvme");
        cr_assert_eq(openibd_check_lists_nvme(openibd_2607), KNOWN_YES);
        cr_assert_eq(openibd_check_lists_nvme("stop()\n{\n    check_if_ok_to_stop\n}\n"), KNOWN_UNKNOWN,
                     "a call is not the definition");
        cr_assert_eq(openibd_check_lists_nvme(""), KNOWN_UNKNOWN);
        cr_assert_eq(openibd_check_lists_nvme(NULL), KNOWN_UNKNOWN);
        cr_assert_eq(openibd_check_lists_nvme("check_if_ok_to_stop ()\n{\n  for m in \"nvme\"; do :; done\n}\n"),
                     KNOWN_YES, "quoted, spaced definition");
}

/* ---- the container's entrypoint ------------------------------------------ */

Test(unload_moment, entrypoint_that_loads_nvme) {
        /* doca-driver-build's entrypoint.sh before PR #91 */
        cr_assert_eq(entrypoint_loads_nvme("#!/bin/bash\n/etc/init.d/openibd restart\nmodprobe nvme\nmodprobe nvme-rdma\n"),
                     KNOWN_YES);
        cr_assert_eq(entrypoint_loads_nvme("openibd restart && modprobe -q nvme_rdma || exit 1\n"), KNOWN_YES);
        cr_assert_eq(entrypoint_loads_nvme("  insmod /lib/modules/$K/extra/mlnx-nvme/host/nvme-core.ko\n"), KNOWN_YES);
        cr_assert_eq(entrypoint_loads_nvme("for m in a; do modprobe \"nvme\"; done\n"), KNOWN_YES);
}

Test(unload_moment, entrypoint_that_does_not) {
        cr_assert_eq(entrypoint_loads_nvme("#!/bin/bash\n# older images: modprobe nvme\nopenibd restart\n"), KNOWN_NO,
                     "a comment");
        cr_assert_eq(entrypoint_loads_nvme("modprobe -r nvme\nrmmod nvme\n"), KNOWN_NO, "removals");
        cr_assert_eq(entrypoint_loads_nvme("modprobe nvmet\nmodprobe rpcrdma\n"), KNOWN_NO, "nvmet is another module");
        cr_assert_eq(entrypoint_loads_nvme("exec /usr/local/bin/entrypoint \"$@\"\n"), KNOWN_NO, "loader.sh");
        cr_assert_eq(entrypoint_loads_nvme(""), KNOWN_NO);
        cr_assert_eq(entrypoint_loads_nvme(NULL), KNOWN_UNKNOWN);
}
