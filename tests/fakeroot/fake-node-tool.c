/* SPDX-License-Identifier: Apache-2.0 */
/* fake-node ROOT COMMAND ARGS...: the fake-node library for shell tests.
 *   init [RELEASE]                      skeleton (and the osrelease)
 *   module NAME REFCNT HOLDERS|- [TAINT] a loaded module (REFCNT -1: as many as holders;
 *                                       HOLDERS comma-separated)
 *   namespace CTRL NSID [multipath] [partitions=N]
 *   mount DEV MOUNTPOINT [FSTYPE]
 *   swap DEV
 *   dm DEV NAME                         a device-mapper target stacked on DEV
 *   process PID COMM DEV                a process holding /dev/DEV open
 *   claim DEV                           the kernel says EBUSY, nothing else shows why
 *   mntns PID INODE COMM                PID in mount namespace mnt:[INODE] (pid 1's is the host's)
 *   nsmount PID DEV MOUNTPOINT [FSTYPE] a mount only PID's namespace shows (DEV claimed)
 *   kallsyms SYMBOL MODULE
 *   ko TREE RELPATH NAME DEPENDS|- VERMAGIC|- [KEY=VALUE...]
 *   modules-dep TREE
 *   osrelease RELEASE
 *   loaded NAME                         exit 0 when loaded, 1 when not
 *   refcnt NAME                         prints the refcnt
 *   fabrics CTRL TRANSPORT TRADDR|- TRSVCID|- NQN [NSID[:NGUID[:UUID]]]...
 *                                       a connected fabrics controller and its
 *                                       target (fake-node-fabrics.h)
 *   container PID ID [NAMESPACE [NAME [CAPEFF|- [own-userns|- [POD_UID]]]]]
 *                                       CRI-O's view of a container: its
 *                                       cgroup, status (CapEff; default
 *                                       privileged) and user namespace (the
 *                                       host's unless own-userns), then its
 *                                       store entry (in one fixed pod unless
 *                                       POD_UID) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-node.h"

static char **split_commas(const char *s) {
        char **l = calloc(strlen(s) + 2, sizeof(char *));
        char *copy = strdup(s), *save = NULL;
        size_t k = 0;

        if (!l || !copy) {
                free(l);
                free(copy);
                return NULL;
        }
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
                l[k++] = strdup(t);
        free(copy);
        return l;
}

/* "1:nguid:uuid" into ns (pointing into s). */
static void parse_fabrics_ns(char *s, FakeFabricsNamespace *ns) {
        char *nguid = strchr(s, ':'), *uuid = nguid ? strchr(nguid + 1, ':') : NULL;

        if (nguid)
                *nguid++ = '\0';
        if (uuid)
                *uuid++ = '\0';
        *ns = (FakeFabricsNamespace) { .nsid = (unsigned) atoi(s), .nguid = nguid, .uuid = uuid };
}

static int add_fabrics(FakeNode *n, int argc, char **argv) {
        FakeFabricsNamespace ns[16];
        FakeFabrics f = {
                .transport = argv[2], .traddr = strcmp(argv[3], "-") ? argv[3] : NULL,
                .trsvcid = strcmp(argv[4], "-") ? argv[4] : NULL, .subsysnqn = argv[5], .namespaces = ns,
        };

        for (int i = 6; i < argc && f.n_namespaces < 16; i++)
                parse_fabrics_ns(argv[i], &ns[f.n_namespaces++]);
        return fake_node_add_fabrics_controller(n, (unsigned) atoi(argv[1]), &f);
}

static int usage(void) {
        fprintf(stderr, "usage: fake-node ROOT COMMAND ARGS... (see fake-node-tool.c)\n");
        return 2;
}

