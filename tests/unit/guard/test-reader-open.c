/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader's device opens: the request's decoder refuses every
 * name that is not the kernel's name of the kind asked, the open refuses
 * every node that is not of the kind's type (a symlink, a FIFO, a
 * directory planted where the node is), the fd comes back over the socket,
 * and the daemon's side refuses an answer that does not add up (an fd with
 * an error, none with a success, two, one of the wrong type). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake-tree.h"
#include "host/host-root.h"
#include "sandbox/privileged-reader.h"
#include "sandbox/reader-codec.h"
#include "usage/device-open.h"
#include "util/macro.h"

static uint8_t msg[READER_MSG_SIZE];

static ReaderRequest open_request(DeviceOpenKind kind, const char *name) {
        ReaderRequest q = { .type = READER_REQUEST_OPEN_DEVICE, .device_kind = kind };

        snprintf(q.device_name, sizeof(q.device_name), "%s", name);
        return q;
}

static int encode_open(DeviceOpenKind kind, const char *name) {
        ReaderRequest q = open_request(kind, name);

        return reader_request_encode(&q, msg);
}

Test(reader_open_codec, names_by_kind) {
        static const char *const controllers[] = { "nvme0", "nvme12", NULL };
        static const char *const namespaces[] = { "nvme0n1", "nvme12n3p4", NULL };
        static const char *const neither[] = { "", "nvme", "nvme0c1n1", "nvme1c2n1p1", "../nvme0", "nvme0/../nvme1",
                                               "/dev/nvme0", "nvme0 ", "sda", "nvmeX", "nvme0x", "nvme-fabrics",
                                               "nvme0000000000000000000000000001", NULL };

        for (const char *const *n = controllers; *n; n++) {
                cr_assert(device_open_name_valid(DEVICE_OPEN_CONTROLLER, *n), "%s", *n);
                cr_assert_not(device_open_name_valid(DEVICE_OPEN_EXCLUSIVE, *n), "%s", *n);
        }
        for (const char *const *n = namespaces; *n; n++) {
                cr_assert(device_open_name_valid(DEVICE_OPEN_EXCLUSIVE, *n), "%s", *n);
                cr_assert_not(device_open_name_valid(DEVICE_OPEN_CONTROLLER, *n), "%s", *n);
        }
        for (const char *const *n = neither; *n; n++) {
                cr_assert_not(device_open_name_valid(DEVICE_OPEN_CONTROLLER, *n), "%s", *n);
                cr_assert_not(device_open_name_valid(DEVICE_OPEN_EXCLUSIVE, *n), "%s", *n);
        }
        cr_assert_not(device_open_name_valid(DEVICE_OPEN_CONTROLLER, NULL));
        cr_assert_not(device_open_name_valid(3, "nvme0"));
}

Test(reader_open_codec, request_round_trip) {
        ReaderRequest q;

        cr_assert_eq(encode_open(DEVICE_OPEN_EXCLUSIVE, "nvme1n1p2"), 0);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(q.type, READER_REQUEST_OPEN_DEVICE);
        cr_assert_eq(q.device_kind, DEVICE_OPEN_EXCLUSIVE);
        cr_assert_str_eq(q.device_name, "nvme1n1p2");
        cr_assert_eq(encode_open(DEVICE_OPEN_CONTROLLER, "nvme7"), 0);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(q.device_kind, DEVICE_OPEN_CONTROLLER);
        cr_assert_str_eq(q.device_name, "nvme7");
        /* What the decoder refuses, the encoder does not send. */
        cr_assert_eq(encode_open(DEVICE_OPEN_CONTROLLER, "nvme0n1"),
                     -EINVAL);
        cr_assert_eq(encode_open(DEVICE_OPEN_EXCLUSIVE, "../sda"),
                     -EINVAL);
}

