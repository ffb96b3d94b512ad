/* SPDX-License-Identifier: Apache-2.0 */
/* The parser child (the design: parser-sandbox.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "actions/module-file.h"
#include "sandbox/parser-sandbox.h"
#include "util/macro.h"

/* parser-sandbox.h says why these are wide. */
ParserSandboxLimits parser_sandbox_limits = {
        .deadline_usec = 20ULL * 1000ULL * 1000ULL,
        .cpu_seconds = 10,
};

#if defined(__SANITIZE_ADDRESS__)
#define SANDBOX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANDBOX_ASAN 1
#endif
#endif

#if defined(__x86_64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* The child's exit codes when it could not confine itself: no reply. */
#define EXIT_CONFINE 99

/* The child leaves by the system call itself, not _exit(): a sanitizer's
 * _exit() runs its leak check (threads, /proc reads) first, which the
 * filter would kill, and the parent's leaks are not the child's. */
_Noreturn static void child_exit(int code) {
        for (;;)
                (void) syscall(SYS_exit_group, code);
}

static int open_checked(int fd, size_t max, int *ret_fd) {
        _cleanup_close_ int owned = fd;
        struct stat st;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADMSG;
        if ((uint64_t) st.st_size > max)
                return -EFBIG;
        *ret_fd = TAKE_FD(owned);
        return 0;
}

int parser_sandbox_open(const char *path, size_t max, int *ret_fd) {
        return open_checked(open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), max, ret_fd);
}

int parser_sandbox_open_in_root(int dir_fd, const char *path, bool follow_last, size_t max, int *ret_fd) {
        struct open_how how = {
                .flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow_last ? 0 : O_NOFOLLOW),
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        int fd = (int) syscall(SYS_openat2, dir_fd, path, &how, sizeof(how));

        /* Under the shipped unit openat2() answers ENOSYS (RestrictSUIDSGID=:
         * its flags sit behind a pointer seccomp cannot read); then the same
         * resolution in user space (actions/module-file.h), which keeps every
         * symlink inside the root as well. It follows a last symlink too (inside
         * the root): refused here when the caller wants none. */
        if (fd < 0 && errno == ENOSYS) {
                struct stat st;
                int r = module_open_in_root_walk(dir_fd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

                if (r >= 0 && !follow_last && fstatat(dir_fd, path + strspn(path, "/"), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                    S_ISLNK(st.st_mode)) {
                        close(r);
                        r = -ELOOP;
                }
                if (r < 0) {
                        errno = -r;
                        fd = -1;
                } else
                        fd = r;
        }
        return open_checked(fd, max, ret_fd);
}

int parser_sandbox_read_input(int fd, size_t max, char **ret, size_t *ret_len) {
        _cleanup_free_ char *buf = NULL;
        size_t n = 0, size = 0;

        for (;;) {
                ssize_t k;

                if (n == size) {
                        char *b;

                        if (size > max)
                                return -EFBIG;
                        size = size ? size * 2 : 64 * 1024;
                        if (size > max + 1)
                                size = max + 1;
                        b = realloc(buf, size + 1);
                        if (!b)
                                return -ENOMEM;
                        buf = b;
                }
                k = read(fd, buf + n, size - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n > max)
                        return -EFBIG;
        }
        if (!buf && !(buf = malloc(1)))
                return -ENOMEM;
        buf[n] = '\0';
        *ret = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = n;
        return 0;
}

/* The filter, built as a list of rules each of which returns: the
 * accumulator holds the syscall number at the start of every rule. */
#define MAX_INSNS 256

typedef struct Filter {
        struct sock_filter insn[MAX_INSNS];
        size_t n;
} Filter;

static void emit(Filter *f, struct sock_filter i) {
        if (f->n < MAX_INSNS)
                f->insn[f->n] = i;
        f->n++; /* counted past the end: the caller refuses an overflowed filter */
}

#define ARG_LO(i) ((uint32_t) offsetof(struct seccomp_data, args[(i)]))

static void rule_allow(Filter *f, long nr) {
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t) nr, 0, 1));
        emit(f, (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
}

static void rule_errno(Filter *f, long nr, int error) {
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t) nr, 0, 1));
        emit(f, (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((uint32_t) error & SECCOMP_RET_DATA)));
}

