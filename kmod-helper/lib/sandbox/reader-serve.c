/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader's own side: confinement and the request loop (the
 * design: privileged-reader.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <string.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/privileged-reader.h"
#include "sandbox/reader-codec.h"
#include "util/macro.h"

#if defined(__x86_64__)
#define READER_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define READER_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* By the system call, not _exit(): a sanitizer's exit handlers would run
 * calls the filter kills (parser-sandbox.c does the same). */
_Noreturn static void reader_exit(int code) {
        for (;;)
                (void) syscall(SYS_exit_group, code);
}

#define MAX_INSNS 160

typedef struct Filter {
        struct sock_filter insn[MAX_INSNS];
        size_t n;
} Filter;

static void emit(Filter *f, struct sock_filter i) {
        if (f->n < MAX_INSNS)
                f->insn[f->n] = i;
        f->n++; /* counted past the end: refused below */
}

#define ARG_LO(i) ((uint32_t) offsetof(struct seccomp_data, args[(i)]))
#define RET(v) emit(f, (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, (v)))
#define LOAD_NR() emit(f, (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t) offsetof(struct seccomp_data, nr)))

static void rule_allow(Filter *f, long nr) {
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t) nr, 0, 1));
        RET(SECCOMP_RET_ALLOW);
}

/* nr allowed when argument arg is fd (or fd2, when >= 0); otherwise killed. */
static void rule_allow_fd(Filter *f, long nr, unsigned arg, int fd, int fd2) {
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t) nr, 0, 5));
        emit(f, (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)));
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t) fd, 2, 0));
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t) (fd2 >= 0 ? fd2 : fd), 1, 0));
        RET(SECCOMP_RET_KILL_PROCESS);
        RET(SECCOMP_RET_ALLOW);
}

/* nr allowed when none of mask's bits is set in argument arg; else killed. */
static void rule_allow_without(Filter *f, long nr, unsigned arg, uint32_t mask) {
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t) nr, 0, 4));
        emit(f, (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)));
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, mask, 0, 1));
        RET(SECCOMP_RET_KILL_PROCESS);
        RET(SECCOMP_RET_ALLOW);
}

/* Reading: the walk (opendir, getdents64, readlink, stat, a sort), the
 * device opens (lstat, openat without write flags, fstat) and memory. */
static int filter_build(Filter *f) {
        static const long allowed[] = {
                SYS_getdents64, SYS_readlinkat, SYS_newfstatat, SYS_fstat,  SYS_statx, SYS_close,
                SYS_fcntl,      SYS_lseek,      SYS_brk,        SYS_munmap, SYS_mremap, SYS_madvise,
                SYS_exit,       SYS_exit_group, SYS_rt_sigreturn, SYS_getpid, SYS_capget,
                /* a watch on the daemon's inotify fd (host/private-path.h) */
                SYS_inotify_add_watch,
                /* glibc's qsort() asks for the memory size before it sorts
                 * a large array (a real /proc's names) */
                SYS_sysinfo,
                /* a sanitizer build's handler before a noreturn call
                 * (reader_exit) asks which signal stack it runs on */
                SYS_sigaltstack,
#ifdef SYS_readlink
                SYS_readlink,
#endif
#ifdef SYS_stat
                SYS_stat,       SYS_lstat,
#endif
        };
        /* O_TMPFILE's own bit (it includes O_DIRECTORY). */
        const uint32_t open_writes = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | 020000000U;

#ifndef READER_AUDIT_ARCH
        return -EOPNOTSUPP;
#else
        f->n = 0;
        emit(f, (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t) offsetof(struct seccomp_data, arch)));
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, READER_AUDIT_ARCH, 1, 0));
        RET(SECCOMP_RET_KILL_PROCESS);
        LOAD_NR();
#if defined(__x86_64__)
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 1)); /* x32 */
        RET(SECCOMP_RET_KILL_PROCESS);
