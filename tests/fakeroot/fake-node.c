/* SPDX-License-Identifier: Apache-2.0 */
/* The fake node: see fake-node.h. Plain libc only, because the fake kernel
 * (an LD_PRELOAD library) links this file too. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fake-node.h"

struct FakeNode {
        char *root;
        int next_minor; /* -1 until counted: building 1,024 namespaces stays linear */
};

#define NVME_BLOCK_MAJOR 259
#define DM_MAJOR 253

static void freep_(void *p) {
        free(*(void **) p);
}
#define _auto_free_ __attribute__((cleanup(freep_)))

void fake_strv_free(char **l) {
        for (size_t i = 0; l && l[i]; i++)
                free(l[i]);
        free(l);
}

/* "<root>/<fmt...>" */
__attribute__((format(printf, 2, 3)))
static char *rpath(const FakeNode *n, const char *fmt, ...) {
        char *rel = NULL, *p = NULL;
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(&rel, fmt, ap) < 0)
                rel = NULL;
        va_end(ap);
        if (!rel || asprintf(&p, "%s/%s", n->root, rel[0] == '/' ? rel + 1 : rel) < 0)
                p = NULL;
        free(rel);
        return p;
}

static int mkdir_p(const char *path) {
        _auto_free_ char *copy = strdup(path);

        if (!copy)
                return -ENOMEM;
        for (char *s = copy + 1; *s; s++)
                if (*s == '/') {
                        *s = '\0';
                        if (mkdir(copy, 0755) < 0 && errno != EEXIST)
                                return -errno;
                        *s = '/';
                }
        if (mkdir(copy, 0755) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

static int write_file_mode(const char *path, const char *content, const char *mode) {
        FILE *f;
        int r = 0;

        f = fopen(path, mode);
        if (!f)
                return -errno;
        if (fputs(content, f) < 0)
                r = -EIO;
        if (fclose(f) < 0 && r == 0)
                r = -errno;
        return r;
}

/* Atomically, like the kernel's files never look half-written. */
static int write_file(const char *path, const char *content) {
        _auto_free_ char *tmp = NULL;
        int r;

        if (asprintf(&tmp, "%s.tmp%d", path, (int) getpid()) < 0)
                return -ENOMEM;
        r = write_file_mode(tmp, content, "we");
        if (r < 0)
                return r;
        return rename(tmp, path) < 0 ? -errno : 0;
}

__attribute__((format(printf, 3, 4)))
static int writef(const FakeNode *n, const char *content, const char *fmt, ...) {
        _auto_free_ char *rel = NULL, *p = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&rel, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        p = rpath(n, "%s", rel);
        if (!p)
                return -ENOMEM;
        return write_file(p, content);
}

static int read_file(const char *path, char **ret) {
        FILE *f = fopen(path, "re");
        char *buf = NULL;
        size_t size = 0;
        ssize_t l;

        if (!f)
                return -errno;
        l = getdelim(&buf, &size, '\0', f);
        fclose(f);
        if (l < 0) {
                free(buf);
                buf = strdup("");
                if (!buf)
                        return -ENOMEM;
        }
        *ret = buf;
        return 0;
}

static int read_line_rel(const FakeNode *n, const char *rel, char **ret) {
        _auto_free_ char *p = rpath(n, "%s", rel);
        char *s;
        int r;

        if (!p)
                return -ENOMEM;
        r = read_file(p, &s);
        if (r < 0)
                return r;
        s[strcspn(s, "\n")] = '\0';
        *ret = s;
        return 0;
}

static bool exists_rel(const FakeNode *n, const char *rel) {
        _auto_free_ char *p = rpath(n, "%s", rel);
        struct stat st;

        return p && lstat(p, &st) == 0;
}

/* A link at link_rel pointing at target_rel (both relative to the root),
 * relative like sysfs's own links. */
static int symlink_rel(const FakeNode *n, const char *target_rel, const char *link_rel) {
        _auto_free_ char *target = NULL, *link = NULL;
        size_t common = 0, ups = 0;
        char *buf, *s;

        for (size_t i = 0; target_rel[i] && target_rel[i] == link_rel[i]; i++)
                if (target_rel[i] == '/')
                        common = i + 1;
        for (const char *c = link_rel + common; *c; c++)
                if (*c == '/')
                        ups++;
        buf = malloc(ups * 3 + strlen(target_rel) + 1);
        if (!buf)
                return -ENOMEM;
        s = buf;
        for (size_t i = 0; i < ups; i++)
                s = stpcpy(s, "../");
        strcpy(s, target_rel + common);
        target = buf;

        link = rpath(n, "%s", link_rel);
        if (!link)
                return -ENOMEM;
        (void) unlink(link);
        return symlink(target, link) < 0 ? -errno : 0;
}

static int count_entries(const FakeNode *n, const char *rel, const char *prefix) {
        _auto_free_ char *p = rpath(n, "%s", rel);
        struct dirent *de;
        int count = 0;
        DIR *d;

        if (!p)
                return -ENOMEM;
        d = opendir(p);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.' && strncmp(de->d_name, prefix, strlen(prefix)) == 0)
                        count++;
        closedir(d);
        return count;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The names in a directory, sorted: readdir order would make two equal
 * trees print differently. */
static int list_entries(const char *path, char ***ret) {
        char **l = calloc(1, sizeof(char *));
        size_t k = 0;
        struct dirent *de;
        DIR *d;

        if (!l)
                return -ENOMEM;
        d = opendir(path);
        if (!d) {
                *ret = l;
                return errno == ENOENT ? 0 : -errno;
        }
        while ((de = readdir(d))) {
                char **m;

                if (de->d_name[0] == '.')
                        continue;
                m = realloc(l, (k + 2) * sizeof(char *));
                if (!m)
                        break;
                l = m;
                l[k] = strdup(de->d_name);
                l[++k] = NULL;
        }
        closedir(d);
        qsort(l, k, sizeof(char *), cmp_str);
        *ret = l;
        return 0;
}

static int rm_rf(const char *path) {
        struct stat st;
        DIR *d;
        struct dirent *de;

        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISDIR(st.st_mode))
                return unlink(path) < 0 ? -errno : 0;
        d = opendir(path);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                _auto_free_ char *sub = NULL;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (asprintf(&sub, "%s/%s", path, de->d_name) < 0)
                        break;
                rm_rf(sub);
        }
        closedir(d);
        return rmdir(path) < 0 ? -errno : 0;
}

const char *fake_node_root(const FakeNode *n) {
        return n->root;
}

FakeNode *fake_node_free(FakeNode *n) {
        if (n) {
                free(n->root);
                free(n);
        }
        return NULL;
}

static int ensure_file(const FakeNode *n, const char *rel, const char *content) {
        return exists_rel(n, rel) ? 0 : writef(n, content, "%s", rel);
}

int fake_node_new(const char *dir, FakeNode **ret) {
        static const char *const dirs[] = {
                "proc/1", "proc/sys/kernel", "sys/module", "sys/class/block", "sys/block",
                "sys/class/nvme", "sys/class/nvme-subsystem", "sys/devices/virtual/block",
                "sys/devices/virtual/nvme-subsystem", "dev/.busy", "dev/mapper", "run", "etc",
        };
        FakeNode *n;
        char *release = NULL;
        int r;

        if (!dir || dir[0] != '/')
                return -EINVAL;
        n = calloc(1, sizeof(*n));
        if (n)
                n->next_minor = -1;
        if (!n || !(n->root = strdup(dir))) {
                free(n);
                return -ENOMEM;
        }
        for (size_t l = strlen(n->root); l > 1 && n->root[l - 1] == '/'; l--)
                n->root[l - 1] = '\0';

        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
                _auto_free_ char *p = rpath(n, "%s", dirs[i]);

                r = p ? mkdir_p(p) : -ENOMEM;
                if (r < 0)
                        goto fail;
        }
        if ((r = ensure_file(n, "proc/modules", "")) < 0 ||
            (r = ensure_file(n, "proc/kallsyms", "0000000000000000 T _stext\n")) < 0 ||
            (r = ensure_file(n, "proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")) < 0 ||
            (r = ensure_file(n, "proc/1/mountinfo",
                             "1 0 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n")) < 0 ||
            (r = ensure_file(n, "proc/1/comm", "systemd\n")) < 0 ||
            (r = ensure_file(n, "proc/sys/kernel/osrelease", FAKE_NODE_DEFAULT_RELEASE "\n")) < 0)
                goto fail;
        r = fake_node_get_osrelease(n, &release);
        if (r >= 0) {
                _auto_free_ char *p = rpath(n, "lib/modules/%s", release);

                r = p ? mkdir_p(p) : -ENOMEM;
                free(release);
        }
        if (r < 0)
                goto fail;
        *ret = n;
        return 0;
fail:
        fake_node_free(n);
        return r;
}

