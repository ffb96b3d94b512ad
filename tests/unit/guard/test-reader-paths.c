/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader's looks, watches and listing in root-only
 * directories (host/private-path.h): a request names a kind of a closed
 * list and a container id as bytes, never a path; below the store or a
 * runtime root nothing is followed; a watch the reader adds on the inotify
 * fd the daemon passes delivers its events to the daemon's fd; a fd that is
 * no inotify fd, or one passed with another request, is refused; and the
 * daemon's side refuses a reader's answer that does not fit. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake-tree.h"
#include "host/host-root.h"
#include "host/private-path.h"
#include "sandbox/privileged-reader.h"
#include "sandbox/reader-codec.h"
#include "util/macro.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define ID_LINKED_DIR "3333333333333333333333333333333333333333333333333333333333333333"
#define ID_LINKED_USERDATA "2222222222222222222222222222222222222222222222222222222222222222"
#define ID_FIFO_USERDATA "5555555555555555555555555555555555555555555555555555555555555555"
#define STORE "run/containers/storage/overlay-containers"

static uint8_t msg[READER_MSG_SIZE];

static int encode_path(ReaderRequestType type, PrivatePath p, const char *id, bool climb) {
        ReaderRequest q = { .type = type, .path = p, .climb = climb };

        snprintf(q.store_id, sizeof(q.store_id), "%s", id ?: "");
        return reader_request_encode(&q, msg);
}

Test(reader_paths_codec, round_trip) {
        ReaderRequest q;

        cr_assert_eq(encode_path(READER_REQUEST_LOOK_PATH, PRIVATE_PATH_USERDATA, ID, false), 0);
        cr_assert_eq(msg[32], 0x01, "the id's bytes, not its text");
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(q.type, READER_REQUEST_LOOK_PATH);
        cr_assert_eq(q.path, PRIVATE_PATH_USERDATA);
        cr_assert_str_eq(q.store_id, ID);
        cr_assert_eq(encode_path(READER_REQUEST_WATCH_PATH, PRIVATE_PATH_CRUN_FIFO, ID2, true), 0);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(q.path, PRIVATE_PATH_CRUN_FIFO);
        cr_assert(q.climb);
        cr_assert_str_eq(q.store_id, ID2);
        cr_assert_eq(encode_path(READER_REQUEST_WATCH_PATH, PRIVATE_PATH_STORE, NULL, false), 0);
        cr_assert(memcmp(msg + 32, (uint8_t[32]) {}, 32) == 0, "no id for the store");
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(q.path, PRIVATE_PATH_STORE);
        cr_assert_eq(reader_request_encode(&(ReaderRequest) { .type = READER_REQUEST_OPEN_STORE }, msg), 0);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(q.type, READER_REQUEST_OPEN_STORE);
}

Test(reader_paths_codec, encoder_refuses) {
        cr_assert_eq(encode_path(READER_REQUEST_LOOK_PATH, PRIVATE_PATH_ENTRY, "../" ID, false), -EINVAL);
        cr_assert_eq(encode_path(READER_REQUEST_LOOK_PATH, PRIVATE_PATH_ENTRY, "", false), -EINVAL);
        cr_assert_eq(encode_path(READER_REQUEST_LOOK_PATH, PRIVATE_PATH_STORE, ID, false), -EINVAL,
                     "an id with the store");
        cr_assert_eq(encode_path(READER_REQUEST_LOOK_PATH, 0, ID, false), -EINVAL);
        cr_assert_eq(encode_path(READER_REQUEST_LOOK_PATH, PRIVATE_PATH_MAX_KIND + 1, ID, false), -EINVAL);
        cr_assert_eq(encode_path(READER_REQUEST_LOOK_PATH, PRIVATE_PATH_ENTRY, ID, true), -EINVAL,
                     "climb is a watch's");
}

