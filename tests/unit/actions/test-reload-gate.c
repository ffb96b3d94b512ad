/* SPDX-License-Identifier: Apache-2.0 */
/* The reload gate: which modules it lists (the host tree's drivers/nvme/host
 * and drivers/nvme/common, as 6.1 and 6.12 lay them out), the text modprobe
 * reads, where it is written and that it is removed with its flag. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../guard/fake-tree.h"
#include "actions/reload-gate.h"
#include "util/fileio.h"
#include "util/strv.h"

/* 6.1 (Debian 12): six host modules, uncompressed; a module elsewhere
 * (nvmet) and one that only depends on nvme_core must not be gated. */
static const char modules_dep_61[] =
        "kernel/drivers/nvme/host/nvme-core.ko: kernel/lib/crc64-rocksoft.ko\n"
        "kernel/drivers/nvme/host/nvme.ko: kernel/drivers/nvme/host/nvme-core.ko\n"
        "kernel/drivers/nvme/host/nvme-fabrics.ko: kernel/drivers/nvme/host/nvme-core.ko\n"
        "kernel/drivers/nvme/host/nvme-tcp.ko: kernel/drivers/nvme/host/nvme-fabrics.ko\n"
        "kernel/drivers/nvme/host/nvme-rdma.ko: kernel/drivers/nvme/host/nvme-fabrics.ko\n"
        "kernel/drivers/nvme/host/nvme-fc.ko: kernel/drivers/nvme/host/nvme-fabrics.ko\n"
        "kernel/drivers/nvme/target/nvmet.ko: kernel/drivers/nvme/host/nvme-core.ko\n"
        "kernel/drivers/md/dm-multipath.ko:\n"
        "kernel/lib/crc64-rocksoft.ko:\n";

/* 6.12 (Debian's backport, RHEL 9.6's shape): .ko.xz, and
 * drivers/nvme/common holds nvme_auth and nvme_keyring, which nvme_core and
 * nvme_fabrics link. */
static const char modules_dep_612[] =
        "kernel/drivers/nvme/common/nvme-keyring.ko.xz:\n"
        "kernel/drivers/nvme/common/nvme-auth.ko.xz: kernel/drivers/nvme/common/nvme-keyring.ko.xz\n"
        "kernel/drivers/nvme/host/nvme-core.ko.xz: kernel/drivers/nvme/common/nvme-auth.ko.xz "
        "kernel/drivers/nvme/common/nvme-keyring.ko.xz\n"
        "kernel/drivers/nvme/host/nvme.ko.xz: kernel/drivers/nvme/host/nvme-core.ko.xz\n"
        "kernel/drivers/nvme/host/nvme-fabrics.ko.xz: kernel/drivers/nvme/host/nvme-core.ko.xz\n"
        "kernel/drivers/nvme/host/nvme-tcp.ko.xz: kernel/drivers/nvme/host/nvme-fabrics.ko.xz\n"
        "kernel/drivers/nvme/host/nvme-rdma.ko.xz: kernel/drivers/nvme/host/nvme-fabrics.ko.xz\n"
        "kernel/drivers/nvme/host/nvme-fc.ko.xz: kernel/drivers/nvme/host/nvme-fabrics.ko.xz\n"
        "kernel/drivers/nvme/host/nvme-apple.ko.xz: kernel/drivers/nvme/host/nvme-core.ko.xz\n"
        "kernel/drivers/nvme/host/sub/nvme-odd.ko.xz:\n"
        "kernel/drivers/nvme/target/nvmet-tcp.ko.xz:\n"
        "kernel/net/tls/tls.ko.xz:\n";

static const char *root;

static void node(const char *release, const char *modules_dep) {
        char path[1024];

        root = fake_tree_new();
        fake_writef("proc/sys/kernel/osrelease", "%s\n", release);
        snprintf(path, sizeof(path), "lib/modules/%s/modules.dep", release);
        fake_write(path, modules_dep);
        snprintf(path, sizeof(path), "lib/modules/%s/modules.builtin", release);
        fake_write(path, "");
        fake_mkdir("run/nvme-swapguard");
        fake_write("sbin/modprobe", "#!/bin/sh\n");
        snprintf(path, sizeof(path), "%s/sbin/modprobe", root);
        cr_assert_eq(chmod(path, 0755), 0);
}

static char *gate_text(void) {
        char path[1024];
        char *text = NULL;
        struct stat st;

        snprintf(path, sizeof(path), "%s" RELOAD_GATE_PATH, root);
        cr_assert_eq(stat(path, &st), 0, "no gate at %s", path);
        cr_assert_eq(st.st_mode & 07777, 0644, "gate mode %o", st.st_mode & 07777);
        cr_assert_eq(read_full_file(path, &text, NULL), 0);
        return text;
}

static size_t count_lines(const char *text, const char *prefix) {
        size_t n = 0;

        for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
                if (strncmp(p, prefix, strlen(prefix)) == 0)
                        n++;
        return n;
}

