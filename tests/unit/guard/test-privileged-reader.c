/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader: its wire format (both decoders refuse what does not
 * follow it), its walk on a fake root, its confinement as the kernel reports
 * it, and the daemon's side failing closed when the reader is gone. */
#include <criterion/criterion.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake-tree.h"
#include "nvme-fixtures.h"
#include "sandbox/privileged-reader.h"
#include "sandbox/reader-codec.h"
#include "usage/holder-users.h"
#include "usage/process-fds.h"
#include "usage/process-users.h"
#include "usage/usage-scan.h"
#include "util/fileio.h"
#include "util/strv.h"

static uint8_t msg[READER_MSG_SIZE];

static ReaderRecord fd_record(pid_t pid, int fd, bool has_rdev, dev_t rdev, const char *name) {
        ReaderRecord r = { .kind = READER_RECORD_FD, .fd = { .pid = pid, .fd = fd, .has_rdev = has_rdev, .rdev = rdev } };

        snprintf(r.fd.name, sizeof(r.fd.name), "%s", name);
        return r;
}

Test(reader_codec, name_syntax) {
        static const char *const good[] = { "nvme0n1", "nvme12n3p4", "nvme1c1n1", "nvme0c12n1p2", NULL };
        static const char *const bad[] = { "", "nvme", "nvme0", "nvme0n", "nvmen1", "sda", "nvme0n1p", "nvme0n1/x",
                                           "../nvme0n1", "nvme0n1 ", "NVME0N1", "nvme0x1", "nvme0c1", "nvme0n1p1p1",
                                           "nvme0000000000000000000000n00001", NULL };

        for (const char *const *n = good; *n; n++)
                cr_assert(process_fd_name_valid(*n), "%s", *n);
        for (const char *const *n = bad; *n; n++)
                cr_assert_not(process_fd_name_valid(*n), "%s", *n);
        cr_assert_not(process_fd_name_valid(NULL));
}

Test(reader_codec, request_round_trip_and_refusals) {
        ReaderRequest q;

        cr_assert_eq(reader_request_encode(&(ReaderRequest) { .type = READER_REQUEST_SCAN_FDS }, msg), 0);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(q.type, READER_REQUEST_SCAN_FDS);
        cr_assert_eq(reader_request_encode(&(ReaderRequest) { .type = 7 }, msg), -EINVAL);

        cr_assert_eq(reader_request_encode(&(ReaderRequest) { .type = READER_REQUEST_SCAN_FDS }, msg), 0);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg) - 1, &q), -EBADMSG, "short");
        for (size_t i = 0; i < sizeof(msg); i++) {
                uint8_t copy[READER_MSG_SIZE];

                memcpy(copy, msg, sizeof(copy));
                copy[i] ^= 0x40;
                cr_assert_eq(reader_request_decode(copy, sizeof(copy), &q), -EBADMSG, "byte %zu changed", i);
        }
        /* A reply is no request, whatever its bytes say. */
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_END }, msg), 0);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG);
}

Test(reader_codec, records_round_trip) {
        ReaderRecord in[] = {
                fd_record(100, 3, true, makedev(259, 2), "nvme1n1"),
                fd_record(4194304, 2147483647, false, 0, "nvme0c1n1"),
                fd_record(7, 0, true, makedev(8, 0), ""),
                { .kind = READER_RECORD_UNREADABLE, .unreadable = { .pid = 102, .error = EACCES } },
                { .kind = READER_RECORD_END, .status = 0, .n_fds = 3, .n_unreadable = 1 },
                { .kind = READER_RECORD_END, .status = -ENOENT },
        }, out;

        for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
                cr_assert_eq(reader_record_encode(&in[i], msg), 0, "record %zu", i);
                cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), 0, "record %zu", i);
                cr_assert_eq(out.kind, in[i].kind);
                cr_assert_eq(out.fd.pid, in[i].fd.pid);
                cr_assert_eq(out.fd.fd, in[i].fd.fd);
                cr_assert_eq(out.fd.has_rdev, in[i].fd.has_rdev);
                cr_assert_eq(out.fd.rdev, in[i].fd.rdev);
                cr_assert_str_eq(out.fd.name, in[i].fd.name);
                cr_assert_eq(out.unreadable.pid, in[i].unreadable.pid);
                cr_assert_eq(out.unreadable.error, in[i].unreadable.error);
                cr_assert_eq(out.status, in[i].status);
                cr_assert_eq(out.n_fds, in[i].n_fds);
                cr_assert_eq(out.n_unreadable, in[i].n_unreadable);
        }
}

