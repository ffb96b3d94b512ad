/* SPDX-License-Identifier: Apache-2.0 */
/* The parser child (sandbox/parser-sandbox.h) and its reply codec
 * (sandbox/sandbox-reply.h): the codec refuses every malformed reply, and a
 * real child holds no capability, opens nothing, and is killed or refused
 * when it spins, blocks, writes garbage or calls what its filter forbids. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/crio-config-job.h"
#include "sandbox/parser-sandbox.h"
#include "sandbox/sandbox-reply.h"
#include "util/strv.h"

static bool no_digits(const char *s) {
        return strpbrk(s, "0123456789") == NULL;
}

static const ReplyField schema[] = {
        { 1, 16, 1, NULL, "one" },
        { 2, 64, 3, no_digits, "two" },
};

static int decode(const ReplyWriter *w, Reply **ret, const char **why) {
        return reply_decode(w->buf, w->len, schema, ELEMENTSOF(schema), ret, why);
}

Test(reply, round_trip) {
        static ReplyWriter w;
        Reply *r = NULL;

        cr_assert_eq(reply_put_string(&w, 1, "hello world"), 0);
        cr_assert_eq(reply_put_string(&w, 2, "a"), 0);
        cr_assert_eq(reply_put_string(&w, 2, ""), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        cr_assert_eq(decode(&w, &r, NULL), 0);
        cr_assert_eq(r->error, 0);
        cr_assert_eq(r->n_items, 3);
        cr_assert_str_eq(reply_get(r, 1), "hello world");
        cr_assert_str_eq(r->items[1].value, "a");
        cr_assert_str_eq(r->items[2].value, "");
        reply_free(r);
}

Test(reply, error_round_trip) {
        static ReplyWriter w;
        Reply *r = NULL;

        cr_assert_eq(reply_put_errno(&w, -EBADMSG), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        cr_assert_eq(decode(&w, &r, NULL), 0);
        cr_assert_eq(r->error, EBADMSG);
        cr_assert_eq(r->n_items, 0);
        reply_free(r);
}

Test(reply, every_truncation_refused) {
        static ReplyWriter w;
        Reply *r = NULL;
        const char *why = NULL;

        cr_assert_eq(reply_put_string(&w, 1, "abc"), 0);
        cr_assert_eq(reply_put_string(&w, 2, "xyz"), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        for (size_t n = 0; n < w.len; n++) {
                cr_assert_eq(reply_decode(w.buf, n, schema, ELEMENTSOF(schema), &r, &why), -EPROTO, "prefix %zu", n);
                cr_assert_null(r);
                cr_assert_not_null(why);
        }
        /* and one byte more than the end record */
        w.buf[w.len++] = REPLY_END;
        cr_assert_eq(decode(&w, &r, &why), -EPROTO);
        cr_assert_str_eq(why, "bytes follow the end record");
}

Test(reply, oversize_refused) {
        static ReplyWriter w;
        static uint8_t big[REPLY_MAX + 1];
        char s[40];
        Reply *r = NULL;
        const char *why = NULL;

        memset(s, 'x', sizeof(s) - 1);
        s[sizeof(s) - 1] = '\0';
        cr_assert_eq(reply_put_string(&w, 1, s), 0, "the writer knows no schema");
        cr_assert_eq(reply_put_end(&w), 0);
        cr_assert_eq(decode(&w, &r, &why), -EPROTO);
        cr_assert_str_eq(why, "a field is longer than allowed");

        cr_assert_eq(reply_decode(big, sizeof(big), schema, ELEMENTSOF(schema), &r, &why), -EPROTO);
        cr_assert_str_eq(why, "the reply is larger than any reply may be");

        /* the writer stops at REPLY_MAX and says so */
        reply_writer_done(&w);
        {
                static char chunk[REPLY_STRING_MAX + 1];
                int k = 0;

                memset(chunk, 'y', REPLY_STRING_MAX);
                for (int i = 0; i < 100 && k == 0; i++)
                        k = reply_put_string(&w, 2, chunk);
                cr_assert_eq(k, -EMSGSIZE);
                cr_assert(w.overflow);
                cr_assert_eq(reply_put_end(&w), -EMSGSIZE, "an overflowed writer takes nothing more");
                chunk[REPLY_STRING_MAX] = 'y'; /* one past the longest string */
                chunk[REPLY_STRING_MAX] = '\0';
        }
}