/* The bytes a hostile daemon writes itself. */
Test(reader_paths_codec, hostile_requests) {
        ReaderRequest q;
        uint8_t copy[READER_MSG_SIZE];

        cr_assert_eq(encode_path(READER_REQUEST_WATCH_PATH, PRIVATE_PATH_ENTRY, ID, false), 0);
        for (size_t at = 16; at < 32; at++) {
                memcpy(copy, msg, sizeof(copy));
                copy[at] = 1;
                cr_assert_eq(reader_request_decode(copy, sizeof(copy), &q), -EBADMSG, "reserved byte %zu", at);
        }
        memcpy(copy, msg, sizeof(copy));
        copy[12] = 2;
        cr_assert_eq(reader_request_decode(copy, sizeof(copy), &q), -EBADMSG, "climb 2");
        for (uint8_t kind = 0; kind < 10; kind++) {
                memcpy(copy, msg, sizeof(copy));
                copy[8] = kind;
                cr_assert_eq(reader_request_decode(copy, sizeof(copy), &q) == 0,
                             kind >= PRIVATE_PATH_STORE && kind <= PRIVATE_PATH_MAX_KIND && kind != PRIVATE_PATH_STORE,
                             "kind %u", kind);
        }
        /* A look with climb set; the store with an id; an OPEN_STORE with a byte. */
        cr_assert_eq(encode_path(READER_REQUEST_LOOK_PATH, PRIVATE_PATH_ENTRY, ID, false), 0);
        msg[12] = 1;
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG);
        cr_assert_eq(encode_path(READER_REQUEST_LOOK_PATH, PRIVATE_PATH_STORE, NULL, false), 0);
        msg[40] = '/';
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG);
        cr_assert_eq(reader_request_encode(&(ReaderRequest) { .type = READER_REQUEST_OPEN_STORE }, msg), 0);
        msg[63] = 1;
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG);
        /* Any 32 bytes are an id: written back as hex, no '/' or '.'. */
        cr_assert_eq(encode_path(READER_REQUEST_LOOK_PATH, PRIVATE_PATH_RUNC_FIFO, ID, false), 0);
        memcpy(msg + 32, "../../../../etc/shadow\0\0\0\0\0\0\0\0\0\0", 32);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(strspn(q.store_id, "0123456789abcdef"), 64, "%s", q.store_id);
}

Test(reader_paths_codec, records) {
        ReaderRecord rec;

        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_LOOKED,
                                                            .look = { .type = S_IFDIR, .mtime_usec = 42 } },
                                          msg),
                     0);
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &rec), 0);
        cr_assert_eq(rec.look.type, S_IFDIR);
        cr_assert_eq(rec.look.mtime_usec, 42);
        msg[12] = 3; /* no such file type */
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &rec), -EBADMSG);
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_LOOKED, .status = -ENOENT,
                                                            .look = { .type = S_IFDIR } },
                                          msg),
                     -EINVAL, "a type with a failure");
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_WATCHED, .wd = 7, .up = 2 }, msg), 0);
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &rec), 0);
        cr_assert_eq(rec.wd, 7);
        cr_assert_eq(rec.up, 2);
        msg[16] = PRIVATE_PATH_UP_MAX + 1;
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &rec), -EBADMSG, "too far up");
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_WATCHED, .wd = 0 }, msg), -EINVAL,
                     "success without a wd");
        cr_assert_eq(reader_record_encode(&(ReaderRecord) { .kind = READER_RECORD_WATCHED, .status = -EACCES }, msg),
                     0);
        msg[12] = 5;
        cr_assert_eq(reader_record_decode(msg, sizeof(msg), &rec), -EBADMSG, "a wd with a failure");
}

/* A fake store and runc root: ID complete; ID_LINKED_DIR a symlink to it;
 * ID_LINKED_USERDATA's userdata/ a symlink to ID's; ID_FIFO_USERDATA's
 * userdata a FIFO; ID's exec.fifo in /run/runc, ID2's exec.fifo a symlink
 * to a secret. */
static char containers[512];

static void setup(void) {
        const char *root = fake_tree_new();
        char p[1024];

        snprintf(containers, sizeof(containers), "%s/" STORE, root);
        fake_write("etc/secret", "s3cret\n");
        fake_write(STORE "/" ID "/userdata/config.json", "{}");
        fake_symlink(STORE "/" ID_LINKED_DIR, ID);
        fake_mkdir(STORE "/" ID_LINKED_USERDATA);
        fake_symlink(STORE "/" ID_LINKED_USERDATA "/userdata", "../" ID "/userdata");
        fake_mkdir(STORE "/" ID_FIFO_USERDATA);
        snprintf(p, sizeof(p), "%s/" ID_FIFO_USERDATA "/userdata", containers);
        cr_assert_eq(mkfifo(p, 0600), 0);
        fake_mkdir("run/runc/" ID);
        snprintf(p, sizeof(p), "%s/run/runc/" ID "/exec.fifo", root);
        cr_assert_eq(mkfifo(p, 0600), 0);
        fake_mkdir("run/runc/" ID2);
        snprintf(p, sizeof(p), "%s/etc/secret", root);
        fake_symlink("run/runc/" ID2 "/exec.fifo", p);
        fake_mkdir("proc");
}

