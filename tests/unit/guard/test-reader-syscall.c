/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader's open of /proc/<pid>/syscall (host/proc-syscall.h):
 * the request is a pid and nothing else, refused out of range or with any
 * other byte set; the reader opens this host's /proc/<pid>/syscall and the
 * caller reads it from the passed fd. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/proc-syscall.h"
#include "sandbox/privileged-reader.h"
#include "sandbox/reader-codec.h"
#include "usage/process-fds.h"
#include "util/macro.h"

static uint8_t msg[READER_MSG_SIZE];

Test(reader_syscall_codec, round_trip_and_hostile_bytes) {
        ReaderRequest q;

        cr_assert_eq(reader_request_encode(&(ReaderRequest) { .type = READER_REQUEST_OPEN_SYSCALL, .pid = 4242 }, msg),
                     0);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(q.type, READER_REQUEST_OPEN_SYSCALL);
        cr_assert_eq(q.pid, 4242);
        for (size_t at = 12; at < READER_MSG_SIZE; at++) {
                uint8_t copy[READER_MSG_SIZE];

                memcpy(copy, msg, sizeof(copy));
                copy[at] = '/';
                cr_assert_eq(reader_request_decode(copy, sizeof(copy), &q), -EBADMSG, "byte %zu", at);
        }
        memset(msg + 8, 0, 4);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG, "pid 0");
        memset(msg + 8, 0xff, 4);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG, "pid -1");
        msg[8] = (uint8_t) (PROCESS_PID_MAX + 1);
        msg[9] = (uint8_t) ((PROCESS_PID_MAX + 1) >> 8);
        msg[10] = (uint8_t) ((PROCESS_PID_MAX + 1) >> 16);
        msg[11] = 0;
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG, "past the kernel's pid limit");
        cr_assert_eq(reader_request_encode(&(ReaderRequest) { .type = READER_REQUEST_OPEN_SYSCALL, .pid = 0 }, msg),
                     -EINVAL);
        cr_assert_eq(reader_request_encode(&(ReaderRequest) { .type = READER_REQUEST_OPEN_SYSCALL, .pid = -5 }, msg),
                     -EINVAL);
}

Test(reader_syscall, through_the_reader) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        char buf[256] = "";
        pid_t child = fork();
        int fd = -1, st;
        ssize_t n;

        cr_assert_geq(child, 0);
        if (child == 0) {
                pause();
                _exit(0);
        }
        cr_assert_eq(privileged_reader_start(NULL, &r), 0);
        cr_assert_eq(privileged_reader_open_syscall(r, child, &fd), 0);
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        cr_assert_gt(n, 0, "read by the caller, not the opener");
        cr_assert(isdigit((unsigned char) buf[0]) || buf[0] == '-' || strncmp(buf, "running", 7) == 0, "%s", buf);
        cr_assert_eq(kill(child, SIGKILL), 0);
        cr_assert_eq(waitpid(child, &st, 0), child);
        fd = -1;
        cr_assert_eq(privileged_reader_open_syscall(r, child, &fd), -ENOENT, "gone");
        cr_assert_eq(privileged_reader_open_syscall(r, 0, &fd), -EINVAL, "not sent");
        cr_assert_eq(fd, -1);
        /* Through the source the daemon sets. */
        proc_syscall_set_source(privileged_reader_open_syscall, r);
        cr_assert_eq(proc_syscall_open(getpid(), &fd), 0);
        close(fd);
        proc_syscall_set_source(NULL, NULL);
}
