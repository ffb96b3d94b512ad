/* SPDX-License-Identifier: Apache-2.0 */
/* The hostile-container suite, library and CLI side: the real
 * nvme-swapguard-kmod loads from a driver container's tree that tries to
 * get something else into the kernel, on the fake node under the fake
 * kernel. Each case asserts that the attempt is refused with a reason that
 * names it, that nothing of it reached the kernel, and that the in-tree
 * stack loads at the end (`restore`). Rows refer to the table; the
 * daemon-side rows (1, 5) are in tests/unit/daemon, the unit (8) in
 * tests/ship, the config (9) in tests/unit/daemon/test-config-errors.c. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fake-cli-suite.h"

#define NV "extra/mlnx-nvme/host/"

static void setup(void) {
        cli_suite_open("hostile",
                       (const char *const[]) { "SWAPGUARD_KMOD", "FAKE_KERNEL_SO", "SYSCALL_SPY_SO", NULL });
}

TestSuite(hostile, .init = setup, .fini = cli_suite_close, .timeout = 300);

#define RUN(run, ...) cr_assert_eq(cli_run(root, NULL, (const char *const[]) { __VA_ARGS__, NULL }, run), 0)

static char *node_path(const char *rel) {
        char *p;

        cr_assert(asprintf(&p, "%s%s", root, rel) > 0);
        return p;
}

static void write_text(const char *rel, const char *text) {
        char *p = node_path(rel);
        FILE *f = fopen(p, "we");

        cr_assert_not_null(f, "%s", p);
        fputs(text, f);
        fclose(f);
        free(p);
}

/* The host's in-tree stack (not loaded) and NVIDIA's build in the container
 * (nvme and nvme_core, depending on mlx_compat, which openibd loaded). */
static void node_with_container(void) {
        const char *const nv[] = { "fake_taint=OE", NULL };

        ko(HOST_TREE, "kernel/block/t10-pi.ko", "t10_pi", "", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme-core.ko", "nvme_core", "t10-pi", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme.ko", "nvme", "nvme-core", NULL, NULL);
        cr_assert_eq(fake_node_write_modules_dep(node, HOST_TREE), 0);
        cr_assert_eq(fake_node_add_module(node, "mlx_compat", 0, NULL, "OE"), 0);
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0);
        ko(CONTAINER_TREE, NV "nvme-core.ko", "nvme_core", "mlx_compat,t10-pi", NULL, nv);
        ko(CONTAINER_TREE, NV "nvme.ko", "nvme", "nvme-core,mlx_compat", NULL, nv);
}

static void container_modules_dep(void) {
        write_text(CONTAINER_TREE "/modules.dep", NV "nvme.ko: " NV "nvme-core.ko\n" NV "nvme-core.ko:\n");
}

/* The load from the container is refused for `reason`: with --no-restore
 * nothing reaches the kernel; without, the load's own restore then loads
 * the in-tree stack (the CLI never leaves the node driverless). */
static void assert_refused_then_restored(const char *reason) {
        CliRun r;

        RUN(&r, "load", "--no-restore", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.out, reason), "the reason \"%s\" is not given:\n%s", reason, r.out);
        cr_assert_eq(count_lines_with(r.klog, "init_module"), 0, "something was loaded:\n%s", r.klog);
        cr_assert_not(loaded("nvme"));
        cli_run_done(&r);

        RUN(&r, "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.out, reason), "the reason \"%s\" is not given:\n%s", reason, r.out);
        cr_assert(loaded("nvme") && loaded("nvme_core"), "the in-tree stack is not loaded at the end");
        cr_assert(strstr(r.out, "loaded: nvme from ") && strstr(r.out, HOST_TREE "/" NVME_HOST "nvme.ko"),
                  "nvme was not loaded from the host's tree:\n%s", r.out);
        cr_assert(strstr(r.out, "restored: the in-tree NVMe stack is loaded again"), "the restore is not said:\n%s",
                  r.out);
        cli_run_done(&r);
}

/* Row 2: a FIFO named nvme.ko must neither block the load nor pass. */
Test(hostile, row2_fifo_named_nvme_ko) {
        char *p = node_path(CONTAINER_TREE "/" NV "nvme.ko");
        time_t t0 = time(NULL);

        node_with_container();
        container_modules_dep();
        cr_assert_eq(unlink(p), 0);
        cr_assert_eq(mkfifo(p, 0644), 0);
        free(p);
        assert_refused_then_restored("is not a regular file");
        cr_assert_lt(time(NULL) - t0, 10, "the FIFO held the load");
}

/* Row 2: a compressed module from a container (a 72 KB nvme.ko.zst cost 34 s
 * and 2.1 GB through libkmod): refused before any decompression. */
Test(hostile, row2_compressed_module) {
        static const unsigned char zst[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x64, 0x00, 0x00, 0x00 };
        char *p = node_path(CONTAINER_TREE "/" NV "nvme.ko.zst");
        FILE *f;

        node_with_container();
        f = fopen(p, "we");
        cr_assert_not_null(f);
        fwrite(zst, 1, sizeof(zst), f);
        fclose(f);
        free(p);
        p = node_path(CONTAINER_TREE "/" NV "nvme.ko");
        unlink(p);
        free(p);
        write_text(CONTAINER_TREE "/modules.dep", NV "nvme.ko.zst: " NV "nvme-core.ko\n" NV "nvme-core.ko:\n");
        assert_refused_then_restored("zstd-compressed");
}