Test(reply, non_printable_refused) {
        static ReplyWriter w;
        Reply *r = NULL;
        const char *why = NULL;
        const uint8_t bad[][9] = {
                { REPLY_STRING, 1, 3, 0, 'a', '\n', 'b', REPLY_END, 0 },
                { REPLY_STRING, 1, 3, 0, 'a', 0x00, 'b', REPLY_END, 0 },
                { REPLY_STRING, 1, 3, 0, 'a', 0xc3, 'b', REPLY_END, 0 },
                { REPLY_STRING, 1, 3, 0, 'a', 0x7f, 'b', REPLY_END, 0 },
        };

        cr_assert_eq(reply_put_string(&w, 1, "a\nb"), -EINVAL);
        cr_assert_eq(reply_put_string(&w, 1, "\xc3\xa9"), -EINVAL);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                uint8_t buf[12];

                memcpy(buf, bad[i], 9);
                buf[9] = 0;
                buf[10] = 0; /* the end record's length */
                cr_assert_eq(reply_decode(buf, 11, schema, ELEMENTSOF(schema), &r, &why), -EPROTO, "case %zu", i);
                cr_assert_str_eq(why, "a field holds a byte that is not printable ASCII");
        }
}

Test(reply, wrong_type_key_count_and_value_refused) {
        const struct {
                uint8_t buf[24];
                size_t len;
                const char *why;
        } cases[] = {
                { { 9, 1, 1, 0, 'a', REPLY_END, 0, 0, 0 }, 9, "a record of an unknown type" },
                { { REPLY_STRING, 7, 1, 0, 'a', REPLY_END, 0, 0, 0 }, 9, "a field the job does not have" },
                { { REPLY_STRING, 1, 1, 0, 'a', REPLY_STRING, 1, 1, 0, 'b', REPLY_END, 0, 0, 0 }, 14,
                  "a field comes more often than allowed" },
                { { REPLY_STRING, 2, 1, 0, '7', REPLY_END, 0, 0, 0 }, 9, "a field's value is not one the daemon accepts" },
                { { REPLY_ERRNO, 0, 2, 0, 1, 0, REPLY_END, 0, 0, 0 }, 10, "a malformed error record" },
                { { REPLY_ERRNO, 0, 4, 0, 0, 0, 0, 0, REPLY_END, 0, 0, 0 }, 12, "an error record with no errno in it" },
                { { REPLY_ERRNO, 0, 4, 0, 5, 0, 0, 0, REPLY_STRING, 1, 1, 0, 'a', REPLY_END, 0, 0, 0 }, 17,
                  "an error record next to fields" },
                { { REPLY_END, 1, 0, 0 }, 4, "a malformed end record" },
                { { REPLY_STRING, 1, 1, 0, 'a' }, 5, "the reply has no end record (cut short)" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Reply *r = NULL;
                const char *why = NULL;

                cr_assert_eq(reply_decode(cases[i].buf, cases[i].len, schema, ELEMENTSOF(schema), &r, &why), -EPROTO,
                             "case %zu", i);
                cr_assert_null(r);
                cr_assert_str_eq(why, cases[i].why, "case %zu: %s", i, why);
        }
}

static const char *const keys[] = { "ENABLE_NFSRDMA", "UNLOAD_STORAGE_MODULES", NULL };

Test(reply, crio_reply_checked_by_the_parent) {
        static ReplyWriter w;
        CrioConfig *c = NULL;
        const char *why = NULL;

        /* What an honest child sends. */
        cr_assert_eq(reply_put_string(&w, CRIO_REPLY_NAMESPACE, "nvidia-network-operator"), 0);
        cr_assert_eq(reply_put_string(&w, CRIO_REPLY_POD_NAME, "mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p"), 0);
        cr_assert_eq(reply_put_string(&w, CRIO_REPLY_CONTAINER_NAME, "mofed-container"), 0);
        cr_assert_eq(reply_put_string(&w, CRIO_REPLY_ENV, "ENABLE_NFSRDMA=true"), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        cr_assert_eq(crio_config_reply_decode(w.buf, w.len, keys, &c, &why), 0);
        cr_assert_str_eq(c->pod_name, "mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p");
        cr_assert_null(c->pod_uid);
        cr_assert_eq(strv_length(c->env), 1);
        crio_config_free(c);
        c = NULL;

        /* A key the parent did not ask for. */
        reply_writer_done(&w);
        cr_assert_eq(reply_put_string(&w, CRIO_REPLY_ENV, "LD_PRELOAD=/x.so"), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        cr_assert_eq(crio_config_reply_decode(w.buf, w.len, keys, &c, &why), -EPROTO);
        cr_assert_str_eq(why, "the parser child sent an environment key not asked for");

        /* A namespace Kubernetes would not take. */
        reply_writer_done(&w);
        cr_assert_eq(reply_put_string(&w, CRIO_REPLY_NAMESPACE, "../../etc"), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        cr_assert_eq(crio_config_reply_decode(w.buf, w.len, keys, &c, &why), -EPROTO);

        /* The child's own parse errors come through; others do not. */
        reply_writer_done(&w);
        cr_assert_eq(reply_put_errno(&w, EBADMSG), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        cr_assert_eq(crio_config_reply_decode(w.buf, w.len, keys, &c, &why), -EBADMSG);
        reply_writer_done(&w);
        cr_assert_eq(reply_put_errno(&w, ENOENT), 0);
        cr_assert_eq(reply_put_end(&w), 0);
        cr_assert_eq(crio_config_reply_decode(w.buf, w.len, keys, &c, &why), -EPROTO);
        cr_assert_null(c);
}

Test(reply, kubernetes_names) {
        cr_assert(crio_k8s_label_valid("nvidia-network-operator"));
        cr_assert_not(crio_k8s_label_valid("-a"));
        cr_assert_not(crio_k8s_label_valid("A"));
        cr_assert_not(crio_k8s_label_valid(""));
        cr_assert(crio_k8s_subdomain_valid("mofed-rhcos4.16-x"));
        cr_assert_not(crio_k8s_subdomain_valid("a/b"));
        cr_assert(crio_pod_uid_valid("0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69"));
        cr_assert_not(crio_pod_uid_valid("0b7c 3f5e"));
        cr_assert(crio_created_valid("2026-12-02T14:32:10.5Z"));
        cr_assert_not(crio_created_valid("yesterday"));
}

/* ---- the real child ---- */

static int temp_file(const char *text) {
        char path[] = "/tmp/test-sandbox-XXXXXX";
        int fd = mkstemp(path);

        cr_assert(fd >= 0);
        unlink(path);
        cr_assert_eq(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
        return fd;
}

enum { KEY_OPEN = 1, KEY_CAPS = 2, KEY_UID = 3, KEY_INPUT = 4 };

/* Test-only job: what can it open, what does it hold. */
static int job_report(int input_fd, ReplyWriter *w, void *userdata) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
        char line[128], *text = NULL;
        int fd, r;

        fd = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
        snprintf(line, sizeof(line), "%d %d", fd, fd < 0 ? errno : 0);
        if ((r = reply_put_string(w, KEY_OPEN, line)) < 0)
                return r;
        if (syscall(SYS_capget, &h, d) < 0)
                return -errno;
        snprintf(line, sizeof(line), "%x %x %x %x %x %x", d[0].effective, d[1].effective, d[0].permitted,
                 d[1].permitted, d[0].inheritable, d[1].inheritable);
        if ((r = reply_put_string(w, KEY_CAPS, line)) < 0)
                return r;
        snprintf(line, sizeof(line), "%u %u", (unsigned) getuid(), (unsigned) getgid());
        if ((r = reply_put_string(w, KEY_UID, line)) < 0)
                return r;
        if ((r = parser_sandbox_read_input(input_fd, 100, &text, NULL)) < 0)
                return r;
        r = reply_put_string(w, KEY_INPUT, text);
        free(text);
        return r;
}

Test(sandbox, child_holds_nothing_and_opens_nothing) {
        static const ReplyField s[] = {
                { KEY_OPEN, 64, 1, NULL, "open" }, { KEY_CAPS, 64, 1, NULL, "caps" },
                { KEY_UID, 64, 1, NULL, "uid" },   { KEY_INPUT, 64, 1, NULL, "input" },
        };
        uint8_t *buf = NULL;
        size_t len = 0;
        int fd = temp_file("the input"), sig = -1;
        Reply *r = NULL;
        const char *why = NULL;
        char expect[64];

        cr_assert_eq(parser_sandbox_run(fd, job_report, NULL, &buf, &len, &sig), 0);
        cr_assert_eq(sig, 0);
        cr_assert_eq(reply_decode(buf, len, s, ELEMENTSOF(s), &r, &why), 0, "%s", why);
        cr_assert_eq(r->error, 0);
        snprintf(expect, sizeof(expect), "-1 %d", EPERM);
        cr_assert_str_eq(reply_get(r, KEY_OPEN), expect, "open(/etc/hostname) in the child: %s", reply_get(r, KEY_OPEN));
        cr_assert_str_eq(reply_get(r, KEY_CAPS), "0 0 0 0 0 0");
        if (geteuid() == 0)
                cr_assert_str_eq(reply_get(r, KEY_UID), "65534 65534", "root's child runs as the overflow uid");
        else {
                snprintf(expect, sizeof(expect), "%u %u", (unsigned) getuid(), (unsigned) getgid());
                cr_assert_str_eq(reply_get(r, KEY_UID), expect);
        }
        cr_assert_str_eq(reply_get(r, KEY_INPUT), "the input");
        reply_free(r);
        free(buf);
        close(fd);
}

static int job_spin(int input_fd, ReplyWriter *w, void *userdata) {
        for (volatile unsigned long i = 0;; i++)
                ;
        return 0;
}

static int job_block(int input_fd, ReplyWriter *w, void *userdata) {
        char c;

        /* The input is a pipe whose writer the test keeps open. */
        return read(input_fd, &c, 1) < 0 ? -errno : 0;
}

static int job_garbage(int input_fd, ReplyWriter *w, void *userdata) {
        static const char junk[] = "{\"not\":\"the format\"}";

        return write(PARSER_SANDBOX_REPLY_FD, junk, sizeof(junk) - 1) < 0 ? -errno : 0;
}

static int job_flood(int input_fd, ReplyWriter *w, void *userdata) {
        static uint8_t junk[REPLY_MAX + 64];

        memset(junk, REPLY_END, sizeof(junk));
        return write(PARSER_SANDBOX_REPLY_FD, junk, sizeof(junk)) < 0 ? -errno : 0;
}

static int job_socket(int input_fd, ReplyWriter *w, void *userdata) {
        return socket(AF_UNIX, SOCK_STREAM, 0) < 0 ? -errno : 0;
}

static int job_read_other_fd(int input_fd, ReplyWriter *w, void *userdata) {
        char c;

        return read(*(int *) userdata, &c, 1) < 0 ? -errno : 0;
}

static int job_exec_mapping(int input_fd, ReplyWriter *w, void *userdata) {
        void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        return p == MAP_FAILED ? -errno : 0;
}

/* The shipped limits (20 s of wall time, 10 s of CPU) lowered to 2 s and
 * 1 s, so these cases see a child killed without the long wait. */
static void short_limits(void) {
        cr_assert_eq(parser_sandbox_limits.deadline_usec, 20ULL * 1000ULL * 1000ULL);
        cr_assert_eq(parser_sandbox_limits.cpu_seconds, 10);
        parser_sandbox_limits = (ParserSandboxLimits) { .deadline_usec = 2ULL * 1000ULL * 1000ULL, .cpu_seconds = 1 };
}

Test(sandbox, spinning_child_is_killed, .init = short_limits) {
        uint8_t *buf = NULL;
        size_t len = 0;
        int sig = 0, r, fd = temp_file("x");

        r = parser_sandbox_run(fd, job_spin, NULL, &buf, &len, &sig);
        /* RLIMIT_CPU (SIGXCPU at 1 s of CPU) or the 2 s wall deadline
         * (SIGKILL), whichever comes first on this machine's load. */
        cr_assert(r == -ETIME || (r == -EPROTO && sig == SIGXCPU), "r=%d sig=%d", r, sig);
        cr_assert(sig == SIGKILL || sig == SIGXCPU, "sig=%d", sig);
        cr_assert_null(buf);
        close(fd);
}

Test(sandbox, blocked_child_is_killed_at_the_deadline, .init = short_limits) {
        uint8_t *buf = NULL;
        size_t len = 0;
        int p[2], sig = 0;

        cr_assert_eq(pipe(p), 0);
        cr_assert_eq(parser_sandbox_run(p[0], job_block, NULL, &buf, &len, &sig), -ETIME);
        cr_assert_eq(sig, SIGKILL);
        close(p[0]);
        close(p[1]);
}

Test(sandbox, garbage_is_refused) {
        uint8_t *buf = NULL;
        size_t len = 0;
        int sig = 0, fd = temp_file("x");
        Reply *r = NULL;
        const char *why = NULL;

        cr_assert_eq(parser_sandbox_run(fd, job_garbage, NULL, &buf, &len, &sig), 0, "the bytes arrive");
        cr_assert_eq(reply_decode(buf, len, schema, ELEMENTSOF(schema), &r, &why), -EPROTO);
        cr_assert_not_null(why);
        cr_assert_null(r);
        free(buf);
        buf = NULL;
        cr_assert_eq(parser_sandbox_run(fd, job_flood, NULL, &buf, &len, &sig), -EMSGSIZE);
        cr_assert_null(buf);
        close(fd);
}

Test(sandbox, forbidden_calls_kill_the_child) {
        uint8_t *buf = NULL;
        size_t len = 0;
        int sig = 0, fd = temp_file("x"), other = 5;

        cr_assert_eq(parser_sandbox_run(fd, job_socket, NULL, &buf, &len, &sig), -EPROTO);
        cr_assert_eq(sig, SIGSYS, "socket(): sig=%d", sig);
        sig = 0;
        cr_assert_eq(parser_sandbox_run(fd, job_read_other_fd, &other, &buf, &len, &sig), -EPROTO);
        cr_assert_eq(sig, SIGSYS, "read() of another fd: sig=%d", sig);
        sig = 0;
        cr_assert_eq(parser_sandbox_run(fd, job_exec_mapping, NULL, &buf, &len, &sig), -EPROTO);
        cr_assert_eq(sig, SIGSYS, "mmap(PROT_EXEC): sig=%d", sig);
        close(fd);
}

Test(sandbox, crio_config_in_the_child) {
        char path[] = "/tmp/test-sandbox-config-XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fdopen(fd, "w");
        CrioConfig *c = NULL;
        const char *why = NULL;

        fputs("{\"process\":{\"env\":[\"PATH=/usr/bin\",\"ENABLE_NFSRDMA=true\",\"ENABLE_NFSRDMA=false\","
              "\"UNLOAD_STORAGE_MODULES=\\u0007x\"]},\"annotations\":{"
              "\"io.kubernetes.container.name\":\"mofed-container\",\"io.kubernetes.pod.name\":\"mofed-x\","
              "\"io.kubernetes.pod.namespace\":\"nvidia-network-operator\",\"io.kubernetes.pod.uid\":\"not a uid\","
              "\"io.kubernetes.cri-o.Created\":\"2026-12-02T14:32:10.5Z\"}}",
              f);
        fclose(f);
        cr_assert_eq(crio_config_read_confined(path, keys, &c, &why), 0, "%s", why ?: "");
        cr_assert_str_eq(c->pod_namespace, "nvidia-network-operator");
        cr_assert_str_eq(c->container_name, "mofed-container");
        cr_assert_str_eq(c->created, "2026-12-02T14:32:10.5Z");
        cr_assert_null(c->pod_uid, "a uid that is not one is left out");
        cr_assert_eq(strv_length(c->env), 2);
        cr_assert_str_eq(c->env[0], "ENABLE_NFSRDMA=true", "the first occurrence, only the keys asked for");
        cr_assert_str_eq(c->env[1], "UNLOAD_STORAGE_MODULES=", "a value not printable is sent empty");
        crio_config_free(c);
        c = NULL;

        f = fopen(path, "w");
        fputs("{\"annotations\":{", f);
        fclose(f);
        cr_assert_eq(crio_config_read_confined(path, keys, &c, &why), -EBADMSG, "half-written");
        cr_assert_eq(crio_config_read_confined("/nonexistent/config.json", keys, &c, &why), -ENOENT);
        unlink(path);
        cr_assert_eq(symlink("/etc/hostname", path), 0);
        cr_assert_eq(crio_config_read_confined(path, keys, &c, &why), -ELOOP, "a symlink is not followed");
        unlink(path);
        cr_assert_null(c);
}
