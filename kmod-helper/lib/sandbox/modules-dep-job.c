/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "actions/module-elf.h"
#include "actions/module-file.h"
#include "actions/modules-dep-text.h"
#include "sandbox/modules-dep-job.h"
#include "sandbox/parser-sandbox.h"
#include "sandbox/sandbox-bundle.h"
#include "sandbox/sandbox-failure.h"
#include "util/strv.h"

/* What the parent accepts of each field: the child sends nothing else. */
static bool entry_valid(const char *relpath) {
        _cleanup_free_ char *name = NULL;

        return strlen(relpath) <= MODULE_INDEX_RELPATH_MAX && module_relpath_valid(relpath) &&
               module_name_from_path(relpath, &name) >= 0 && module_name_valid(name);
}

static bool name_valid(const char *s) {
        return module_name_valid(s);
}

/* ---- the child ---- */

typedef struct IndexJob {
        bool has_dep, has_builtin; /* the parts of the bundle, in this order */
} IndexJob;

typedef struct Emit {
        ReplyWriter *w;
        size_t n_entries, n_depends;
} Emit;

/* Each module of modules.dep as it is parsed, straight into the reply:
 * duplicates and all (the parent settles them; glibc's qsort() asks the
 * kernel for sysinfo(), which the filter refuses). */
static int emit_entry(void *userdata, char *name, const char *relpath, char **depends) {
        _cleanup_strv_free_ char **d = depends;
        Emit *e = userdata;
        int r;

        free(name); /* the parent takes the name from the path itself */
        if (!entry_valid(relpath))
                return 0; /* as a malformed line: an overlong path */
        e->n_depends += strv_length(d);
        if (++e->n_entries > MODULE_INDEX_ENTRIES_MAX || e->n_depends > MODULE_INDEX_DEPENDS_MAX)
                return -E2BIG;
        r = reply_put_string(e->w, MODULE_INDEX_REPLY_ENTRY, relpath);
        STRV_FOREACH(x, d)
                if (r >= 0)
                        r = reply_put_string(e->w, MODULE_INDEX_REPLY_DEPEND, *x);
        return r;
}

static int job(int input_fd, ReplyWriter *w, void *userdata) {
        const IndexJob *j = userdata;
        _cleanup_strv_free_ char **builtin = strv_new_empty();
        _cleanup_free_ char *dep = NULL, *text = NULL;
        Emit e = { .w = w };
        size_t size;
        int r;

        if (!builtin)
                return -ENOMEM;
        if (j->has_dep) {
                r = sandbox_bundle_next(input_fd, MODULE_DEP_FILE_MAX, &dep, &size);
                if (r >= 0)
                        r = modules_dep_parse_text(dep, emit_entry, &e);
                if (r < 0)
                        return r;
        }
        if (j->has_builtin) {
                r = sandbox_bundle_next(input_fd, MODULE_DEP_FILE_MAX, &text, &size);
                if (r >= 0)
                        r = module_builtin_parse(text, &builtin);
                if (r < 0)
                        return r;
                if (strv_length(builtin) > MODULE_INDEX_BUILTIN_MAX)
                        return -E2BIG;
                STRV_FOREACH(b, builtin)
                        if ((r = reply_put_string(w, MODULE_INDEX_REPLY_BUILTIN, *b)) < 0)
                                return r;
        }
        return 0;
}

/* ---- the parent ---- */

static const ReplyField schema[] = {
        { MODULE_INDEX_REPLY_ENTRY, MODULE_INDEX_RELPATH_MAX, MODULE_INDEX_ENTRIES_MAX, entry_valid, "module path" },
        { MODULE_INDEX_REPLY_DEPEND, 55, MODULE_INDEX_DEPENDS_MAX, name_valid, "dependency" },
        { MODULE_INDEX_REPLY_BUILTIN, 55, MODULE_INDEX_BUILTIN_MAX, name_valid, "built-in module" },
};

