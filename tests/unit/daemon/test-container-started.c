/* SPDX-License-Identifier: Apache-2.0 */
/* "Started" is a process that exec'd its entrypoint: what
 * each runtime's created container shows, as seen on Linux 6.1 from inside
 * the shipped unit (tests/daemon/vm-crio/crio-create-and-reload.sh) and read
 * in runc's and crun's sources (daemon/container-started.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "container/container-started.h"

static ContainerProcess classify(StartSign exe, StartSign comm, bool fifo) {
        ContainerStartEvidence ev = { .exe = exe, .comm = comm, .exec_fifo = fifo };

        return container_start_classify(&ev);
}

Test(container_started, exe_of_a_runtime) {
        cr_assert(exe_is_runtime_init("/usr/sbin/runc"));
        cr_assert(exe_is_runtime_init("/memfd:runc_cloned:/proc/self/exe (deleted)"), "runc >= 1.1.12, 1.2");
        cr_assert(exe_is_runtime_init("/memfd:crun_cloned:/proc/self/exe (deleted)"), "crun re-execs from a memfd");
        cr_assert(exe_is_runtime_init("/usr/bin/crun"));
        cr_assert(exe_is_runtime_init("/usr/bin/crun (deleted)"));
        cr_assert_not(exe_is_runtime_init("/bin/busybox"), "the stand-in's entrypoint, as seen in the VM");
        cr_assert_not(exe_is_runtime_init("/usr/local/bin/driver-entrypoint"));
        cr_assert_not(exe_is_runtime_init("/usr/bin/truncate"), "a name that ends like one is not one");
        cr_assert_not(exe_is_runtime_init(NULL));
}

Test(container_started, exe_sign) {
        cr_assert_eq(exe_start_sign("/memfd:runc_cloned:/proc/self/exe (deleted)"), START_SIGN_RUNTIME);
        /* runc 1.1.5's init (try_bindfd: a detached bind mount of itself),
         * read from inside the shipped unit: not an error, and not a start. */
        cr_assert_eq(exe_start_sign("/"), START_SIGN_UNKNOWN);
        cr_assert_eq(exe_start_sign("/bin/busybox"), START_SIGN_OTHER);
        cr_assert_eq(exe_start_sign("anon_inode:[x]"), START_SIGN_UNKNOWN);
        cr_assert_eq(exe_start_sign(NULL), START_SIGN_UNKNOWN);
}

Test(container_started, comm_of_a_runtime) {
        cr_assert(comm_is_runtime_init("runc:[2:INIT]"), "runc's init waiting on its exec fifo");
        cr_assert(comm_is_runtime_init("runc:[1:CHILD]"));
        cr_assert(comm_is_runtime_init("crun"));
        cr_assert(comm_is_runtime_init("memfd:crun_clon"), "a fexecve()d memfd, 15 characters");
        cr_assert(comm_is_runtime_init("3"), "a fexecve()d descriptor on older kernels");
        cr_assert_not(comm_is_runtime_init("sh"), "the entrypoint, as seen in the VM after the start");
        cr_assert_not(comm_is_runtime_init("entrypoint"));
        cr_assert_not(comm_is_runtime_init("runcible"));
        cr_assert_not(comm_is_runtime_init(""));
        cr_assert_not(comm_is_runtime_init(NULL));
}

Test(container_started, runc_created_is_not_started) {
        /* exactly what the daemon read for runc 1.1.5's created container */
        cr_assert_eq(classify(START_SIGN_UNKNOWN, START_SIGN_RUNTIME, true), CONTAINER_PROCESS_CREATED);
        /* the start has removed the fifo, the exec has not happened yet */
        cr_assert_eq(classify(START_SIGN_UNKNOWN, START_SIGN_RUNTIME, false), CONTAINER_PROCESS_CREATED);
        cr_assert_eq(classify(START_SIGN_RUNTIME, START_SIGN_RUNTIME, false), CONTAINER_PROCESS_CREATED);
}

Test(container_started, crun_created_is_not_started) {
        cr_assert_eq(classify(START_SIGN_RUNTIME, START_SIGN_RUNTIME, true), CONTAINER_PROCESS_CREATED);
        cr_assert_eq(classify(START_SIGN_RUNTIME, START_SIGN_UNKNOWN, false), CONTAINER_PROCESS_CREATED);
}