/* The bytes a hostile daemon writes itself: each is refused. */
Test(reader_open_codec, hostile_requests) {
        static const struct { const char *name; uint32_t kind; const char *what; } names[] = {
                { "../nvme0", DEVICE_OPEN_CONTROLLER, "a parent directory" },
                { "nvme0/../../etc/shadow", DEVICE_OPEN_CONTROLLER, "a path" },
                { "/dev/nvme0", DEVICE_OPEN_CONTROLLER, "an absolute path" },
                { "nvmeX", DEVICE_OPEN_CONTROLLER, "not digits" },
                { "nvme0n1", DEVICE_OPEN_CONTROLLER, "a namespace asked as a controller" },
                { "nvme0", DEVICE_OPEN_EXCLUSIVE, "a controller asked exclusively" },
                { "nvme0c1n1", DEVICE_OPEN_EXCLUSIVE, "a hidden path device" },
                { "sda", DEVICE_OPEN_EXCLUSIVE, "not an NVMe device" },
                { "nvme-fabrics", DEVICE_OPEN_CONTROLLER, "the fabrics node" },
                { "", DEVICE_OPEN_EXCLUSIVE, "no name" },
                { "nvme0", 0, "kind 0" },
                { "nvme0", 3, "kind 3" },
        };
        ReaderRequest q;

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                cr_assert_eq(encode_open(DEVICE_OPEN_CONTROLLER, "nvme0"), 0);
                msg[8] = (uint8_t) names[i].kind;
                memset(msg + 32, 0, 32);
                memcpy(msg + 32, names[i].name, strlen(names[i].name));
                cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG, "%s", names[i].what);
        }
        /* Layout: lengths, reserved bytes, the NUL padding. */
        cr_assert_eq(encode_open(DEVICE_OPEN_EXCLUSIVE, "nvme0n1"), 0);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg) - 1, &q), -EBADMSG, "63 bytes");
        cr_assert_eq(reader_request_decode(msg, sizeof(msg) + 1, &q), -EBADMSG, "65 bytes");
        for (size_t at = 9; at < 32; at++) {
                uint8_t copy[READER_MSG_SIZE];

                memcpy(copy, msg, sizeof(copy));
                copy[at] = 1;
                cr_assert_eq(reader_request_decode(copy, sizeof(copy), &q), -EBADMSG, "reserved byte %zu", at);
        }
        msg[40] = 'x'; /* after "nvme0n1"'s NUL */
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG, "a byte after the NUL");
        memset(msg + 32, '1', 32);
        memcpy(msg + 32, "nvme", 4);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG, "no NUL");
}

Test(reader_open_codec, opened_record) {
        ReaderRecord out;

        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_OPENED, .status = 0 }, msg), 0);
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), 0);
        cr_assert_eq(out.kind, READER_RECORD_OPENED);
        cr_assert_eq(out.status, 0);
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_OPENED, .status = -EBUSY }, msg), 0);
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), 0);
        cr_assert_eq(out.status, -EBUSY);
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_OPENED, .status = 1 }, msg), -EINVAL);
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_OPENED, .status = -5000 }, msg),
                     -EINVAL);
        for (size_t at = 12; at < sizeof(msg); at++) {
                cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_OPENED }, msg), 0);
                msg[at] = 1;
                cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), -EBADMSG, "byte %zu", at);
        }
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_OPENED }, msg), 0);
        msg[8] = 1;
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), -EBADMSG, "status 1");
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_RELEASED }, msg), 0);
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), 0);
        cr_assert_eq(out.kind, READER_RECORD_RELEASED);
        for (size_t at = 8; at < sizeof(msg); at++) {
                cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_RELEASED }, msg), 0);
                msg[at] = 1;
                cr_assert_eq(reader_record_decode(msg, sizeof(msg), &out), -EBADMSG, "RELEASED byte %zu", at);
        }
}

/* A fake root: dev/nvme0 and dev/nvme0n1 stand for the nodes (regular
 * files, as in every fake root); what an attacker could plant beside them:
 * a symlink to a secret, a FIFO, a directory. */
static char secret[512];

static void setup(void) {
        const char *root = fake_tree_new();
        char p[512];

        fake_write("dev/nvme0", "");
        fake_write("dev/nvme0n1", "");
        fake_write("etc/secret", "s3cret\n");
        snprintf(secret, sizeof(secret), "%s/etc/secret", root);
        fake_symlink("dev/nvme1", secret);
        fake_symlink("dev/nvme1n1", secret);
        snprintf(p, sizeof(p), "%s/dev/nvme2n1", root);
        cr_assert_eq(mkfifo(p, 0600), 0);
        snprintf(p, sizeof(p), "%s/dev/nvme2", root);
        cr_assert_eq(mkfifo(p, 0600), 0);
        fake_mkdir("dev/nvme3n1");
        fake_mkdir("proc");
}

static void teardown(void) {
        device_open_set_source(NULL, NULL);
        fake_tree_remove();
}

TestSuite(reader_open, .init = setup, .fini = teardown);

