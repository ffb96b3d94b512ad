/* SPDX-License-Identifier: Apache-2.0 */
/* GDS hook generations (gds-nvidia-fs #87): what nvme exports in kallsyms,
 * what nvidia-fs.ko asks for, and whether they meet. */

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modules/kallsyms-hooks.h"
#include "util/strv.h"

static const char kallsyms[] =
        "ffffffff81000000 T _stext\n"
        "ffffffffc0a01230 T nvme_v1_register_nvfs_dma_ops\t[nvme]\n"
        "ffffffffc0a01238 T nvme_v1_unregister_nvfs_dma_ops\t[nvme]\n"
        "ffffffffc0a01240 T nvme_v2_register_nvfs_dma_ops\t[nvme]\n"
        "ffffffffc0b01230 T nvme_rdma_v1_register_nvfs_dma_ops\t[nvme_rdma]\n"
        "ffffffffc0c01230 T nvme_tcp_register_nvfs_dma_ops\t[nvme_tcp]\n"
        "ffffffffc0d00000 T nvme_init_ctrl\t[nvme_core]\n";

Test(gds_generation, symbol_generation) {
        char g[8];

        cr_assert_str_eq(gds_hook_generation("nvme_v1_register_nvfs_dma_ops", 29, g), "v1");
        cr_assert_str_eq(gds_hook_generation("nvme_rdma_v12_register_nvfs_dma_ops", 35, g), "v12");
        cr_assert_str_eq(gds_hook_generation("nvme_register_nvfs_dma_ops", 26, g), "", "unversioned");
        cr_assert_null(gds_hook_generation("nvme_v1_unregister_nvfs_dma", 27, g));
}

Test(gds_generation, kallsyms_per_module) {
        _cleanup_strv_free_ char **h = NULL;
        _cleanup_free_ char *nvme = NULL, *rdma = NULL, *tcp = NULL, *core = NULL;

        cr_assert_eq(kallsyms_gds_hooks_parse(kallsyms, &h), 0);
        cr_assert_eq(strv_length(h), 4, "unregister names are not counted twice");
        cr_assert_eq(gds_hooks_generations_of(h, "nvme", &nvme), 0);
        cr_assert_str_eq(nvme, "v1,v2");
        cr_assert_eq(gds_hooks_generations_of(h, "nvme_rdma", &rdma), 0);
        cr_assert_str_eq(rdma, "v1");
        cr_assert_eq(gds_hooks_generations_of(h, "nvme_tcp", &tcp), 0);
        cr_assert_str_eq(tcp, "unversioned");
        cr_assert_eq(gds_hooks_generations_of(h, "nvme_core", &core), 0);
        cr_assert_null(core);
}

/* A .ko's bytes: the names sit NUL-separated in .strtab / .rodata. */
static const char ko_v1[] = "\x7f" "ELF\0\0mlx_backport_dependency_symbol\0nvme_v1_register_nvfs_dma_ops\0"
                            "nvme_v1_unregister_nvfs_dma_ops\0nvme_rdma_v1_register_nvfs_dma_ops\0";
static const char ko_v2[] = "\0__symbol_get\0nvme_v2_register_nvfs_dma_ops\0";
static const char ko_none[] = "\0nvfs_init\0xnvme_v1_register_nvfs_dma_ops\0";

Test(gds_generation, what_nvidia_fs_asks_for) {
        _cleanup_strv_free_ char **a = NULL, **b = NULL, **c = NULL;

        cr_assert_eq(gds_wanted_generations_scan(ko_v1, sizeof(ko_v1), &a), 0);
        cr_assert_eq(strv_length(a), 1, "nvme_rdma_v1_ is not nvme's hook");
        cr_assert_str_eq(a[0], "v1");
        cr_assert_eq(gds_wanted_generations_scan(ko_v2, sizeof(ko_v2), &b), 0);
        cr_assert_str_eq(b[0], "v2");
        cr_assert_eq(gds_wanted_generations_scan(ko_none, sizeof(ko_none), &c), 0);
        cr_assert_eq(strv_length(c), 0, "a longer name that only contains it is not it");
}

Test(gds_generation, read_file) {
        char path[] = "/tmp/sg-nvfs-XXXXXX";
        int fd = mkstemp(path);
        _cleanup_strv_free_ char **g = NULL, **z = NULL;

        cr_assert_geq(fd, 0);
        cr_assert_eq(write(fd, ko_v2, sizeof(ko_v2)), (ssize_t) sizeof(ko_v2));
        close(fd);
        cr_assert_eq(gds_wanted_generations_read(path, &g), 0);
        cr_assert_str_eq(g[0], "v2");
        unlink(path);
        cr_assert_eq(gds_wanted_generations_read("/tmp/nvidia-fs.ko.xz", &z), -EPROTONOSUPPORT);
        cr_assert_eq(gds_wanted_generations_read("/nonexistent/nvidia-fs.ko", &z), -ENOENT);
}

