/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader's opens in CRI-O's store: the request carries a file
 * of a fixed list and a container id as bytes (so the reader's path can
 * name no other directory), each component below the store is opened
 * without following a symlink, the file must be regular and within its
 * bound; and the daemon's side asks only about the store the reader
 * serves. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-tree.h"
#include "host/crio-store-file.h"
#include "host/host-root.h"
#include "sandbox/privileged-reader.h"
#include "sandbox/reader-codec.h"
#include "util/macro.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define STORE "run/containers/storage/overlay-containers"

static uint8_t msg[READER_MSG_SIZE];

static int encode_store(CrioStoreFile f, const char *id) {
        ReaderRequest q = { .type = READER_REQUEST_OPEN_STORE_FILE, .store_file = f };

        snprintf(q.store_id, sizeof(q.store_id), "%s", id);
        return reader_request_encode(&q, msg);
}

Test(reader_store_codec, round_trip) {
        ReaderRequest q;

        cr_assert_eq(encode_store(CRIO_STORE_FILE_CONFIG, ID), 0);
        cr_assert_eq(msg[32], 0x01, "the id's bytes, not its text");
        cr_assert_eq(msg[63], 0xef);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(q.type, READER_REQUEST_OPEN_STORE_FILE);
        cr_assert_eq(q.store_file, CRIO_STORE_FILE_CONFIG);
        cr_assert_str_eq(q.store_id, ID);
        cr_assert_eq(encode_store(CRIO_STORE_FILE_PIDFILE, ID2), 0);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(q.store_file, CRIO_STORE_FILE_PIDFILE);
        cr_assert_str_eq(q.store_id, ID2);
}

/* The daemon's side sends no id that is none and no file off the list. */
Test(reader_store_codec, encoder_refuses) {
        static const char *const ids[] = {
                "../" ID, "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", /* upper case */
                "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",           /* 63 */
                "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg",          /* not hex */
                "../../../../etc/shadow", "", NULL,
        };

        for (const char *const *i = ids; *i; i++)
                cr_assert_eq(encode_store(CRIO_STORE_FILE_CONFIG, *i), -EINVAL, "%s", *i);
        cr_assert_eq(encode_store(0, ID), -EINVAL);
        cr_assert_eq(encode_store(3, ID), -EINVAL);
}

/* The bytes a hostile daemon writes itself: the file and reserved bytes
 * are checked; any 32 bytes of id are an id, which the reader writes in
 * hex itself (so "/" or "." bytes become "2f", "2e"). */
Test(reader_store_codec, hostile_requests) {
        ReaderRequest q;

        cr_assert_eq(encode_store(CRIO_STORE_FILE_CONFIG, ID), 0);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg) - 1, &q), -EBADMSG, "63 bytes");
        cr_assert_eq(reader_request_decode(msg, sizeof(msg) + 1, &q), -EBADMSG, "65 bytes");
        for (size_t at = 9; at < 32; at++) {
                uint8_t copy[READER_MSG_SIZE];

                memcpy(copy, msg, sizeof(copy));
                copy[at] = 1;
                cr_assert_eq(reader_request_decode(copy, sizeof(copy), &q), -EBADMSG, "reserved byte %zu", at);
        }
        msg[8] = 0;
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG, "file 0");
        msg[8] = 3;
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), -EBADMSG, "file 3");
        msg[8] = CRIO_STORE_FILE_PIDFILE;
        memcpy(msg + 32, "../../../../etc/shadow\0\0\0\0\0\0\0\0\0\0", 32);
        cr_assert_eq(reader_request_decode(msg, sizeof(msg), &q), 0);
        cr_assert_eq(strspn(q.store_id, "0123456789abcdef"), 64, "%s", q.store_id);
        cr_assert_null(strchr(q.store_id, '/'));
        cr_assert(strncmp(q.store_id, "2e2e2f", 6) == 0, "%s", q.store_id);
}

/* A fake store: ID complete; beside it what an attacker could plant: a
 * config.json that is a symlink to a secret, a pidfile that is a FIFO, a
 * userdata/ that is a symlink to ID's, an <id> that is a symlink, a
 * pidfile past its bound. */
static char containers[512];

#define ID_LINKED_FILE "1111111111111111111111111111111111111111111111111111111111111111"
#define ID_LINKED_USERDATA "2222222222222222222222222222222222222222222222222222222222222222"
#define ID_LINKED_DIR "3333333333333333333333333333333333333333333333333333333333333333"
#define ID_BIG "4444444444444444444444444444444444444444444444444444444444444444"

