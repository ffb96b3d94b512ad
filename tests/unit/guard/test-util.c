/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <sys/sysmacros.h>

#include "fake-tree.h"
#include "host/host-kernel.h"
#include "util/alloc-util.h"
#include "util/fileio.h"
#include "util/parse-util.h"
#include "util/string-util.h"
#include "util/strv.h"

Test(util, strv_push_length_contains_free) {
        _cleanup_strv_free_ char **l = NULL;

        cr_assert_eq(strv_length(l), 0);
        cr_assert_eq(strv_push(&l, strdup("b")), 0);
        cr_assert_eq(strv_extend(&l, "a"), 0);
        cr_assert_eq(strv_extendf(&l, "c%d", 1), 0);
        cr_assert_eq(strv_length(l), 3);
        cr_assert(strv_contains(l, "c1"));
        cr_assert_not(strv_contains(l, "c"));
        strv_sort(l);
        cr_assert_str_eq(l[0], "a");
        cr_assert_str_eq(l[2], "c1");
        cr_assert_null(l[3]);
        cr_assert_null(strv_free(NULL));
}

Test(util, strv_join) {
        char *l[] = { (char *) "nvme", (char *) "nvme_core", NULL };
        char *none[] = { NULL };
        _cleanup_free_ char *a = strv_join(l, " "), *b = strv_join(none, ", "), *c = strv_join(NULL, " "),
                            *d = strv_join(l, "; ");

        cr_assert_str_eq(a, "nvme nvme_core");
        cr_assert_str_eq(b, "");
        cr_assert_str_eq(c, "");
        cr_assert_str_eq(d, "nvme; nvme_core");
}

Test(util, array_reserve_grows_geometrically) {
        _cleanup_free_ int *a = NULL;
        size_t alloc = 0, n = 0;

        for (int i = 0; i < 100; i++) {
                cr_assert_eq(ARRAY_RESERVE(a, alloc, n, 4), 0);
                cr_assert_gt(alloc, n);
                a[n++] = i;
        }
        cr_assert_eq(alloc, 124, "4, 12, 28, 60, 124: got %zu", alloc);
        for (int i = 0; i < 100; i++)
                cr_assert_eq(a[i], i);
        alloc = SIZE_MAX / 2;
        cr_assert_eq(array_reserve((void **) &a, &alloc, alloc, sizeof(int), 4), -ENOMEM);
        cr_assert_eq(alloc, SIZE_MAX / 2, "untouched on failure");
}

Test(util, strdup_printf) {
        _cleanup_free_ char *s = strdup_printf("%s/%d", "nvme", 7);

        cr_assert_str_eq(s, "nvme/7");
}

/* A fake root has its own kernel: its osrelease, never the real uname. */
Test(util, host_kernel_release_under_a_fake_root, .fini = fake_tree_remove) {
        char *release = (char *) "untouched";

        fake_tree_new();
        cr_assert_eq(host_kernel_release(&release), -ENOENT);
        cr_assert_str_eq(release, "untouched");
        fake_write("proc/sys/kernel/osrelease", "6.1.0-57-amd64\n");
        cr_assert_eq(host_kernel_release(&release), 0);
        cr_assert_str_eq(release, "6.1.0-57-amd64");
        free(release);
        release = (char *) "untouched";
        fake_write("proc/sys/kernel/osrelease", "../../etc\n");
        cr_assert_eq(host_kernel_release(&release), -EINVAL);
        fake_write("proc/sys/kernel/osrelease", "\n");
        cr_assert_eq(host_kernel_release(&release), -EINVAL);
        cr_assert_str_eq(release, "untouched");
}

Test(util, parse_numbers_strictly) {
        unsigned u = 7;
        int i = 7;
        uint64_t v = 7;
        dev_t d = 0;

        cr_assert_eq(safe_atou("42\n", &u), 0);
        cr_assert_eq(u, 42);
        cr_assert_eq(safe_atou("-1", &u), -EINVAL);
        cr_assert_eq(safe_atou("12abc", &u), -EINVAL);
        cr_assert_eq(safe_atou("", &u), -EINVAL);
        cr_assert_eq(safe_atou(" 1", &u), -EINVAL);
        cr_assert_eq(safe_atou("4294967296", &u), -ERANGE);
        cr_assert_eq(u, 42, "untouched on failure");
        cr_assert_eq(safe_atoi("-3", &i), 0);
        cr_assert_eq(i, -3);
        cr_assert_eq(safe_atou64("99999999999999999999", &v), -ERANGE);
        cr_assert_eq(parse_devno("259:3\n", &d), 0);
        cr_assert_eq(major(d), 259);
        cr_assert_eq(minor(d), 3);
        cr_assert_eq(parse_devno("259", &d), -EINVAL);
        cr_assert_eq(parse_devno("259:x", &d), -EINVAL);
}

Test(util, files_and_directories, .fini = fake_tree_remove) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *line = NULL, *link = NULL;
        char path[4096];
        const char *root = fake_tree_new();

        fake_write("d/one", "first\nsecond\n");
        fake_write("d/two", "");
        fake_symlink("d/link", "../elsewhere");
        snprintf(path, sizeof(path), "%s/d/one", root);
        cr_assert_eq(read_one_line_file(path, &line), 0);
        cr_assert_str_eq(line, "first");
        snprintf(path, sizeof(path), "%s/d", root);
        cr_assert_eq(read_dir_names(path, &names), 0);
        cr_assert_eq(strv_length(names), 3);
        cr_assert_str_eq(names[0], "link");
        snprintf(path, sizeof(path), "%s/d/link", root);
        cr_assert_eq(path_exists(path), 1, "a dangling link exists");
        cr_assert_eq(read_link(path, &link), 0);
        cr_assert_str_eq(link, "../elsewhere");
        snprintf(path, sizeof(path), "%s/d/none", root);
        cr_assert_eq(read_one_line_file(path, &line), -ENOENT);
        cr_assert_str_eq(path_basename("/a/b"), "b");
}
