/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "modules/module-origin.h"
#include "util/macro.h"

static const char *const origin_names[_MODULE_ORIGIN_MAX] = {
        [MODULE_ORIGIN_ABSENT] = "absent",
        [MODULE_ORIGIN_IN_TREE] = "in-tree",
        [MODULE_ORIGIN_OUT_OF_TREE] = "out-of-tree",
        [MODULE_ORIGIN_NVIDIA] = "nvidia",
};

const char *module_origin_to_string(ModuleOrigin o) {
        if (o < 0 || o >= _MODULE_ORIGIN_MAX)
                return NULL;
        return origin_names[o];
}

ModuleOrigin module_origin_from_string(const char *s) {
        for (int o = 0; s && o < _MODULE_ORIGIN_MAX; o++)
                if (streq(origin_names[o], s))
                        return (ModuleOrigin) o;
        return _MODULE_ORIGIN_INVALID;
}

ModuleOrigin module_origin_classify(bool loaded, const char *taint, bool depends_on_mlx_compat,
                                    bool has_gds_hooks) {
        if (!loaded)
                return MODULE_ORIGIN_ABSENT;
        /* NVIDIA's build is out-of-tree too: the stronger signals win. srcversion
         * is not used: equal sources give equal srcversions in both builds. */
        if (depends_on_mlx_compat || has_gds_hooks)
                return MODULE_ORIGIN_NVIDIA;
        if (taint && strchr(taint, 'O'))
                return MODULE_ORIGIN_OUT_OF_TREE;
        return MODULE_ORIGIN_IN_TREE;
}

static const char *const role_names[_MODULE_ROLE_MAX] = {
        [MODULE_ROLE_MEMBER] = "member",
        [MODULE_ROLE_HOLDER] = "holder",
        [MODULE_ROLE_SHARED] = "shared",
};

const char *module_role_to_string(ModuleRole r) {
        return r >= 0 && r < _MODULE_ROLE_MAX ? role_names[r] : NULL;
}

static const char *const build_names[_MODULE_BUILD_MAX] = {
        [MODULE_BUILD_ABSENT] = "absent",
        [MODULE_BUILD_IN_TREE] = "in-tree",
        [MODULE_BUILD_CONTAINER] = "container",
        [MODULE_BUILD_SHARED_FROM_HOST] = "shared-from-host",
};

const char *module_build_to_string(ModuleBuild b) {
        return b >= 0 && b < _MODULE_BUILD_MAX ? build_names[b] : NULL;
}

ModuleBuild module_build_from_string(const char *s) {
        for (int b = 0; s && b < _MODULE_BUILD_MAX; b++)
                if (streq(build_names[b], s))
                        return (ModuleBuild) b;
        return _MODULE_BUILD_INVALID;
}