#endif
        /* Each rule below that loads an argument returns: the accumulator
         * holds the call's number at the start of every rule. */
        rule_allow_fd(f, SYS_recvfrom, 0, PRIVILEGED_READER_FD, -1);
        rule_allow_fd(f, SYS_recvmsg, 0, PRIVILEGED_READER_FD, -1); /* a request, with the daemon's inotify fd */
        rule_allow_fd(f, SYS_read, 0, PRIVILEGED_READER_FD, -1);
        rule_allow_fd(f, SYS_sendto, 0, PRIVILEGED_READER_FD, -1);
        rule_allow_fd(f, SYS_sendmsg, 0, PRIVILEGED_READER_FD, -1); /* an opened node passed back */
        rule_allow_fd(f, SYS_write, 0, PRIVILEGED_READER_FD, STDERR_FILENO);
        rule_allow_without(f, SYS_openat, 2, open_writes);
        rule_allow_without(f, SYS_mmap, 2, PROT_EXEC);
        rule_allow_without(f, SYS_mprotect, 2, PROT_EXEC);
        for (size_t i = 0; i < ELEMENTSOF(allowed); i++)
                rule_allow(f, allowed[i]);
        RET(SECCOMP_RET_KILL_PROCESS);
        return f->n <= MAX_INSNS ? 0 : -E2BIG;
#endif
}

/* fd -> PRIVILEGED_READER_FD; every fd above it closed. */
static int reader_fds(int fd) {
        if (fd != PRIVILEGED_READER_FD) {
                if (dup2(fd, PRIVILEGED_READER_FD) < 0)
                        return -errno;
        } else if (fcntl(fd, F_SETFD, 0) < 0)
                return -errno;
        if (syscall(SYS_close_range, PRIVILEGED_READER_FD + 1U, ~0U, 0U) < 0)
                return -errno;
        return 0;
}

/* Only CAP_DAC_READ_SEARCH and CAP_SYS_PTRACE stay, of what it holds. */
static int reader_caps(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
        const uint32_t keep = (1U << CAP_DAC_READ_SEARCH) | (1U << CAP_SYS_PTRACE); /* both below 32 */

        if (syscall(SYS_capget, &h, d) < 0)
                return -errno;
        d[0].permitted &= keep;
        d[0].effective = d[0].permitted;
        d[0].inheritable = 0;
        d[1] = (struct __user_cap_data_struct) {};
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        if (syscall(SYS_capset, &h, d) < 0)
                return -errno;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                return -errno;
        return 0;
}

static int reader_limits(void) {
        struct rlimit zero = {};

        /* prlimit64: the unit's filter denies setrlimit (@resources). */
        if (prlimit(0, RLIMIT_FSIZE, &zero, NULL) < 0 || prlimit(0, RLIMIT_CORE, &zero, NULL) < 0)
                return -errno;
        return 0;
}

static int reader_seccomp(void) {
        static Filter f;
        struct sock_fprog prog;
        int r = filter_build(&f);

        if (r < 0)
                return r;
        prog = (struct sock_fprog) { .len = (unsigned short) f.n, .filter = f.insn };
        return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0 ? -errno : 0;
}

static int send_record(const ReaderRecord *rec) {
        uint8_t buf[READER_MSG_SIZE];
        int r = reader_record_encode(rec, buf);

        if (r < 0)
                return r;
        return send(PRIVILEGED_READER_FD, buf, sizeof(buf), MSG_NOSIGNAL) == (ssize_t) sizeof(buf) ? 0 : -EIO;
}

