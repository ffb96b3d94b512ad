/* SPDX-License-Identifier: Apache-2.0 */
/* The driver container's environment, decided as the doca-driver
 * entrypoint reads it (values compared to exactly "true"). */

#include <criterion/criterion.h>
#include <string.h>

#include "container/driver-env.h"

Test(driver_env, get) {
        char *env[] = { (char *) "PATH=/usr/bin", (char *) "ENABLE_NFSRDMA=true", (char *) "ENABLE_NFSRDMA_X=no",
                        (char *) "EMPTY=", NULL };

        cr_assert_str_eq(driver_env_get(env, "ENABLE_NFSRDMA"), "true");
        cr_assert_str_eq(driver_env_get(env, "EMPTY"), "");
        cr_assert_null(driver_env_get(env, "ENABLE"), "a prefix is not the key");
        cr_assert_null(driver_env_get(NULL, "PATH"));
}

Test(driver_env, nfsrdma_true_expects_a_build) {
        char *env[] = { (char *) "ENABLE_NFSRDMA=true", (char *) "RESTORE_DRIVER_ON_POD_TERMINATION=false", NULL };
        DriverEnvDecision d = driver_env_decide(env, TREE_BUILD_ABSENT);

        cr_assert_not(d.build_ruled_out);
        cr_assert_eq(d.enable_nfsrdma, ENV_FLAG_TRUE);
        cr_assert_eq(d.restore_on_termination, ENV_FLAG_FALSE);
        cr_assert_null(d.assumed, "the environment told everything: %s", d.assumed);
}

Test(driver_env, sources_build_without_nfsrdma_gives_no_nvme_build) {
        char *unset[] = { (char *) "PATH=/usr/bin", NULL };
        char *off[] = { (char *) "ENABLE_NFSRDMA=false", NULL };
        char *odd[] = { (char *) "ENABLE_NFSRDMA=True", NULL };

        cr_assert(driver_env_decide(unset, TREE_BUILD_ABSENT).build_ruled_out);
        cr_assert(driver_env_decide(off, TREE_BUILD_ABSENT).build_ruled_out);
        cr_assert(driver_env_decide(odd, TREE_BUILD_ABSENT).build_ruled_out, "the entrypoint compares to \"true\"");
        cr_assert(strstr(driver_env_decide(off, TREE_BUILD_ABSENT).assumed, "sources build"));
}

Test(driver_env, precompiled_image_always_has_the_build) {
        char *off[] = { (char *) "ENABLE_NFSRDMA=false", NULL };
        DriverEnvDecision d = driver_env_decide(off, TREE_BUILD_PRESENT);

        cr_assert_not(d.build_ruled_out);
        cr_assert(strstr(d.assumed, "precompiled"));
}

Test(driver_env, unreadable_tree_rules_nothing_out) {
        DriverEnvDecision d = driver_env_decide(NULL, TREE_BUILD_UNKNOWN);

        cr_assert_not(d.build_ruled_out);
        cr_assert_not_null(d.assumed);
}

Test(driver_env, nvme_rdma_only_with_unload_storage_modules) {
        char *yes[] = { (char *) "ENABLE_NFSRDMA=true", (char *) "UNLOAD_STORAGE_MODULES=true", NULL };
        char *no[] = { (char *) "ENABLE_NFSRDMA=true", (char *) "UNLOAD_STORAGE_MODULES=false", NULL };
        char *unset[] = { (char *) "ENABLE_NFSRDMA=true", NULL };

        cr_assert(driver_env_decide(yes, TREE_BUILD_ABSENT).nvme_rdma_allowed);
        cr_assert_not(driver_env_decide(no, TREE_BUILD_ABSENT).nvme_rdma_allowed);
        cr_assert_not(driver_env_decide(unset, TREE_BUILD_ABSENT).nvme_rdma_allowed);
}

Test(driver_env, restore_on_termination_unset_is_said) {
        char *unset[] = { (char *) "ENABLE_NFSRDMA=true", NULL };
        DriverEnvDecision d = driver_env_decide(unset, TREE_BUILD_ABSENT);

        cr_assert_eq(d.restore_on_termination, ENV_FLAG_UNSET);
        cr_assert(strstr(d.assumed, "RESTORE_DRIVER_ON_POD_TERMINATION"));
        cr_assert_str_eq(env_flag_to_string(ENV_FLAG_UNSET), "unset");
}

/* What the container's tree holds at its start (container-tree.c). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "container/container-tree.h"

static void touch(const char *p) {
        FILE *f = fopen(p, "w");

        cr_assert_not_null(f, "%s", p);
        fclose(f);
}

Test(container_tree, rpm_dkms_and_empty_layouts) {
        char base[] = "/tmp/sg-tree-XXXXXX", p[512];

        cr_assert_not_null(mkdtemp(base));
        snprintf(p, sizeof(p), "%s/none", base);
        cr_assert_eq(container_tree_build(p, "nvme"), TREE_BUILD_ABSENT, "no tree at all: nothing built yet");
        snprintf(p, sizeof(p), "mkdir -p %s/rpm/kernel/drivers/nvme/host %s/rpm/extra/mlnx-nvme/host "
                 "%s/dkms/updates/dkms %s/empty/extra", base, base, base, base);
        cr_assert_eq(system(p), 0);
        snprintf(p, sizeof(p), "%s/rpm/kernel/drivers/nvme/host/nvme.ko.xz", base);
        touch(p);
        snprintf(p, sizeof(p), "%s/rpm", base);
        cr_assert_eq(container_tree_build(p, "nvme"), TREE_BUILD_ABSENT, "the in-tree copy under kernel/ is not a build");
        snprintf(p, sizeof(p), "%s/rpm/extra/mlnx-nvme/host/nvme-core.ko", base);
        touch(p);
        snprintf(p, sizeof(p), "%s/rpm", base);
        cr_assert_eq(container_tree_build(p, "nvme_core"), TREE_BUILD_PRESENT, "nvme-core.ko is nvme_core");
        cr_assert_eq(container_tree_build(p, "nvme"), TREE_BUILD_ABSENT);
        snprintf(p, sizeof(p), "%s/dkms/updates/dkms/nvme.ko", base);
        touch(p);
        snprintf(p, sizeof(p), "%s/dkms", base);
        cr_assert_eq(container_tree_build(p, "nvme"), TREE_BUILD_PRESENT);
        snprintf(p, sizeof(p), "%s/empty", base);
        cr_assert_eq(container_tree_build(p, "nvme"), TREE_BUILD_ABSENT);
        snprintf(p, sizeof(p), "rm -rf %s", base);
        cr_assert_eq(system(p), 0);
}
