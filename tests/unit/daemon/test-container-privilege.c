/* SPDX-License-Identifier: Apache-2.0 */
/* Who may give us kernel code: CapEff parsing, the user namespace check
 * against a fake /proc, and reaching a root through a pidfd. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "container/container-privilege.h"
#include "host/host-root.h"

Test(privilege, capeff_parse) {
        uint64_t m = 0;

        cr_assert_eq(proc_status_capeff("Name:\tsh\nCapInh:\t0000000000000000\nCapEff:\t000001ffffffffff\n", &m), 0);
        cr_assert_eq(m, 0x1ffffffffffULL);
        cr_assert(m & (1ULL << CAP_SYS_MODULE_BIT));
        cr_assert_eq(proc_status_capeff("CapEff:\t00000000a80425fb\n", &m), 0, "a default container's set");
        cr_assert_not(m & (1ULL << CAP_SYS_MODULE_BIT));
        cr_assert_eq(proc_status_capeff("CapEff:\t0000000000010000", &m), 0, "no final newline");
        cr_assert_eq(m, 1ULL << 16);
        for (const char *const *bad = (const char *const[]) { "", "Name: x\n", "CapEff:\tffff\n",
                                                               "CapEff:\t000001ffffffffffff\n",
                                                               "CapEff:\t00000000000100zz\n", "XCapEff:\t0000000000010000\n",
                                                               NULL };
             *bad; bad++)
                cr_assert_eq(proc_status_capeff(*bad, &m), -EBADMSG, "\"%s\"", *bad);
}

static char dir[64];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(p);
}

static void mk(void) {
        strcpy(dir, "/tmp/sg-priv-XXXXXX");
        cr_assert_not_null(mkdtemp(dir));
        cr_assert_eq(host_root_set(dir), 0);
}

static void rm(void) {
        host_root_set(NULL);
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void proc(int pid, const char *capeff, bool host_ns) {
        char p[256], q[256];
        FILE *f;

        snprintf(p, sizeof(p), "%s/proc", dir);
        mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/proc/1", dir);
        mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/proc/1/ns", dir);
        mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/proc/1/ns/user", dir);
        if (access(p, F_OK) < 0)
                fclose(fopen(p, "we"));
        snprintf(q, sizeof(q), "%s/proc/%d", dir, pid);
        mkdir(q, 0755);
        snprintf(q, sizeof(q), "%s/proc/%d/ns", dir, pid);
        mkdir(q, 0755);
        snprintf(q, sizeof(q), "%s/proc/%d/ns/user", dir, pid);
        if (host_ns)
                cr_assert_eq(link(p, q), 0);
        else
                fclose(fopen(q, "we"));
        snprintf(q, sizeof(q), "%s/proc/%d/status", dir, pid);
        f = fopen(q, "we");
        fprintf(f, "Name:\tentrypoint\nCapEff:\t%s\n", capeff);
        fclose(f);
}

Test(privilege, privileged_in_host_userns_only, .init = mk, .fini = rm) {
        ContainerPrivilege p;

        proc(4242, "000001ffffffffff", true);
        cr_assert_eq(container_privilege_read(4242, &p), 0);
        cr_assert(container_privilege_trusted(&p));

        proc(4243, "00000000a80425fb", true);
        cr_assert_eq(container_privilege_read(4243, &p), 0);
        cr_assert_not(container_privilege_trusted(&p));
        cr_assert_str_eq(container_privilege_missing(&p), "no CAP_SYS_MODULE in CapEff");

        proc(4244, "000001ffffffffff", false);
        cr_assert_eq(container_privilege_read(4244, &p), 0);
        cr_assert_not(container_privilege_trusted(&p), "all capabilities, but in its own user namespace");
        cr_assert_str_eq(container_privilege_missing(&p), "not in the host's user namespace");

        cr_assert_eq(container_privilege_read(4245, &p), -ENOENT, "no such process: not privileged");
}

Test(privilege, root_through_pidfd) {
        pid_t child = fork();
        int pidfd, fd = -1;

        cr_assert_geq(child, 0);
        if (child == 0) {
                pause();
                _exit(0);
        }
        pidfd = (int) syscall(SYS_pidfd_open, child, 0);
        cr_assert_geq(pidfd, 0);
        /* /proc/<pid>/root of our own child: readable without privileges. */
        cr_assert_eq(container_root_open(child, pidfd, &fd), 0);
        cr_assert_geq(fd, 0);
        close(fd);
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        /* Reaped: the pid may now be anyone's. /proc/<pid>/root is gone here,
         * so stand in for a reused pid with a fake root where it still
         * exists: only the pidfd can tell, and it must. */
        fd = -1;
        cr_assert_eq(container_root_open(child, pidfd, &fd), -ENOENT, "no root to open");
        {
                char p[256];

                mk();
                snprintf(p, sizeof(p), "%s/proc", dir);
                mkdir(p, 0755);
                snprintf(p, sizeof(p), "%s/proc/%d", dir, (int) child);
                mkdir(p, 0755);
                snprintf(p, sizeof(p), "%s/proc/%d/root", dir, (int) child);
                cr_assert_eq(mkdir(p, 0755), 0);
                cr_assert_eq(container_root_open(child, pidfd, &fd), -ESRCH, "a reused pid's root was taken");
                rm();
        }
        cr_assert_eq(fd, -1);
        close(pidfd);
}