static int serve_scan(pid_t daemon) {
        ProcessFdList l = {};
        pid_t skip[2] = { daemon, getpid() };
        ReaderRecord end = { .kind = READER_RECORD_END };
        int r;

        r = process_fd_walk(skip, ELEMENTSOF(skip), &l);
        if (r >= 0 && l.list_error)
                r = -l.list_error;
        if (r < 0) {
                process_fd_list_done(&l);
                end.status = r;
                return send_record(&end);
        }
        for (size_t i = 0; r >= 0 && i < l.n_fds; i++)
                r = send_record(&(ReaderRecord) { .kind = READER_RECORD_FD, .fd = l.fds[i] });
        for (size_t i = 0; r >= 0 && i < l.n_unreadable; i++)
                r = send_record(&(ReaderRecord) { .kind = READER_RECORD_UNREADABLE, .unreadable = l.unreadable[i] });
        end.n_fds = (uint32_t) l.n_fds;
        end.n_unreadable = (uint32_t) l.n_unreadable;
        process_fd_list_done(&l);
        return r < 0 ? r : send_record(&end);
}

/* The device node or store file asked for, opened by the reader's own
 * checks (device_open_direct, crio_store_file_open_direct: the decoder has
 * checked the name already, and wrote the id's hex itself) and passed back; the reader's copy closed at once, so only the daemon holds
 * a pin or a claim. */
static int serve_open(const ReaderRequest *q, const char *containers_dir) {
        uint8_t buf[READER_MSG_SIZE];
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int))];
        } control = {};
        struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        ReaderRecord rec = { .kind = READER_RECORD_OPENED };
        int fd = -EBADF, r;
        ssize_t k;

        if (q->type == READER_REQUEST_OPEN_DEVICE)
                rec.status = device_open_direct(q->device_kind, q->device_name, &fd);
        else if (q->type == READER_REQUEST_OPEN_STORE)
                rec.status = containers_dir ? private_path_open_store_direct(containers_dir, &fd) : -ENOENT;
        else if (q->type == READER_REQUEST_OPEN_SYSCALL)
                rec.status = proc_syscall_open_direct(q->pid, &fd);
        else
                rec.status = containers_dir ? crio_store_file_open_direct(containers_dir, q->store_id, q->store_file, &fd)
                                            : -ENOENT;
        if (rec.status < -4095)
                rec.status = -EIO;
        if ((r = reader_record_encode(&rec, buf)) < 0) {
                if (fd >= 0)
                        close(fd);
                return r;
        }
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
        k = sendmsg(PRIVILEGED_READER_FD, &mh, MSG_NOSIGNAL);
        if (fd < 0)
                return k == (ssize_t) sizeof(buf) ? 0 : -EIO;
        close(fd);
        if (k != (ssize_t) sizeof(buf))
                return -EIO;
        /* Closed: said, so that the daemon goes on holding the only copy. */
        return send_record(&(ReaderRecord) { .kind = READER_RECORD_RELEASED });
}

static int clamp_errno(int r) {
        return r < -4095 ? -EIO : r;
}

/* A look at one of the closed list's paths, made by the reader's own
 * checks (private_path_look_direct: the decoder wrote the id's hex). */
static int serve_look(const ReaderRequest *q, const char *containers_dir) {
        ReaderRecord rec = { .kind = READER_RECORD_LOOKED };
        PrivatePathLook look = {};
        int r;

        /* The store's paths need the store; the fifos do not. */
        if (!containers_dir && (q->path == PRIVATE_PATH_STORE || q->path == PRIVATE_PATH_ENTRY ||
                                q->path == PRIVATE_PATH_USERDATA))
                r = -ENOENT;
        else
                r = private_path_look_direct(containers_dir, q->path, q->store_id, &look);
        rec.status = clamp_errno(r);
        if (r >= 0)
                rec.look = look;
        return send_record(&rec);
}

/* A watch added on the daemon's inotify fd (fd, passed with the request),
 * whose copy here is closed before the answer. The kernel says EINVAL for
 * an fd that is no inotify fd: the daemon's lie costs it its answer. */