static void setup(void) {
        const char *root = fake_tree_new();
        char p[1024], secret[600];

        snprintf(containers, sizeof(containers), "%s/" STORE, root);
        snprintf(secret, sizeof(secret), "%s/etc/secret", root);
        fake_write("etc/secret", "s3cret\n");
        fake_write(STORE "/" ID "/userdata/config.json", "{\"annotations\":{}}");
        fake_write(STORE "/" ID "/userdata/pidfile", "1234\n");
        fake_mkdir(STORE "/" ID_LINKED_FILE "/userdata");
        fake_symlink(STORE "/" ID_LINKED_FILE "/userdata/config.json", secret);
        snprintf(p, sizeof(p), "%s/" ID_LINKED_FILE "/userdata/pidfile", containers);
        cr_assert_eq(mkfifo(p, 0600), 0);
        fake_mkdir(STORE "/" ID_LINKED_USERDATA);
        fake_symlink(STORE "/" ID_LINKED_USERDATA "/userdata", "../" ID "/userdata");
        fake_symlink(STORE "/" ID_LINKED_DIR, ID);
        fake_write(STORE "/" ID_BIG "/userdata/pidfile",
                   "12345678901234567890123456789012345678901234567890123456789012345\n");
        fake_mkdir("proc");
}

static void teardown(void) {
        crio_store_file_set_source(NULL, NULL);
        fake_tree_remove();
}

TestSuite(reader_store, .init = setup, .fini = teardown);

static void assert_reads(int fd, const char *want) {
        char buf[128] = "";
        ssize_t n = read(fd, buf, sizeof(buf) - 1);

        cr_assert_geq(n, 0);
        cr_assert_str_eq(buf, want);
        close(fd);
}

Test(reader_store, direct_checks) {
        int fd = -1;

        cr_assert_eq(crio_store_file_open_direct(containers, ID, CRIO_STORE_FILE_PIDFILE, &fd), 0);
        assert_reads(fd, "1234\n");
        cr_assert_eq(crio_store_file_open_direct(containers, ID, CRIO_STORE_FILE_CONFIG, &fd), 0);
        assert_reads(fd, "{\"annotations\":{}}");
        fd = -1;
        cr_assert_eq(crio_store_file_open_direct(containers, ID_LINKED_FILE, CRIO_STORE_FILE_CONFIG, &fd), -ELOOP,
                     "a symlink planted as config.json");
        cr_assert_eq(crio_store_file_open_direct(containers, ID_LINKED_FILE, CRIO_STORE_FILE_PIDFILE, &fd), -EBADMSG,
                     "a FIFO planted as the pidfile");
        cr_assert_lt(crio_store_file_open_direct(containers, ID_LINKED_USERDATA, CRIO_STORE_FILE_PIDFILE, &fd), 0,
                     "userdata/ a symlink");
        cr_assert_lt(crio_store_file_open_direct(containers, ID_LINKED_DIR, CRIO_STORE_FILE_PIDFILE, &fd), 0,
                     "<id> a symlink");
        cr_assert_eq(crio_store_file_open_direct(containers, ID_BIG, CRIO_STORE_FILE_PIDFILE, &fd), -EFBIG);
        cr_assert_eq(crio_store_file_open_direct(containers, ID2, CRIO_STORE_FILE_PIDFILE, &fd), -ENOENT);
        cr_assert_eq(crio_store_file_open_direct(containers, "../" ID, CRIO_STORE_FILE_PIDFILE, &fd), -EINVAL);
        cr_assert_eq(crio_store_file_open_direct(containers, ID, 7, &fd), -EINVAL);
        cr_assert_eq(fd, -1, "no fd on a failure");
}

Test(reader_store, through_the_reader) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        int fd = -1;

        cr_assert_eq(privileged_reader_start(containers, &r), 0);
        cr_assert_eq(privileged_reader_open_store_file(r, containers, ID, CRIO_STORE_FILE_PIDFILE, &fd), 0);
        assert_reads(fd, "1234\n");
        fd = -1;
        cr_assert_eq(privileged_reader_open_store_file(r, containers, ID_LINKED_FILE, CRIO_STORE_FILE_CONFIG, &fd),
                     -ELOOP);
        cr_assert_eq(privileged_reader_open_store_file(r, containers, ID_LINKED_FILE, CRIO_STORE_FILE_PIDFILE, &fd),
                     -EBADMSG);
        cr_assert_eq(privileged_reader_open_store_file(r, containers, ID_BIG, CRIO_STORE_FILE_PIDFILE, &fd), -EFBIG);
        cr_assert_eq(privileged_reader_open_store_file(r, containers, "../" ID, CRIO_STORE_FILE_PIDFILE, &fd),
                     -EINVAL, "not sent");
        cr_assert_eq(privileged_reader_open_store_file(r, "/elsewhere", ID, CRIO_STORE_FILE_PIDFILE, &fd), -EXDEV,
                     "another store than the reader's");
        cr_assert_eq(fd, -1);
        /* Still serving, and through the source the daemon sets. */
        crio_store_file_set_source(privileged_reader_open_store_file, r);
        cr_assert_eq(crio_store_file_open(containers, ID, CRIO_STORE_FILE_CONFIG, &fd), 0);
        assert_reads(fd, "{\"annotations\":{}}");
}

Test(reader_store, reader_without_a_store) {
        _cleanup_(privileged_reader_freep) PrivilegedReader *r = NULL;
        int fd = -1;

        cr_assert_eq(privileged_reader_start(NULL, &r), 0);
        cr_assert_eq(privileged_reader_open_store_file(r, containers, ID, CRIO_STORE_FILE_PIDFILE, &fd), -EXDEV);
        cr_assert_eq(fd, -1);
}
