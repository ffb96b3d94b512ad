/* SPDX-License-Identifier: Apache-2.0 */
/* The fakeroot suite on a node shaped like Linux 6.12 (Debian's
 * 6.12.118+deb12-amd64, read for this: its modules.dep and modules.builtin,
 * FIELD-NOTES section 10): in-tree modules xz-compressed (.ko.xz, as RHEL 9
 * ships them too), nvme_core depending on nvme_auth, nvme_fabrics and
 * nvme_tcp on nvme_keyring (drivers/nvme/common, also used by nvmet), and
 * t10_pi built in. NVIDIA's build may link the kernel's nvme_auth or ship
 * its own: both must swap. Each test asserts the exit code, the output, the
 * fake kernel's call log and the module state. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-cli-run.h"
#include "fake-node-scratch.h"

#define RELEASE FAKE_NODE_DEFAULT_RELEASE
#define HOST_TREE "/lib/modules/" RELEASE
#define NVME_HOST "kernel/drivers/nvme/host/"
#define NVME_COMMON "kernel/drivers/nvme/common/"
#define CONTAINER_TREE "/proc/4242/root/lib/modules/" RELEASE
#define NV "extra/mlnx-nvme/host/"
#define NV_COMMON "extra/mlnx-nvme/common/"

static FakeNodeScratch scratch;
static const char *root;
static FakeNode *node;

static void setup(void) {
        cr_assert(getenv("SWAPGUARD_KMOD") && getenv("FAKE_KERNEL_SO"),
                  "SWAPGUARD_KMOD and FAKE_KERNEL_SO are not set: run through `meson test`");
        cr_assert_eq(fake_node_scratch_open(&scratch, "fakeroot-kernel"), 0);
        root = scratch.root;
        node = scratch.node;
}

static void teardown(void) {
        fake_node_scratch_close(&scratch);
        node = NULL;
}

TestSuite(kernel612, .init = setup, .fini = teardown, .timeout = 300);

#define HOLDERS(...) ((const char *const[]) { __VA_ARGS__, NULL })
#define RUN(run, script, ...) \
        cr_assert_eq(cli_run(root, script, (const char *const[]) { __VA_ARGS__, NULL }, run), 0)

static void ko(const char *tree, const char *rel, const char *name, const char *deps, const char *const *extra) {
        cr_assert_eq(fake_node_add_ko(node, tree, rel, name, deps, NULL, extra), 0, "ko %s", rel);
}

/* As the kernel's `make modules_install` with CONFIG_MODULE_COMPRESS_XZ. */
static void ko_xz(const char *rel, const char *name, const char *deps) {
        char cmd[1024];

        ko(HOST_TREE, rel, name, deps, NULL);
        snprintf(cmd, sizeof(cmd), "xz --check=crc32 -f '%s" HOST_TREE "/%s'", root, rel);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void write_file(const char *path, const char *text) {
        char p[512];
        FILE *f;

        snprintf(p, sizeof(p), "%s%s", root, path);
        f = fopen(p, "we");
        cr_assert_not_null(f, "%s", p);
        fputs(text, f);
        fclose(f);
}

static void module(const char *name, int refcnt, const char *const *holders, const char *taint) {
        cr_assert_eq(fake_node_add_module(node, name, refcnt, holders, taint), 0, "module %s", name);
}

static bool loaded(const char *name) {
        return fake_node_module_loaded(node, name) > 0;
}

/* Debian 6.12's host tree, cut to the NVMe part (modules.dep lines as its
 * depmod writes them; t10_pi and the crc helpers in modules.builtin). */
static void host_tree_612(void) {
        ko_xz(NVME_COMMON "nvme-auth.ko", "nvme_auth", "");
        ko_xz(NVME_COMMON "nvme-keyring.ko", "nvme_keyring", "");
        ko_xz(NVME_HOST "nvme-core.ko", "nvme_core", "nvme-auth");
        ko_xz(NVME_HOST "nvme.ko", "nvme", "nvme-core,nvme-auth");
        ko_xz(NVME_HOST "nvme-fabrics.ko", "nvme_fabrics", "nvme-keyring,nvme-core,nvme-auth");
        ko_xz(NVME_HOST "nvme-tcp.ko", "nvme_tcp", "nvme-fabrics,nvme-keyring,nvme-core,nvme-auth");
        write_file(HOST_TREE "/modules.dep",
                   NVME_COMMON "nvme-auth.ko.xz:\n" NVME_COMMON "nvme-keyring.ko.xz:\n"
                   NVME_HOST "nvme-core.ko.xz: " NVME_COMMON "nvme-auth.ko.xz\n"
                   NVME_HOST "nvme.ko.xz: " NVME_HOST "nvme-core.ko.xz " NVME_COMMON "nvme-auth.ko.xz\n"
                   NVME_HOST "nvme-fabrics.ko.xz: " NVME_COMMON "nvme-keyring.ko.xz " NVME_HOST "nvme-core.ko.xz "
                   NVME_COMMON "nvme-auth.ko.xz\n"
                   NVME_HOST "nvme-tcp.ko.xz: " NVME_HOST "nvme-fabrics.ko.xz " NVME_COMMON "nvme-keyring.ko.xz "
                   NVME_HOST "nvme-core.ko.xz " NVME_COMMON "nvme-auth.ko.xz\n");
        write_file(HOST_TREE "/modules.builtin", "kernel/block/t10-pi.ko\nkernel/lib/crc64-rocksoft.ko\n"
                                                 "kernel/lib/crc64.ko\nkernel/lib/crc-t10dif.ko\n");
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0);
}