static int refuse(const char **ret_why, const char *why) {
        if (ret_why)
                *ret_why = why;
        return -EIO;
}

ModuleIndex *module_index_free(ModuleIndex *x) {
        if (!x)
                return NULL;
        for (size_t i = 0; i < x->n_entries; i++) {
                free(x->entries[i].relpath);
                free(x->entries[i].name);
                strv_free(x->entries[i].depends);
        }
        free(x->entries);
        strv_free(x->builtin);
        free(x);
        return NULL;
}

int module_index_reply_decode(const uint8_t *buf, size_t len, ModuleIndex **ret, const char **ret_why) {
        _cleanup_(reply_freep) Reply *reply = NULL;
        _cleanup_(module_index_freep) ModuleIndex *x = NULL;
        const char *why = NULL;
        size_t n = 0;
        int r;

        r = reply_decode_max(buf, len, MODULE_INDEX_REPLY_MAX, schema, ELEMENTSOF(schema), &reply, &why);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return refuse(ret_why, why);
        switch (reply->error) {
        case 0:
                break;
        case E2BIG:
        case EMSGSIZE:
                return refuse(ret_why, "the index names more modules than the daemon reads from a container");
        case ENOMEM:
                return refuse(ret_why, "the parser child ran out of memory");
        default:
                return refuse(ret_why, "the parser child could not read the index");
        }
        x = calloc(1, sizeof(*x));
        if (!x)
                return -ENOMEM;
        x->builtin = strv_new_empty();
        for (size_t i = 0; i < reply->n_items; i++)
                n += reply->items[i].key == MODULE_INDEX_REPLY_ENTRY;
        x->entries = calloc(n ?: 1, sizeof(*x->entries));
        if (!x->builtin || !x->entries)
                return -ENOMEM;
        for (size_t i = 0; i < reply->n_items; i++) {
                const ReplyItem *it = &reply->items[i];
                ModuleIndexEntry *e = x->n_entries > 0 ? &x->entries[x->n_entries - 1] : NULL;

                switch (it->key) {
                case MODULE_INDEX_REPLY_ENTRY:
                        e = &x->entries[x->n_entries++];
                        e->relpath = strdup(it->value);
                        e->depends = strv_new_empty();
                        if (!e->relpath || !e->depends)
                                return -ENOMEM;
                        r = module_name_from_path(e->relpath, &e->name);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0 || !module_name_valid(e->name))
                                return refuse(ret_why, "a module path that names no module"); /* checked twice */
                        break;
                case MODULE_INDEX_REPLY_DEPEND:
                        if (!e)
                                return refuse(ret_why, "a dependency of no module");
                        if (strv_extend(&e->depends, it->value) < 0)
                                return -ENOMEM;
                        break;
                case MODULE_INDEX_REPLY_BUILTIN:
                        if (strv_extend(&x->builtin, it->value) < 0)
                                return -ENOMEM;
                        break;
                default:
                        return refuse(ret_why, "a field the job does not have");
                }
        }
        *ret = TAKE_PTR(x);
        return 0;
}

int module_index_parse_confined(const char *dep, size_t dep_size, const char *builtin, size_t builtin_size,
                                ModuleIndex **ret, const char **ret_why) {
        IndexJob j = { .has_dep = dep != NULL, .has_builtin = builtin != NULL };
        BundlePart parts[2];
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t n = 0, len = 0;
        int r, sig = 0;

        if (dep)
                parts[n++] = (BundlePart) { dep, dep_size };
        if (builtin)
                parts[n++] = (BundlePart) { builtin, builtin_size };
        r = sandbox_bundle_new(parts, n, &fd);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return refuse(ret_why, "the index could not be handed to the parser child");
        r = parser_sandbox_run_max(fd, MODULE_INDEX_REPLY_MAX, job, &j, &buf, &len, &sig);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return refuse(ret_why, parser_sandbox_failure(r, sig));
        return module_index_reply_decode(buf, len, ret, ret_why);
}
