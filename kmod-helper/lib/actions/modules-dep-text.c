/* SPDX-License-Identifier: Apache-2.0 */
/* The text of a module tree's index (modules-dep-text.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "actions/module-elf.h"
#include "actions/module-file.h"
#include "actions/modules-dep-text.h"
#include "modules/module-stack.h"
#include "util/macro.h"
#include "util/strv.h"

static const char *const module_suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };

int module_name_from_path(const char *path, char **ret) {
        const char *base = strrchr(path, '/');
        size_t n = 0;
        char *name;

        base = base ? base + 1 : path;
        for (size_t i = 0; i < ELEMENTSOF(module_suffixes); i++) {
                size_t l = strlen(base), s = strlen(module_suffixes[i]);

                if (l > s && streq(base + l - s, module_suffixes[i])) {
                        n = l - s;
                        break;
                }
        }
        if (n == 0)
                return -EINVAL;

        name = strndup(base, n);
        if (!name)
                return -ENOMEM;
        module_name_normalize(name);
        *ret = name;
        return 0;
}

/* modules.dep paths are relative to the tree; depmods before kmod wrote
 * absolute /lib/modules/<release>/... paths, which inside a container's
 * root mean the same tree. Anything else absolute, and any ".." or "."
 * component, is refused: the index must not name a file outside the tree
 * (extra/../../../x/nvme.ko). */
static const char *relative_module_path(const char *p) {
        if (p[0] == '/') {
                if (!strneq(p, "/lib/modules/", 13))
                        return NULL;
                p = strchr(p + 13, '/');
                if (!p || !p[1])
                        return NULL;
                p++;
        }
        return module_relpath_valid(p) ? p : NULL;
}

static int parse_dep_line(char *line, ModulesDepLineFunc f, void *userdata) {
        _cleanup_free_ char *name = NULL;
        _cleanup_strv_free_ char **deps = NULL;
        char *colon, *rel, *tok, *save = NULL;
        int r;

        colon = strchr(line, ':');
        if (!colon)
                return 0;
        *colon = '\0';
        rel = (char *) relative_module_path(line);
        if (!rel || module_name_from_path(rel, &name) < 0)
                return 0;
        deps = strv_new_empty();
        if (!deps)
                return -ENOMEM;

        for (tok = strtok_r(colon + 1, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
                char *dep = NULL;

                if (module_name_from_path(tok, &dep) < 0)
                        continue;
                if (!module_name_valid(dep)) {
                        free(dep);
                        continue;
                }
                r = strv_push(&deps, dep);
                if (r < 0)
                        return r;
        }
        if (!module_name_valid(name))
                return 0;
        return f(userdata, TAKE_PTR(name), rel, TAKE_PTR(deps));
}

int modules_dep_parse_text(const char *text, ModulesDepLineFunc f, void *userdata) {
        _cleanup_free_ char *copy = strdup(text);
        char *line, *save = NULL;
        int r;

        if (!copy)
                return -ENOMEM;
        for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                r = parse_dep_line(line, f, userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}

int module_builtin_parse(const char *text, char ***list) {
        _cleanup_free_ char *copy = strdup(text);
        char *line, *save = NULL;
        int r;

        if (!copy)
                return -ENOMEM;
        for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *name = NULL;

                if (module_name_from_path(line, &name) < 0)
                        continue;
                if (!module_name_valid(name)) {
                        free(name);
                        continue;
                }
                r = strv_push(list, name);
                if (r < 0)
                        return r;
        }
        return 0;
}