/* The in-tree stack loaded, as the node boots. */
static void in_tree_loaded(void) {
        host_tree_612();
        module("nvme_auth", -1, HOLDERS("nvme_core"), "");
        module("nvme_core", -1, HOLDERS("nvme"), "");
        module("nvme", 0, NULL, "");
}

/* NVIDIA's nvme_core and nvme for this kernel, in the RPM layout; with
 * own_auth its own drivers/nvme/common too (shape b), else linking the
 * kernel's nvme_auth (shape a: an out-of-tree build of drivers/nvme/host). */
static void container_612(bool own_auth) {
        const char *const nvme_extra[] = { "fake_taint=OE", "fake_exports=nvme_v1_register_nvfs_dma_ops", NULL };
        const char *const oe[] = { "fake_taint=OE", NULL };

        module("mlx_compat", 0, NULL, "OE");
        ko(CONTAINER_TREE, NV "nvme-core.ko", "nvme_core", "mlx_compat,nvme-auth", oe);
        ko(CONTAINER_TREE, NV "nvme.ko", "nvme", "nvme-core,mlx_compat,nvme-auth", nvme_extra);
        if (own_auth)
                ko(CONTAINER_TREE, NV_COMMON "nvme-auth.ko", "nvme_auth", "", oe);
        cr_assert_eq(fake_node_write_modules_dep(node, CONTAINER_TREE), 0);
}

static void dump(const CliRun *r) {
        cr_log_info("exit %d\n--- stdout\n%s--- stderr\n%s--- kernel log\n%s", r->exit_code, r->out, r->err,
                    r->klog);
}

static struct json_object *get(struct json_object *o, const char *key) {
        struct json_object *v = NULL;

        cr_assert(json_object_object_get_ex(o, key, &v), "no key \"%s\" in %s", key, json_object_to_json_string(o));
        return v;
}

