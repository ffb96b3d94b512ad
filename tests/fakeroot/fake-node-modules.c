/* SPDX-License-Identifier: Apache-2.0 */
/* Loaded modules as the kernel shows them: sys/module/<m>/{refcnt,holders,
 * taint,...}, proc/modules rebuilt from it, and the module's proc/kallsyms
 * lines (see fake-node-modules.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-node-private.h"

static int module_refcnt_raw(const FakeNode *n, const char *name, int *ret) {
        _auto_free_ char *rel = NULL, *s = NULL;
        int r;

        if (asprintf(&rel, "sys/module/%s/refcnt", name) < 0)
                return -ENOMEM;
        r = fnode_read_line_rel(n, rel, &s);
        if (r < 0)
                return r;
        *ret = atoi(s);
        return 0;
}

/* The /proc/modules line of a module, rebuilt from its sysfs directory:
 * "name size refcnt holder1,holder2, Live 0x... (taint)". */
static int module_line(const FakeNode *n, const char *name, char **ret) {
        _auto_free_ char *holders_path = fnode_rpath(n, "sys/module/%s/holders", name);
        _auto_free_ char *trel = NULL, *taint = NULL, *users = NULL;
        char **holders = NULL;
        size_t ulen = 0;
        FILE *u;
        int refcnt = 0, r;

        if (!holders_path || asprintf(&trel, "sys/module/%s/taint", name) < 0)
                return -ENOMEM;
        r = module_refcnt_raw(n, name, &refcnt);
        if (r < 0)
                return r;
        (void) fnode_read_line_rel(n, trel, &taint);
        r = fnode_list_entries(holders_path, &holders);
        if (r < 0)
                return r;
        u = open_memstream(&users, &ulen);
        if (!u) {
                fake_strv_free(holders);
                return -ENOMEM;
        }
        for (size_t i = 0; holders[i]; i++)
                fprintf(u, "%s,", holders[i]);
        if (!holders[0])
                fputs("-", u);
        fclose(u);
        fake_strv_free(holders);

        r = asprintf(ret, "%s 16384 %d %s Live 0x0000000000000000%s%s%s\n", name, refcnt, users,
                     taint && taint[0] ? " (" : "", taint && taint[0] ? taint : "", taint && taint[0] ? ")" : "");
        return r < 0 ? -ENOMEM : 0;
}

/* Replaces (or removes, with line NULL) the line of name in proc/modules;
 * a new module goes first, as the kernel lists the newest first. */
static int proc_modules_set(const FakeNode *n, const char *name, const char *line) {
        _auto_free_ char *path = fnode_rpath(n, "proc/modules"), *text = NULL, *out = NULL;
        size_t olen = 0, nlen = strlen(name);
        bool replaced = false;
        FILE *o;
        int r;

        if (!path)
                return -ENOMEM;
        r = fnode_read_file(path, &text);
        if (r < 0 && r != -ENOENT)
                return r;
        o = open_memstream(&out, &olen);
        if (!o)
                return -ENOMEM;
        for (char *s = text, *e; s && *s; s = e) {
                e = strchrnul(s, '\n');
                if (*e)
                        e++;
                if (strncmp(s, name, nlen) == 0 && s[nlen] == ' ') {
                        if (line)
                                fputs(line, o);
                        replaced = true;
                        continue;
                }
                fwrite(s, 1, (size_t) (e - s), o);
        }
        fclose(o);
        if (!replaced && line) {
                _auto_free_ char *joined = NULL;

                if (asprintf(&joined, "%s%s", line, out ? out : "") < 0)
                        return -ENOMEM;
                return fnode_write_file(path, joined);
        }
        return fnode_write_file(path, out ? out : "");
}

static int module_sync_line(const FakeNode *n, const char *name) {
        _auto_free_ char *line = NULL;
        int r;

        r = module_line(n, name, &line);
        return r < 0 ? r : proc_modules_set(n, name, line);
}

static unsigned long name_hash(const char *s) {
        unsigned long h = 5381;

        while (*s)
                h = h * 33 + (unsigned char) *s++;
        return h;
}

static int module_dir_create(FakeNode *n, const char *name, int refcnt, const char *taint) {
        _auto_free_ char *dir = fnode_rpath(n, "sys/module/%s/holders", name);
        char buf[64];
        int r;

        if (!dir)
                return -ENOMEM;
        r = fnode_mkdir_p(dir);
        if (r < 0)
                return r;
        snprintf(buf, sizeof(buf), "%d\n", refcnt);
        if ((r = fnode_writef(n, "live\n", "sys/module/%s/initstate", name)) < 0 ||
            (r = fnode_writef(n, buf, "sys/module/%s/refcnt", name)) < 0)
                return r;
        snprintf(buf, sizeof(buf), "%s\n", taint ? taint : "");
        if ((r = fnode_writef(n, buf, "sys/module/%s/taint", name)) < 0)
                return r;
        /* Different builds differ in srcversion; same name and taint agree. */
        snprintf(buf, sizeof(buf), "%016lX%08lX\n", name_hash(name), name_hash(taint ? taint : "") & 0xffffffffUL);
        return fnode_writef(n, buf, "sys/module/%s/srcversion", name);
}

