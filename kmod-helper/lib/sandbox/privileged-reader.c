/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader, the daemon's side: start, ask, stop (the design:
 * privileged-reader.h; the reader's own side: reader-serve.c). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/host-root.h"
#include "sandbox/privileged-reader.h"
#include "sandbox/reader-codec.h"
#include "util/macro.h"

struct PrivilegedReader {
        pid_t pid; /* 0 once reaped */
        int fd;    /* -1 once given up */
};

int privileged_reader_start(PrivilegedReader **ret) {
        _cleanup_free_ PrivilegedReader *r = calloc(1, sizeof(*r));
        pid_t daemon = getpid(), pid;
        int sv[2];

        if (!r)
                return -ENOMEM;
        (void) host_root(); /* settled here: the reader's walk goes through it */
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return -errno;
        pid = fork();
        if (pid < 0) {
                int e = errno;

                close(sv[0]);
                close(sv[1]);
                return -e;
        }
        if (pid == 0) {
                close(sv[0]);
                privileged_reader_serve(sv[1], daemon);
        }
        close(sv[1]);
        r->pid = pid;
        r->fd = sv[0];
        *ret = TAKE_PTR(r);
        return 0;
}

static void give_up(PrivilegedReader *r) {
        int status;

        if (r->fd >= 0)
                close(r->fd);
        r->fd = -1;
        if (r->pid > 0) {
                (void) kill(r->pid, SIGKILL);
                while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
                        ;
                r->pid = 0;
        }
}

PrivilegedReader *privileged_reader_free(PrivilegedReader *r) {
        if (r) {
                give_up(r);
                free(r);
        }
        return NULL;
}

pid_t privileged_reader_pid(const PrivilegedReader *r) {
        return r ? r->pid : 0;
}

static uint64_t now_usec(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* One message; one byte more than a message tells an oversized one (a
 * SEQPACKET datagram is cut, MSG_TRUNC says by how much). */
static int receive(int fd, uint64_t deadline, uint8_t buf[static READER_MSG_SIZE]) {
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                uint64_t now = now_usec();
                ssize_t k;
                int n;

                if (now >= deadline)
                        return -ETIME;
                n = poll(&p, 1, (int) ((deadline - now + 999) / 1000));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -ETIME;
                k = recv(fd, buf, READER_MSG_SIZE, MSG_DONTWAIT | MSG_TRUNC);
                if (k < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        return -ECONNRESET;
                return k == READER_MSG_SIZE ? 0 : -EBADMSG;
        }
}

static int ask_scan(PrivilegedReader *r, ProcessFdList *l) {
        uint8_t buf[READER_MSG_SIZE];
        uint64_t deadline = now_usec() + PRIVILEGED_READER_DEADLINE_USEC;
        int k;

        if ((k = reader_request_encode(&(ReaderRequest) { .type = READER_REQUEST_SCAN_FDS }, buf)) < 0)
                return k;
        errno = 0;
        if (send(r->fd, buf, sizeof(buf), MSG_NOSIGNAL) != (ssize_t) sizeof(buf))
                return errno ? -errno : -EIO;
        for (;;) {
                ReaderRecord rec;

                if ((k = receive(r->fd, deadline, buf)) < 0 || (k = reader_record_decode(buf, sizeof(buf), &rec)) < 0)
                        return k;
                switch (rec.kind) {
                case READER_RECORD_FD:
                        k = process_fd_list_add(l, &rec.fd);
                        break;
                case READER_RECORD_UNREADABLE:
                        k = process_fd_list_add_unreadable(l, rec.unreadable.pid, rec.unreadable.error);
                        break;
                case READER_RECORD_END:
                        if (rec.status < 0)
                                return rec.status;
                        if (rec.n_fds != l->n_fds || rec.n_unreadable != l->n_unreadable)
                                return -EBADMSG; /* records lost or made up */
                        return 0;
                }
                if (k < 0)
                        return k == -E2BIG ? -EBADMSG : k; /* past the bounds the reader keeps */
        }
}

int privileged_reader_scan_fds(void *reader, ProcessFdList *ret) {
        PrivilegedReader *r = reader;
        ProcessFdList l = {};
        int k;

        if (!r || r->fd < 0)
                return -ENOTCONN;
        k = ask_scan(r, &l);
        if (k < 0) {
                process_fd_list_done(&l);
                /* Out of step or gone: nothing it says later can be matched
                 * to a request. */
                give_up(r);
                return k;
        }
        *ret = l;
        return 0;
}
