/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader, the daemon's side: start, ask, stop (the design:
 * privileged-reader.h; the reader's own side: reader-serve.c). */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/crio.h"
#include "host/host-root.h"
#include "sandbox/privileged-reader.h"
#include "sandbox/reader-codec.h"
#include "util/macro.h"

struct PrivilegedReader {
        pid_t pid;            /* 0 once reaped */
        int fd;               /* -1 once given up */
        int pidfd;            /* readable once the reader has ended; -1: none */
        char *containers_dir; /* the store the reader serves; NULL: none */
        PrivilegedReaderEnd end; /* how it ended, once reaped (end.pid set) */
};

/* pidfd_open(2): the daemon's loop learns the reader's end from it, whether
 * the reader died alone or was given up here. */
static int open_pidfd(pid_t pid) {
        int fd = (int) syscall(SYS_pidfd_open, pid, 0);

        return fd < 0 ? -1 : fd;
}

/* Reaps the reader (blocking when wait) and records how it ended; the
 * socket goes with it. 0 reaped (or reaped elsewhere: status unknown), 1
 * still running (not wait only). */
static int reap(PrivilegedReader *r, bool wait) {
        int status = 0;
        pid_t k;

        if (r->pid <= 0)
                return 0;
        do
                k = waitpid(r->pid, &status, wait ? 0 : WNOHANG);
        while (k < 0 && errno == EINTR);
        if (k == 0)
                return 1;
        r->end.pid = r->pid;
        r->end.known = k == r->pid;
        r->end.status = r->end.known ? status : 0;
        r->pid = 0;
        if (r->fd >= 0)
                close(r->fd);
        r->fd = -1;
        return 0;
}

int privileged_reader_start(const char *containers_dir, PrivilegedReader **ret) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = calloc(1, sizeof(*r));
        pid_t daemon = getpid(), pid;
        int sv[2];

        if (!r)
                return -ENOMEM;
        r->fd = -1;
        r->pidfd = -1;
        if (containers_dir && !(r->containers_dir = strdup(containers_dir)))
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
                privileged_reader_serve(sv[1], daemon, r->containers_dir);
        }
        close(sv[1]);
        r->pid = pid;
        r->fd = sv[0];
        r->pidfd = open_pidfd(pid);
        *ret = TAKE_PTR(r);
        return 0;
}

int privileged_reader_adopt(int fd, pid_t pid, PrivilegedReader **ret) {
        PrivilegedReader *r = calloc(1, sizeof(*r));

        if (!r)
                return -ENOMEM;
        r->fd = fd;
        r->pid = pid;
        r->pidfd = pid > 0 ? open_pidfd(pid) : -1;
        *ret = r;
        return 0;
}

/* error: the failed exchange that made the daemon's side give the reader
 * up (0: freed). A reader that had died already keeps the status it died
 * with: the kernel drops a signal sent to a process that is exiting. */
static void give_up(PrivilegedReader *r, int error) {
        if (r->fd >= 0)
                close(r->fd);
        r->fd = -1;
        if (r->pid > 0) {
                if (error < 0 && r->end.error == 0)
                        r->end.error = error;
                (void) kill(r->pid, SIGKILL);
                (void) reap(r, true);
        }
}

PrivilegedReader *privileged_reader_free(PrivilegedReader *r) {
        if (r) {
                give_up(r, 0);
                if (r->pidfd >= 0)
                        close(r->pidfd);
                free(r->containers_dir);
                free(r);
        }
        return NULL;
}

pid_t privileged_reader_pid(const PrivilegedReader *r) {
        return r ? r->pid : 0;
}

int privileged_reader_end_fd(const PrivilegedReader *r) {
        return r && r->pidfd >= 0 ? r->pidfd : -EBADF;
}

int privileged_reader_ended(PrivilegedReader *r, PrivilegedReaderEnd *ret) {
        if (!r)
                return -EINVAL;
        if (r->pid > 0 && reap(r, false) > 0)
                return 0;
        if (r->end.pid <= 0)
                return 0; /* adopted without a process: nothing to end */
        *ret = r->end;
        return 1;
}

static const char *signal_name(int sig) {
        static const struct {
                int sig;
                const char *name;
        } names[] = {
                { SIGKILL, "SIGKILL" }, { SIGSYS, "SIGSYS" },   { SIGSEGV, "SIGSEGV" }, { SIGABRT, "SIGABRT" },
                { SIGBUS, "SIGBUS" },   { SIGXFSZ, "SIGXFSZ" }, { SIGTERM, "SIGTERM" }, { SIGILL, "SIGILL" },
                { SIGFPE, "SIGFPE" },   { SIGPIPE, "SIGPIPE" }, { SIGINT, "SIGINT" },   { SIGHUP, "SIGHUP" },
                { SIGXCPU, "SIGXCPU" }, { SIGTRAP, "SIGTRAP" },
        };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (names[i].sig == sig)
                        return names[i].name;
        return NULL;
}