static int holder_link(FakeNode *n, const char *module, const char *holder, bool add) {
        _auto_free_ char *link = NULL, *target = NULL;

        if (asprintf(&link, "sys/module/%s/holders/%s", module, holder) < 0 ||
            asprintf(&target, "sys/module/%s", holder) < 0)
                return -ENOMEM;
        if (add)
                return fnode_symlink_rel(n, target, link);
        {
                _auto_free_ char *p = fnode_rpath(n, "%s", link);

                return p && unlink(p) < 0 && errno != ENOENT ? -errno : 0;
        }
}

int fake_node_add_module(FakeNode *n, const char *name, int refcnt, const char *const *holders,
                         const char *taint) {
        size_t nh = 0;
        int r;

        while (holders && holders[nh])
                nh++;
        r = module_dir_create(n, name, refcnt < 0 ? (int) nh : refcnt, taint);
        if (r >= 0)
                r = fnode_module_devices(n, name, true);
        for (size_t i = 0; r >= 0 && i < nh; i++)
                r = holder_link(n, name, holders[i], true);
        return r < 0 ? r : module_sync_line(n, name);
}

int fake_node_module_loaded(FakeNode *n, const char *name) {
        _auto_free_ char *rel = NULL;

        if (asprintf(&rel, "sys/module/%s/initstate", name) < 0)
                return -ENOMEM;
        return fnode_exists_rel(n, rel) ? 1 : 0;
}

int fake_node_module_refcnt(FakeNode *n, const char *name, int *ret) {
        return module_refcnt_raw(n, name, ret);
}

int fake_node_module_holders(FakeNode *n, const char *name, char ***ret) {
        _auto_free_ char *p = fnode_rpath(n, "sys/module/%s/holders", name);

        return p ? fnode_list_entries(p, ret) : -ENOMEM;
}

int fake_node_module_set_refcnt(FakeNode *n, const char *name, int refcnt) {
        char buf[32];
        int r;

        snprintf(buf, sizeof(buf), "%d\n", refcnt < 0 ? 0 : refcnt);
        r = fnode_writef(n, buf, "sys/module/%s/refcnt", name);
        return r < 0 ? r : module_sync_line(n, name);
}

int fake_node_module_inserted(FakeNode *n, const char *name, const char *const *depends, const char *taint) {
        int r;

        r = module_dir_create(n, name, 0, taint);
        if (r >= 0)
                r = fnode_module_devices(n, name, true);
        if (r < 0)
                return r;
        r = module_sync_line(n, name);
        for (size_t i = 0; r >= 0 && depends && depends[i]; i++) {
                int refcnt = 0;

                if (fake_node_module_loaded(n, depends[i]) <= 0)
                        continue;
                r = holder_link(n, depends[i], name, true);
                if (r >= 0)
                        r = module_refcnt_raw(n, depends[i], &refcnt);
                if (r >= 0)
                        r = fake_node_module_set_refcnt(n, depends[i], refcnt + 1);
        }
        return r;
}

int fake_node_module_removed(FakeNode *n, const char *name) {
        _auto_free_ char *mods = fnode_rpath(n, "sys/module"), *dir = fnode_rpath(n, "sys/module/%s", name);
        char **all = NULL;
        int r;

        if (!mods || !dir)
                return -ENOMEM;
        r = fnode_list_entries(mods, &all);
        for (size_t i = 0; r >= 0 && all[i]; i++) {
                _auto_free_ char *rel = NULL;
                int refcnt = 0;

                if (asprintf(&rel, "sys/module/%s/holders/%s", all[i], name) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (!fnode_exists_rel(n, rel))
                        continue;
                r = holder_link(n, all[i], name, false);
                if (r >= 0)
                        r = module_refcnt_raw(n, all[i], &refcnt);
                if (r >= 0)
                        r = fake_node_module_set_refcnt(n, all[i], refcnt - 1);
        }
        fake_strv_free(all);
        if (r < 0)
                return r;
        r = fnode_rm_rf(dir);
        if (r >= 0)
                r = fnode_module_devices(n, name, false);
        if (r < 0)
                return r;
        r = proc_modules_set(n, name, NULL);
        return r < 0 ? r : fake_node_remove_kallsyms_of(n, name);
}

int fake_node_add_kallsyms(FakeNode *n, const char *symbol, const char *module) {
        _auto_free_ char *p = fnode_rpath(n, "proc/kallsyms"), *line = NULL;

        if (!p || asprintf(&line, "ffffffffc0000000 T %s\t[%s]\n", symbol, module) < 0)
                return -ENOMEM;
        return fnode_write_file_mode(p, line, "ae");
}

int fake_node_remove_kallsyms_of(FakeNode *n, const char *module) {
        _auto_free_ char *p = fnode_rpath(n, "proc/kallsyms"), *text = NULL, *out = NULL, *tag = NULL;
        size_t olen = 0;
        FILE *o;
        int r;

        if (!p || asprintf(&tag, "\t[%s]", module) < 0)
                return -ENOMEM;
        r = fnode_read_file(p, &text);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        o = open_memstream(&out, &olen);
        if (!o)
                return -ENOMEM;
        for (char *s = text, *e; *s; s = e) {
                e = strchrnul(s, '\n');
                if (*e)
                        e++;
                if (!memmem(s, (size_t) (e - s), tag, strlen(tag)))
                        fwrite(s, 1, (size_t) (e - s), o);
        }
        fclose(o);
        return fnode_write_file(p, out ? out : "");
}
