/* SPDX-License-Identifier: Apache-2.0 */
/* A driver container's module metadata, parsed in the parser child
 * (sandbox/module-meta-job.h, sandbox/modules-dep-job.h): the child's
 * answers are those of the in-process parsers, and the parent refuses every
 * reply a taken-over child could write that its own checks do not pass (a
 * bad name, a path with "..", an absolute path, too many records, a reply
 * too large). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/module-elf.h"
#include "actions/module-tree.h"
#include "sandbox/module-meta-job.h"
#include "sandbox/modules-dep-job.h"
#include "sandbox/sandbox-reply.h"
#include "module-fixture.h"
#include "util/strv.h"

static bool strv_equal(char *const *a, char *const *b) {
        size_t n = strv_length(a);

        if (n != strv_length(b))
                return false;
        for (size_t i = 0; i < n; i++)
                if (strcmp(a[i], b[i]) != 0)
                        return false;
        return true;
}

/* ---- the modinfo job ---- */

Test(module_meta_job, the_child_answers_as_the_parser_does) {
        unsigned char a[1024], b[1024], c[1024];
        size_t na = fixture_ko(MODINFO("name=nvme\0vermagic=6.1.0-57-amd64 SMP preempt mod_unload\0"
                                     "srcversion=0123456789ABCDEF0123456\0depends=nvme-core,nvme-auth\0"),
                             a, sizeof(a));
        size_t nc = fixture_ko(MODINFO("name=not-a-name\0vermagic=6.1\0"), c, sizeof(c));
        BundlePart parts[3] = { { a, na }, { b, 16 }, { c, nc } };
        ModuleMeta got[3] = {}, want = {};
        int errors[3] = { 1, 1, 1 };
        const char *why = NULL;

        memset(b, 'x', sizeof(b)); /* not an ELF object */
        cr_assert_eq(module_meta_parse_confined(parts, 3, got, errors, &why), 0, "%s", why ?: "");
        cr_assert_eq(module_meta_parse(a, na, &want), 0);
        cr_assert_eq(errors[0], 0);
        cr_assert_str_eq(got[0].name, want.name);
        cr_assert_str_eq(got[0].vermagic, "6.1.0-57-amd64");
        cr_assert_str_eq(got[0].srcversion, want.srcversion);
        cr_assert_eq(strv_length(got[0].depends), 2);
        cr_assert_str_eq(got[0].depends[0], "nvme_core");
        cr_assert_str_eq(got[0].depends[1], "nvme_auth");
        cr_assert_eq(errors[1], -ENOEXEC);
        cr_assert_eq(errors[2], -EBADMSG, "a name the kernel would not take");
        cr_assert_null(got[1].name);
        for (size_t i = 0; i < 3; i++)
                module_meta_done(&got[i]);
        module_meta_done(&want);

        /* One image, through the caller's switch: the same answer both ways. */
        cr_assert_eq(module_meta_parse_in(true, a, na, &got[0], &why), 0);
        cr_assert_str_eq(got[0].name, "nvme");
        module_meta_done(&got[0]);
        cr_assert_eq(module_meta_parse_in(true, b, 16, &got[0], &why), -ENOEXEC);
        cr_assert_eq(module_meta_parse_in(false, b, 16, &got[0], &why), -ENOEXEC);
}

Test(module_meta_job, a_whole_batch_in_one_child) {
        static unsigned char ko[MODULE_META_BATCH_MAX][512];
        BundlePart parts[MODULE_META_BATCH_MAX + 1];
        static ModuleMeta got[MODULE_META_BATCH_MAX + 1];
        int errors[MODULE_META_BATCH_MAX + 1];
        const char *why = NULL;

        for (size_t i = 0; i < MODULE_META_BATCH_MAX; i++) {
                char mi[64];
                int n = snprintf(mi, sizeof(mi), "name=m%zu%cvermagic=6.1%c", i, '\0', '\0');

                parts[i] = (BundlePart) { ko[i], fixture_ko(mi, (size_t) n + 1, ko[i], sizeof(ko[i])) };
        }
        cr_assert_eq(module_meta_parse_confined(parts, MODULE_META_BATCH_MAX, got, errors, &why), 0, "%s",
                     why ?: "");
        for (size_t i = 0; i < MODULE_META_BATCH_MAX; i++) {
                char name[16];

                snprintf(name, sizeof(name), "m%zu", i);
                cr_assert_eq(errors[i], 0);
                cr_assert_str_eq(got[i].name, name);
                module_meta_done(&got[i]);
        }
        parts[MODULE_META_BATCH_MAX] = parts[0];
        cr_assert_eq(module_meta_parse_confined(parts, MODULE_META_BATCH_MAX + 1, got, errors, &why), -EINVAL);
}