/* What neither side sends: the encoder refuses it, and so does the decoder
 * when a hostile peer writes the bytes itself. */
Test(reader_codec, records_refused) {
        ReaderRecord bad[] = {
                fd_record(0, 3, false, 0, "nvme0n1"),              /* pid 0 */
                fd_record(4194305, 3, false, 0, "nvme0n1"),        /* past PID_MAX_LIMIT */
                fd_record(100, -1, false, 0, "nvme0n1"),           /* no fd */
                fd_record(100, 3, false, makedev(259, 0), "nvme0n1"), /* a number without has_rdev */
                fd_record(100, 3, true, 0, "nvme0n1"),             /* has_rdev without one */
                fd_record(100, 3, false, 0, ""),                   /* says nothing */
                fd_record(100, 3, false, 0, "sda"),                /* not an NVMe name */
                fd_record(100, 3, false, 0, "nvme0n1/../x"),
                { .kind = READER_RECORD_UNREADABLE, .unreadable = { .pid = 102, .error = 0 } },
                { .kind = READER_RECORD_UNREADABLE, .unreadable = { .pid = 102, .error = 5000 } },
                { .kind = READER_RECORD_UNREADABLE, .unreadable = { .pid = -1, .error = EACCES } },
                { .kind = READER_RECORD_END, .status = 1 },
                { .kind = READER_RECORD_END, .n_fds = PROCESS_FDS_MAX + 1 },
                { .kind = 9 },
        };
        ReaderRecord out;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                cr_assert_eq(reader_record_encode(&bad[i], msg), -EINVAL, "record %zu", i);

        /* The same, as bytes a hostile peer writes itself. */
        static const struct { size_t at; uint8_t value; const char *what; } changes[] = {
                { 0, 0x00, "magic" },          { 4, 0x02, "version" },      { 6, 0x09, "kind" },
                { 8, 0x00, "pid 0 (low byte; 100 fits in it)" }, { 11, 0x80, "pid past the limit" },
                { 15, 0x80, "fd past INT_MAX" }, { 24, 0x02, "has_rdev 2" }, { 25, 0x01, "reserved byte" },
                { 31, 0x01, "reserved byte" }, { 39, 'x', "a byte after the name's NUL" },
                { 32, 's', "another name: svme0n1" }, { 36, '/', "a slash in the name" },
        };
        ReaderRecord ok = fd_record(100, 3, true, makedev(259, 2), "nvme1n1");

        for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
                cr_assert_eq(reader_record_encode(&ok, msg), 0);
                msg[changes[i].at] = changes[i].value;
                cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), -EBADMSG, "%s", changes[i].what);
        }
        cr_assert_eq(reader_record_encode(&ok, msg), 0);
        memset(msg + 32, 'n', 32); /* no NUL at all */
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), -EBADMSG, "an unterminated name");
        cr_assert_eq(reader_record_encode(&ok, msg), 0);
        cr_assert_eq(reader_record_decode(msg, sizeof(msg) - 1, &out), -EBADMSG, "short");
        cr_assert_eq(reader_record_decode(msg, 0, &out), -EBADMSG, "empty");
        /* A request is no reply. */
        cr_assert_eq(reader_request_encode(&(ReaderRequest) { .type = READER_REQUEST_SCAN_FDS }, msg), 0);
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), -EBADMSG);
        /* END: a positive status, an unreadable count past the bound. */
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_END }, msg), 0);
        msg[8] = 1;
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), -EBADMSG, "END with status 1");
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_END }, msg), 0);
        msg[18] = 0x02; /* 0x20000 > PROCESS_UNREADABLE_MAX */
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), -EBADMSG, "END past the unreadable bound");
}

/* The reader over a fake root: processes 100 (nvme0n1 open twice, /dev/null),
 * 101 (a terminal), 102 (fd directory unreadable), and this test's own pid
 * (the "daemon": skipped, as the daemon's claims and pin are its own). */
static NvmeBlockDevices *devices;
static UsageScan scan;