Test(container_started, unreadable_exe_needs_another_sign) {
        cr_assert_eq(classify(START_SIGN_UNKNOWN, START_SIGN_UNKNOWN, false), CONTAINER_PROCESS_UNKNOWN,
                     "cannot tell is not started, and not 'created' either");
        cr_assert_eq(classify(START_SIGN_UNKNOWN, START_SIGN_OTHER, false), CONTAINER_PROCESS_STARTED,
                     "the name changed: it exec'd");
        cr_assert_eq(classify(START_SIGN_UNKNOWN, START_SIGN_OTHER, true), CONTAINER_PROCESS_CREATED,
                     "the fifo is still there: no start yet");
}

/* Fail closed, and say which: a created container (a sign of the runtime,
 * or its fifo) is told apart from one nothing can be read about. */
Test(container_started, cannot_tell_is_not_created) {
        ContainerStartEvidence ev = { .exe = START_SIGN_UNKNOWN, .exe_errno = EACCES, .comm = START_SIGN_UNKNOWN,
                                      .comm_errno = ENOENT };
        char buf[256];

        cr_assert_eq(container_start_classify(&ev), CONTAINER_PROCESS_UNKNOWN, "nothing read: cannot tell");
        container_start_evidence_describe(&ev, buf, sizeof(buf));
        cr_assert_str_eq(buf, "process name unreadable: No such file or directory, exe unreadable: Permission "
                              "denied, exec fifo absent", "says what could not be read");
        ev.comm_errno = EBADMSG;
        container_start_evidence_describe(&ev, buf, sizeof(buf));
        cr_assert_str_eq(buf, "process name unknown (no Name: line in its status), exe unreadable: Permission "
                              "denied, exec fifo absent");
        /* runc 1.1's init: exe "/" read fine, says nothing; the name unreadable */
        ev = (ContainerStartEvidence) { .exe = exe_start_sign("/"), .comm = START_SIGN_UNKNOWN, .comm_errno = EACCES };
        cr_assert_eq(container_start_classify(&ev), CONTAINER_PROCESS_UNKNOWN);
        ev.exec_fifo = true;
        cr_assert_eq(container_start_classify(&ev), CONTAINER_PROCESS_CREATED, "its exec fifo says: created");
        ev = (ContainerStartEvidence) { .exe = START_SIGN_UNKNOWN, .exe_errno = ENOENT, .comm = START_SIGN_RUNTIME };
        cr_assert_eq(container_start_classify(&ev), CONTAINER_PROCESS_CREATED, "the runtime's name says: created");
}

Test(container_started, a_real_entrypoint_is_started) {
        cr_assert_eq(classify(START_SIGN_OTHER, START_SIGN_OTHER, false), CONTAINER_PROCESS_STARTED);
        cr_assert_eq(classify(START_SIGN_OTHER, START_SIGN_UNKNOWN, false), CONTAINER_PROCESS_STARTED);
        cr_assert_eq(classify(START_SIGN_OTHER, START_SIGN_RUNTIME, false), CONTAINER_PROCESS_CREATED,
                     "signs disagree: not started");
}

Test(container_started, status_name) {
        char name[64];

        cr_assert_eq(proc_status_name("Name:\trunc:[2:INIT]\nUmask:\t0022\nState:\tS (sleeping)\n", name,
                                      sizeof(name)), 0);
        cr_assert_str_eq(name, "runc:[2:INIT]");
        cr_assert_eq(proc_status_name("Umask:\t0022\nName:\tsh\n", name, sizeof(name)), 0);
        cr_assert_str_eq(name, "sh");
        cr_assert_eq(proc_status_name("State:\tS\n", name, sizeof(name)), -EBADMSG);
        cr_assert_eq(proc_status_name("Name:\t\n", name, sizeof(name)), -EBADMSG);
        cr_assert_eq(proc_status_name("Name:\tabcdef\n", name, 4), -EBADMSG, "too long for the buffer");
}

Test(container_started, journal_line) {
        ContainerStartEvidence ev = { .exe = START_SIGN_UNKNOWN, .comm = START_SIGN_RUNTIME, .exec_fifo = true };
        char buf[256];

        strcpy(ev.name, "runc:[2:INIT]");
        container_start_evidence_describe(&ev, buf, sizeof(buf));
        cr_assert_str_eq(buf, "process name \"runc:[2:INIT]\", exe unknown, exec fifo present");
        ev.exe_errno = EACCES;
        container_start_evidence_describe(&ev, buf, sizeof(buf));
        cr_assert_str_eq(buf, "process name \"runc:[2:INIT]\", exe unreadable: Permission denied, exec fifo present");
}