Test(reload_gate, host_61) {
        _cleanup_strv_free_ char **mods = NULL;
        _cleanup_free_ char *text = NULL;
        _cleanup_free_ char *got = NULL;

        node("6.1.0-57-amd64", modules_dep_61);
        {
                /* The unit's UMask=0077: the directory the gate makes is
                 * still searchable by the daemon's identity. */
                mode_t old = umask(077);
                int r = reload_gate_install(&mods);
                struct stat st;
                char p[1024];

                umask(old);
                cr_assert_eq(r, 0, "reload_gate_install: %s", strerror(-r));
                snprintf(p, sizeof(p), "%s/run/modprobe.d", root);
                cr_assert_eq(stat(p, &st), 0);
                cr_assert_eq(st.st_mode & 07777, 0755, "/run/modprobe.d is %o", st.st_mode & 07777);
        }
        got = strv_join(mods, " ");
        cr_assert_str_eq(got, "nvme nvme_core nvme_fabrics nvme_fc nvme_rdma nvme_tcp");
        text = gate_text();
        cr_assert_eq(count_lines(text, "install "), 6, "%s", text);
        cr_assert_eq(count_lines(text, "blacklist"), 0, "a blacklist would stop the loads the flag allows");
        cr_assert_not_null(strstr(text, "\ninstall nvme test ! -e /run/nvme-swapguard/reload-blocked && "
                                        "/sbin/modprobe --ignore-install nvme $CMDLINE_OPTS\n"),
                           "%s", text);
        cr_assert_not_null(strstr(text, "\ninstall nvme_core test ! -e /run/nvme-swapguard/reload-blocked && "
                                        "/sbin/modprobe --ignore-install nvme_core $CMDLINE_OPTS\n"));
        cr_assert_null(strstr(text, "nvmet"), "a target module is not the host stack");
        cr_assert_null(strstr(text, "dm_multipath"));
        fake_tree_remove();
}

Test(reload_gate, host_612_common_and_no_subdirectories) {
        _cleanup_strv_free_ char **mods = NULL;
        _cleanup_free_ char *text = NULL, *got = NULL;

        node("6.12.118+deb12-amd64", modules_dep_612);
        /* only /usr/sbin/modprobe, as a node without the /sbin link */
        fake_write("usr/sbin/modprobe", "#!/bin/sh\n");
        {
                char p[1024];

                snprintf(p, sizeof(p), "%s/usr/sbin/modprobe", root);
                cr_assert_eq(chmod(p, 0755), 0);
                snprintf(p, sizeof(p), "%s/sbin/modprobe", root);
                cr_assert_eq(unlink(p), 0);
        }
        { int r = reload_gate_install(&mods); cr_assert_eq(r, 0, "reload_gate_install: %s", strerror(-r)); }
        got = strv_join(mods, " ");
        cr_assert_str_eq(got, "nvme nvme_apple nvme_auth nvme_core nvme_fabrics nvme_fc nvme_keyring nvme_rdma nvme_tcp");
        text = gate_text();
        cr_assert_not_null(strstr(text, "\ninstall nvme_keyring test ! -e /run/nvme-swapguard/reload-blocked && "
                                        "/usr/sbin/modprobe --ignore-install nvme_keyring $CMDLINE_OPTS\n"),
                           "%s", text);
        cr_assert_null(strstr(text, "nvme_odd"), "a module below a subdirectory of host/ is not one of its modules");
        cr_assert_null(strstr(text, "tls"));
        fake_tree_remove();
}

Test(reload_gate, no_modprobe_is_an_error_and_nothing_written) {
        char p[1024];

        node("6.1.0-57-amd64", modules_dep_61);
        snprintf(p, sizeof(p), "%s/sbin/modprobe", root);
        cr_assert_eq(unlink(p), 0);
        cr_assert_eq(reload_gate_install(NULL), -ENOENT);
        snprintf(p, sizeof(p), "%s" RELOAD_GATE_PATH, root);
        cr_assert_eq(path_exists(p), 0);
        fake_tree_remove();
}

Test(reload_gate, render_refuses_a_shell_word) {
        char *text = NULL;
        char *const mods[] = { (char *) "nvme", NULL };

        cr_assert_eq(reload_gate_render(mods, "/sbin/modprobe;id", &text), -EINVAL);
        cr_assert_eq(reload_gate_render(mods, "modprobe", &text), -EINVAL);
        cr_assert_eq(reload_gate_render(mods, "/sbin/mod probe", &text), -EINVAL);
        cr_assert_null(text);
}

Test(reload_gate, modules_skip_names_that_are_not_plain) {
        ModuleTree t = {};
        ModuleTreeEntry e[] = {
                { .name = (char *) "nvme", .relpath = (char *) "kernel/drivers/nvme/host/nvme.ko" },
                { .name = (char *) "nv$(id)", .relpath = (char *) "kernel/drivers/nvme/host/nv$(id).ko" },
                { .name = (char *) "nvme", .relpath = (char *) "updates/drivers/nvme/host/nvme.ko" },
                { .name = (char *) "xnvme", .relpath = (char *) "kernel/xdrivers/nvme/host/xnvme.ko" },
        };
        _cleanup_strv_free_ char **mods = NULL;

        t.entries = e;
        t.n_entries = 4;
        cr_assert_eq(reload_gate_modules(&t, &mods), 0);
        cr_assert_eq(strv_length(mods), 1);
        cr_assert_str_eq(mods[0], "nvme");
}

Test(reload_gate, remove_takes_gate_and_flag) {
        char p[1024];

        node("6.1.0-57-amd64", modules_dep_61);
        cr_assert_eq(reload_gate_install(NULL), 0);
        fake_write(RELOAD_GATE_FLAG, "");
        cr_assert_eq(reload_gate_remove(), 0);
        snprintf(p, sizeof(p), "%s" RELOAD_GATE_PATH, root);
        cr_assert_eq(path_exists(p), 0);
        snprintf(p, sizeof(p), "%s" RELOAD_GATE_FLAG, root);
        cr_assert_eq(path_exists(p), 0);
        cr_assert_eq(reload_gate_remove(), 0, "nothing there is not an error");
        fake_tree_remove();
}