static void setup(void) {
        char rel[64];

        fake_tree_new();
        fixture_plain_namespace();
        fixture_multipath_head();
        fake_write("proc/100/comm", "fio\n");
        fake_symlink("proc/100/fd/3", "/dev/nvme0n1");
        fake_symlink("proc/100/fd/4", "/dev/nvme0n1");
        fake_symlink("proc/100/fd/5", "/dev/null");
        fake_write("proc/101/comm", "bash\n");
        fake_symlink("proc/101/fd/0", "/dev/pts/0");
        fake_symlink("proc/101/fd/1", "/dev/nvme1n1/../nvme0n1"); /* not one component: no name */
        fake_write("proc/102/fd", "not a directory");
        snprintf(rel, sizeof(rel), "proc/%d/fd/9", (int) getpid());
        fake_symlink(rel, "/dev/nvme1n1");
}

static void teardown(void) {
        process_users_set_source(NULL, NULL);
        usage_scan_done(&scan);
        devices = nvme_block_devices_free(devices);
        fake_tree_remove();
}

TestSuite(reader, .init = setup, .fini = teardown);

Test(reader, scan_on_fake_root) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        _cleanup_(process_fd_list_done) ProcessFdList l = {};

        cr_assert_eq(privileged_reader_start(NULL, &r), 0);
        cr_assert_eq(privileged_reader_scan_fds(r, &l), 0);
        cr_assert_eq(l.n_fds, 2, "fd 3 and 4 of pid 100, nothing of the caller's pid");
        cr_assert_eq(l.fds[0].pid, 100);
        cr_assert_str_eq(l.fds[0].name, "nvme0n1");
        cr_assert_not(l.fds[0].has_rdev, "a fake root is never stat'ed");
        cr_assert_eq(l.n_unreadable, 1);
        cr_assert_eq(l.unreadable[0].pid, 102);
        cr_assert_eq(l.unreadable[0].error, ENOTDIR);
        process_fd_list_done(&l);
        /* It serves more than one request. */
        cr_assert_eq(privileged_reader_scan_fds(r, &l), 0);
        cr_assert_eq(l.n_fds, 2);
}

/* The usage check through the reader reads what the in-process walk reads. */
Test(reader, usage_through_the_reader) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;

        cr_assert_eq(privileged_reader_start(NULL, &r), 0);
        process_users_set_source(privileged_reader_scan_fds, r);
        cr_assert_eq(nvme_block_devices_scan(&devices), 0);
        cr_assert_eq(usage_scan_init(&scan, devices), 0);
        cr_assert_eq(holder_set_read(devices, &scan.holders, &scan.collector), 0);
        cr_assert_eq(usage_scan_build_index(&scan), 0);
        cr_assert_eq(process_users_read(&scan), 0);
        cr_assert_eq(scan.collector.n_usages, 1 + 2, "fio's nvme0n1, then both namespaces unchecked (pid 102)");
        cr_assert_eq(scan.collector.usages[0].kind, USAGE_OPEN_BY_PROCESS);
        cr_assert_eq(scan.collector.usages[0].pid, 100);
        cr_assert_str_eq(scan.collector.usages[0].device, "nvme0n1");
        cr_assert_eq(scan.collector.usages[1].kind, USAGE_UNCHECKED);
        cr_assert_eq(scan.collector.usages[2].kind, USAGE_UNCHECKED);
}

/* Fail closed: a reader that is gone leaves every namespace unchecked, and
 * stays gone (no later answer can be matched to a request). */
Test(reader, gone_reader_is_unknown_never_free) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        _cleanup_(process_fd_list_done) ProcessFdList l = {};
        int status;

        cr_assert_eq(privileged_reader_start(NULL, &r), 0);
        cr_assert_eq(kill(privileged_reader_pid(r), SIGKILL), 0);
        cr_assert_eq(waitpid(privileged_reader_pid(r), &status, 0), privileged_reader_pid(r));
        cr_assert_lt(privileged_reader_scan_fds(r, &l), 0);
        cr_assert_eq(privileged_reader_scan_fds(r, &l), -ENOTCONN);

        process_users_set_source(privileged_reader_scan_fds, r);
        cr_assert_eq(nvme_block_devices_scan(&devices), 0);
        cr_assert_eq(usage_scan_init(&scan, devices), 0);
        cr_assert_eq(holder_set_read(devices, &scan.holders, &scan.collector), 0);
        cr_assert_eq(usage_scan_build_index(&scan), 0);
        cr_assert_eq(process_users_read(&scan), 0);
        cr_assert_eq(scan.collector.n_usages, 2, "one per namespace");
        for (size_t i = 0; i < scan.collector.n_usages; i++) {
                cr_assert_eq(scan.collector.usages[i].kind, USAGE_UNCHECKED);
                cr_assert_not_null(strstr(scan.collector.usages[i].what, "privileged reader"), "%s",
                                   scan.collector.usages[i].what);
        }
}