static void teardown(void) {
        private_path_set_source(NULL, NULL);
        fake_tree_remove();
}

TestSuite(reader_paths, .init = setup, .fini = teardown);

/* What the looks say, the same directly and through a reader. */
static void check_looks(void *reader) {
        PrivatePathSource direct = {};
        PrivatePathLook l = {};

        private_path_set_source(reader ? &privileged_reader_path_source : &direct, reader);
        cr_assert_eq(private_path_look(containers, PRIVATE_PATH_STORE, NULL, &l), 0);
        cr_assert(S_ISDIR(l.type));
        cr_assert_eq(private_path_look(containers, PRIVATE_PATH_ENTRY, ID, &l), 0);
        cr_assert(S_ISDIR(l.type));
        cr_assert_gt(l.mtime_usec, 0);
        cr_assert(private_path_is_dir(containers, PRIVATE_PATH_USERDATA, ID));
        cr_assert_eq(private_path_look(containers, PRIVATE_PATH_ENTRY, ID_LINKED_DIR, &l), 0);
        cr_assert(S_ISLNK(l.type), "a symlinked <id> is a symlink, not its target");
        cr_assert_eq(private_path_look(containers, PRIVATE_PATH_USERDATA, ID_LINKED_DIR, &l), -ELOOP,
                     "nothing below a symlinked <id>");
        cr_assert(!private_path_is_dir(containers, PRIVATE_PATH_USERDATA, ID_LINKED_USERDATA));
        cr_assert(!private_path_is_dir(containers, PRIVATE_PATH_USERDATA, ID_FIFO_USERDATA), "a FIFO as userdata/");
        cr_assert_eq(private_path_exists(containers, PRIVATE_PATH_ENTRY, ID2), 0);
        cr_assert_eq(private_path_look(NULL, PRIVATE_PATH_RUNC_FIFO, ID, &l), 0);
        cr_assert(S_ISFIFO(l.type));
        cr_assert_eq(private_path_exists(NULL, PRIVATE_PATH_CRUN_FIFO, ID), 0, "no /run/crun");
        cr_assert_eq(private_path_look(NULL, PRIVATE_PATH_RUNC_FIFO, ID2, &l), 0);
        cr_assert(S_ISLNK(l.type), "a symlinked exec.fifo is not followed");
        cr_assert_eq(private_path_look(containers, PRIVATE_PATH_ENTRY, "../" ID, &l), -EINVAL);
}

Test(reader_paths, direct_looks) {
        check_looks(NULL);
}

Test(reader_paths, looks_through_the_reader) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        PrivatePathLook l;

        cr_assert_eq(privileged_reader_start(containers, &r), 0);
        check_looks(r);
        cr_assert_eq(privileged_reader_look_path(r, "/elsewhere", PRIVATE_PATH_ENTRY, ID, &l), -EXDEV);
        cr_assert_eq(privileged_reader_look_path(r, NULL, PRIVATE_PATH_RUNC_FIFO, ID, &l), 0, "still serving");
}

/* The next event on fd: its wd, and its name in name. */
static int next_event(int fd, char *name, size_t n) {
        union {
                struct inotify_event ev;
                char raw[sizeof(struct inotify_event) + 256];
        } buf;
        struct pollfd p = { .fd = fd, .events = POLLIN };

        cr_assert_eq(poll(&p, 1, 10000), 1, "an event, within a hang's deadline");
        cr_assert_gt(read(fd, &buf, sizeof(buf)), 0);
        snprintf(name, n, "%s", buf.ev.len ? buf.ev.name : "");
        return buf.ev.wd;
}