static void assert_is(int fd, const char *rel) {
        struct stat a, b;
        char p[512];

        snprintf(p, sizeof(p), "%s/%s", host_root(), rel);
        cr_assert_eq(fstat(fd, &a), 0);
        cr_assert_eq(lstat(p, &b), 0);
        cr_assert(a.st_ino == b.st_ino && a.st_dev == b.st_dev, "fd is %s", rel);
}

/* What the reader runs for each request, in process. */
Test(reader_open, direct_checks) {
        int fd = -1;

        cr_assert_eq(device_open_direct(DEVICE_OPEN_CONTROLLER, "nvme0", &fd), 0);
        assert_is(fd, "dev/nvme0");
        close(fd);
        cr_assert_eq(device_open_direct(DEVICE_OPEN_EXCLUSIVE, "nvme0n1", &fd), 0);
        assert_is(fd, "dev/nvme0n1");
        close(fd);
        fd = -1;
        cr_assert_eq(device_open_direct(DEVICE_OPEN_CONTROLLER, "nvme1", &fd), -ENOTTY, "a symlink to a secret");
        cr_assert_eq(device_open_direct(DEVICE_OPEN_EXCLUSIVE, "nvme1n1", &fd), -ENOTBLK, "a symlink to a secret");
        cr_assert_eq(device_open_direct(DEVICE_OPEN_CONTROLLER, "nvme2", &fd), -ENOTTY, "a FIFO");
        cr_assert_eq(device_open_direct(DEVICE_OPEN_EXCLUSIVE, "nvme2n1", &fd), -ENOTBLK, "a FIFO");
        cr_assert_eq(device_open_direct(DEVICE_OPEN_EXCLUSIVE, "nvme3n1", &fd), -ENOTBLK, "a directory");
        cr_assert_eq(device_open_direct(DEVICE_OPEN_EXCLUSIVE, "nvme4n1", &fd), -ENOENT, "none");
        cr_assert_eq(device_open_direct(DEVICE_OPEN_CONTROLLER, "../etc/secret", &fd), -EINVAL);
        cr_assert_eq(device_open_direct(DEVICE_OPEN_EXCLUSIVE, "nvme0", &fd), -EINVAL, "the wrong kind");
        cr_assert_eq(fd, -1, "no fd on a failure");
}

/* Through the reader: the fd it opened arrives; its refusals arrive as
 * errnos, and it keeps serving after them. */
Test(reader_open, through_the_reader) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        ProcessFdList l = {};
        int fd = -1, st;

        cr_assert_eq(privileged_reader_start(NULL, &r), 0);
        cr_assert_eq(privileged_reader_open_device(r, DEVICE_OPEN_CONTROLLER, "nvme0", &fd), 0);
        assert_is(fd, "dev/nvme0");
        cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC, "received close-on-exec");
        close(fd);
        cr_assert_eq(privileged_reader_open_device(r, DEVICE_OPEN_EXCLUSIVE, "nvme0n1", &fd), 0);
        assert_is(fd, "dev/nvme0n1");
        close(fd);
        fd = -1;
        cr_assert_eq(privileged_reader_open_device(r, DEVICE_OPEN_CONTROLLER, "nvme1", &fd), -ENOTTY);
        cr_assert_eq(privileged_reader_open_device(r, DEVICE_OPEN_EXCLUSIVE, "nvme2n1", &fd), -ENOTBLK);
        cr_assert_eq(privileged_reader_open_device(r, DEVICE_OPEN_EXCLUSIVE, "nvme4n1", &fd), -ENOENT);
        cr_assert_eq(privileged_reader_open_device(r, DEVICE_OPEN_EXCLUSIVE, "../../etc/secret", &fd), -EINVAL,
                     "refused before it is sent");
        cr_assert_eq(fd, -1);
        cr_assert_eq(waitpid(privileged_reader_pid(r), &st, WNOHANG), 0, "the reader still serves");
        cr_assert_eq(privileged_reader_scan_fds(r, &l), 0, "and still walks");
        process_fd_list_done(&l);
        /* The daemon's opens through the source. */
        device_open_set_source(privileged_reader_open_device, r);
        cr_assert_eq(device_open(DEVICE_OPEN_EXCLUSIVE, "nvme0n1", &fd), 0);
        assert_is(fd, "dev/nvme0n1");
        close(fd);
}

