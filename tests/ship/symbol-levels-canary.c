/* SPDX-License-Identifier: Apache-2.0 */
/* A binary that must FAIL the symbol-levels check: it imports one symbol
 * from each library that RHEL 9 does not have at its level. Never run, only
 * inspected; proves the check can fail (meson: should_fail). */

#include <json-c/json.h>
#include <libkmod.h>
#include <libmount.h>

int main(void) {
        struct kmod_module *m = NULL;
        struct json_object *a;

        /* libkmod 30: added to the old LIBKMOD_5 node, caught by name */
        kmod_module_new_from_name_lookup(NULL, "nvme", &m);
        /* json-c 0.15 (RHEL 9 has 0.14) */
        a = json_object_new_array_ext(4);
        json_object_put(a);
        /* util-linux 2.38 (RHEL 9 has 2.37) */
        return mnt_fs_is_regularfs(NULL);
}