/* The reader's end, for the daemon's loop: its fd polls readable once it
 * is gone, and privileged_reader_ended() says how (the daemon's journal
 * line), once; from then on every request is -ENOTCONN. */
Test(reader, end_seen_and_said) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        _cleanup_(process_fd_list_done) ProcessFdList l = {};
        PrivilegedReaderEnd end = {};
        struct pollfd p;
        char how[256];
        pid_t pid;

        cr_assert_eq(privileged_reader_start(NULL, &r), 0);
        pid = privileged_reader_pid(r);
        p = (struct pollfd) { .fd = privileged_reader_end_fd(r), .events = POLLIN };
        cr_assert_geq(p.fd, 0, "pidfd_open: %s", strerror(-p.fd));
        cr_assert_eq(privileged_reader_ended(r, &end), 0, "it runs");
        cr_assert_eq(poll(&p, 1, 0), 0, "not readable while it runs");
        cr_assert_eq(kill(pid, SIGKILL), 0);
        /* The deadline only catches a hang: the kernel's exit is the event. */
        cr_assert_eq(poll(&p, 1, 60 * 1000), 1, "readable once it is gone");
        cr_assert_eq(privileged_reader_ended(r, &end), 1);
        cr_assert_eq(end.pid, pid);
        cr_assert(end.known);
        cr_assert(WIFSIGNALED(end.status) && WTERMSIG(end.status) == SIGKILL, "status %#x", end.status);
        cr_assert_eq(end.error, 0, "it ended between requests");
        cr_assert_str_eq(privileged_reader_end_describe(&end, how, sizeof(how)), "killed by signal 9 (SIGKILL)");
        cr_assert_eq(privileged_reader_pid(r), 0, "reaped");
        cr_assert_eq(privileged_reader_scan_fds(r, &l), -ENOTCONN);
        cr_assert_eq(privileged_reader_ended(r, &end), 1, "and says so again");
}

/* A reader given up by the daemon's side (an answer that does not fit):
 * killed, and the end says why. */
Test(reader, given_up_end_says_why) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        _cleanup_(process_fd_list_done) ProcessFdList l = {};
        PrivilegedReaderEnd end = {};
        uint8_t junk[READER_MSG_SIZE] = { 'S', 'G', 'R', 'P' };
        struct pollfd p;
        int sv[2];
        char how[256];
        pid_t pid;

        cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
        pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                uint8_t q[READER_MSG_SIZE];

                close(sv[0]);
                /* a lying reader: one record of garbage per request, then it
                 * waits to be killed */
                if (recv(sv[1], q, sizeof(q), 0) > 0)
                        (void) !send(sv[1], junk, sizeof(junk), 0);
                for (;;)
                        pause();
        }
        close(sv[1]);
        cr_assert_eq(privileged_reader_adopt(sv[0], pid, &r), 0);
        cr_assert_eq(privileged_reader_scan_fds(r, &l), -EBADMSG);
        p = (struct pollfd) { .fd = privileged_reader_end_fd(r), .events = POLLIN };
        cr_assert_eq(poll(&p, 1, 60 * 1000), 1);
        cr_assert_eq(privileged_reader_ended(r, &end), 1);
        cr_assert(end.known && WIFSIGNALED(end.status) && WTERMSIG(end.status) == SIGKILL, "status %#x", end.status);
        cr_assert_eq(end.error, -EBADMSG);
        cr_assert_str_eq(privileged_reader_end_describe(&end, how, sizeof(how)),
                         "killed by signal 9 (SIGKILL), given up by the daemon: an answer that did not decode or fit "
                         "the request");
}