/* nr allowed only when its (int) argument arg is fd. Little endian: the
 * low 32 bits come first, and the kernel reads an int argument from them. */
static void rule_allow_fd(Filter *f, long nr, unsigned arg, int fd) {
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t) nr, 0, 4));
        emit(f, (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)));
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t) fd, 0, 1));
        emit(f, (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
        emit(f, (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
}

/* nr allowed only without PROT_EXEC in its argument 2 (mmap, mprotect). */
static void rule_allow_noexec(Filter *f, long nr) {
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t) nr, 0, 4));
        emit(f, (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2)));
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 1, 0));
        emit(f, (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
        emit(f, (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
}

/* The calls that name a path, and getrandom: EPERM (why: parser-sandbox.h). */
static const long refused_calls[] = {
#ifdef SYS_open
        SYS_open,
#endif
#ifdef SYS_creat
        SYS_creat,
#endif
#ifdef SYS_mknod
        SYS_mknod,
#endif
#ifdef SYS_mkdir
        SYS_mkdir,
#endif
#ifdef SYS_rmdir
        SYS_rmdir,
#endif
#ifdef SYS_symlink
        SYS_symlink,
#endif
#ifdef SYS_link
        SYS_link,
#endif
#ifdef SYS_rename
        SYS_rename,
#endif
#ifdef SYS_unlink
        SYS_unlink,
#endif
#ifdef SYS_chmod
        SYS_chmod,
#endif
#ifdef SYS_chown
        SYS_chown,
#endif
#ifdef SYS_lchown
        SYS_lchown,
#endif
#ifdef SYS_stat
        SYS_stat,
#endif
#ifdef SYS_lstat
        SYS_lstat,
#endif
#ifdef SYS_access
        SYS_access,
#endif
#ifdef SYS_readlink
        SYS_readlink,
#endif
        SYS_openat,     SYS_openat2,  SYS_mknodat,  SYS_mkdirat,   SYS_symlinkat, SYS_linkat,
        SYS_renameat2,  SYS_unlinkat, SYS_truncate, SYS_fchmodat,  SYS_fchownat,  SYS_newfstatat,
        SYS_statx,      SYS_faccessat, SYS_faccessat2, SYS_readlinkat, SYS_getrandom,
#ifdef SYS_renameat
        SYS_renameat,
#endif
};

static int filter_build(Filter *f) {
        static const long allowed[] = {
                SYS_close,  SYS_brk,  SYS_munmap, SYS_mremap,  SYS_madvise, SYS_exit, SYS_exit_group,
                SYS_rt_sigreturn, SYS_capget, SYS_getuid, SYS_getgid,
        };

#ifndef SANDBOX_AUDIT_ARCH
        return -EOPNOTSUPP;
#else
        f->n = 0;
        emit(f, (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t) offsetof(struct seccomp_data, arch)));
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_AUDIT_ARCH, 1, 0));
        emit(f, (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
        emit(f, (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t) offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
        /* x32 calls carry this bit and the same arch: another table. */
        emit(f, (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 1));
        emit(f, (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
        rule_allow_fd(f, SYS_read, 0, PARSER_SANDBOX_INPUT_FD);
        rule_allow_fd(f, SYS_write, 0, PARSER_SANDBOX_REPLY_FD);
        rule_allow_noexec(f, SYS_mmap);
        rule_allow_noexec(f, SYS_mprotect);
        for (size_t i = 0; i < ELEMENTSOF(allowed); i++)
                rule_allow(f, allowed[i]);
        for (size_t i = 0; i < ELEMENTSOF(refused_calls); i++)
                rule_errno(f, refused_calls[i], EPERM);
        emit(f, (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
        return f->n <= MAX_INSNS ? 0 : -E2BIG;
#endif
}

static int move_fd(int fd, int to) {
        if (fd == to)
                return fcntl(fd, F_SETFD, 0) < 0 ? -errno : 0; /* the pipe's O_CLOEXEC is irrelevant, but tidy */
        return dup2(fd, to) < 0 ? -errno : 0;
}

/* fd 0 = input (or /dev/null's absence: closed), fd 1 = reply, nothing else. */
static int child_fds(int input_fd, int reply_fd) {
        int in = -1, out;

        /* Above 2 first, so that the dup2()s below cannot clobber either. */
        out = fcntl(reply_fd, F_DUPFD_CLOEXEC, 3);
        if (out < 0)
                return -errno;
        if (input_fd >= 0) {
                in = fcntl(input_fd, F_DUPFD_CLOEXEC, 3);
                if (in < 0)
                        return -errno;
        }
        if (move_fd(out, PARSER_SANDBOX_REPLY_FD) < 0)
                return -errno;
        if (in >= 0) {
                if (move_fd(in, PARSER_SANDBOX_INPUT_FD) < 0)
                        return -errno;
        } else
                (void) close(PARSER_SANDBOX_INPUT_FD);
        if (syscall(SYS_close_range, 2U, ~0U, 0U) < 0) {
                struct rlimit rl;

                if (errno != ENOSYS || getrlimit(RLIMIT_NOFILE, &rl) < 0)
                        return -errno;
                for (rlim_t fd = 2; fd < rl.rlim_cur && fd < 1024 * 1024; fd++)
                        (void) close((int) fd);
        }
        if (in < 0) {
                /* No input: fd 0 must not be free for a new one. Hold the
                 * reply end there too; read() on it fails (EBADF). */
                if (fcntl(PARSER_SANDBOX_REPLY_FD, F_DUPFD, 0) != PARSER_SANDBOX_INPUT_FD)
                        return -EBADF;
        }
        return 0;
}

static int child_drop_identity(void) {
        if (geteuid() != 0 && getuid() != 0)
                return 0;
        if (setgroups(0, NULL) < 0 ||
            setresgid(PARSER_SANDBOX_NOBODY, PARSER_SANDBOX_NOBODY, PARSER_SANDBOX_NOBODY) < 0 ||
            setresuid(PARSER_SANDBOX_NOBODY, PARSER_SANDBOX_NOBODY, PARSER_SANDBOX_NOBODY) < 0)
                return -errno;
        return 0;
}

static int child_drop_caps(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        if (syscall(SYS_capset, &h, d) < 0)
                return -errno;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                return -errno;
        return 0;
}

static int limit(int resource, rlim_t soft, rlim_t hard) {
        struct rlimit rl = { .rlim_cur = soft, .rlim_max = hard };

        /* prlimit64: the unit's filter denies setrlimit (@resources). */
        return prlimit(0, resource, &rl, NULL) < 0 ? -errno : 0;
}

static int child_limits(void) {
        int r;

        if ((r = limit(RLIMIT_NOFILE, 2, 2)) < 0 || (r = limit(RLIMIT_FSIZE, 0, 0)) < 0 ||
            (r = limit(RLIMIT_CORE, 0, 0)) < 0 ||
            (r = limit(RLIMIT_CPU, parser_sandbox_limits.cpu_seconds, parser_sandbox_limits.cpu_seconds + 1)) < 0)
                return r;
#ifndef SANDBOX_ASAN
        /* ASan reserves terabytes of shadow address space: no AS limit there. */
        if ((r = limit(RLIMIT_AS, PARSER_SANDBOX_AS_MAX, PARSER_SANDBOX_AS_MAX)) < 0)
                return r;
#endif
        return 0;
}

static int child_seccomp(void) {
        static Filter f; /* static: 2 KiB off the stack */
        struct sock_fprog prog;
        int r;

        r = filter_build(&f);
        if (r < 0)
                return r;
        prog = (struct sock_fprog) { .len = (unsigned short) f.n, .filter = f.insn };
        /* prctl, not seccomp(2): the unit's own filter allows only the former. */
        return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0 ? -errno : 0;
}

static int write_all(int fd, const uint8_t *p, size_t n) {
        while (n > 0) {
                ssize_t k = write(fd, p, n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return -EIO;
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

_Noreturn static void child(pid_t parent, int input_fd, int reply_fd, size_t reply_max, ParserJobFunc job,
                            void *userdata) {
        ReplyWriter w = { .max = reply_max };
        int r;

        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
                child_exit(EXIT_CONFINE);
        if (child_fds(input_fd, reply_fd) < 0 || child_drop_identity() < 0 || child_drop_caps() < 0 ||
            child_limits() < 0 || child_seccomp() < 0)
                child_exit(EXIT_CONFINE);

        /* Confined: from here on only the filter's calls. */
        w.len = 0;
        w.overflow = false;
        r = job(input_fd >= 0 ? PARSER_SANDBOX_INPUT_FD : -1, &w, userdata);
        if (r < 0 || w.overflow) {
                w.len = 0;
                w.overflow = false;
                w.max = REPLY_MAX; /* what is kept holds an error record */
                (void) reply_put_errno(&w, r < 0 ? r : -EMSGSIZE);
        }
        (void) reply_put_end(&w);
        child_exit(write_all(PARSER_SANDBOX_REPLY_FD, w.buf, w.len) < 0 ? 1 : 0);
}

static uint64_t now_usec(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* Reads the reply until EOF, max or the deadline, into *buf (grown from
 * REPLY_MAX + 1: one byte past the maximum tells an oversized reply). */
static int read_reply(int fd, uint64_t deadline, size_t max, uint8_t **buf, size_t *ret_len) {
        size_t n = 0, size = REPLY_MAX + 1;

        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                uint64_t now = now_usec();
                ssize_t k;
                int r;

                if (now >= deadline)
                        return -ETIME;
                r = poll(&p, 1, (int) ((deadline - now + 999) / 1000));
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return -errno;
                if (r == 0)
                        return -ETIME;
                if (n == size && size <= max) {
                        size_t grown = size * 2 > max + 1 ? max + 1 : size * 2;
                        uint8_t *b = realloc(*buf, grown);

                        if (!b)
                                return -ENOMEM;
                        *buf = b;
                        size = grown;
                }
                k = read(fd, *buf + n, size - n);
                if (k < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n > max)
                        return -EMSGSIZE;
        }
        *ret_len = n;
        return 0;
}

/* Reaps the child. After its reply it has closed its pipe and is exiting:
 * wait for that until the deadline (a pidfd), then kill it, so that a child
 * that closed its pipe and kept running cannot hold us in waitpid(). */
static int reap(pid_t pid, bool kill_now, uint64_t deadline) {
        int status = 0;
        pid_t r;

        if (!kill_now) {
                _cleanup_close_ int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);

                while (pidfd >= 0) {
                        struct pollfd p = { .fd = pidfd, .events = POLLIN };
                        uint64_t now = now_usec();
                        int k;

                        if (now >= deadline)
                                break;
                        k = poll(&p, 1, (int) ((deadline - now + 999) / 1000));
                        if (k < 0 && errno == EINTR)
                                continue;
                        break; /* exited, or the deadline, or poll failed: reap below */
                }
                do
                        r = waitpid(pid, &status, WNOHANG);
                while (r < 0 && errno == EINTR);
                if (r == pid)
                        return status;
        }
        (void) kill(pid, SIGKILL);
        do
                r = waitpid(pid, &status, 0);
        while (r < 0 && errno == EINTR);
        return status;
}

int parser_sandbox_run(int input_fd, ParserJobFunc job, void *userdata, uint8_t **ret_reply, size_t *ret_len,
                       int *ret_signal) {
        return parser_sandbox_run_max(input_fd, REPLY_MAX, job, userdata, ret_reply, ret_len, ret_signal);
}

int parser_sandbox_run_max(int input_fd, size_t reply_max, ParserJobFunc job, void *userdata, uint8_t **ret_reply,
                           size_t *ret_len, int *ret_signal) {
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_close_ int rd = -EBADF, wr = -EBADF;
        int p[2], status, r;
        size_t len = 0;
        pid_t parent = getpid(), pid;
        uint64_t deadline;

        buf = malloc(REPLY_MAX + 1);
        if (!buf)
                return -ENOMEM;
        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        rd = p[0];
        wr = p[1];
        deadline = now_usec() + parser_sandbox_limits.deadline_usec;
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0)
                child(parent, input_fd, wr, reply_max, job, userdata);
        (void) close(TAKE_FD(wr));

        r = read_reply(rd, deadline, reply_max, &buf, &len);
        status = reap(pid, r < 0, deadline);
        if (ret_signal)
                *ret_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        if (r < 0)
                return r;
        if (len == 0 && WIFEXITED(status) && WEXITSTATUS(status) == EXIT_CONFINE)
                return -EPERM;
        if (len == 0)
                return -EPROTO;
        *ret_reply = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}
