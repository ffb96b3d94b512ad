/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The parser child: whatever parses content that a tenant or an image
 * controls (a container's config.json, the driver container's scripts) runs
 * in a forked child that has nothing to lose; the privileged parent opens
 * the input, reads a small typed reply (sandbox-reply.h) and checks every
 * field itself before it uses one.
 *
 * The parent opens the input as if an attacker chose the path
 * (parser_sandbox_open: O_NOFOLLOW, a regular file, a size bound) and hands
 * the fd over. The child, before it reads a byte:
 *   - has fd 0 = the input, fd 1 = the reply pipe, and no other fd;
 *   - dies with the parent (PR_SET_PDEATHSIG);
 *   - when it started as root (the CLI), drops to the overflow uid/gid
 *     65534 with no supplementary groups: without capabilities uid 0 still
 *     owns root's files (/etc/modprobe.d is root's 0755);
 *   - clears its ambient capabilities and sets its effective, permitted and
 *     inheritable sets to empty; no_new_privs; not dumpable;
 *   - rlimits: NOFILE 2 (fds 0 and 1 taken: it cannot get a new one),
 *     FSIZE 0, CORE 0, CPU 1 s (SIGXCPU, then SIGKILL at 2 s), and AS
 *     (PARSER_SANDBOX_AS_MAX, well under the unit's MemoryMax=256M: a
 *     config that makes json-c balloon fails in the child instead of
 *     taking the daemon's cgroup to its OOM killer);
 *   - a seccomp filter (classic BPF, arch checked, x32 refused): read on
 *     fd 0 only, write on fd 1 only, close, brk, mmap/mprotect without
 *     PROT_EXEC, munmap, mremap, madvise, exit, exit_group, rt_sigreturn,
 *     and capget/getuid/getgid (read-only facts about itself, so tests and
 *     the privilege probe can show what it holds). The calls that name a
 *     path (open, openat, openat2, creat, mknod, mkdir, symlink, link,
 *     rename, unlink, rmdir, truncate, chmod, chown, stat, access,
 *     readlink...) and getrandom fail with EPERM: they have no effect when
 *     refused, and a library that tries a fallback file (json-c's
 *     /dev/urandom) takes its error path instead of killing the job.
 *     Everything else kills the child (SECCOMP_RET_KILL_PROCESS): a parser
 *     that calls socket, ptrace, kill, execve, fork or ioctl is not parsing
 *     any more, and must not be able to probe which of them work.
 * Any step that fails: the child exits without a reply (fail closed).
 *
 * The parent waits for the reply with a deadline (parser_sandbox_limits:
 * 20 s of wall time, 10 s of the child's CPU): past it, or past REPLY_MAX
 * bytes, the child is killed. A real config.json parses in about a
 * millisecond and a tree's modinfo in tens, so the limits catch only a
 * child that hangs or spins; they are not a promise of speed: a machine
 * that is busy enough makes any fixed budget short (a 2 s deadline failed a
 * signed-only load in an emulated guest beside two busy VMs). One hostile
 * input stalls the daemon's event loop for at most 20 s, a sixth of its
 * watchdog (2 min), and each input is read once per write of it. The reply is judged by its
 * content (an end record, sandbox-reply.h), never by the exit status.
 *
 * A driver container's module tree is parsed here too (module-tree.h: a
 * tree not the host's is confined): its index (modules-dep-job.h) and its
 * files' modinfo (module-meta-job.h), several inputs in one child through
 * a sealed memfd (sandbox-bundle.h). The host's own tree stays in the
 * privileged part.
 *
 * Not yet in the child: the usage scan's naming of a device holder's
 * container (usage/process-container.c), one call away
 * (crio_config_read_confined() with no environment keys); nvfs-check's
 * read of nvidia-fs.ko's GDS hook generation.
 *
 * Library code: no logging; the caller says what failed, once. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sandbox/sandbox-reply.h"

/* The child's fds. */
#define PARSER_SANDBOX_INPUT_FD 0
#define PARSER_SANDBOX_REPLY_FD 1

/* The wall-clock deadline and the child's CPU limit (RLIMIT_CPU, seconds).
 * The defaults are in parser-sandbox.c; a test lowers them to see a child
 * killed without waiting 20 s. */
typedef struct ParserSandboxLimits {
        uint64_t deadline_usec;
        unsigned cpu_seconds;
} ParserSandboxLimits;
extern ParserSandboxLimits parser_sandbox_limits;
#define PARSER_SANDBOX_AS_MAX (192ULL * 1024ULL * 1024ULL)
/* The uid and gid the child takes when it starts as root. */
#define PARSER_SANDBOX_NOBODY 65534

/* What runs in the child, confined. input_fd is PARSER_SANDBOX_INPUT_FD
 * (or -1 when the job has no input). It writes its fields with the
 * reply_put_*() calls; 0, or a negative errno that becomes the reply's
 * error record (its fields are then dropped). */
typedef int (*ParserJobFunc)(int input_fd, ReplyWriter *w, void *userdata);

/* Opens path for a parse job as if an attacker chose it: O_RDONLY,
 * O_NOFOLLOW, O_NONBLOCK (a FIFO must not block us), O_CLOEXEC; then fstat:
 * -EBADMSG when it is not a regular file, -EFBIG when larger than max,
 * -errno from open (-ENOENT, -ELOOP for a symlink). */
int parser_sandbox_open(const char *path, size_t max, int *ret_fd);
/* The same below an already open directory (a container's root), resolved
 * inside it: symlinks, absolute ones included, and ".." stay under dir_fd
 * (openat2 RESOLVE_IN_ROOT, no magic links). follow_last: whether the last
 * component may be a symlink (still resolved inside dir_fd). */
int parser_sandbox_open_in_root(int dir_fd, const char *path, bool follow_last, size_t max, int *ret_fd);

/* Runs job in a confined child over input_fd (the parent keeps its fd; -1
 * for none). 0 with *ret_reply (malloc'd) and *ret_len: the raw reply, to
 * be decoded with reply_decode(). -ETIME when the deadline passed (the
 * child is killed), -EMSGSIZE when the reply was over REPLY_MAX, -EPROTO
 * when the child died before its end record, -EPERM when it could not
 * confine itself; *ret_signal (optional) is the signal that ended the
 * child, 0 when it exited. -errno from pipe/fork. */
int parser_sandbox_run(int input_fd, ParserJobFunc job, void *userdata, uint8_t **ret_reply, size_t *ret_len,
                       int *ret_signal);
/* The same for a job whose reply is a list and may pass REPLY_MAX (a module
 * tree's index): at most reply_max bytes, read as they come. */
int parser_sandbox_run_max(int input_fd, size_t reply_max, ParserJobFunc job, void *userdata, uint8_t **ret_reply,
                           size_t *ret_len, int *ret_signal);

/* In the child: the whole input (up to max bytes, NUL-terminated). -EFBIG
 * when it holds more (it grew since the parent's fstat). */
int parser_sandbox_read_input(int fd, size_t max, char **ret, size_t *ret_len);