const char *privileged_reader_end_describe(const PrivilegedReaderEnd *e, char *buf, size_t n) {
        char how[96];
        const char *name;

        if (!e->known)
                snprintf(how, sizeof(how), "ended (its status was collected elsewhere)");
        else if (WIFSIGNALED(e->status) && (name = signal_name(WTERMSIG(e->status))))
                snprintf(how, sizeof(how), "killed by signal %d (%s%s)", WTERMSIG(e->status), name,
                         WTERMSIG(e->status) == SIGSYS ? ": a call its seccomp filter forbids" : "");
        else if (WIFSIGNALED(e->status))
                snprintf(how, sizeof(how), "killed by signal %d", WTERMSIG(e->status));
        else if (WIFEXITED(e->status))
                snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(e->status));
        else
                snprintf(how, sizeof(how), "ended (wait status %#x)", (unsigned) e->status);
        /* ECONNRESET, EPIPE: the socket closed under a request, the reader
         * was gone already. Otherwise the daemon's side ended a live one. */
        if (e->error == -ETIME)
                snprintf(buf, n, "%s, given up by the daemon: no answer within %llu s", how,
                         PRIVILEGED_READER_DEADLINE_USEC / 1000000ULL);
        else if (e->error == -EBADMSG)
                snprintf(buf, n, "%s, given up by the daemon: an answer that did not decode or fit the request",
                         how);
        else if (e->error < 0 && e->error != -ECONNRESET && e->error != -EPIPE)
                snprintf(buf, n, "%s, given up by the daemon: %s", how, strerror(-e->error));
        else
                snprintf(buf, n, "%s", how);
        return buf;
}

static uint64_t now_usec(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

static void close_passed(int *fds, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (fds[i] >= 0)
                        close(fds[i]);
}

/* The fds passed with one message (SCM_RIGHTS), into fds[0..*n). A control
 * message of any other kind, or one cut short (MSG_CTRUNC: more fds than
 * room), makes the message refused: what did arrive is closed. */
static int passed_fds(struct msghdr *mh, int *fds, size_t max, size_t *n) {
        int r = 0;

        *n = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
                size_t k;

                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
                        r = -EBADMSG;
                        continue;
                }
                k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < k; i++) {
                        int fd;

                        memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                        if (*n < max)
                                fds[(*n)++] = fd;
                        else {
                                close(fd);
                                r = -EBADMSG;
                        }
                }
        }
        if (mh->msg_flags & MSG_CTRUNC)
                r = -EBADMSG;
        if (r < 0) {
                close_passed(fds, *n);
                *n = 0;
        }
        return r;
}

/* One message and the fds passed with it (up to max; none wanted: max 0);
 * one byte more than a message tells an oversized one (a SEQPACKET
 * datagram is cut, MSG_TRUNC says by how much). */
static int receive_with_fds(int fd, uint64_t deadline, uint8_t buf[static READER_MSG_SIZE], int *fds, size_t max,
                            size_t *n_fds) {
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                uint64_t now = now_usec();
                ssize_t k;
                int n, m;

                if (now >= deadline)
                        return -ETIME;
                n = poll(&p, 1, (int) ((deadline - now + 999) / 1000));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -ETIME;
                {
                        union {
                                struct cmsghdr align;
                                char buf[CMSG_SPACE(sizeof(int) * 2)];
                        } control = {};
                        struct iovec iov = { .iov_base = buf, .iov_len = READER_MSG_SIZE };
                        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                                             .msg_controllen = sizeof(control.buf) };

                        k = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
                        if (k < 0 && (errno == EINTR || errno == EAGAIN))
                                continue;
                        if (k < 0)
                                return -errno;
                        m = passed_fds(&mh, fds, max, n_fds);
                        if (m >= 0 && k == READER_MSG_SIZE && !(mh.msg_flags & MSG_TRUNC))
                                return 0;
                        if (m >= 0)
                                close_passed(fds, *n_fds);
                        *n_fds = 0;
                        return k == 0 ? -ECONNRESET : -EBADMSG;
                }
        }
}

static int receive(int fd, uint64_t deadline, uint8_t buf[static READER_MSG_SIZE]) {
        size_t n = 0;

        return receive_with_fds(fd, deadline, buf, NULL, 0, &n);
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
                case READER_RECORD_OPENED:
                case READER_RECORD_RELEASED:
                case READER_RECORD_LOOKED:
                case READER_RECORD_WATCHED:
                        return -EBADMSG; /* no answer to this request */
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
                give_up(r, k);
                return k;
        }
        *ret = l;
        return 0;
}

/* What is passed back is checked again here: the reader is trusted to
 * open, not to be right (a node of another type, or a store file that is no
 * regular file, is refused as the reader would have). */