static int run(FakeNode *n, int argc, char **argv) {
        const char *cmd = argv[0];

#define NEED(k) do { if (argc < (k) + 1) return -EINVAL; } while (0)
        if (strcmp(cmd, "init") == 0)
                return argc > 1 ? fake_node_set_osrelease(n, argv[1]) : 0;
        if (strcmp(cmd, "osrelease") == 0) {
                NEED(1);
                return fake_node_set_osrelease(n, argv[1]);
        }
        if (strcmp(cmd, "module") == 0) {
                char **holders = NULL;
                int r;

                NEED(3);
                if (strcmp(argv[3], "-") != 0 && !(holders = split_commas(argv[3])))
                        return -ENOMEM;
                r = fake_node_add_module(n, argv[1], atoi(argv[2]), (const char *const *) holders,
                                         argc > 4 ? argv[4] : "");
                fake_strv_free(holders);
                return r;
        }
        if (strcmp(cmd, "namespace") == 0) {
                bool mp = false;
                unsigned parts = 0;

                NEED(2);
                for (int i = 3; i < argc; i++)
                        if (strcmp(argv[i], "multipath") == 0)
                                mp = true;
                        else if (strncmp(argv[i], "partitions=", 11) == 0)
                                parts = (unsigned) atoi(argv[i] + 11);
                        else
                                return -EINVAL;
                return fake_node_add_namespace(n, (unsigned) atoi(argv[1]), (unsigned) atoi(argv[2]), mp, parts);
        }
        if (strcmp(cmd, "mount") == 0) {
                NEED(2);
                return fake_node_add_mount(n, argv[1], argv[2], argc > 3 ? argv[3] : "xfs");
        }
        if (strcmp(cmd, "swap") == 0) {
                NEED(1);
                return fake_node_add_swap(n, argv[1]);
        }
        if (strcmp(cmd, "dm") == 0) {
                NEED(2);
                return fake_node_add_dm_holder(n, argv[1], argv[2]);
        }
        if (strcmp(cmd, "process") == 0) {
                NEED(3);
                return fake_node_add_process_fd(n, atoi(argv[1]), argv[2], argv[3]);
        }
        if (strcmp(cmd, "mntns") == 0) {
                NEED(3);
                return fake_node_set_mount_namespace(n, atoi(argv[1]), strtoull(argv[2], NULL, 10), argv[3]);
        }
        if (strcmp(cmd, "nsmount") == 0) {
                NEED(3);
                return fake_node_add_namespace_mount(n, atoi(argv[1]), argv[2], argv[3], argc > 4 ? argv[4] : NULL);
        }
        if (strcmp(cmd, "claim") == 0) {
                NEED(1);
                return fake_node_claim(n, argv[1]);
        }
        if (strcmp(cmd, "kallsyms") == 0) {
                NEED(2);
                return fake_node_add_kallsyms(n, argv[1], argv[2]);
        }
        if (strcmp(cmd, "ko") == 0) {
                NEED(5);
                return fake_node_add_ko(n, argv[1], argv[2], argv[3], strcmp(argv[4], "-") ? argv[4] : "",
                                        strcmp(argv[5], "-") ? argv[5] : NULL, (const char *const *) argv + 6);
        }
        if (strcmp(cmd, "modules-dep") == 0) {
                NEED(1);
                return fake_node_write_modules_dep(n, argv[1]);
        }
        if (strcmp(cmd, "container") == 0) {
                NEED(2);
                return fake_node_add_container(n, &(FakeContainer) {
                        .pid = atoi(argv[1]),
                        .id = argv[2],
                        .namespace = argc > 3 ? argv[3] : NULL,
                        .name = argc > 4 ? argv[4] : NULL,
                        .capeff = argc > 5 && strcmp(argv[5], "-") ? argv[5] : NULL,
                        .own_userns = argc > 6 && strcmp(argv[6], "own-userns") == 0,
                        .pod_uid = argc > 7 ? argv[7] : NULL,
                });
        }
        if (strcmp(cmd, "fabrics") == 0) {
                NEED(5);
                return add_fabrics(n, argc, argv);
        }
        if (strcmp(cmd, "loaded") == 0) {
                NEED(1);
                return fake_node_module_loaded(n, argv[1]) > 0 ? 0 : 1;
        }
        if (strcmp(cmd, "refcnt") == 0) {
                int refcnt, r;

                NEED(1);
                r = fake_node_module_refcnt(n, argv[1], &refcnt);
                if (r >= 0)
                        printf("%d\n", refcnt);
                return r;
        }
        return -EINVAL;
#undef NEED
}

int main(int argc, char **argv) {
        FakeNode *n = NULL;
        int r;

        if (argc < 3)
                return usage();
        r = fake_node_new(argv[1], &n);
        if (r < 0) {
                fprintf(stderr, "fake-node: %s: %s\n", argv[1], strerror(-r));
                return 1;
        }
        r = run(n, argc - 2, argv + 2);
        fake_node_free(n);
        if (r == -EINVAL)
                return usage();
        if (r < 0) {
                fprintf(stderr, "fake-node: %s: %s\n", argv[2], strerror(-r));
                return 1;
        }
        return r;
}