/* A reader that is gone: every open fails (never a "free"). */
Test(reader_open, gone_reader) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        int fd = -1, st;

        cr_assert_eq(privileged_reader_start(NULL, &r), 0);
        cr_assert_eq(kill(privileged_reader_pid(r), SIGKILL), 0);
        cr_assert_eq(waitpid(privileged_reader_pid(r), &st, 0), privileged_reader_pid(r));
        cr_assert_lt(privileged_reader_open_device(r, DEVICE_OPEN_EXCLUSIVE, "nvme0n1", &fd), 0);
        cr_assert_eq(privileged_reader_open_device(r, DEVICE_OPEN_EXCLUSIVE, "nvme0n1", &fd), -ENOTCONN);
        cr_assert_eq(fd, -1);
}

/* A hostile reader: answers one request with status and the fds given,
 * then with the record of kind after (0: none). */
static void lying_reader(int sock, int status, const int *fds, size_t n, ReaderRecordKind after) {
        uint8_t req[READER_MSG_SIZE], buf[READER_MSG_SIZE];
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int) * 2)];
        } control = {};
        struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

        if (recv(sock, req, sizeof(req), 0) != (ssize_t) sizeof(req))
                _exit(2);
        if (reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_OPENED, .status = status }, buf) < 0)
                _exit(3);
        if (n > 0) {
                struct cmsghdr *c;

                mh.msg_control = control.buf;
                mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
                c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int) * n);
                memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
        }
        if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
                _exit(4);
        if (after && (reader_record_encode(&(ReaderRecord) { .kind = after }, buf) < 0 ||
                      send(sock, buf, sizeof(buf), MSG_NOSIGNAL) < 0))
                _exit(5);
        pause();
        _exit(0);
}

static int ask_liar(int status, const char *const *rels, size_t n, ReaderRecordKind after, int *ret_fd) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        int sv[2], fds[2] = { -1, -1 }, k;
        pid_t pid;

        for (size_t i = 0; i < n; i++) {
                char p[512];

                snprintf(p, sizeof(p), "%s/%s", host_root(), rels[i]);
                fds[i] = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
                cr_assert_geq(fds[i], 0, "%s", rels[i]);
        }
        cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
        pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                close(sv[0]);
                lying_reader(sv[1], status, fds, n, after);
        }
        close(sv[1]);
        for (size_t i = 0; i < n; i++)
                close(fds[i]);
        cr_assert_eq(privileged_reader_adopt(sv[0], pid, &r), 0);
        k = privileged_reader_open_device(r, DEVICE_OPEN_EXCLUSIVE, "nvme0n1", ret_fd);
        if (k == -EBADMSG)
                cr_assert_eq(privileged_reader_open_device(r, DEVICE_OPEN_EXCLUSIVE, "nvme0n1", ret_fd), -ENOTCONN,
                             "a reader that lied once is not asked again");
        return k;
}

Test(reader_open, lying_reader_refused) {
        static const char *const node[] = { "dev/nvme0n1" }, *const two[] = { "dev/nvme0n1", "dev/nvme0" },
                                 *const fifo[] = { "dev/nvme2n1" }, *const dir[] = { "dev/nvme3n1" };
        int fd = -1;

        cr_assert_eq(ask_liar(0, node, 1, READER_RECORD_RELEASED, &fd), 0, "the honest answer, for contrast");
        assert_is(fd, "dev/nvme0n1");
        close(fd);
        fd = -1;
        cr_assert_eq(ask_liar(-EBUSY, NULL, 0, 0, &fd), -EBUSY, "an honest refusal");
        cr_assert_eq(ask_liar(0, NULL, 0, READER_RECORD_RELEASED, &fd), -EBADMSG, "success without an fd");
        cr_assert_eq(ask_liar(-EBUSY, node, 1, 0, &fd), -EBADMSG, "an fd with a refusal");
        cr_assert_eq(ask_liar(0, two, 2, READER_RECORD_RELEASED, &fd), -EBADMSG, "two fds");
        cr_assert_eq(ask_liar(0, fifo, 1, READER_RECORD_RELEASED, &fd), -EBADMSG, "a FIFO passed as the node");
        cr_assert_eq(ask_liar(0, dir, 1, READER_RECORD_RELEASED, &fd), -EBADMSG, "a directory passed as the node");
        cr_assert_eq(ask_liar(0, node, 1, READER_RECORD_END, &fd), -EBADMSG,
                     "no word that the reader's copy is closed");
        cr_assert_eq(fd, -1, "nothing handed on");
}