/* How an end reads in the journal, for each way of ending. */
Test(reader_codec, end_described) {
        char how[256];
        struct {
                PrivilegedReaderEnd end;
                const char *want;
        } cases[] = {
                { { .known = true, .status = SIGSYS }, "killed by signal 31 (SIGSYS: a call its seccomp filter forbids)" },
                { { .known = true, .status = SIGXFSZ }, "killed by signal 25 (SIGXFSZ)" },
                { { .known = true, .status = 1 << 8 }, "exited with status 1" },
                { { .known = true, .status = 0 }, "exited with status 0" },
                { { .known = true, .status = 64 }, "killed by signal 64" },
                { { .known = true, .status = SIGKILL, .error = -ETIME },
                  "killed by signal 9 (SIGKILL), given up by the daemon: no answer within 30 s" },
                { { .known = true, .status = SIGSYS, .error = -ECONNRESET },
                  "killed by signal 31 (SIGSYS: a call its seccomp filter forbids)" },
                { { .known = true, .status = SIGKILL, .error = -EIO },
                  "killed by signal 9 (SIGKILL), given up by the daemon: Input/output error" },
                { { .known = false, .status = SIGKILL }, "ended (its status was collected elsewhere)" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                cr_assert_str_eq(privileged_reader_end_describe(&cases[i].end, how, sizeof(how)), cases[i].want,
                                 "case %zu", i);
        /* cut short, never past the buffer */
        cr_assert_str_eq(privileged_reader_end_describe(&cases[2].end, how, 8), "exited ");
}

/* A request the reader cannot decode ends it: it does not serve a peer
 * that sends garbage. */
Test(reader, garbage_request_ends_the_reader) {
        int sv[2], status;
        pid_t pid;
        uint8_t junk[READER_MSG_SIZE] = { 'G', 'E', 'T', ' ', '/' };
        char c;

        cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
        pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                close(sv[0]);
                privileged_reader_serve(sv[1], getppid(), NULL);
        }
        close(sv[1]);
        cr_assert_eq(send(sv[0], junk, sizeof(junk), 0), (ssize_t) sizeof(junk));
        cr_assert_eq(recv(sv[0], &c, 1, 0), 0, "no answer, the socket closed");
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %#x", status);
        close(sv[0]);
}

/* What the kernel says the reader holds: no capability but the two it
 * needs (of those its parent had), no new privileges, a filter, not
 * dumpable (its /proc files are root's then). */
Test(reader, confined_as_the_kernel_reports) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        _cleanup_free_ char *path = NULL, *status = NULL;
        _cleanup_(process_fd_list_done) ProcessFdList l = {};
        unsigned long long eff = ~0ULL, prm = ~0ULL, amb = ~0ULL, inh = ~0ULL;
        const char *p;

        cr_assert_eq(privileged_reader_start(NULL, &r), 0);
        cr_assert_eq(privileged_reader_scan_fds(r, &l), 0, "confined once it answers");
        cr_assert_eq(asprintf(&path, "/proc/%d/status", (int) privileged_reader_pid(r)) > 0, true);
        cr_assert_eq(read_full_file(path, &status, NULL), 0);
        cr_assert_not_null(p = strstr(status, "CapInh:"));
        cr_assert_eq(sscanf(p, "CapInh: %llx CapPrm: %llx CapEff: %llx", &inh, &prm, &eff), 3);
        cr_assert_not_null(p = strstr(status, "CapAmb:"));
        cr_assert_eq(sscanf(p, "CapAmb: %llx", &amb), 1);
        cr_assert_eq(inh, 0);
        cr_assert_eq(amb, 0);
        cr_assert_eq(prm & ~((1ULL << 2) | (1ULL << 19)), 0, "only DAC_READ_SEARCH and SYS_PTRACE: %llx", prm);
        cr_assert_eq(eff, prm);
        cr_assert_not_null(p = strstr(status, "SigIgn:"));
        cr_assert_eq(sscanf(p, "SigIgn: %llx", &inh), 1);
        cr_assert(inh & (1ULL << (SIGTERM - 1)), "SIGTERM ignored: the daemon may still ask while it stops");
        cr_assert_not_null(strstr(status, "NoNewPrivs:\t1"));
        cr_assert_not_null(strstr(status, "Seccomp:\t2"));
}

/* The walk over this machine's own /proc, many processes and fds: every
 * call glibc makes for it must pass the reader's filter (a large sort asks
 * sysinfo(2) first: found in the VM, where the reader died at its first
 * request and every namespace read as unchecked). */
Test(reader_real_host, scan_of_this_host) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        _cleanup_(process_fd_list_done) ProcessFdList l = {};
        int st = -1;
        pid_t pid;

        cr_assert_eq(privileged_reader_start(NULL, &r), 0);
        for (int i = 0; i < 3; i++) {
                process_fd_list_done(&l);
                cr_assert_eq(privileged_reader_scan_fds(r, &l), 0, "scan %d", i);
        }
        pid = privileged_reader_pid(r);
        cr_assert_gt(pid, 0);
        cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "the reader still runs (status %#x)", st);
}