static int passed_type_ok(const ReaderRequest *q, int fd) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (q->type == READER_REQUEST_OPEN_STORE)
                return S_ISDIR(st.st_mode) ? 0 : -EBADMSG;
        if (q->type == READER_REQUEST_OPEN_STORE_FILE || q->type == READER_REQUEST_OPEN_SYSCALL || !host_root_is_real())
                return S_ISREG(st.st_mode) ? 0 : -EBADMSG;
        return (q->device_kind == DEVICE_OPEN_CONTROLLER ? S_ISCHR(st.st_mode) : S_ISBLK(st.st_mode)) ? 0 : -EBADMSG;
}

/* The request, with fd passed alongside when fd >= 0. */
static int send_request(PrivilegedReader *r, const ReaderRequest *q, int fd) {
        uint8_t buf[READER_MSG_SIZE];
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int))];
        } control = {};
        struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        int k;

        if ((k = reader_request_encode(q, buf)) < 0)
                return k;
        if (fd >= 0) {
                struct cmsghdr *c;

                mh.msg_control = control.buf;
                mh.msg_controllen = sizeof(control.buf);
                c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(c), &fd, sizeof(int));
        }
        errno = 0;
        if (sendmsg(r->fd, &mh, MSG_NOSIGNAL) != (ssize_t) sizeof(buf))
                return errno ? -errno : -EIO;
        return 0;
}

/* One request answered by one OPENED record. *answered: whether the reader
 * answered in step (its own errno included), so that it may be asked
 * again. */
static int ask_open(PrivilegedReader *r, const ReaderRequest *q, int *ret_fd, bool *answered) {
        uint8_t buf[READER_MSG_SIZE];
        uint64_t deadline = now_usec() + PRIVILEGED_READER_DEADLINE_USEC;
        ReaderRecord rec;
        int fds[1], k;
        size_t n = 0;

        if ((k = send_request(r, q, -EBADF)) < 0)
                return k;
        if ((k = receive_with_fds(r->fd, deadline, buf, fds, ELEMENTSOF(fds), &n)) < 0)
                return k;
        k = reader_record_decode(buf, sizeof(buf), &rec);
        if (k >= 0 && rec.kind != READER_RECORD_OPENED)
                k = -EBADMSG;
        /* Exactly one fd with a success, none with a failure. */
        if (k >= 0 && (rec.status < 0 ? n != 0 : n != 1))
                k = -EBADMSG;
        if (k >= 0 && rec.status == 0)
                k = passed_type_ok(q, fds[0]);
        /* Then, after a success, that the reader's copy is closed: only
         * then is the open the daemon's alone (an exclusive claim, a module
         * reference its close drops before it reads a refcount). */
        if (k >= 0 && rec.status == 0) {
                ReaderRecord released;

                k = receive(r->fd, deadline, buf);
                if (k >= 0)
                        k = reader_record_decode(buf, sizeof(buf), &released);
                if (k >= 0 && released.kind != READER_RECORD_RELEASED)
                        k = -EBADMSG;
        }
        if (k < 0) {
                close_passed(fds, n);
                return k;
        }
        *answered = true;
        if (rec.status < 0)
                return rec.status;
        *ret_fd = fds[0];
        return 0;
}

static int ask(PrivilegedReader *r, const ReaderRequest *q, int *ret_fd) {
        bool answered = false;
        int k;

        k = ask_open(r, q, ret_fd, &answered);
        /* The reader's own answers (EBUSY, ENOENT, ...) leave it in step;
         * one it did not give, or gave wrongly, does not: nothing it says
         * later can be matched to a request. */
        if (k < 0 && !answered)
                give_up(r, k);
        return k;
}

int privileged_reader_open_device(void *reader, DeviceOpenKind kind, const char *name, int *ret_fd) {
        PrivilegedReader *r = reader;
        ReaderRequest q = { .type = READER_REQUEST_OPEN_DEVICE, .device_kind = kind };

        if (!r || r->fd < 0)
                return -ENOTCONN;
        if (!device_open_name_valid(kind, name))
                return -EINVAL; /* not sent: the reader would end on it */
        memcpy(q.device_name, name, strlen(name) + 1);
        return ask(r, &q, ret_fd);
}

int privileged_reader_open_store_file(void *reader, const char *containers_dir, const char *id, CrioStoreFile f,
                                      int *ret_fd) {
        PrivilegedReader *r = reader;
        ReaderRequest q = { .type = READER_REQUEST_OPEN_STORE_FILE, .store_file = f };

        if (!r || r->fd < 0)
                return -ENOTCONN;
        if (!crio_store_file_name(f) || !crio_id_valid(id))
                return -EINVAL; /* not sent: the encoder refuses it */
        /* The reader serves the store it was started with (ContainerStore=
         * applies at a restart); another is not one it opens. */
        if (!r->containers_dir || !containers_dir || !streq(containers_dir, r->containers_dir))
                return -EXDEV;
        memcpy(q.store_id, id, sizeof(q.store_id));
        return ask(r, &q, ret_fd);
}

