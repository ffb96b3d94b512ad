/* SPDX-License-Identifier: Apache-2.0 */
/* The file primitives every part of the fake node is written with (see
 * fake-node-private.h). Plain libc only, because the fake kernel (an
 * LD_PRELOAD library) links them too. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-node-private.h"

void fake_strv_free(char **l) {
        for (size_t i = 0; l && l[i]; i++)
                free(l[i]);
        free(l);
}

/* "<root>/<fmt...>" */
__attribute__((format(printf, 2, 3)))
char *fnode_rpath(const FakeNode *n, const char *fmt, ...) {
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

int fnode_mkdir_p(const char *path) {
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

int fnode_write_file_mode(const char *path, const char *content, const char *mode) {
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
int fnode_write_file(const char *path, const char *content) {
        _auto_free_ char *tmp = NULL;
        int r;

        if (asprintf(&tmp, "%s.tmp%d", path, (int) getpid()) < 0)
                return -ENOMEM;
        r = fnode_write_file_mode(tmp, content, "we");
        if (r < 0)
                return r;
        return rename(tmp, path) < 0 ? -errno : 0;
}

__attribute__((format(printf, 3, 4)))
int fnode_writef(const FakeNode *n, const char *content, const char *fmt, ...) {
        _auto_free_ char *rel = NULL, *p = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&rel, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        p = fnode_rpath(n, "%s", rel);
        if (!p)
                return -ENOMEM;
        return fnode_write_file(p, content);
}

int fnode_read_file(const char *path, char **ret) {
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

int fnode_read_line_rel(const FakeNode *n, const char *rel, char **ret) {
        _auto_free_ char *p = fnode_rpath(n, "%s", rel);
        char *s;
        int r;

        if (!p)
                return -ENOMEM;
        r = fnode_read_file(p, &s);
        if (r < 0)
                return r;
        s[strcspn(s, "\n")] = '\0';
        *ret = s;
        return 0;
}

bool fnode_exists_rel(const FakeNode *n, const char *rel) {
        _auto_free_ char *p = fnode_rpath(n, "%s", rel);
        struct stat st;

        return p && lstat(p, &st) == 0;
}

/* A link at link_rel pointing at target_rel (both relative to the root),
 * relative like sysfs's own links. */
int fnode_symlink_rel(const FakeNode *n, const char *target_rel, const char *link_rel) {
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

        link = fnode_rpath(n, "%s", link_rel);
        if (!link)
                return -ENOMEM;
        (void) unlink(link);
        return symlink(target, link) < 0 ? -errno : 0;
}

int fnode_count_entries(const FakeNode *n, const char *rel, const char *prefix) {
        _auto_free_ char *p = fnode_rpath(n, "%s", rel);
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
int fnode_list_entries(const char *path, char ***ret) {
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

int fnode_rm_rf(const char *path) {
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
                fnode_rm_rf(sub);
        }
        closedir(d);
        return rmdir(path) < 0 ? -errno : 0;
}