int fake_node_set_osrelease(FakeNode *n, const char *release) {
        _auto_free_ char *line = NULL, *p = NULL;
        int r;

        if (asprintf(&line, "%s\n", release) < 0)
                return -ENOMEM;
        r = writef(n, line, "proc/sys/kernel/osrelease");
        if (r < 0)
                return r;
        p = rpath(n, "lib/modules/%s", release);
        return p ? mkdir_p(p) : -ENOMEM;
}

int fake_node_get_osrelease(FakeNode *n, char **ret) {
        return read_line_rel(n, "proc/sys/kernel/osrelease", ret);
}

/* ---- modules ---------------------------------------------------------- */

static int module_refcnt_raw(const FakeNode *n, const char *name, int *ret) {
        _auto_free_ char *rel = NULL, *s = NULL;
        int r;

        if (asprintf(&rel, "sys/module/%s/refcnt", name) < 0)
                return -ENOMEM;
        r = read_line_rel(n, rel, &s);
        if (r < 0)
                return r;
        *ret = atoi(s);
        return 0;
}

/* The /proc/modules line of a module, rebuilt from its sysfs directory:
 * "name size refcnt holder1,holder2, Live 0x... (taint)". */
static int module_line(const FakeNode *n, const char *name, char **ret) {
        _auto_free_ char *holders_path = rpath(n, "sys/module/%s/holders", name);
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
        (void) read_line_rel(n, trel, &taint);
        r = list_entries(holders_path, &holders);
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
        _auto_free_ char *path = rpath(n, "proc/modules"), *text = NULL, *out = NULL;
        size_t olen = 0, nlen = strlen(name);
        bool replaced = false;
        FILE *o;
        int r;

        if (!path)
                return -ENOMEM;
        r = read_file(path, &text);
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
                return write_file(path, joined);
        }
        return write_file(path, out ? out : "");
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
        _auto_free_ char *dir = rpath(n, "sys/module/%s/holders", name);
        char buf[64];
        int r;

        if (!dir)
                return -ENOMEM;
        r = mkdir_p(dir);
        if (r < 0)
                return r;
        snprintf(buf, sizeof(buf), "%d\n", refcnt);
        if ((r = writef(n, "live\n", "sys/module/%s/initstate", name)) < 0 ||
            (r = writef(n, buf, "sys/module/%s/refcnt", name)) < 0)
                return r;
        snprintf(buf, sizeof(buf), "%s\n", taint ? taint : "");
        if ((r = writef(n, buf, "sys/module/%s/taint", name)) < 0)
                return r;
        /* Different builds differ in srcversion; same name and taint agree. */
        snprintf(buf, sizeof(buf), "%016lX%08lX\n", name_hash(name), name_hash(taint ? taint : "") & 0xffffffffUL);
        return writef(n, buf, "sys/module/%s/srcversion", name);
}