/* status --json: the "build" of a module. */
static char *build_of(const char *name) {
        struct json_object *o, *mods;
        char *build = NULL;
        CliRun r;

        RUN(&r, NULL, "status", "--json");
        cr_assert_eq(r.exit_code, 0);
        o = json_tokener_parse(r.out);
        cr_assert_not_null(o, "stdout is not JSON:\n%s", r.out);
        mods = get(o, "modules");
        for (size_t i = 0; i < json_object_array_length(mods); i++) {
                struct json_object *e = json_object_array_get_idx(mods, i);

                if (strcmp(json_object_get_string(get(e, "name")), name) == 0)
                        build = strdup(json_object_get_string(get(e, "build")));
        }
        json_object_put(o);
        cli_run_done(&r);
        cr_assert_not_null(build, "%s is not in the status", name);
        return build;
}

static void assert_build(const char *name, const char *want) {
        char *b = build_of(name);

        cr_assert_str_eq(b, want, "%s is the %s build, not %s", name, b, want);
        free(b);
}

static void unload_members(void) {
        CliRun r;

        RUN(&r, NULL, "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert_eq(count_lines_with(r.klog, "delete_module nvme flags=0x800 -> 0"), 1);
        cr_assert_eq(count_lines_with(r.klog, "delete_module nvme_core flags=0x800 -> 0"), 1);
        cli_run_done(&r);
}

/* The unload takes the stack's members out and leaves nvme_auth: the host's
 * code, which the container's build may link. */
Test(kernel612, unload_leaves_the_shared_nvme_auth) {
        in_tree_loaded();
        assert_build("nvme_auth", "in-tree");
        unload_members();
        cr_assert(loaded("nvme_auth"), "nvme_auth was removed by the unload");
        cr_assert_not(loaded("nvme_core"));
}

/* Shape a: NVIDIA's nvme_core links the kernel's nvme_auth. The load keeps
 * it, and status says it is the host's under NVIDIA's stack. */
Test(kernel612, load_links_the_kernels_nvme_auth) {
        CliRun r;

        in_tree_loaded();
        container_612(false);
        unload_members();
        RUN(&r, NULL, "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "the load failed:\n%s", r.out);
        cr_assert(strstr(r.out, "already loaded: nvme_auth"), "nvme_auth not kept:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "nvme_auth"), 0, "nvme_auth was touched:\n%s", r.klog);
        cr_assert(loaded("nvme") && loaded("nvme_core"));
        cli_run_done(&r);
        assert_build("nvme", "container");
        assert_build("nvme_auth", "shared-from-host");
}

/* Shape a with nothing loaded: the host's compressed nvme_auth.ko.xz goes
 * in through libkmod, then the container's stack. */
Test(kernel612, load_takes_the_hosts_compressed_nvme_auth) {
        CliRun r;

        host_tree_612();
        container_612(false);
        RUN(&r, NULL, "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "the load failed:\n%s", r.out);
        cr_assert(strstr(r.out, "loaded: nvme_auth from ") &&
                  strstr(r.out, HOST_TREE "/" NVME_COMMON "nvme-auth.ko.xz"), "not the host's .ko.xz:\n%s", r.out);
        cr_assert(strstr(r.klog, "init_module nvme_auth flags=0x0 -> 0"), "%s", r.klog);
        cr_assert(loaded("nvme_auth") && loaded("nvme_core") && loaded("nvme"));
        cli_run_done(&r);
}

/* Shape b: the container ships its own nvme_auth. The host's, free once
 * the in-tree stack is gone, is taken out and the container's goes in. */
Test(kernel612, load_replaces_a_free_nvme_auth_with_the_containers) {
        CliRun r;
        const char *del, *ins;

        in_tree_loaded();
        container_612(true);
        unload_members();
        RUN(&r, NULL, "load", "--from", CONTAINER_TREE, "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "the load failed:\n%s", r.out);
        del = strstr(r.klog, "delete_module nvme_auth flags=0x800 -> 0");
        ins = strstr(r.klog, "init_module nvme_auth flags=0x0 -> 0");
        cr_assert(del && ins && del < ins, "nvme_auth not replaced:\n%s", r.klog);
        cr_assert(strstr(r.out, "\"replaced\"") && strstr(r.out, CONTAINER_TREE "/" NV_COMMON "nvme-auth.ko"),
                  "%s", r.out);
        cli_run_done(&r);
        assert_build("nvme_auth", "container");
}

/* Shape b while nvmet holds the host's nvme_auth: it stays, and the output
 * says by what; nothing is forced. */
Test(kernel612, load_keeps_nvme_auth_held_by_nvmet) {
        CliRun r;

        host_tree_612();
        module("nvme_auth", -1, HOLDERS("nvmet"), "");
        module("nvmet", 0, NULL, "");
        container_612(true);
        RUN(&r, NULL, "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "the load failed:\n%s", r.out);
        cr_assert(strstr(r.out, "kept: nvme_auth") && strstr(r.out, "held by nvmet"), "not said:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "delete_module"), 0, "something was removed:\n%s", r.klog);
        cr_assert(loaded("nvmet") && loaded("nvme"));
        cli_run_done(&r);
        assert_build("nvme_auth", "shared-from-host");
}

/* Bad input: the container's modules.dep names its own nvme-auth.ko, which
 * its tree does not ship. Refused before anything is loaded, naming the
 * module, the file and the remedy. */
Test(kernel612, load_refuses_a_modules_dep_naming_a_missing_nvme_auth) {
        char path[512];
        CliRun r;

        host_tree_612();
        container_612(true);
        snprintf(path, sizeof(path), "%s" CONTAINER_TREE "/" NV_COMMON "nvme-auth.ko", root);
        cr_assert_eq(unlink(path), 0);
        RUN(&r, NULL, "load", "--no-restore", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.out, "nvme_auth: cannot read") && strstr(r.out, NV_COMMON "nvme-auth.ko") &&
                  strstr(r.out, "depmod"), "not named:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "init_module"), 0, "something was loaded:\n%s", r.klog);
        cli_run_done(&r);
}

/* Bad input: a compressed module in a container's tree is refused, naming
 * the file (the bound on what we decompress). */
Test(kernel612, load_refuses_a_compressed_container_module) {
        char cmd[512];
        CliRun r;

        host_tree_612();
        container_612(false);
        snprintf(cmd, sizeof(cmd), "xz -f '%s" CONTAINER_TREE "/" NV "nvme.ko'", root);
        cr_assert_eq(system(cmd), 0);
        cr_assert_eq(fake_node_write_modules_dep(node, CONTAINER_TREE), 0);
        write_file(CONTAINER_TREE "/modules.dep", NV "nvme-core.ko:\n" NV "nvme.ko.xz: " NV "nvme-core.ko\n");
        RUN(&r, NULL, "load", "--no-restore", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.out, NV "nvme.ko.xz") && strstr(r.out, "compressed"), "not named:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "init_module"), 0, "something was loaded:\n%s", r.klog);
        cli_run_done(&r);
}

/* A build whose modinfo names t10_pi, which this kernel has built in: the
 * host's modules.builtin says so, and nothing is looked for. */
Test(kernel612, load_finds_t10_pi_built_in) {
        const char *const oe[] = { "fake_taint=OE", NULL };
        CliRun r;

        host_tree_612();
        module("mlx_compat", 0, NULL, "OE");
        ko(CONTAINER_TREE, NV "nvme-core.ko", "nvme_core", "mlx_compat,t10-pi", oe);
        ko(CONTAINER_TREE, NV "nvme.ko", "nvme", "nvme-core", oe);
        RUN(&r, NULL, "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "the load failed:\n%s", r.out);
        cr_assert(strstr(r.out, "built into the kernel: t10_pi"), "%s", r.out);
        cr_assert(loaded("nvme"));
        cli_run_done(&r);
}

/* The restore of the compressed in-tree stack, nvme_tcp included (its
 * nvme_keyring from the graph), through libkmod; a second finds it all. */
Test(kernel612, restore_loads_the_compressed_in_tree_stack) {
        CliRun r;

        host_tree_612();
        RUN(&r, NULL, "restore", "--module", "nvme", "--module", "nvme-tcp");
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "the restore failed:\n%s", r.out);
        for (const char *const *m = HOLDERS("nvme_auth", "nvme_keyring", "nvme_core", "nvme", "nvme_fabrics",
                                            "nvme_tcp");
             *m; m++)
                cr_assert(loaded(*m), "%s not loaded", *m);
        cr_assert(strstr(r.out, NVME_HOST "nvme.ko.xz"), "%s", r.out);
        cli_run_done(&r);
        assert_build("nvme_keyring", "in-tree");

        RUN(&r, NULL, "restore");
        cr_assert_eq(r.exit_code, 0);
        cr_assert_str_eq(r.klog, "");
        cli_run_done(&r);
}

/* After NVIDIA's stack with its own nvme_auth is unloaded, the restore puts
 * the host's nvme_auth back in place of the container's (free by then). */
Test(kernel612, restore_replaces_the_containers_nvme_auth) {
        CliRun r;

        host_tree_612();
        module("nvme_auth", 0, NULL, "OE");
        RUN(&r, NULL, "restore");
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "the restore failed:\n%s", r.out);
        cr_assert(strstr(r.klog, "delete_module nvme_auth flags=0x800 -> 0") &&
                  strstr(r.klog, "init_module nvme_auth flags=0x0 -> 0"), "not replaced:\n%s", r.klog);
        cli_run_done(&r);
        assert_build("nvme_auth", "in-tree");
}

static void write_srcversion(const char *module, const char *srcversion) {
        char path[256];

        snprintf(path, sizeof(path), "/sys/module/%s/srcversion", module);
        write_file(path, srcversion);
}

/* A module the tree ships that is already loaded as that very build (its
 * srcversion): mlx_compat loaded by the container's openibd stays, without
 * a word; an earlier container's free nvme_auth (another srcversion) is
 * replaced by this one's. */
Test(kernel612, load_leaves_the_same_build_and_replaces_an_earlier_one) {
        const char *const mlx[] = { "fake_taint=OE", "srcversion=MLXSAME0000", NULL };
        const char *const auth[] = { "fake_taint=OE", "srcversion=AUTHNEW0000", NULL };
        CliRun r;

        host_tree_612();
        container_612(false);
        ko(CONTAINER_TREE, "extra/mlnx-ofa_kernel/compat/mlx_compat.ko", "mlx_compat", "", mlx);
        ko(CONTAINER_TREE, NV_COMMON "nvme-auth.ko", "nvme_auth", "", auth);
        cr_assert_eq(fake_node_write_modules_dep(node, CONTAINER_TREE), 0);
        write_srcversion("mlx_compat", "MLXSAME0000\n");
        module("nvme_auth", 0, NULL, "OE");
        write_srcversion("nvme_auth", "AUTHOLD0000\n");
        RUN(&r, NULL, "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "the load failed:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "mlx_compat"), 0, "mlx_compat was touched:\n%s", r.klog);
        cr_assert(strstr(r.klog, "delete_module nvme_auth flags=0x800 -> 0") &&
                  strstr(r.klog, "init_module nvme_auth flags=0x0 -> 0"), "the earlier nvme_auth stays:\n%s", r.klog);
        cr_assert_not(strstr(r.out, "kept:"), "%s", r.out);
        cli_run_done(&r);
}

/* NVIDIA's build loaded by an earlier driver container, in shape b (its own
 * nvme_auth from its tree) or a (the kernel's): every module of the build
 * holds mlx_compat, as compat-2.6.h makes them (FIELD-NOTES section 8). */
static void earlier_build_loaded(bool own_auth, const char *const *auth_extra_holders) {
        const char *auth_holders[8] = { "nvme", "nvme_core" };
        size_t n = 2;

        for (const char *const *h = auth_extra_holders; h && *h && n < 7; h++)
                auth_holders[n++] = *h;
        host_tree_612();
        module("mlx_compat", -1, own_auth ? HOLDERS("nvme", "nvme_auth", "nvme_core") : HOLDERS("nvme", "nvme_core"),
               "OE");
        module("nvme_auth", -1, auth_holders, own_auth ? "OE" : "");
        module("nvme_core", -1, HOLDERS("nvme"), "OE");
        module("nvme", 0, NULL, "OE");
}

/* A driver upgrade: the earlier container's own nvme_auth is part of its
 * build and goes with it, after the modules that hold it; openibd's
 * mlx_compat is the next container's business and is left as it is. */
Test(kernel612, unload_takes_an_earlier_containers_nvme_auth_with_its_build) {
        const char *n, *core, *auth;
        CliRun r;

        earlier_build_loaded(true, NULL);
        assert_build("nvme_auth", "container");
        RUN(&r, NULL, "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "the unload failed:\n%s", r.out);
        n = strstr(r.klog, "delete_module nvme flags=0x800 -> 0");
        core = strstr(r.klog, "delete_module nvme_core flags=0x800 -> 0");
        auth = strstr(r.klog, "delete_module nvme_auth flags=0x800 -> 0");
        cr_assert(n && core && auth && n < core && core < auth, "not nvme, nvme_core, nvme_auth:\n%s", r.klog);
        cr_assert(strstr(r.out, "removed: nvme nvme_core nvme_auth"), "%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "mlx_compat"), 0, "mlx_compat was touched:\n%s", r.klog);
        cr_assert_not(loaded("nvme_auth"), "the earlier container's nvme_auth stays and holds mlx_compat");
        cr_assert(loaded("mlx_compat"));
        cli_run_done(&r);
}

/* Shape a: the nvme_auth under NVIDIA's stack is the host's own (in-tree):
 * it stays, whatever the build over it was. */
Test(kernel612, unload_leaves_the_hosts_nvme_auth_under_an_earlier_build) {
        struct json_object *o;
        CliRun r;

        earlier_build_loaded(false, NULL);
        assert_build("nvme_auth", "shared-from-host");
        RUN(&r, NULL, "unload", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "the unload failed:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "nvme_auth"), 0, "the host's nvme_auth was touched:\n%s", r.klog);
        cr_assert(loaded("nvme_auth") && !loaded("nvme_core"));
        o = json_tokener_parse(r.out);
        cr_assert_not_null(o, "stdout is not JSON:\n%s", r.out);
        cr_assert_eq(json_object_array_length(get(o, "kept")), 0, "the host's module named as kept:\n%s", r.out);
        cr_assert_eq(json_object_array_length(get(o, "removed")), 2, "%s", r.out);
        json_object_put(o);
        cli_run_done(&r);
}

/* The earlier container's nvme_auth while nvmet holds it too: the stack
 * goes, it stays (nothing forced), and the plan and the unload say by what. */
Test(kernel612, unload_keeps_an_earlier_nvme_auth_held_by_nvmet_and_names_it) {
        CliRun r;

        earlier_build_loaded(true, HOLDERS("nvmet"));
        module("nvmet", 0, NULL, "");
        RUN(&r, NULL, "plan");
        dump(&r);
        cr_assert(strstr(r.out, "nvme_auth: held by nvmet"), "the plan does not say it stays:\n%s", r.out);
        cr_assert_not(strstr(r.out, "blocked:"), "a kept shared module blocked the plan:\n%s", r.out);
        cli_run_done(&r);
        RUN(&r, NULL, "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "the unload failed:\n%s", r.out);
        cr_assert(strstr(r.out, "nvme_auth: held by nvmet"), "not named:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "delete_module nvme_auth"), 0, "%s", r.klog);
        cr_assert(loaded("nvme_auth") && loaded("nvmet") && !loaded("nvme_core") && !loaded("nvme"));
        cli_run_done(&r);
}