/* Row 3: the file at nvme.ko says it is module "evil". */
Test(hostile, row3_modinfo_name_is_not_the_module) {
        char *p = node_path(CONTAINER_TREE "/" NV "nvme.ko");

        node_with_container();
        unlink(p);
        free(p);
        ko(CONTAINER_TREE, NV "nvme.ko", "evil", "nvme-core", NULL, NULL);
        container_modules_dep();
        assert_refused_then_restored("says it is module \"evil\", not nvme");
        cr_assert_not(loaded("evil"));
}

/* Row 4: an absolute symlink to a file outside the container's tree. It
 * resolves inside the tree (RESOLVE_IN_ROOT), where there is no such file. */
Test(hostile, row4_absolute_symlink_out_of_the_tree) {
        char *p = node_path(CONTAINER_TREE "/" NV "nvme.ko"), *target = node_path("/elsewhere/nvme.ko");

        node_with_container();
        ko("/elsewhere", "nvme.ko", "nvme", "nvme-core", NULL, NULL); /* a valid module, outside */
        unlink(p);
        cr_assert_eq(symlink(target, p), 0);
        free(p);
        free(target);
        container_modules_dep();
        assert_refused_then_restored("cannot read");
}

/* Row 4: modules.dep names extra/../../../x/nvme.ko: the entry is not
 * taken, so the container has no build of nvme, and none is taken from the
 * host for it (ENOPKG). */
Test(hostile, row4_dotdot_in_modules_dep) {
        node_with_container();
        ko("/proc/4242/root/lib/x", "nvme.ko", "nvme", "nvme-core", NULL, NULL);
        write_text(CONTAINER_TREE "/modules.dep", "extra/../../../x/nvme.ko: " NV "nvme-core.ko\n" NV "nvme-core.ko:\n");
        assert_refused_then_restored("has no build of nvme");
}

/* A stack module the container lacks is never
 * taken from the host to complete NVIDIA's stack. */
Test(hostile, stack_module_missing_from_container) {
        char *p = node_path(CONTAINER_TREE "/" NV "nvme-core.ko");

        node_with_container();
        unlink(p);
        free(p);
        write_text(CONTAINER_TREE "/modules.dep", NV "nvme.ko:\n");
        assert_refused_then_restored("has no build of nvme_core; nothing is loaded from the host for it");
}

/* Row 6: a mount point with "\012MAINPID=4242\012STOPPING=1" (the kernel's
 * own escaping in mountinfo; libmount turns it into newlines). The text
 * output shows it escaped, on one line. */
Test(hostile, row6_control_characters_in_a_mount_point) {
        CliRun r;

        node_with_container();
        cr_assert_eq(fake_node_add_mount(node, "nvme0n1", "/mnt/x\\012MAINPID=4242\\012STOPPING=1", "xfs"), 0);
        RUN(&r, "check");
        dump(&r);
        cr_assert_eq(r.exit_code, 3, "check must say in use");
        cr_assert(strstr(r.out, "/mnt/x\\012MAINPID=4242\\012STOPPING=1"), "not shown escaped:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.out, "\nMAINPID="), 0);
        for (const char *s = r.out; (s = strstr(s, "MAINPID=")); s++)
                cr_assert_neq(s[-1], '\n', "a line starts with MAINPID=:\n%s", r.out);
        cli_run_done(&r);
}

/* Row 7: NVME_SWAPGUARD_ROOT=<fake> unload without the fake kernel: nothing
 * may reach a kernel. The spy stands where the kernel would be. */
Test(hostile, row7_fake_root_without_fake_kernel) {
        const char *fake = getenv("FAKE_KERNEL_SO");
        char *saved = strdup(fake), *spy_log = NULL, *log;
        CliRun r;

        cr_assert_eq(fake_node_add_module(node, "nvme_core", -1, (const char *const[]) { "nvme", NULL }, ""), 0);
        cr_assert_eq(fake_node_add_module(node, "nvme", 0, NULL, ""), 0);
        cr_assert(asprintf(&spy_log, "%s/spy.log", scratch.dir) > 0);
        setenv("SPY_LOG", spy_log, 1);
        setenv("FAKE_KERNEL_SO", getenv("SYSCALL_SPY_SO"), 1);
        for (const char *const *cmd = (const char *const[]) { "unload", "restore", "load", NULL }; *cmd; cmd++) {
                if (strcmp(*cmd, "load") == 0)
                        RUN(&r, *cmd, "--from", CONTAINER_TREE);
                else
                        RUN(&r, *cmd);
                dump(&r);
                cr_assert_eq(r.exit_code, 1, "%s was not refused", *cmd);
                cr_assert(strstr(r.err, "refusing to") && strstr(r.err, "only the test fake kernel"),
                          "no clear refusal:\n%s", r.err);
                cli_run_done(&r);
        }
        setenv("FAKE_KERNEL_SO", saved, 1);
        free(saved);
        log = slurp(spy_log);
        cr_assert(!log || !log[0], "module calls were sent: %s", log);
        free(log);
        free(spy_log);
        cr_assert(loaded("nvme") && loaded("nvme_core"), "the fake node changed");

        /* A dry run sends nothing and stays allowed. */
        RUN(&r, "unload", "--dry-run");
        cr_assert_eq(r.exit_code, 0);
        cli_run_done(&r);
}
