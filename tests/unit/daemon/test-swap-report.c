/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "swap/swap-report.h"

/* After a swap the journal named mlx_compat and t10_pi as loaded "from"
 * the container although openibd had loaded mlx_compat and t10_pi came from
 * the host's tree: say where each one came from. */
Test(swap_report, load_names_where_each_module_came_from) {
        char *from_tree[] = { (char *) "nvme_core", (char *) "nvme", NULL };
        char *from_host[] = { (char *) "t10_pi", NULL };
        char *already[] = { (char *) "mlx_compat", NULL };
        char *all[] = { (char *) "mlx_compat", (char *) "t10_pi", (char *) "nvme_core", (char *) "nvme", NULL };
        NodeLoadResult l = { .loaded = all, .from_tree = from_tree, .from_host = from_host, .already = already };
        char *s = swap_load_describe(&l, "/proc/42/root/lib/modules/6.1.0-57-amd64");

        cr_assert_str_eq(s, "Loaded nvme_core nvme from the driver container's tree "
                            "/proc/42/root/lib/modules/6.1.0-57-amd64; from the host's tree (not stack "
                            "modules): t10_pi; already loaded, left as they were: mlx_compat.");
        free(s);
}

Test(swap_report, load_without_host_or_already_loaded_modules) {
        char *from_tree[] = { (char *) "nvme_core", (char *) "nvme", NULL };
        NodeLoadResult l = { .loaded = from_tree, .from_tree = from_tree };
        char *s = swap_load_describe(&l, "/t");

        cr_assert_str_eq(s, "Loaded nvme_core nvme from the driver container's tree /t.");
        free(s);
}

Test(swap_report, load_of_nothing_new) {
        char *already[] = { (char *) "nvme_core", NULL };
        NodeLoadResult l = { .loaded = already, .already = already };
        char *s = swap_load_describe(&l, "/t");

        cr_assert_str_eq(s, "Loaded nothing from the driver container's tree /t; already loaded, left as they "
                            "were: nvme_core.");
        free(s);
        cr_assert_null(swap_load_describe(NULL, "/t"));
}

/* 6.12: a shared module the container's build replaced, and one
 * it could not because nvmet holds it. */
Test(swap_report, load_names_replaced_and_kept_shared_modules) {
        char *from_tree[] = { (char *) "nvme_keyring", (char *) "nvme_core", (char *) "nvme", NULL };
        char *already[] = { (char *) "nvme_auth", NULL };
        char *replaced[] = { (char *) "nvme_keyring", NULL };
        char *kept[] = { (char *) "nvme_auth: the loaded build stays, /t ships its own but this one is held by nvmet",
                         NULL };
        NodeLoadResult l = { .loaded = from_tree, .from_tree = from_tree, .already = already,
                              .replaced = replaced, .kept = kept };
        char *s = swap_load_describe(&l, "/t");

        cr_assert_str_eq(s, "Loaded nvme_keyring nvme_core nvme from the driver container's tree /t; already "
                            "loaded, left as they were: nvme_auth; the host's shared module(s) replaced by the "
                            "container's: nvme_keyring; nvme_auth: the loaded build stays, /t ships its own but "
                            "this one is held by nvmet.");
        free(s);
}