static int holder_link(FakeNode *n, const char *module, const char *holder, bool add) {
        _auto_free_ char *link = NULL, *target = NULL;

        if (asprintf(&link, "sys/module/%s/holders/%s", module, holder) < 0 ||
            asprintf(&target, "sys/module/%s", holder) < 0)
                return -ENOMEM;
        if (add)
                return symlink_rel(n, target, link);
        {
                _auto_free_ char *p = rpath(n, "%s", link);

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
        for (size_t i = 0; r >= 0 && i < nh; i++)
                r = holder_link(n, name, holders[i], true);
        return r < 0 ? r : module_sync_line(n, name);
}

int fake_node_module_loaded(FakeNode *n, const char *name) {
        _auto_free_ char *rel = NULL;

        if (asprintf(&rel, "sys/module/%s/initstate", name) < 0)
                return -ENOMEM;
        return exists_rel(n, rel) ? 1 : 0;
}

int fake_node_module_refcnt(FakeNode *n, const char *name, int *ret) {
        return module_refcnt_raw(n, name, ret);
}

int fake_node_module_holders(FakeNode *n, const char *name, char ***ret) {
        _auto_free_ char *p = rpath(n, "sys/module/%s/holders", name);

        return p ? list_entries(p, ret) : -ENOMEM;
}

int fake_node_module_set_refcnt(FakeNode *n, const char *name, int refcnt) {
        char buf[32];
        int r;

        snprintf(buf, sizeof(buf), "%d\n", refcnt < 0 ? 0 : refcnt);
        r = writef(n, buf, "sys/module/%s/refcnt", name);
        return r < 0 ? r : module_sync_line(n, name);
}

int fake_node_module_inserted(FakeNode *n, const char *name, const char *const *depends, const char *taint) {
        int r;

        r = module_dir_create(n, name, 0, taint);
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
        _auto_free_ char *mods = rpath(n, "sys/module"), *dir = rpath(n, "sys/module/%s", name);
        char **all = NULL;
        int r;

        if (!mods || !dir)
                return -ENOMEM;
        r = list_entries(mods, &all);
        for (size_t i = 0; r >= 0 && all[i]; i++) {
                _auto_free_ char *rel = NULL;
                int refcnt = 0;

                if (asprintf(&rel, "sys/module/%s/holders/%s", all[i], name) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (!exists_rel(n, rel))
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
        r = rm_rf(dir);
        if (r < 0)
                return r;
        r = proc_modules_set(n, name, NULL);
        return r < 0 ? r : fake_node_remove_kallsyms_of(n, name);
}

int fake_node_add_kallsyms(FakeNode *n, const char *symbol, const char *module) {
        _auto_free_ char *p = rpath(n, "proc/kallsyms"), *line = NULL;

        if (!p || asprintf(&line, "ffffffffc0000000 T %s\t[%s]\n", symbol, module) < 0)
                return -ENOMEM;
        return write_file_mode(p, line, "ae");
}

int fake_node_remove_kallsyms_of(FakeNode *n, const char *module) {
        _auto_free_ char *p = rpath(n, "proc/kallsyms"), *text = NULL, *out = NULL, *tag = NULL;
        size_t olen = 0;
        FILE *o;
        int r;

        if (!p || asprintf(&tag, "\t[%s]", module) < 0)
                return -ENOMEM;
        r = read_file(p, &text);
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
        return write_file(p, out ? out : "");
}

/* ---- NVMe controllers and block devices -------------------------------- */

static char *ctrl_rel(unsigned ctrl) {
        char *s;

        return asprintf(&s, "sys/devices/pci0000:00/0000:00:%02x.0/nvme/nvme%u", 4 + ctrl, ctrl) < 0 ? NULL : s;
}

static char *subsys_rel(unsigned ctrl) {
        char *s;

        return asprintf(&s, "sys/devices/virtual/nvme-subsystem/nvme-subsys%u", ctrl) < 0 ? NULL : s;
}

int fake_node_add_controller(FakeNode *n, unsigned ctrl, const char *transport, const char *serial,
                             const char *model) {
        _auto_free_ char *c = ctrl_rel(ctrl), *s = subsys_rel(ctrl), *cabs = NULL, *sabs = NULL;
        _auto_free_ char *link = NULL, *slink = NULL, *nqn = NULL, *ser = NULL, *addr = NULL, *dev = NULL;
        _auto_free_ char *inlink = NULL, *mod = NULL, *tr = NULL;
        int r;

        if (!c || !s)
                return -ENOMEM;
        if (exists_rel(n, c))
                return 0;
        cabs = rpath(n, "%s", c);
        sabs = rpath(n, "%s", s);
        if (!cabs || !sabs || asprintf(&link, "sys/class/nvme/nvme%u", ctrl) < 0 ||
            asprintf(&slink, "sys/class/nvme-subsystem/nvme-subsys%u", ctrl) < 0 ||
            asprintf(&inlink, "%s/nvme%u", s, ctrl) < 0 ||
            asprintf(&nqn, "nqn.2019-08.org.qemu:fake-subsys%u\n", ctrl) < 0 ||
            asprintf(&ser, "%s\n", serial ? serial : "") < 0 ||
            asprintf(&addr, "0000:00:%02x.0\n", 4 + ctrl) < 0 || asprintf(&dev, "241:%u\n", ctrl) < 0 ||
            asprintf(&mod, "%s\n", model ? model : "QEMU NVMe Ctrl") < 0 ||
            asprintf(&tr, "%s\n", transport ? transport : "pcie") < 0)
                return -ENOMEM;
        if (!serial) {
                free(ser);
                if (asprintf(&ser, "FAKESERIAL%04u\n", ctrl) < 0)
                        return -ENOMEM;
        }
        if ((r = mkdir_p(cabs)) < 0 || (r = mkdir_p(sabs)) < 0)
                return r;
        if ((r = writef(n, tr, "%s/transport", c)) < 0 || (r = writef(n, addr, "%s/address", c)) < 0 ||
            (r = writef(n, ser, "%s/serial", c)) < 0 || (r = writef(n, mod, "%s/model", c)) < 0 ||
            (r = writef(n, "1.0\n", "%s/firmware_rev", c)) < 0 || (r = writef(n, nqn, "%s/subsysnqn", c)) < 0 ||
            (r = writef(n, "live\n", "%s/state", c)) < 0 || (r = writef(n, dev, "%s/dev", c)) < 0 ||
            (r = writef(n, "1\n", "%s/cntlid", c)) < 0 || (r = writef(n, nqn, "%s/subsysnqn", s)) < 0 ||
            (r = writef(n, ser, "%s/serial", s)) < 0 || (r = writef(n, mod, "%s/model", s)) < 0 ||
            (r = writef(n, "numa\n", "%s/iopolicy", s)) < 0)
                return r;
        if ((r = symlink_rel(n, c, link)) < 0 || (r = symlink_rel(n, s, slink)) < 0)
                return r;
        return symlink_rel(n, c, inlink);
}

static int next_minor(FakeNode *n) {
        if (n->next_minor < 0) {
                int c = count_entries(n, "sys/class/block", "nvme");

                if (c < 0)
                        return c;
                n->next_minor = c;
        }
        return n->next_minor++;
}

static int block_dev_create(FakeNode *n, const char *dir_rel, const char *name, bool with_dev_node,
                            unsigned partition, unsigned nsid, bool hidden) {
        _auto_free_ char *abs = rpath(n, "%s/holders", dir_rel), *cls = NULL, *blk = NULL;
        char buf[64];
        int minor, r;

        if (!abs)
                return -ENOMEM;
        minor = next_minor(n);
        if (minor < 0)
                return minor;
        if ((r = mkdir_p(abs)) < 0)
                return r;
        snprintf(buf, sizeof(buf), "%d:%d\n", NVME_BLOCK_MAJOR, minor);
        if ((r = writef(n, buf, "%s/dev", dir_rel)) < 0 ||
            (r = writef(n, partition ? "1048576\n" : "4194304\n", "%s/size", dir_rel)) < 0 ||
            (r = writef(n, "0\n", "%s/ro", dir_rel)) < 0 || (r = writef(n, "0\n", "%s/removable", dir_rel)) < 0)
                return r;
        if (partition) {
                snprintf(buf, sizeof(buf), "%u\n", partition);
                if ((r = writef(n, buf, "%s/partition", dir_rel)) < 0 ||
                    (r = writef(n, "2048\n", "%s/start", dir_rel)) < 0)
                        return r;
        } else {
                snprintf(buf, sizeof(buf), "%u\n", nsid);
                if ((r = writef(n, buf, "%s/nsid", dir_rel)) < 0)
                        return r;
                snprintf(buf, sizeof(buf), "eui.%016x\n", nsid * 0x1111u + (unsigned) minor);
                if ((r = writef(n, buf, "%s/wwid", dir_rel)) < 0)
                        return r;
        }
        if (hidden && (r = writef(n, "1\n", "%s/hidden", dir_rel)) < 0)
                return r;
        if (asprintf(&cls, "sys/class/block/%s", name) < 0)
                return -ENOMEM;
        if ((r = symlink_rel(n, dir_rel, cls)) < 0)
                return r;
        if (!partition) {
                if (asprintf(&blk, "sys/block/%s", name) < 0)
                        return -ENOMEM;
                if ((r = symlink_rel(n, dir_rel, blk)) < 0)
                        return r;
        }
        if (!with_dev_node)
                return 0;
        return writef(n, "", "dev/%s", name);
}

int fake_node_add_namespace(FakeNode *n, unsigned ctrl, unsigned nsid, bool multipath, unsigned partitions) {
        _auto_free_ char *c = ctrl_rel(ctrl), *s = subsys_rel(ctrl), *name = NULL, *dir = NULL;
        int r;

        if (!c || !s)
                return -ENOMEM;
        r = fake_node_add_controller(n, ctrl, NULL, NULL, NULL);
        if (r < 0)
                return r;
        if (asprintf(&name, "nvme%un%u", ctrl, nsid) < 0 ||
            asprintf(&dir, "%s/%s", multipath ? s : c, name) < 0)
                return -ENOMEM;

        r = block_dev_create(n, dir, name, true, 0, nsid, false);
        if (r < 0)
                return r;
        if (multipath) {
                _auto_free_ char *path = NULL, *pdir = NULL, *mlink = NULL, *dlink = NULL, *mdir = NULL;

                if (asprintf(&path, "nvme%uc%un%u", ctrl, ctrl, nsid) < 0 ||
                    asprintf(&pdir, "%s/%s", c, path) < 0 || asprintf(&mdir, "%s/multipath", dir) < 0 ||
                    asprintf(&mlink, "%s/multipath/%s", dir, path) < 0 ||
                    asprintf(&dlink, "%s/device", pdir) < 0)
                        return -ENOMEM;
                r = block_dev_create(n, pdir, path, false, 0, nsid, true);
                if (r < 0)
                        return r;
                {
                        _auto_free_ char *mabs = rpath(n, "%s", mdir);

                        if (!mabs || (r = mkdir_p(mabs)) < 0)
                                return r < 0 ? r : -ENOMEM;
                }
                if ((r = symlink_rel(n, pdir, mlink)) < 0 || (r = symlink_rel(n, c, dlink)) < 0)
                        return r;
        } else {
                _auto_free_ char *dlink = NULL;

                if (asprintf(&dlink, "%s/device", dir) < 0)
                        return -ENOMEM;
                if ((r = symlink_rel(n, c, dlink)) < 0)
                        return r;
        }

        for (unsigned p = 1; p <= partitions; p++) {
                _auto_free_ char *pname = NULL, *pdir = NULL;

                if (asprintf(&pname, "%sp%u", name, p) < 0 || asprintf(&pdir, "%s/%s", dir, pname) < 0)
                        return -ENOMEM;
                r = block_dev_create(n, pdir, pname, true, p, nsid, false);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int block_devno(FakeNode *n, const char *dev, char **ret) {
        _auto_free_ char *rel = NULL;

        if (asprintf(&rel, "sys/class/block/%s/dev", dev) < 0)
                return -ENOMEM;
        return read_line_rel(n, rel, ret);
}

int fake_node_add_mount(FakeNode *n, const char *dev, const char *mountpoint, const char *fstype) {
        _auto_free_ char *devno = NULL, *line = NULL, *p = rpath(n, "proc/1/mountinfo");
        struct stat st;
        int r, id;

        if (!p)
                return -ENOMEM;
        r = block_devno(n, dev, &devno);
        if (r < 0)
                return r;
        /* Unique and growing without reading the table again: a benchmark
         * node appends 10,000 of them. */
        id = 100 + (stat(p, &st) == 0 ? (int) (st.st_size % 1000000000) : 0);
        if (asprintf(&line, "%d 1 %s / %s rw,relatime shared:%d - %s /dev/%s rw\n", id, devno, mountpoint, id,
                     fstype ? fstype : "xfs", dev) < 0)
                return -ENOMEM;
        return write_file_mode(p, line, "ae");
}

int fake_node_add_swap(FakeNode *n, const char *dev) {
        _auto_free_ char *p = rpath(n, "proc/swaps"), *line = NULL;

        if (!p || asprintf(&line, "/dev/%s                               partition\t1048572\t\t0\t\t-2\n", dev) < 0)
                return -ENOMEM;
        return write_file_mode(p, line, "ae");
}

int fake_node_add_dm_holder(FakeNode *n, const char *dev, const char *dm_name) {
        _auto_free_ char *dm = NULL, *dir = NULL, *abs = NULL, *devdir = NULL, *hl = NULL, *sl = NULL;
        _auto_free_ char *cls = NULL, *blk = NULL, *nm = NULL, *devno = NULL, *target = NULL, *mapper = NULL;
        char buf[256];
        ssize_t l;
        int k, r;

        k = count_entries(n, "sys/devices/virtual/block", "dm-");
        if (k < 0)
                return k;
        if (asprintf(&dm, "dm-%d", k) < 0 || asprintf(&dir, "sys/devices/virtual/block/%s", dm) < 0 ||
            asprintf(&cls, "sys/class/block/%s", dm) < 0 || asprintf(&blk, "sys/block/%s", dm) < 0 ||
            asprintf(&nm, "%s\n", dm_name) < 0 || asprintf(&devno, "%d:%d\n", DM_MAJOR, k) < 0)
                return -ENOMEM;
        abs = rpath(n, "%s/dm", dir);
        if (!abs || (r = mkdir_p(abs)) < 0)
                return abs ? r : -ENOMEM;
        free(abs);
        abs = rpath(n, "%s/holders", dir);
        if (!abs || (r = mkdir_p(abs)) < 0)
                return abs ? r : -ENOMEM;
        free(abs);
        abs = rpath(n, "%s/slaves", dir);
        if (!abs || (r = mkdir_p(abs)) < 0)
                return abs ? r : -ENOMEM;
        if ((r = writef(n, devno, "%s/dev", dir)) < 0 || (r = writef(n, nm, "%s/dm/name", dir)) < 0 ||
            (r = writef(n, "LVM-fake\n", "%s/dm/uuid", dir)) < 0 || (r = writef(n, "1048576\n", "%s/size", dir)) < 0)
                return r;
        if ((r = symlink_rel(n, dir, cls)) < 0 || (r = symlink_rel(n, dir, blk)) < 0)
                return r;

        /* Where the NVMe device really lives: resolve its class link. */
        {
                _auto_free_ char *link = rpath(n, "sys/class/block/%s", dev);

                if (!link)
                        return -ENOMEM;
                l = readlink(link, buf, sizeof(buf) - 1);
                if (l < 0)
                        return -errno;
                buf[l] = '\0';
        }
        if (strncmp(buf, "../../", 6) != 0)
                return -EINVAL;
        if (asprintf(&devdir, "sys/%s", buf + 6) < 0 || asprintf(&hl, "%s/holders/%s", devdir, dm) < 0 ||
            asprintf(&sl, "%s/slaves/%s", dir, dev) < 0)
                return -ENOMEM;
        if ((r = symlink_rel(n, dir, hl)) < 0 || (r = symlink_rel(n, devdir, sl)) < 0)
                return r;
        if ((r = writef(n, "", "dev/%s", dm)) < 0)
                return r;
        mapper = rpath(n, "dev/mapper/%s", dm_name);
        if (asprintf(&target, "../%s", dm) < 0 || !mapper)
                return -ENOMEM;
        (void) unlink(mapper);
        return symlink(target, mapper) < 0 ? -errno : 0;
}

int fake_node_add_process_fd(FakeNode *n, pid_t pid, const char *comm, const char *dev) {
        _auto_free_ char *fd = rpath(n, "proc/%d/fd", (int) pid), *line = NULL, *target = NULL, *link = NULL;
        _auto_free_ char *status = NULL;
        int k, r;

        if (!fd)
                return -ENOMEM;
        if ((r = mkdir_p(fd)) < 0)
                return r;
        if (asprintf(&line, "%s\n", comm) < 0 || asprintf(&status, "Name:\t%s\nPid:\t%d\n", comm, (int) pid) < 0)
                return -ENOMEM;
        if ((r = writef(n, line, "proc/%d/comm", (int) pid)) < 0 ||
            (r = writef(n, status, "proc/%d/status", (int) pid)) < 0 ||
            (r = writef(n, comm, "proc/%d/cmdline", (int) pid)) < 0)
                return r;
        {
                _auto_free_ char *rel = NULL;

                if (asprintf(&rel, "proc/%d/fd", (int) pid) < 0)
                        return -ENOMEM;
                k = count_entries(n, rel, "");
        }
        if (k < 0)
                return k;
        /* As the kernel shows it: the host's path, not the fake root's. */
        if (asprintf(&target, "/dev/%s", dev) < 0 || asprintf(&link, "%s/%d", fd, k + 3) < 0)
                return -ENOMEM;
        return symlink(target, link) < 0 ? -errno : 0;
}

int fake_node_claim(FakeNode *n, const char *dev) {
        return writef(n, "", "dev/.busy/%s", dev);
}

/* ---- the kernel's claim ------------------------------------------------ */

static bool text_has_token_line(const char *text, const char *needle) {
        for (const char *s = text; s && *s;) {
                const char *e = strchrnul(s, '\n');

                if (memmem(s, (size_t) (e - s), needle, strlen(needle)))
                        return true;
                s = *e ? e + 1 : e;
        }
        return false;
}

static int device_claimed_self(FakeNode *n, const char *dev) {
        _auto_free_ char *devno = NULL, *mi = NULL, *sw = NULL, *needle = NULL, *src = NULL, *busy = NULL;

        _auto_free_ char *holders = rpath(n, "sys/class/block/%s/holders", dev);
        char **h = NULL;
        bool has;

        if (!holders || asprintf(&busy, "dev/.busy/%s", dev) < 0)
                return -ENOMEM;
        if (exists_rel(n, busy))
                return 1;
        if (list_entries(holders, &h) >= 0) {
                has = h && h[0];
                fake_strv_free(h);
                if (has)
                        return 1;
        }
        if (asprintf(&src, " /dev/%s ", dev) < 0)
                return -ENOMEM;
        {
                _auto_free_ char *swp = rpath(n, "proc/swaps");
                _auto_free_ char *swneedle = NULL;

                if (!swp || asprintf(&swneedle, "/dev/%s ", dev) < 0)
                        return -ENOMEM;
                if (read_file(swp, &sw) >= 0 && text_has_token_line(sw, swneedle))
                        return 1;
        }
        {
                _auto_free_ char *mip = rpath(n, "proc/1/mountinfo");

                if (!mip)
                        return -ENOMEM;
                if (read_file(mip, &mi) < 0)
                        return 0;
        }
        if (text_has_token_line(mi, src))
                return 1;
        if (block_devno(n, dev, &devno) >= 0) {
                if (asprintf(&needle, " %s / ", devno) < 0)
                        return -ENOMEM;
                if (text_has_token_line(mi, needle))
                        return 1;
        }
        return 0;
}

int fake_node_device_claimed(FakeNode *n, const char *dev) {
        _auto_free_ char *dir = rpath(n, "sys/class/block/%s/", dev);
        char **entries = NULL;
        int r;

        if (!dir)
                return -ENOMEM;
        r = device_claimed_self(n, dev);
        if (r != 0)
                return r;
        /* A claimed partition makes the whole disk's exclusive open fail. */
        if (list_entries(dir, &entries) < 0)
                return 0;
        for (size_t i = 0; r == 0 && entries[i]; i++) {
                _auto_free_ char *part = NULL;

                if (strncmp(entries[i], dev, strlen(dev)) != 0 || entries[i][strlen(dev)] != 'p')
                        continue;
                if (asprintf(&part, "sys/class/block/%s/partition", entries[i]) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (exists_rel(n, part))
                        r = device_claimed_self(n, entries[i]);
        }
        fake_strv_free(entries);
        return r;
}

/* ---- module files ------------------------------------------------------ */

int fake_elf_modinfo(const void *image, size_t size, const char **ret, size_t *ret_size) {
        const Elf64_Ehdr *eh = image;
        const Elf64_Shdr *sh, *strtab;

        if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
                return -ENOEXEC;
        if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
            (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
                return -ENOEXEC;
        sh = (const Elf64_Shdr *) ((const char *) image + eh->e_shoff);
        strtab = &sh[eh->e_shstrndx];
        if (strtab->sh_offset > size || strtab->sh_size > size - strtab->sh_offset)
                return -ENOEXEC;
        for (unsigned i = 0; i < eh->e_shnum; i++) {
                const char *name;

                if (sh[i].sh_name >= strtab->sh_size)
                        continue;
                name = (const char *) image + strtab->sh_offset + sh[i].sh_name;
                if (strnlen(name, strtab->sh_size - sh[i].sh_name) == strtab->sh_size - sh[i].sh_name ||
                    strcmp(name, ".modinfo") != 0)
                        continue;
                if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
                        return -ENOEXEC;
                *ret = (const char *) image + sh[i].sh_offset;
                *ret_size = sh[i].sh_size;
                return 0;
        }
        return -ENOEXEC;
}

char *fake_modinfo_get(const char *modinfo, size_t size, const char *key) {
        size_t kl = strlen(key);

        for (size_t i = 0; i < size;) {
                const char *s = modinfo + i;
                size_t l = strnlen(s, size - i);

                if (l > kl && strncmp(s, key, kl) == 0 && s[kl] == '=')
                        return strndup(s + kl + 1, l - kl - 1);
                i += l + 1;
        }
        return NULL;
}

static int write_elf(const char *path, const char *modinfo, size_t modinfo_len) {
        static const char shstrtab[] = "\0.modinfo\0.shstrtab";
        size_t off_modinfo = sizeof(Elf64_Ehdr), off_str = off_modinfo + modinfo_len;
        size_t off_sh = (off_str + sizeof(shstrtab) + 7) & ~(size_t) 7;
        size_t total = off_sh + 3 * sizeof(Elf64_Shdr);
        char *buf = calloc(1, total);
        Elf64_Ehdr *eh = (Elf64_Ehdr *) buf;
        Elf64_Shdr *sh;
        FILE *f;
        int r = 0;

        if (!buf)
                return -ENOMEM;
        memcpy(eh->e_ident, ELFMAG, SELFMAG);
        eh->e_ident[EI_CLASS] = ELFCLASS64;
        eh->e_ident[EI_DATA] = ELFDATA2LSB;
        eh->e_ident[EI_VERSION] = EV_CURRENT;
        eh->e_type = ET_REL;
        eh->e_machine = EM_X86_64;
        eh->e_version = EV_CURRENT;
        eh->e_shoff = off_sh;
        eh->e_ehsize = sizeof(Elf64_Ehdr);
        eh->e_shentsize = sizeof(Elf64_Shdr);
        eh->e_shnum = 3;
        eh->e_shstrndx = 2;
        memcpy(buf + off_modinfo, modinfo, modinfo_len);
        memcpy(buf + off_str, shstrtab, sizeof(shstrtab));
        sh = (Elf64_Shdr *) (buf + off_sh);
        sh[1] = (Elf64_Shdr) { .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
                               .sh_offset = off_modinfo, .sh_size = modinfo_len, .sh_addralign = 1 };
        sh[2] = (Elf64_Shdr) { .sh_name = 10, .sh_type = SHT_STRTAB, .sh_offset = off_str,
                               .sh_size = sizeof(shstrtab), .sh_addralign = 1 };

        f = fopen(path, "we");
        if (!f)
                r = -errno;
        else {
                if (fwrite(buf, 1, total, f) != total)
                        r = -EIO;
                if (fclose(f) < 0 && r == 0)
                        r = -errno;
        }
        free(buf);
        return r;
}

int fake_node_add_ko(FakeNode *n, const char *tree, const char *relpath, const char *name,
                     const char *depends, const char *vermagic, const char *const *extra) {
        _auto_free_ char *path = rpath(n, "%s/%s", tree, relpath), *dir = NULL, *release = NULL, *mi = NULL;
        size_t milen = 0;
        FILE *m;
        char *slash;
        int r;

        if (!path || !(dir = strdup(path)))
                return -ENOMEM;
        slash = strrchr(dir, '/');
        *slash = '\0';
        if ((r = mkdir_p(dir)) < 0)
                return r;
        if (!vermagic) {
                r = fake_node_get_osrelease(n, &release);
                if (r < 0)
                        return r;
        }
        m = open_memstream(&mi, &milen);
        if (!m)
                return -ENOMEM;
        /* The strings a real module carries, each NUL-terminated. */
        fprintf(m, "license=GPL%cdescription=fake %s%cdepends=%s%cretpoline=Y%cname=%s%cvermagic=%s SMP preempt mod_unload modversions %c",
                0, name, 0, depends ? depends : "", 0, 0, name, 0, vermagic ? vermagic : release, 0);
        for (size_t i = 0; extra && extra[i]; i++)
                fprintf(m, "%s%c", extra[i], 0);
        if (fclose(m) < 0)
                return -ENOMEM;
        return write_elf(path, mi, milen);
}

/* ---- modules.dep ------------------------------------------------------- */

typedef struct KoEntry {
        char *name;
        char *rel;
        char *depends;
} KoEntry;

static int collect_ko(const char *base, const char *rel, KoEntry **v, size_t *nv) {
        _auto_free_ char *abs = NULL;
        struct dirent *de;
        DIR *d;
        int r = 0;

        if (asprintf(&abs, "%s%s%s", base, rel[0] ? "/" : "", rel) < 0)
                return -ENOMEM;
        d = opendir(abs);
        if (!d)
                return -errno;
        while (r >= 0 && (de = readdir(d))) {
                _auto_free_ char *sub = NULL, *file = NULL, *image = NULL;
                size_t l = strlen(de->d_name), misz;
                const char *mi;
                KoEntry *nvv;
                FILE *f;
                long sz;

                if (de->d_name[0] == '.')
                        continue;
                if (asprintf(&sub, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) < 0)
                        return closedir(d), -ENOMEM;
                if (de->d_type == DT_DIR) {
                        r = collect_ko(base, sub, v, nv);
                        continue;
                }
                if (l < 4 || strcmp(de->d_name + l - 3, ".ko") != 0)
                        continue;
                if (asprintf(&file, "%s/%s", base, sub) < 0)
                        return closedir(d), -ENOMEM;
                f = fopen(file, "re");
                if (!f)
                        continue;
                fseek(f, 0, SEEK_END);
                sz = ftell(f);
                rewind(f);
                image = malloc(sz > 0 ? (size_t) sz : 1);
                if (image && sz > 0 && fread(image, 1, (size_t) sz, f) == (size_t) sz &&
                    fake_elf_modinfo(image, (size_t) sz, &mi, &misz) >= 0) {
                        nvv = realloc(*v, (*nv + 1) * sizeof(KoEntry));
                        if (nvv) {
                                *v = nvv;
                                (*v)[*nv].name = strndup(de->d_name, l - 3);
                                for (char *c = (*v)[*nv].name; c && *c; c++)
                                        if (*c == '-')
                                                *c = '_';
                                (*v)[*nv].rel = strdup(sub);
                                (*v)[*nv].depends = fake_modinfo_get(mi, misz, "depends");
                                (*nv)++;
                        }
                }
                fclose(f);
        }
        closedir(d);
        return r;
}

static const KoEntry *ko_find(const KoEntry *v, size_t nv, const char *name) {
        for (size_t i = 0; i < nv; i++)
                if (v[i].name && strcmp(v[i].name, name) == 0)
                        return &v[i];
        return NULL;
}

/* Transitive dependencies, each once, nearest first (like depmod). */
static void dep_closure(const KoEntry *v, size_t nv, const KoEntry *e, FILE *out, char *seen, unsigned depth) {
        _auto_free_ char *copy = NULL;
        char *save = NULL;

        if (depth > 16 || !e->depends || !(copy = strdup(e->depends)))
                return;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                const KoEntry *d;

                for (char *c = t; *c; c++)
                        if (*c == '-')
                                *c = '_';
                d = ko_find(v, nv, t);
                if (!d || seen[d - v])
                        continue;
                seen[d - v] = 1;
                fprintf(out, " %s", d->rel);
                dep_closure(v, nv, d, out, seen, depth + 1);
        }
}

int fake_node_write_modules_dep(FakeNode *n, const char *tree) {
        _auto_free_ char *base = rpath(n, "%s", tree), *out = NULL, *path = NULL;
        KoEntry *v = NULL;
        size_t nv = 0, olen = 0;
        FILE *o;
        int r;

        if (!base || asprintf(&path, "%s/modules.dep", base) < 0)
                return -ENOMEM;
        r = collect_ko(base, "", &v, &nv);
        if (r >= 0 && (o = open_memstream(&out, &olen))) {
                for (size_t i = 0; i < nv; i++) {
                        char *seen = calloc(nv ? nv : 1, 1);

                        fprintf(o, "%s:", v[i].rel);
                        if (seen)
                                dep_closure(v, nv, &v[i], o, seen, 0);
                        free(seen);
                        fputc('\n', o);
                }
                fclose(o);
                r = write_file(path, out ? out : "");
        } else if (r >= 0)
                r = -ENOMEM;
        for (size_t i = 0; i < nv; i++) {
                free(v[i].name);
                free(v[i].rel);
                free(v[i].depends);
        }
        free(v);
        return r;
}
