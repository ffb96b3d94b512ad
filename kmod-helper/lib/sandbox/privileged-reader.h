/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The privileged reader: the one process of the daemon that may list other
 * users' /proc/<pid>/fd and open the root-only files the daemon uses
 * (OpenSSH's monitor, turned around: here the small process holds the
 * privilege the big one gives up; STYLE.md item 15).
 *
 * The daemon forks it at start, before it parses anything but its
 * configuration (which names the store it serves), and talks to it
 * over a SOCK_SEQPACKET socketpair in fixed typed messages (reader-codec.h).
 * The reader (reader-serve.c), before it reads a request:
 *   - keeps only its socket (fd 3) and fds 0-2; dies with the daemon
 *     (PR_SET_PDEATHSIG) and exits when the socket closes; ignores the stop
 *     signals the unit's other processes get (the daemon may still ask
 *     while it finishes a step);
 *   - keeps of its capabilities only CAP_DAC_READ_SEARCH and CAP_SYS_PTRACE
 *     (what it holds of them: none in a test run as a plain user), ambient
 *     and inheritable cleared, CAP_SYS_MODULE gone; no_new_privs;
 *   - is not dumpable: the kernel then makes its /proc/<pid> files root's,
 *     so the daemon's identity, same uid but without CAP_DAC_*, cannot open
 *     its /proc/<pid>/mem (nor ptrace it: the unit's filter);
 *   - RLIMIT_FSIZE 0 and CORE 0;
 *   - loads a seccomp filter: read/recv/recvmsg and write/send/sendmsg on its
 *     socket (and write on fd 2), openat only without write, create or
 *     truncate flags, getdents64, readlink(at), the stat family,
 *     inotify_add_watch (on the daemon's inotify fd, passed with a watch
 *     request), close, fcntl, lseek, memory without PROT_EXEC, exit;
 *     anything else kills it.
 * It answers READER_REQUEST_SCAN_FDS with process_fd_walk() (skipping the
 * daemon and itself), which names no path the daemon chose: the request
 * carries none. It answers READER_REQUEST_OPEN_DEVICE (the pin's open of a
 * controller, the exclusive open of a namespace) with device_open_direct():
 * the request carries a kind and a kernel name, which the decoder and the
 * open each check, and the path is the reader's own ("/dev/" and the name,
 * O_NOFOLLOW, the node's type checked before and after the open); the fd
 * goes back over the socket (SCM_RIGHTS) and the reader closes its copy.
 * It answers READER_REQUEST_OPEN_STORE_FILE (crio-store-file.h) the same
 * way, and the root-only paths the daemon follows (host/private-path.h: a
 * kind of a closed list and a container id, never a path) with a look, a
 * watch added on the inotify fd the daemon passes with the request, or the
 * store directory opened for listing; and a process's /proc/<pid>/syscall
 * (by pid) opened and passed. A request it cannot decode ends it (a daemon that sends garbage is not one
 * it serves).
 *
 * Fail safe: the daemon's side checks every record (reader-codec.h), the
 * END record's counts against what it received, and a deadline
 * (PRIVILEGED_READER_DEADLINE_USEC); on any failure it kills the reader and
 * answers every later request with -ENOTCONN: the usage check then reads
 * every namespace as unchecked, never free (process-users.h), so no unload
 * happens until the daemon is restarted with a new reader. Its end, alone
 * or given up, is told by privileged_reader_end_fd(): the daemon then
 * stops, says how it ended, and exits for the unit to restart it.
 *
 * Library code: no logging. */

#include <stdbool.h>
#include <sys/types.h>

#include "host/crio-store-file.h"
#include "host/private-path.h"
#include "host/proc-syscall.h"
#include "usage/device-open.h"
#include "usage/process-fds.h"
#include "util/macro.h"

/* Far under the unit's watchdog (2 min): a walk over every process's fds
 * takes milliseconds on a node; past this the reader is taken for hung. */
#define PRIVILEGED_READER_DEADLINE_USEC (30ULL * 1000ULL * 1000ULL)
/* The reader's end of the socketpair. */
#define PRIVILEGED_READER_FD 3

typedef struct PrivilegedReader PrivilegedReader;

/* Forks the reader; containers_dir is the store whose files it opens
 * (host/crio-store-file.h: the configured store's overlay-containers, as
 * host_path() gives it), NULL for none.  0, or -errno from socketpair/fork. A reader that
 * cannot confine itself exits at once: the first request then fails. */
int privileged_reader_start(const char *containers_dir, PrivilegedReader **ret);
/* The daemon's side over fd, one end of a SOCK_SEQPACKET pair whose other
 * end a process pid serves (taken over: closed, and pid killed and reaped,
 * when freed). For tests that stand a hostile reader in. */
int privileged_reader_adopt(int fd, pid_t pid, PrivilegedReader **ret);
/* Kills and reaps the reader. */
PrivilegedReader *privileged_reader_free(PrivilegedReader *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(PrivilegedReader *, privileged_reader_free);
pid_t privileged_reader_pid(const PrivilegedReader *r);

/* How the reader ended (privileged_reader_ended()). */
typedef struct PrivilegedReaderEnd {
        pid_t pid;  /* the reader's */
        bool known; /* false: reaped elsewhere, its status lost */
        int status; /* its wait status (waitpid(2)) */
        int error;  /* the daemon's side's failed exchange that ended it (-ETIME,
                     * -EBADMSG, -ECONNRESET: the socket closed under a request),
                     * 0: none (it ended between requests) */
} PrivilegedReaderEnd;

/* An fd that polls readable once the reader has ended, on its own (a
 * crash, SIGSYS from its filter, SIGKILL) or given up by the daemon's side
 * (pidfd_open(2)); -EBADF when none could be had. Owned by r: for an event
 * loop's watch, which then asks privileged_reader_ended(). */
int privileged_reader_end_fd(const PrivilegedReader *r);
/* 0 while the reader runs; 1 once it has ended (reaped here, its socket
 * closed: every later request is -ENOTCONN), *ret saying how. */
int privileged_reader_ended(PrivilegedReader *r, PrivilegedReaderEnd *ret);
/* How it ended, for the journal: "killed by signal 31 (SIGSYS: a call its
 * seccomp filter forbids)", "exited with status 1", "killed by signal 9
 * (SIGKILL), given up by the daemon: no answer within 30 s". Into buf (n
 * bytes, cut short if need be); returns buf. */
const char *privileged_reader_end_describe(const PrivilegedReaderEnd *e, char *buf, size_t n);

/* Asks the reader for the fd walk: 0 with *ret filled (the caller frees
 * it with process_fd_list_done), or a negative errno (-ENOTCONN once the
 * reader is gone, -ETIME past the deadline, -EBADMSG for a record that does
 * not decode or counts that do not add up). Matches ProcessFdSource. */
int privileged_reader_scan_fds(void *reader, ProcessFdList *ret);

/* Asks the reader to open a device node (device-open.h): what
 * device_open_direct() answers there, with *ret_fd (O_CLOEXEC) on 0; or
 * -ENOTCONN once the reader is gone, -ETIME past the deadline, -EBADMSG for
 * an answer that does not decode or whose fd is missing, extra or not of
 * the kind asked. Matches DeviceOpenSource. */
int privileged_reader_open_device(void *reader, DeviceOpenKind kind, const char *name, int *ret_fd);

/* Asks the reader to open a container's file in its store
 * (host/crio-store-file.h): what crio_store_file_open_direct() answers
 * there, with *ret_fd (O_CLOEXEC) on 0; -EXDEV when containers_dir is not
 * the store the reader was started with; otherwise as
 * privileged_reader_open_device(). Matches CrioStoreFileSource. */
int privileged_reader_open_store_file(void *reader, const char *containers_dir, const char *id, CrioStoreFile f,
                                      int *ret_fd);

/* Ask the reader for what host/private-path.h does in root-only
 * directories: a look (lstat's type and mtime), a watch added on the
 * caller's inotify fd (passed with the request; the reader adds the watch
 * on the same instance and closes its copy), the store directory opened
 * for listing (checked here to be a directory). Each answers what the
 * *_direct() function answers in the reader, or -ENOTCONN, -ETIME,
 * -EBADMSG as privileged_reader_open_device(); -EXDEV for a store path of
 * another store than the reader's. privileged_reader_path_source holds
 * the three for private_path_set_source(). */
int privileged_reader_look_path(void *reader, const char *containers_dir, PrivatePath p, const char *id,
                                PrivatePathLook *ret);
int privileged_reader_watch_path(void *reader, int inotify_fd, const char *containers_dir, PrivatePath p,
                                 const char *id, bool climb, int *ret_wd, unsigned *ret_up);
int privileged_reader_open_store(void *reader, const char *containers_dir, int *ret_fd);
extern const PrivatePathSource privileged_reader_path_source;

/* Asks the reader to open /proc/<pid>/syscall (host/proc-syscall.h: 0400,
 * its owner's) and pass it back: as privileged_reader_open_device(), the
 * fd a regular file. Matches ProcSyscallSource. */
int privileged_reader_open_syscall(void *reader, pid_t pid, int *ret_fd);

/* The reader's side (reader-serve.c): confines the calling process and
 * serves requests on fd until it closes; never returns. daemon is the
 * pid the walk skips besides the reader's own; containers_dir the store
 * whose files it opens (NULL: it answers those requests -ENOENT). */
_Noreturn void privileged_reader_serve(int fd, pid_t daemon, const char *containers_dir);