/* One request (with fd passed, for a watch) answered by one record of kind
 * want and no fd. A reader out of step is given up, as in ask(). */
static int ask_record(PrivilegedReader *r, const ReaderRequest *q, int fd, ReaderRecordKind want, ReaderRecord *ret) {
        uint8_t buf[READER_MSG_SIZE];
        uint64_t deadline = now_usec() + PRIVILEGED_READER_DEADLINE_USEC;
        ReaderRecord rec;
        int k;

        k = send_request(r, q, fd);
        if (k >= 0)
                k = receive(r->fd, deadline, buf);
        if (k >= 0)
                k = reader_record_decode(buf, sizeof(buf), &rec);
        if (k >= 0 && rec.kind != want)
                k = -EBADMSG;
        if (k < 0) {
                give_up(r, k);
                return k;
        }
        *ret = rec;
        return 0;
}

static bool store_path(PrivatePath p) {
        return p == PRIVATE_PATH_STORE || p == PRIVATE_PATH_ENTRY || p == PRIVATE_PATH_USERDATA;
}

/* The request for p, or -EINVAL (not sent: the reader would end on it),
 * -EXDEV (a store the reader does not serve). */
static int path_request(const PrivilegedReader *r, ReaderRequestType type, const char *containers_dir, PrivatePath p,
                        const char *id, ReaderRequest *ret) {
        ReaderRequest q = { .type = type, .path = p };

        if (!private_path_valid(p, id))
                return -EINVAL;
        if (store_path(p) && (!r->containers_dir || !containers_dir || !streq(containers_dir, r->containers_dir)))
                return -EXDEV;
        if (p != PRIVATE_PATH_STORE)
                memcpy(q.store_id, id, sizeof(q.store_id));
        *ret = q;
        return 0;
}

int privileged_reader_look_path(void *reader, const char *containers_dir, PrivatePath p, const char *id,
                                PrivatePathLook *ret) {
        PrivilegedReader *r = reader;
        ReaderRequest q;
        ReaderRecord rec;
        int k;

        if (!r || r->fd < 0)
                return -ENOTCONN;
        if ((k = path_request(r, READER_REQUEST_LOOK_PATH, containers_dir, p, id, &q)) < 0)
                return k;
        if ((k = ask_record(r, &q, -EBADF, READER_RECORD_LOOKED, &rec)) < 0)
                return k;
        if (rec.status < 0)
                return rec.status;
        *ret = rec.look;
        return 0;
}

int privileged_reader_watch_path(void *reader, int inotify_fd, const char *containers_dir, PrivatePath p,
                                 const char *id, bool climb, int *ret_wd, unsigned *ret_up) {
        PrivilegedReader *r = reader;
        ReaderRequest q;
        ReaderRecord rec;
        int k;

        if (!r || r->fd < 0)
                return -ENOTCONN;
        if (inotify_fd < 0)
                return -EBADF;
        if ((k = path_request(r, READER_REQUEST_WATCH_PATH, containers_dir, p, id, &q)) < 0)
                return k;
        q.climb = climb;
        if ((k = ask_record(r, &q, inotify_fd, READER_RECORD_WATCHED, &rec)) < 0)
                return k;
        if (rec.status < 0)
                return rec.status;
        /* Not climbing: on the path itself, or it is a lie. */
        if (!climb && rec.up != 0) {
                give_up(r, -EBADMSG);
                return -EBADMSG;
        }
        *ret_wd = rec.wd;
        *ret_up = rec.up;
        return 0;
}

int privileged_reader_open_store(void *reader, const char *containers_dir, int *ret_fd) {
        PrivilegedReader *r = reader;

        if (!r || r->fd < 0)
                return -ENOTCONN;
        if (!r->containers_dir || !containers_dir || !streq(containers_dir, r->containers_dir))
                return -EXDEV;
        return ask(r, &(ReaderRequest) { .type = READER_REQUEST_OPEN_STORE }, ret_fd);
}

int privileged_reader_open_syscall(void *reader, pid_t pid, int *ret_fd) {
        PrivilegedReader *r = reader;

        if (!r || r->fd < 0)
                return -ENOTCONN;
        if (!proc_syscall_pid_valid(pid))
                return -EINVAL; /* not sent: the reader would end on it */
        return ask(r, &(ReaderRequest) { .type = READER_REQUEST_OPEN_SYSCALL, .pid = pid }, ret_fd);
}

const PrivatePathSource privileged_reader_path_source = {
        .look = privileged_reader_look_path,
        .watch = privileged_reader_watch_path,
        .open_store = privileged_reader_open_store,
};