Test(gds_generation, match) {
        char *v1[] = { (char *) "v1", NULL };
        char *v2[] = { (char *) "v2", NULL };
        char *none[] = { NULL };

        cr_assert_eq(gds_generations_match("v1", v1), GDS_MATCH_SAME);
        cr_assert_eq(gds_generations_match("v1,v2", v2), GDS_MATCH_SAME);
        cr_assert_eq(gds_generations_match("v2", v1), GDS_MATCH_DIFFERENT, "gds-nvidia-fs #87");
        cr_assert_eq(gds_generations_match(NULL, v1), GDS_MATCH_NO_HOOKS);
        cr_assert_eq(gds_generations_match("v1", none), GDS_MATCH_UNKNOWN);
        cr_assert_eq(gds_generations_match("v1", NULL), GDS_MATCH_UNKNOWN);
        cr_assert_str_eq(gds_match_to_string(GDS_MATCH_DIFFERENT), "different");
}

/* The whole check on a fake node: nvidia_fs loaded, its file in the
 * nvidia-fs-ctr container's tree only, asking for v1 while nvme exports v2. */
#include "actions/nvfs-check.h"
#include "fake-tree.h"

#define REL "6.1.0-fake-amd64"

static void fake_node(const char *kallsyms_nvme_gen) {
        fake_tree_new();
        fake_write("/proc/sys/kernel/osrelease", REL "\n");
        fake_writef("/proc/kallsyms", "ffffffffc0a01230 T nvme_%s_register_nvfs_dma_ops\t[nvme]\n", kallsyms_nvme_gen);
        fake_mkdir("/sys/module/nvidia_fs");
        fake_write("/lib/modules/" REL "/modules.dep", "kernel/drivers/nvme/host/nvme.ko: nvme-core.ko\n");
        fake_write("/lib/modules/" REL "/kernel/drivers/nvme/host/nvme.ko", "");
        fake_write("/ctr/lib/modules/" REL "/modules.dep", "extra/nvidia-fs.ko:\n");
        fake_mkdir("/ctr/lib/modules/" REL "/extra");
}

static NvfsCheck *run_check(void) {
        char *trees[] = { (char *) "/ctr/lib/modules/" REL, NULL };
        NvfsCheck *c = NULL;

        cr_assert_eq(nvfs_check(trees, &c), 0);
        return c;
}

Test(nvfs_check, different_generations_warn_with_the_remedy) {
        NvfsCheck *c;
        char *d;

        fake_node("v2");
        /* Found at the start of the file: the name nvidia-fs hands __symbol_get. */
        fake_write("/ctr/lib/modules/" REL "/extra/nvidia-fs.ko", "nvme_v1_register_nvfs_dma_ops");
        c = run_check();
        cr_assert(c->loaded);
        cr_assert(strstr(c->ko_path, "/ctr/lib/modules/"), "found in the container's tree: %s", c->ko_path);
        cr_assert_str_eq(c->wanted[0], "v1");
        cr_assert_str_eq(c->exported, "v2");
        cr_assert_eq(c->match, GDS_MATCH_DIFFERENT);
        d = nvfs_check_describe(c);
        cr_assert(strstr(d, "compatibility mode") && strstr(d, "#87"), "%s", d);
        free(d);
        nvfs_check_free(c);
        fake_tree_remove();
}

Test(nvfs_check, same_generation) {
        NvfsCheck *c;

        fake_node("v1");
        fake_write("/ctr/lib/modules/" REL "/extra/nvidia-fs.ko", "nvme_v1_register_nvfs_dma_ops");
        c = run_check();
        cr_assert_eq(c->match, GDS_MATCH_SAME);
        nvfs_check_free(c);
        fake_tree_remove();
}

Test(nvfs_check, not_loaded_or_not_found) {
        NvfsCheck *c;
        char *d;

        fake_node("v1");
        c = run_check();
        /* The tree lists it, the file is not there. */
        cr_assert_eq(c->read_error, ENOENT);
        cr_assert_eq(c->match, GDS_MATCH_UNKNOWN);
        d = nvfs_check_describe(c);
        cr_assert(strstr(d, "cannot read"), "%s", d);
        free(d);
        nvfs_check_free(c);
        fake_tree_remove();
        fake_tree_new();
        fake_write("/proc/sys/kernel/osrelease", REL "\n");
        c = run_check();
        cr_assert_not(c->loaded);
        cr_assert_eq(c->match, GDS_MATCH_UNKNOWN);
        d = nvfs_check_describe(c);
        cr_assert(strstr(d, "not loaded"), "%s", d);
        free(d);
        nvfs_check_free(c);
        fake_tree_remove();
}

/* A compressed nvidia-fs.ko.xz in the host's tree (RHEL 9, Debian 6.12):
 * its generation is unknown, and the line says why, not an errno string. */
Test(nvfs_check, compressed_nvidia_fs_is_unknown_and_says_why) {
        NvfsCheck c = { .loaded = true, .ko_path = (char *) "/lib/modules/r/extra/nvidia-fs.ko.xz",
                        .read_error = EPROTONOSUPPORT };
        char *d = nvfs_check_describe(&c);

        cr_assert_not_null(d);
        cr_assert(strstr(d, "nvidia-fs.ko.xz is compressed") && strstr(d, "unknown"), "%s", d);
        free(d);
}
