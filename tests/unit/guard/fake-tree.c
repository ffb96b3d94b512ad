/* SPDX-License-Identifier: Apache-2.0 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-tree.h"
#include "host/host-root.h"

static char root[512];

const char *fake_tree_new(void) {
        const char *tmp = getenv("TMPDIR");

        snprintf(root, sizeof(root), "%s/swapguard-unit-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        cr_assert_not_null(mkdtemp(root), "mkdtemp: %s", strerror(errno));
        cr_assert_eq(host_root_set(root), 0);
        return root;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

void fake_tree_remove(void) {
        if (root[0])
                nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
        root[0] = '\0';
        host_root_set(NULL);
}

static void full_path(const char *rel, char *buf, size_t size) {
        cr_assert_lt((size_t) snprintf(buf, size, "%s/%s", root, rel[0] == '/' ? rel + 1 : rel), size);
}

static void mkdir_p(char *path) {
        for (char *p = path + strlen(root) + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
                        *p = '/';
                }
        cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
}

static void mkdir_parent(const char *path) {
        char parent[PATH_MAX];

        cr_assert_lt((size_t) snprintf(parent, sizeof(parent), "%s", path), sizeof(parent));
        *strrchr(parent, '/') = '\0';
        mkdir_p(parent);
}

void fake_mkdir(const char *rel) {
        char path[PATH_MAX];

        full_path(rel, path, sizeof(path));
        mkdir_p(path);
}

void fake_write(const char *rel, const char *content) {
        char path[PATH_MAX];
        FILE *f;

        full_path(rel, path, sizeof(path));
        mkdir_parent(path);
        f = fopen(path, "we");
        cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
        fputs(content, f);
        cr_assert_eq(fclose(f), 0);
}

void fake_writef(const char *rel, const char *fmt, ...) {
        char *s;
        va_list ap;

        va_start(ap, fmt);
        cr_assert(vasprintf(&s, fmt, ap) >= 0);
        va_end(ap);
        fake_write(rel, s);
        free(s);
}

void fake_symlink(const char *rel, const char *target) {
        char path[PATH_MAX];

        full_path(rel, path, sizeof(path));
        mkdir_parent(path);
        cr_assert_eq(symlink(target, path), 0, "symlink %s: %s", path, strerror(errno));
}

void fake_block_device(const char *parent, const char *name, const char *dev, const char *size) {
        char rel[PATH_MAX], target[PATH_MAX];

        cr_assert_lt((size_t) snprintf(rel, sizeof(rel), "sys/devices/%s/%s", parent, name), sizeof(rel));
        fake_mkdir(rel);
        if (dev)
                fake_writef(strcat(strcpy(target, rel), "/dev"), "%s\n", dev);
        if (size)
                fake_writef(strcat(strcpy(target, rel), "/size"), "%s\n", size);
        cr_assert_lt((size_t) snprintf(rel, sizeof(rel), "sys/class/block/%s", name), sizeof(rel));
        cr_assert_lt((size_t) snprintf(target, sizeof(target), "../../devices/%s/%s", parent, name), sizeof(target));
        fake_symlink(rel, target);
}