Test(reader_paths, watches_on_the_daemons_fd) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        _cleanup_close_ int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        char name[256];
        unsigned up = 9;
        int wd = -1, wd2 = -1;

        cr_assert_geq(in, 0);
        cr_assert_eq(privileged_reader_start(containers, &r), 0);
        cr_assert_eq(privileged_reader_watch_path(r, in, containers, PRIVATE_PATH_USERDATA, ID, false, &wd, &up), 0);
        cr_assert_gt(wd, 0);
        cr_assert_eq(up, 0);
        /* The reader added it on its copy; the event is on ours. */
        fake_write(STORE "/" ID "/userdata/pidfile", "1\n");
        cr_assert_eq(next_event(in, name, sizeof(name)), wd);
        cr_assert_str_eq(name, "pidfile");
        /* Not followed below the store: a symlinked <id> is not there. */
        cr_assert_eq(privileged_reader_watch_path(r, in, containers, PRIVATE_PATH_ENTRY, ID_LINKED_DIR, false, &wd2,
                                                  &up),
                     -ENOENT);
        cr_assert_eq(privileged_reader_watch_path(r, in, containers, PRIVATE_PATH_USERDATA, ID_LINKED_USERDATA, false,
                                                  &wd2, &up),
                     -ENOENT);
        cr_assert_eq(privileged_reader_watch_path(r, in, containers, PRIVATE_PATH_USERDATA, ID_FIFO_USERDATA, false,
                                                  &wd2, &up),
                     -ENOENT, "a FIFO planted as userdata/");
        /* A fifo's watch climbs: there is no /run/crun, so neither
         * /run/crun/<id>/ nor /run/crun: the watch is on /run, two above
         * the fifo's parent. */
        cr_assert_eq(privileged_reader_watch_path(r, in, NULL, PRIVATE_PATH_CRUN_FIFO, ID2, true, &wd2, &up), 0);
        cr_assert_eq(up, 2);
        cr_assert_eq(privileged_reader_watch_path(r, in, NULL, PRIVATE_PATH_RUNC_FIFO, ID, true, &wd2, &up), 0);
        cr_assert_eq(up, 0, "on <root>/<id>/");
        cr_assert_eq(privileged_reader_watch_path(r, in, NULL, PRIVATE_PATH_RUNC_FIFO, ID, false, &wd2, &up), -EINVAL,
                     "a fifo is watched by its directory only");
        /* The daemon's own inotify_rm_watch drops the reader's watch. */
        cr_assert_eq(inotify_rm_watch(in, wd), 0);
}

Test(reader_paths, not_an_inotify_fd) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        _cleanup_close_ int notify = open(containers, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        PrivatePathLook l;
        unsigned up;
        int wd = -1;

        cr_assert_geq(notify, 0);
        cr_assert_eq(privileged_reader_start(containers, &r), 0);
        cr_assert_eq(privileged_reader_watch_path(r, notify, containers, PRIVATE_PATH_ENTRY, ID, false, &wd, &up),
                     -EINVAL, "the kernel's answer for a directory fd");
        cr_assert_eq(wd, -1);
        cr_assert_eq(privileged_reader_look_path(r, containers, PRIVATE_PATH_ENTRY, ID, &l), 0, "still serving");
}

Test(reader_paths, listing) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        DIR *d;
        struct dirent *de;
        bool seen = false;
        int fd = -1;

        cr_assert_eq(privileged_reader_start(containers, &r), 0);
        cr_assert_eq(privileged_reader_open_store(r, "/elsewhere", &fd), -EXDEV);
        cr_assert_eq(privileged_reader_open_store(r, containers, &fd), 0);
        d = fdopendir(fd);
        cr_assert_not_null(d);
        while ((de = readdir(d)))
                seen = seen || streq(de->d_name, ID);
        closedir(d);
        cr_assert(seen);
}

Test(reader_paths, reader_without_a_store) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        PrivatePathLook l;
        int fd = -1;

        cr_assert_eq(privileged_reader_start(NULL, &r), 0);
        cr_assert_eq(privileged_reader_look_path(r, containers, PRIVATE_PATH_ENTRY, ID, &l), -EXDEV);
        cr_assert_eq(privileged_reader_open_store(r, containers, &fd), -EXDEV);
        cr_assert_eq(privileged_reader_look_path(r, NULL, PRIVATE_PATH_RUNC_FIFO, ID, &l), 0,
                     "the fifos need no store");
}

/* A reader that ends on a request with an fd it was not asked for: the
 * raw socket, as a hostile daemon would write. */