/* A reply as a taken-over child may write it: each a list of records. */
typedef struct Rec {
        uint8_t key;
        const char *value;
} Rec;

static int meta_decode(const Rec *recs, size_t n_images, const char **why) {
        static ReplyWriter w;
        ModuleMeta metas[4] = {};
        int errors[4], r;

        w.len = 0;
        w.overflow = false;
        w.max = 0;
        for (const Rec *x = recs; x->key; x++)
                cr_assert_eq(reply_put_string(&w, x->key, x->value), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        r = module_meta_reply_decode(w.buf, w.len, n_images, metas, errors, why);
        for (size_t i = 0; i < 4; i++)
                module_meta_done(&metas[i]);
        return r;
}

enum { RES = MODULE_META_REPLY_RESULT, NAME = MODULE_META_REPLY_NAME, VER = MODULE_META_REPLY_VERMAGIC,
       SRC = MODULE_META_REPLY_SRCVERSION, DEP = MODULE_META_REPLY_DEPEND };

Test(module_meta_job, the_parent_refuses_what_it_would_not_accept) {
        static const struct {
                Rec recs[8];
                size_t n;
                const char *what;
        } bad[] = {
                { { { RES, "0" }, { NAME, "../nvme" } }, 1, "a name with a path in it" },
                { { { RES, "0" }, { NAME, "nvme-core" } }, 1, "a name the kernel does not spell" },
                { { { RES, "0" }, { NAME, "nvme" }, { DEP, "a b" } }, 1, "a dependency that is no name" },
                { { { RES, "0" }, { NAME, "nvme" }, { VER, "6.1 SMP" } }, 1, "a vermagic of two words" },
                { { { RES, "0" }, { NAME, "nvme" }, { NAME, "nvme" } }, 1, "a name twice" },
                { { { RES, "0" } }, 1, "a module without a name" },
                { { { NAME, "nvme" }, { RES, "0" } }, 1, "a field before any result" },
                { { { RES, "8" }, { NAME, "nvme" } }, 1, "a field after a failure" },
                { { { RES, "5" } }, 1, "an errno the parser cannot give" },
                { { { RES, "0" }, { NAME, "a" }, { RES, "0" }, { NAME, "b" } }, 1, "more results than images" },
                { { { RES, "0" }, { NAME, "a" } }, 2, "fewer results than images" },
                { { { 9, "x" } }, 1, "a key the job does not have" },
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                const char *why = NULL;

                cr_assert_eq(meta_decode(bad[i].recs, bad[i].n, &why), -EIO, "%s", bad[i].what);
                cr_assert_not_null(why, "%s", bad[i].what);
        }
        {
                static const Rec ok[] = { { RES, "0" }, { NAME, "nvme" }, { VER, "6.1" }, { DEP, "nvme_core" },
                                          { RES, "74" }, {} };
                const char *why = NULL;

                cr_assert_eq(meta_decode(ok, 2, &why), 0, "%s", why ?: "");
        }
}

Test(module_meta_job, too_many_dependencies_and_oversize_refused) {
        static ReplyWriter w;
        static uint8_t big[4 * 1024 * 1024];
        ModuleMeta m = {};
        int error;
        const char *why = NULL;

        w = (ReplyWriter) {};
        cr_assert_eq(reply_put_string(&w, RES, "0"), 0);
        cr_assert_eq(reply_put_string(&w, NAME, "nvme"), 0);
        for (unsigned i = 0; i <= MODULE_META_DEPENDS_MAX; i++)
                cr_assert_eq(reply_put_string(&w, DEP, "nvme_core"), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        cr_assert_eq(module_meta_reply_decode(w.buf, w.len, 1, &m, &error, &why), -EIO);
        cr_assert_not_null(why);
        reply_writer_done(&w);

        memset(big, 0, sizeof(big));
        why = NULL;
        cr_assert_gt(sizeof(big), module_meta_reply_max(1));
        cr_assert_eq(module_meta_reply_decode(big, sizeof(big), 1, &m, &error, &why), -EIO);
        cr_assert_str_eq(why, "the reply is larger than any reply may be");
}

/* ---- the index job ---- */

static void write_ko(const char *rel, const char *modinfo, size_t milen) {
        unsigned char buf[1024];

        fixture_tree_write(rel, buf, fixture_ko(modinfo, milen, buf, sizeof(buf)));
}

static void setup(void) {
        fixture_tree_make("sg-modjobs");
}

static void teardown(void) {
        fixture_tree_remove();
}

TestSuite(module_index_job, .init = setup, .fini = teardown);

/* Both trees hold the same modules, paths, dependencies and built-ins. */
static void assert_same_tree(const ModuleTree *a, const ModuleTree *b) {
        cr_assert_eq(a->n_entries, b->n_entries);
        cr_assert_eq(a->from_modules_dep, b->from_modules_dep);
        for (size_t i = 0; i < a->n_entries; i++) {
                const ModuleTreeEntry *x = &a->entries[i], *y = &b->entries[i];

                cr_assert_str_eq(x->name, y->name);
                cr_assert_str_eq(x->relpath, y->relpath);
                cr_assert_eq(x->rank, y->rank);
                cr_assert(strv_equal(x->depends, y->depends), "%s", x->name);
        }
        cr_assert(strv_equal(a->builtin, b->builtin));
}

static void open_both(ModuleTree **plain, ModuleTree **confined) {
        int root = open(fixture_tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const char *why = NULL;

        cr_assert_geq(root, 0);
        cr_assert_eq(module_tree_open_at(root, "lib/modules/6.1", "(test)", plain), 0);
        cr_assert_eq(module_tree_open_at_confined(root, "lib/modules/6.1", "(test)", confined, &why), 0, "%s",
                     why ?: "");
        close(root);
        cr_assert_not((*plain)->confined);
        cr_assert((*confined)->confined);
}

Test(module_index_job, the_child_indexes_as_the_host_parser_does) {
        static const char dep[] = "extra/nvme.ko: extra/nvme-core.ko kernel/drivers/nvme/host/nvme-auth.ko.xz\n"
                                  "extra/nvme-core.ko:\n"
                                  "/lib/modules/6.1/updates/nvme-core.ko: updates/t10-pi.ko\n"
                                  "extra/../../../x/evil.ko:\n"
                                  "/elsewhere/nvme_tcp.ko:\n"
                                  "no colon on this line\n"
                                  "kernel/drivers/nvme/host/nvme-auth.ko.xz:\n";
        static const char builtin[] = "kernel/block/t10-pi.ko\nkernel/lib/crc64-rocksoft.ko\nnot a module\n";
        ModuleTree *plain = NULL, *confined = NULL;

        fixture_tree_write("lib/modules/6.1/modules.dep", dep, sizeof(dep) - 1);
        fixture_tree_write("lib/modules/6.1/modules.builtin", builtin, sizeof(builtin) - 1);
        open_both(&plain, &confined);
        assert_same_tree(plain, confined);
        cr_assert_str_eq(module_tree_find(confined, "nvme_core")->relpath, "updates/nvme-core.ko",
                         "updates/ wins, its absolute spelling taken off");
        cr_assert_null(module_tree_find(confined, "evil"));
        cr_assert_null(module_tree_find(confined, "nvme_tcp"));
        cr_assert(module_tree_builtin(confined, "crc64_rocksoft"));
        module_tree_free(plain);
        module_tree_free(confined);
}

Test(module_index_job, a_tree_without_modules_dep_is_walked_in_the_child) {
        static const char xz[] = "\3757zXZ\0 compressed";
        ModuleTree *plain = NULL, *confined = NULL;

        write_ko("lib/modules/6.1/extra/nvme.ko", MODINFO("name=nvme\0vermagic=6.1\0depends=nvme-core\0"));
        write_ko("lib/modules/6.1/extra/nvme-core.ko", MODINFO("name=nvme_core\0vermagic=6.1\0"));
        write_ko("lib/modules/6.1/updates/nvme-core.ko", MODINFO("name=nvme_core\0vermagic=6.1\0depends=t10-pi\0"));
        fixture_tree_write("lib/modules/6.1/extra/junk.ko", "not an ELF object", 17);
        fixture_tree_write("lib/modules/6.1/kernel/t10-pi.ko.xz", xz, sizeof(xz) - 1);
        open_both(&plain, &confined);
        cr_assert_eq(confined->n_entries, 3, "nvme, nvme_core and t10_pi; junk is not a module");
        for (size_t i = 0; i < plain->n_entries; i++) {
                const ModuleTreeEntry *y = module_tree_find(confined, plain->entries[i].name);

                cr_assert_not_null(y, "%s", plain->entries[i].name);
                cr_assert_str_eq(y->relpath, plain->entries[i].relpath);
                cr_assert(strv_equal(y->depends, plain->entries[i].depends), "%s", y->name);
        }
        cr_assert_str_eq(module_tree_find(confined, "nvme")->depends[0], "nvme_core");
        cr_assert_str_eq(module_tree_find(confined, "nvme_core")->depends[0], "t10_pi", "updates/ wins");
        module_tree_free(plain);
        module_tree_free(confined);
}

Test(module_index_job, an_index_over_the_bounds_makes_the_tree_unreadable) {
        const size_t n = MODULE_INDEX_ENTRIES_MAX + 1;
        char *dep = malloc(n * 32), *p = dep;
        int root = open(fixture_tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ModuleTree *t = NULL;
        const char *why = NULL;

        cr_assert_not_null(dep);
        for (size_t i = 0; i < n; i++)
                p += sprintf(p, "extra/m%zu.ko:\n", i);
        fixture_tree_write("lib/modules/6.1/modules.dep", dep, (size_t) (p - dep));
        free(dep);
        cr_assert_eq(module_tree_open_at_confined(root, "lib/modules/6.1", "(test)", &t, &why), -EIO);
        cr_assert_null(t);
        cr_assert_str_eq(why, "the index names more modules than the daemon reads from a container");
        close(root);
}

static int index_decode(const Rec *recs, const char **why) {
        static ReplyWriter w;
        ModuleIndex *x = NULL;
        int r;

        reply_writer_done(&w);
        for (const Rec *rec = recs; rec->key; rec++)
                cr_assert_eq(reply_put_string(&w, rec->key, rec->value), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        r = module_index_reply_decode(w.buf, w.len, &x, why);
        if (r == 0)
                cr_assert_not_null(x);
        module_index_free(x);
        return r;
}

enum { ENTRY = MODULE_INDEX_REPLY_ENTRY, IDEP = MODULE_INDEX_REPLY_DEPEND, BUILTIN = MODULE_INDEX_REPLY_BUILTIN };

Test(module_index_job, the_parent_refuses_what_it_would_not_accept) {
        static const struct {
                Rec recs[4];
                const char *what;
        } bad[] = {
                { { { ENTRY, "extra/../../x/nvme.ko" } }, "a path with .." },
                { { { ENTRY, "/lib/modules/6.1/extra/nvme.ko" } }, "an absolute path (the child takes the prefix off)" },
                { { { ENTRY, "/etc/nvme.ko" } }, "another absolute path" },
                { { { ENTRY, "extra/./nvme.ko" } }, "a . component" },
                { { { ENTRY, "extra//nvme.ko" } }, "an empty component" },
                { { { ENTRY, "extra/README" } }, "a path that is no module file" },
                { { { ENTRY, "extra/a.b.ko" } }, "a module name the kernel does not spell" },
                { { { IDEP, "nvme_core" } }, "a dependency of no module" },
                { { { ENTRY, "extra/nvme.ko" }, { IDEP, "nvme-core" } }, "a dependency that is no name" },
                { { { BUILTIN, "t10-pi" } }, "a built-in that is no name" },
                { { { 7, "x" } }, "a key the job does not have" },
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                const char *why = NULL;

                cr_assert_eq(index_decode(bad[i].recs, &why), -EIO, "%s", bad[i].what);
                cr_assert_not_null(why, "%s", bad[i].what);
        }
        {
                static const Rec ok[] = { { ENTRY, "extra/nvme.ko" }, { IDEP, "nvme_core" }, { BUILTIN, "t10_pi" }, {} };
                const char *why = NULL;

                cr_assert_eq(index_decode(ok, &why), 0, "%s", why ?: "");
        }
}

Test(module_index_job, too_many_records_and_oversize_refused) {
        static ReplyWriter w;
        ModuleIndex *x = NULL;
        const char *why = NULL;
        uint8_t *big;

        w = (ReplyWriter) { .max = MODULE_INDEX_REPLY_MAX };
        for (unsigned i = 0; i <= MODULE_INDEX_BUILTIN_MAX; i++)
                cr_assert_eq(reply_put_string(&w, BUILTIN, "t10_pi"), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        cr_assert_eq(module_index_reply_decode(w.buf, w.len, &x, &why), -EIO);
        cr_assert_str_eq(why, "a field comes more often than allowed");
        reply_writer_done(&w);

        big = calloc(1, MODULE_INDEX_REPLY_MAX + 1);
        cr_assert_not_null(big);
        cr_assert_eq(module_index_reply_decode(big, MODULE_INDEX_REPLY_MAX + 1, &x, &why), -EIO);
        cr_assert_str_eq(why, "the reply is larger than any reply may be");
        free(big);

        /* The child's own error for an index over its bounds. */
        w = (ReplyWriter) {};
        cr_assert_eq(reply_put_errno(&w, -E2BIG), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        cr_assert_eq(module_index_reply_decode(w.buf, w.len, &x, &why), -EIO);
        cr_assert_str_eq(why, "the index names more modules than the daemon reads from a container");
        reply_writer_done(&w);
        cr_assert_null(x);
}