static int serve_watch(const ReaderRequest *q, const char *containers_dir, int fd) {
        ReaderRecord rec = { .kind = READER_RECORD_WATCHED };
        int wd = 0, r;
        unsigned up = 0;

        if (!containers_dir && (q->path == PRIVATE_PATH_STORE || q->path == PRIVATE_PATH_ENTRY ||
                                q->path == PRIVATE_PATH_USERDATA))
                r = -ENOENT;
        else
                r = private_path_watch_direct(fd, containers_dir, q->path, q->store_id, q->climb, &wd, &up);
        close(fd);
        rec.status = clamp_errno(r);
        if (r >= 0) {
                rec.wd = wd;
                rec.up = up;
        }
        return send_record(&rec);
}

/* One request and the fds passed with it: exactly one with WATCH_PATH, none
 * with any other (a daemon that passes what it was not asked for is not one
 * the reader serves). 0, 1 at EOF, -EBADMSG. */
static int receive_request(ReaderRequest *q, int *ret_fd) {
        uint8_t buf[READER_MSG_SIZE];
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int))];
        } control = {};
        struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                             .msg_controllen = sizeof(control.buf) };
        int fd = -EBADF, r = 0;
        ssize_t k;

        do
                k = recvmsg(PRIVILEGED_READER_FD, &mh, MSG_TRUNC | MSG_CMSG_CLOEXEC);
        while (k < 0 && errno == EINTR);
        if (k <= 0)
                return 1; /* the daemon is gone */
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
                size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || n != 1 || fd >= 0) {
                        r = -EBADMSG;
                        for (size_t i = 0; c->cmsg_type == SCM_RIGHTS && i < n; i++) {
                                int extra;

                                memcpy(&extra, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                                close(extra);
                        }
                        continue;
                }
                memcpy(&fd, CMSG_DATA(c), sizeof(int));
        }
        if (r >= 0 && (mh.msg_flags & MSG_CTRUNC))
                r = -EBADMSG;
        if (r >= 0)
                r = reader_request_decode(buf, (size_t) k, q);
        if (r >= 0 && (q->type == READER_REQUEST_WATCH_PATH) != (fd >= 0))
                r = -EBADMSG;
        if (r < 0) {
                if (fd >= 0)
                        close(fd);
                return -EBADMSG;
        }
        *ret_fd = fd;
        return 0;
}

/* The stop signals go to the whole unit (KillMode=control-group): the
 * reader outlives them as long as the daemon does, which may finish its
 * step first and ask once more; it goes with the daemon (PDEATHSIG, EOF). */
static int reader_signals(void) {
        static const int ignored[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE };

        for (size_t i = 0; i < ELEMENTSOF(ignored); i++)
                if (signal(ignored[i], SIG_IGN) == SIG_ERR)
                        return -errno;
        return 0;
}

_Noreturn void privileged_reader_serve(int fd, pid_t daemon, const char *containers_dir) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != daemon || reader_signals() < 0)
                reader_exit(1);
        if (reader_fds(fd) < 0 || reader_caps() < 0 || reader_limits() < 0 || reader_seccomp() < 0)
                reader_exit(1);
        for (;;) {
                ReaderRequest q;
                int passed = -EBADF, r = receive_request(&q, &passed);

                if (r > 0)
                        reader_exit(0); /* the daemon is gone */
                if (r < 0)
                        reader_exit(1);
                switch (q.type) {
                case READER_REQUEST_SCAN_FDS:
                        r = serve_scan(daemon);
                        break;
                case READER_REQUEST_OPEN_DEVICE:
                case READER_REQUEST_OPEN_STORE_FILE:
                case READER_REQUEST_OPEN_STORE:
                case READER_REQUEST_OPEN_SYSCALL:
                        r = serve_open(&q, containers_dir);
                        break;
                case READER_REQUEST_LOOK_PATH:
                        r = serve_look(&q, containers_dir);
                        break;
                case READER_REQUEST_WATCH_PATH:
                        r = serve_watch(&q, containers_dir, passed);
                        break;
                }
                if (r < 0)
                        reader_exit(1);
        }
}