Test(reader_paths, fd_with_another_request_ends_the_reader) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        uint8_t buf[READER_MSG_SIZE];
        int sv[2], st;
        pid_t pid;

        cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
        pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                close(sv[0]);
                privileged_reader_serve(sv[1], getppid(), containers);
        }
        close(sv[1]);
        cr_assert_eq(encode_path(READER_REQUEST_LOOK_PATH, PRIVATE_PATH_ENTRY, ID, false), 0);
        {
                union {
                        struct cmsghdr align;
                        char b[CMSG_SPACE(sizeof(int))];
                } control = {};
                struct iovec iov = { .iov_base = msg, .iov_len = sizeof(msg) };
                struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
                                     .msg_controllen = sizeof(control.b) };
                struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
                int fd = STDIN_FILENO;

                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(c), &fd, sizeof(int));
                cr_assert_eq(sendmsg(sv[0], &mh, MSG_NOSIGNAL), (ssize_t) sizeof(msg));
        }
        cr_assert_eq(recv(sv[0], buf, sizeof(buf), 0), 0, "no answer: the reader ended");
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
        close(sv[0]);
}

/* A hostile reader: answers one request with the record given (and fd
 * passed alongside when >= 0). */
static int ask_liar(const ReaderRecord *answer, int passed, bool climb, int *ret_wd, unsigned *ret_up) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        _cleanup_close_ int in = inotify_init1(IN_CLOEXEC);
        int sv[2], k;
        pid_t pid;

        cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
        pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                uint8_t req[READER_MSG_SIZE], buf[READER_MSG_SIZE];
                union {
                        struct cmsghdr align;
                        char b[CMSG_SPACE(sizeof(int))];
                } control = {};
                struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
                struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

                close(sv[0]);
                if (recv(sv[1], req, sizeof(req), 0) != (ssize_t) sizeof(req))
                        _exit(2);
                if (reader_record_encode(answer, buf) < 0)
                        _exit(3);
                if (passed >= 0) {
                        struct cmsghdr *c;

                        mh.msg_control = control.b;
                        mh.msg_controllen = sizeof(control.b);
                        c = CMSG_FIRSTHDR(&mh);
                        c->cmsg_level = SOL_SOCKET;
                        c->cmsg_type = SCM_RIGHTS;
                        c->cmsg_len = CMSG_LEN(sizeof(int));
                        memcpy(CMSG_DATA(c), &passed, sizeof(int));
                }
                if (sendmsg(sv[1], &mh, MSG_NOSIGNAL) < 0)
                        _exit(4);
                pause();
                _exit(0);
        }
        close(sv[1]);
        cr_assert_eq(privileged_reader_adopt(sv[0], pid, &r), 0);
        /* A fifo: an adopted reader serves no store (a store path would be
         * -EXDEV before anything is sent). */
        k = privileged_reader_watch_path(r, in, NULL, PRIVATE_PATH_RUNC_FIFO, ID, climb, ret_wd, ret_up);
        if (k == -EBADMSG)
                cr_assert_eq(privileged_reader_watch_path(r, in, NULL, PRIVATE_PATH_RUNC_FIFO, ID, climb, ret_wd,
                                                          ret_up),
                             -ENOTCONN, "a reader that lied once is not asked again");
        return k;
}

Test(reader_paths, lying_reader_refused) {
        _cleanup_close_ int other = open(containers, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        unsigned up = 0;
        int wd = -1;

        cr_assert_eq(ask_liar(&(ReaderRecord) { .kind = READER_RECORD_WATCHED, .wd = 3, .up = 1 }, -1, true, &wd, &up),
                     0, "the honest answer, for contrast");
        cr_assert_eq(wd, 3);
        cr_assert_eq(up, 1);
        wd = -1;
        cr_assert_eq(ask_liar(&(ReaderRecord) { .kind = READER_RECORD_WATCHED, .status = -EACCES }, -1, true, &wd, &up),
                     -EACCES, "an honest refusal");
        cr_assert_eq(ask_liar(&(ReaderRecord) { .kind = READER_RECORD_WATCHED, .wd = 3, .up = 2 }, -1, false, &wd, &up),
                     -EBADMSG, "climbed when asked not to");
        cr_assert_eq(ask_liar(&(ReaderRecord) { .kind = READER_RECORD_WATCHED, .wd = 3 }, other, true, &wd, &up),
                     -EBADMSG, "an fd with the answer");
        cr_assert_eq(ask_liar(&(ReaderRecord) { .kind = READER_RECORD_LOOKED, .look = { .type = S_IFDIR } }, -1, true,
                              &wd, &up),
                     -EBADMSG, "another request's answer");
        cr_assert_eq(ask_liar(&(ReaderRecord) { .kind = READER_RECORD_OPENED }, other, true, &wd, &up), -EBADMSG,
                     "an open's answer and its fd");
        cr_assert_eq(wd, -1, "nothing written on a refusal");
}
