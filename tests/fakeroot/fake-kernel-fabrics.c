/* SPDX-License-Identifier: Apache-2.0 */
/* The fake kernel's /dev/nvme-fabrics (see fake-kernel-fabrics.h): write(2)
 * and read(2) are interposed, and answer only for the descriptors of that
 * node (checked by device and inode, so a reused fd number is not taken
 * for it). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fake-kernel-fabrics.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_FDS 16

typedef struct FabricsFd {
        int fd;
        dev_t dev;
        ino_t ino;
        char reply[1024]; /* "" until a connect succeeded or the options were asked for */
        int written;
        int listed;
} FabricsFd;

static FabricsFd fds[MAX_FDS];
static size_t n_fds;

static int real_fstat(int fd, struct stat *st) {
        static int (*real)(int, struct stat *);

        if (!real)
                real = (int (*)(int, struct stat *)) dlsym(RTLD_NEXT, "fstat");
        return real(fd, st);
}

/* The kernel's option listing (nvmf_dev_show() without a controller), as
 * 6.12 prints it; the stand-in file's own content instead when it has any
 * (a test's older or smaller nvme_fabrics). */
#define OPTIONS_6_12                                                                                              \
        "instance=-1,cntlid=-1,transport=%s,traddr=%s,trsvcid=%s,nqn=%s,queue_size=%d,nr_io_queues=%d,"          \
        "reconnect_delay=%d,ctrl_loss_tmo=%d,keep_alive_tmo=%d,hostnqn=%s,host_traddr=%s,host_iface=%s,"         \
        "hostid=%s,duplicate_connect,disable_sqflow,hdr_digest,data_digest,nr_write_queues=%d,"                  \
        "nr_poll_queues=%d,tos=%d,keyring=%d,tls_key=%d,discovery,dhchap_secret=%s,dhchap_ctrl_secret=%s,"       \
        "tls,concat,fast_io_fail_tmo=%d\n"

/* <root>/dev/kmsg, as /dev/kmsg shows records: "<prio>,<seq>,<usec>,-;<text>". */
static void kmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void kmsg(const char *fmt, ...) {
        static unsigned seq = 1000;
        char path[4096];
        va_list ap;
        FILE *f;

        snprintf(path, sizeof(path), "%s/dev/kmsg", fake_root());
        f = fopen(path, "ae");
        if (!f)
                return;
        fprintf(f, "3,%u,%u,-;", seq, seq * 1000);
        seq++;
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        fputc('\n', f);
        fclose(f);
}

/* What the kernel logs when a connect fails (fabrics.c, tcp.c). */
static void kmsg_connect_failed(const char *options, int error) {
        if (error == EINVAL && !strstr(options, "transport="))
                kmsg("nvme_fabrics: missing parameter 'transport=%%s'");
        else if (error == EINVAL)
                kmsg("nvme_fabrics: no handler found for transport %.*s.",
                     (int) strcspn(strstr(options, "transport=") + 10, ",\n"), strstr(options, "transport=") + 10);
        else if (error == ECONNREFUSED)
                kmsg("nvme nvme9: failed to connect socket: -111");
        else if (error == EALREADY)
                kmsg("nvme_fabrics: found same ctrl");
}

void fake_fabrics_opened(const char *root, const char *path, int fd) {
        size_t rl = strlen(root);
        char kpath[4096];
        struct stat st;
        int k;

        if (strncmp(path, root, rl) != 0 || strcmp(path + rl, "/dev/nvme-fabrics") != 0 || real_fstat(fd, &st) < 0 ||
            !S_ISREG(st.st_mode)) /* only the fake node's stand-in: a FIFO or a link put there stays what it is */
                return;
        snprintf(kpath, sizeof(kpath), "%s/dev/kmsg", root);
        k = open(kpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644); /* so that the caller can tail it */
        if (k >= 0)
                close(k);
        for (size_t i = 0; i < n_fds; i++)
                if (fds[i].fd == fd) {
                        fds[i] = (FabricsFd) { .fd = fd, .dev = st.st_dev, .ino = st.st_ino };
                        return;
                }
        if (n_fds < MAX_FDS)
                fds[n_fds++] = (FabricsFd) { .fd = fd, .dev = st.st_dev, .ino = st.st_ino };
}

static FabricsFd *lookup(int fd) {
        struct stat st;

        for (size_t i = 0; i < n_fds; i++)
                if (fds[i].fd == fd)
                        return real_fstat(fd, &st) == 0 && st.st_dev == fds[i].dev && st.st_ino == fds[i].ino ? &fds[i]
                                                                                                      : NULL;
        return NULL;
}

