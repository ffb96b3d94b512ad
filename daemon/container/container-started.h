/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* "A pid" means "created", not "started": CRI-O's OCI runtime writes the
 * pidfile at create, while the process still waits in the runtime's init
 * for the start; only StartContainer makes it exec the entrypoint (docs:
 * shared/crio/README.md). The daemon fails CLOSED here: a container counts
 * as started only on positive evidence that its process exec'd something
 * that is not the runtime, and "cannot tell" counts as "not started yet"
 * (and is said as "cannot tell", not as "created": a person looks for
 * different causes).
 *
 * What the runtimes show while created, read in their sources and seen on
 * Linux 6.1 from inside the shipped unit (CRI-O 1.27.8, runc 1.1.5, crun
 * 1.8.1: tests/daemon/vm-crio/crio-create-and-reload.sh, 2026-12-02):
 *  - runc (libcontainer/nsenter/nsexec.c, v1.1.5 and main): the init names
 *    itself "runc:[2:INIT]" (prctl PR_SET_NAME) and is made non-dumpable.
 *    Before that it re-exec'd from a copy of itself: 1.0 to 1.1.x first try
 *    a read-only bind mount that they detach (try_bindfd in cloned_binary.c),
 *    so /proc/<pid>/exe reads "/" (readlink succeeds, with our
 *    CAP_SYS_PTRACE, under ProtectProc=ptraceable); otherwise a sealed memfd
 *    "runc_cloned:/proc/self/exe" (also libcontainer/exeseal from 1.2). It
 *    then blocks opening <root>/<id>/exec.fifo for writing
 *    (standard_init_linux.go) until `runc start` reads the fifo and removes
 *    it (container_linux.go, handleFifoResult), and only then execs.
 *  - crun (src/libcrun/cloned_binary.c, container.c, status.c, 1.8.1 and
 *    main): the same re-exec (try_bindfd, then a memfd
 *    "crun_cloned:/proc/self/exe"): exe reads "/" and the name is "crun";
 *    the process is a fork of `crun create` waiting on <root>/<id>/exec.fifo,
 *    which `crun start` unlinks before writing to it.
 *  - after the start, both: exe "/bin/busybox", name "sh" (the stand-in's
 *    entrypoint), no fifo.
 * When the fifo goes, relative to the exec (read 2026-12-03):
 *  - runc v1.1.5 to v1.3.0: the init keeps its O_CLOEXEC write end open
 *    (standard_init_linux.go) and `runc start` reads it to EOF
 *    (readFromExecFifo: io.ReadAll) before it removes the fifo
 *    (handleFifoResult): the removal follows the init's exec, or its death.
 *    runc main (commit 937d887d1, 2026-05) reads one byte, and the init
 *    closes its end, runs the StartContainer hooks, then execs: there the
 *    removal may come first.
 *  - crun 1.8.1 and main (status.c, libcrun_status_write_exec_fifo): opens
 *    the fifo, unlinks it, then writes the byte the init waits for
 *    (container.c) before it execs: the removal always comes first.
 * So a readable exe link alone proves nothing ("/" is the runtime), and a
 * fifo gone is no proof of a start (an exec that then fails leaves a live
 * process with no fifo for a moment); it says the start is under way: the
 * exec watch (watch/exec-watch.h) looks again when it goes.
 * The process's name (comm) changes only at a successful exec: that and the
 * exe link are the positive evidence. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Pure: whether the target of /proc/<pid>/exe is an OCI runtime's own
 * binary: runc, crun, runsc, kata-runtime, youki, or a sealed memfd copy
 * of one ("/memfd:runc_cloned:/proc/self/exe (deleted)"). A driver
 * container's entrypoint is none of them. */
bool exe_is_runtime_init(const char *exe_target);

/* Pure: whether a process name (comm, at most 15 characters, as in the
 * Name: line of /proc/<pid>/status) is a runtime's init: runc's
 * "runc:[0:PARENT]", "runc:[1:CHILD]", "runc:[2:INIT]", a runtime's binary
 * name, or a memfd re-exec ("memfd:..." or, on kernels that name a
 * fexecve()d process after its descriptor, only digits). */
bool comm_is_runtime_init(const char *comm);

typedef enum StartSign {
        START_SIGN_UNKNOWN,  /* could not be read */
        START_SIGN_RUNTIME,  /* still the runtime's init */
        START_SIGN_OTHER,    /* something else: the entrypoint exec'd */
} StartSign;

/* Pure: what an exe target says. UNKNOWN for "/" (runc 1.1's init, see
 * exe_start_sign() in the .c) and anything not an absolute path. */
StartSign exe_start_sign(const char *exe_target);

typedef struct ContainerStartEvidence {
        StartSign exe;       /* /proc/<pid>/exe */
        int exe_errno;       /* why it could not be read (positive), or 0 */
        StartSign comm;      /* Name: in /proc/<pid>/status */
        int comm_errno;      /* why it could not be read (positive; EBADMSG: no Name: line), or 0 */
        char name[64];       /* that name, for the journal ("" if unknown) */
        bool exec_fifo;      /* the runtime's <root>/<id>/exec.fifo exists */
} ContainerStartEvidence;

typedef enum ContainerProcess {
        CONTAINER_PROCESS_STARTED,  /* runs its entrypoint */
        CONTAINER_PROCESS_CREATED,  /* still the runtime's init (a sign or its exec fifo says so) */
        CONTAINER_PROCESS_UNKNOWN,  /* no sign either way (unreadable, or exe "/" alone):
                                       counts as not started */
        CONTAINER_PROCESS_GONE,     /* no such process */
} ContainerProcess;

/* Pure: STARTED only when no sign says "runtime" (nor the fifo exists) and
 * at least one sign says "other"; CREATED when one says "runtime" or the
 * fifo exists; otherwise UNKNOWN. */
ContainerProcess container_start_classify(const ContainerStartEvidence *ev);

/* Pure: one line for the journal, e.g. 'process name "runc:[2:INIT]",
 * exe unknown, exec fifo present', or what could not be read:
 * 'process name unreadable: No such file or directory, exe unreadable:
 * Permission denied, exec fifo absent'. */
void container_start_evidence_describe(const ContainerStartEvidence *ev, char *buf, size_t n);

/* Pure: the Name: line of a /proc/<pid>/status text into ret (n bytes).
 * -EBADMSG without one. */
int proc_status_name(const char *status, char *ret, size_t n);

/* Reads host_path("/proc/<pid>/exe"), /proc/<pid>/status and the exec
 * fifos under CRI-O's default runtime roots (/run/runc, /run/crun) for
 * container id (may be NULL), fills *ret_ev if not NULL, and classifies.
 * GONE only when the process does not exist (kill(pid, 0): ESRCH), not when
 * /proc hides it. */
ContainerProcess container_process_state(pid_t pid, const char *id, ContainerStartEvidence *ret_ev);

/* Whether pid is a live process (kill(0); EPERM counts as alive). Unlike
 * container_process_state(), it asks the kernel in a fake root too: the
 * tests that follow a container give it a real process. */
bool container_pid_running(pid_t pid);