/* The subsystem NQN of an option string, for the script's rules. */
static void nqn_of(const char *options, char *buf, size_t size) {
        const char *p = strstr(options, "nqn=");

        while (p && p != options && p[-1] != ',')
                p = strstr(p + 1, "nqn=");
        buf[0] = '\0';
        if (p)
                snprintf(buf, size, "%.*s", (int) strcspn(p + 4, ",\n"), p + 4);
}

static ssize_t fabrics_write(FabricsFd *f, const void *data, size_t size) {
        char *options = strndup(data, size), nqn[256];
        FakeNode *n = node();
        unsigned instance = 0;
        Rule *rule;
        int r;

        if (!options || !n) {
                free(options);
                fake_node_free(n);
                errno = ENOMEM;
                return -1;
        }
        nqn_of(options, nqn, sizeof(nqn));
        rule = take_rule("connect", nqn);
        if (f->written)
                r = -EINVAL; /* seq_file->private is set: one connect per open */
        else if (rule && rule->error)
                r = -rule->error;
        else
                r = fake_node_fabrics_connect(n, options, &instance);
        f->written = 1;
        /* whether the writer made itself non-dumpable before (it holds secrets) */
        klog("connect %s -> %s%s%s", options, r < 0 ? errno_name(-r) : "0", rule && rule->error ? " scripted" : "",
             prctl(PR_GET_DUMPABLE) == 0 ? " not-dumpable" : "");
        if (r >= 0)
                snprintf(f->reply, sizeof(f->reply), "instance=%u,cntlid=1\n", instance);
        else
                kmsg_connect_failed(options, -r);
        free(options);
        fake_node_free(n);
        if (r < 0) {
                errno = -r;
                return -1;
        }
        return (ssize_t) size;
}

static ssize_t fabrics_read(FabricsFd *f, void *buf, size_t size) {
        size_t len = strlen(f->reply);

        if (!len && !f->written && !f->listed) { /* nvmf_dev_show() without a controller: the options */
                char own[1024];
                ssize_t n = pread(f->fd, own, sizeof(own) - 1, 0);

                own[n > 0 ? n : 0] = '\0';
                snprintf(f->reply, sizeof(f->reply), "%s", n > 0 ? own : OPTIONS_6_12);
                f->listed = 1;
                len = strlen(f->reply);
        }
        if (!len) {
                errno = EINVAL;
                return -1;
        }
        len = len < size ? len : size;
        memcpy(buf, f->reply, len);
        f->reply[0] = '\0';
        return (ssize_t) len;
}

EXPORT ssize_t write(int fd, const void *data, size_t size);
ssize_t write(int fd, const void *data, size_t size) {
        static ssize_t (*real)(int, const void *, size_t);
        FabricsFd *f = n_fds ? lookup(fd) : NULL;

        if (f)
                return fabrics_write(f, data, size);
        if (!real)
                real = (ssize_t (*)(int, const void *, size_t)) dlsym(RTLD_NEXT, "write");
        return real(fd, data, size);
}

EXPORT ssize_t read(int fd, void *buf, size_t size);
ssize_t read(int fd, void *buf, size_t size) {
        static ssize_t (*real)(int, void *, size_t);
        FabricsFd *f = n_fds ? lookup(fd) : NULL;

        if (f)
                return fabrics_read(f, buf, size);
        if (!real)
                real = (ssize_t (*)(int, void *, size_t)) dlsym(RTLD_NEXT, "read");
        return real(fd, buf, size);
}

/* _FORTIFY_SOURCE builds call this instead. */
EXPORT ssize_t __read_chk(int fd, void *buf, size_t size, size_t buflen);
ssize_t __read_chk(int fd, void *buf, size_t size, size_t buflen) {
        return read(fd, buf, size < buflen ? size : buflen);
}

/* fstat() of the stand-in (a regular file in the fake root) answers as the
 * kernel's misc device: a character device with the number the fake node
 * shows in sys/class/misc/nvme-fabrics/dev. */
static void as_device(int fd, struct stat *st) {
        char path[4096], text[64] = "";
        unsigned maj = 0, min = 0;
        FILE *f;

        if (!n_fds || !lookup(fd))
                return;
        snprintf(path, sizeof(path), "%s/sys/class/misc/nvme-fabrics/dev", fake_root());
        f = fopen(path, "re");
        if (f) {
                if (!fgets(text, sizeof(text), f) || sscanf(text, "%u:%u", &maj, &min) != 2)
                        maj = min = 0;
                fclose(f);
        }
        st->st_mode = (st->st_mode & 07777) | S_IFCHR;
        st->st_rdev = makedev(maj, min);
}

EXPORT int fstat(int fd, struct stat *st);
int fstat(int fd, struct stat *st) {
        int r = real_fstat(fd, st);

        if (r == 0)
                as_device(fd, st);
        return r;
}
