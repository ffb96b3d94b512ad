/* SPDX-License-Identifier: Apache-2.0 */
/* What stands between a connect string (secrets included) and the kernel:
 * the decision on what was found at /dev/nvme-fabrics, the number sysfs
 * gives for it, the options the loaded nvme_fabrics lists, the options left
 * out for it, the DH-HMAC-CHAP secret's form, and the redaction of a kernel
 * line copied anywhere. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "actions/fabrics-connect.h"
#include "actions/fabrics-device.h"
#include "actions/fabrics-options.h"
#include "util/strv.h"

#define MISC makedev(10, 122)

Test(fabrics_device, the_kernels_character_device_is_accepted) {
        cr_assert_eq(fabrics_device_verdict(S_IFCHR | 0600, MISC, MISC, NULL), 0);
}

Test(fabrics_device, a_symlink_is_refused_and_named) {
        const char *what = NULL;

        cr_assert_eq(fabrics_device_verdict(S_IFLNK | 0777, 0, MISC, &what), -ENODEV);
        cr_assert_str_eq(what, "a symbolic link");
}

Test(fabrics_device, a_fifo_is_refused_and_named) {
        const char *what = NULL;

        cr_assert_eq(fabrics_device_verdict(S_IFIFO | 0600, 0, MISC, &what), -ENODEV);
        cr_assert_str_eq(what, "a FIFO");
}

Test(fabrics_device, a_regular_file_is_refused_and_named) {
        const char *what = NULL;

        cr_assert_eq(fabrics_device_verdict(S_IFREG | 0600, 0, MISC, &what), -ENODEV);
        cr_assert_str_eq(what, "a regular file");
}

Test(fabrics_device, another_device_number_is_refused) {
        const char *what = NULL;

        /* a disk's node renamed into place, or another misc device */
        cr_assert_eq(fabrics_device_verdict(S_IFCHR | 0600, makedev(10, 123), MISC, &what), -ENODEV);
        cr_assert_str_eq(what, "another character device");
        cr_assert_eq(fabrics_device_verdict(S_IFBLK | 0600, MISC, MISC, &what), -ENODEV,
                     "a block device with the same numbers is still not it");
        cr_assert_str_eq(what, "a block device");
}

Test(fabrics_device, sysfs_dev_number) {
        dev_t d = 0;

        cr_assert_eq(fabrics_device_parse_dev("10:122\n", &d), 0);
        cr_assert_eq(d, MISC);
        cr_assert_eq(fabrics_device_parse_dev("10:122", &d), 0);
        cr_assert_eq(fabrics_device_parse_dev("10:", &d), -EINVAL);
        cr_assert_eq(fabrics_device_parse_dev(":1", &d), -EINVAL);
        cr_assert_eq(fabrics_device_parse_dev("10:1x", &d), -EINVAL);
        cr_assert_eq(fabrics_device_parse_dev("10:1\n2", &d), -EINVAL);
        cr_assert_eq(fabrics_device_parse_dev("-1:2", &d), -EINVAL);
        cr_assert_eq(fabrics_device_parse_dev("", &d), -EINVAL);
        cr_assert_eq(fabrics_device_parse_dev(NULL, &d), -EINVAL);
}

Test(fabrics_device, supported_options_as_the_kernel_lists_them) {
        _cleanup_strv_free_ char **o = NULL;

        cr_assert_eq(fabrics_supported_options_parse("instance=-1,cntlid=-1,transport=%s,traddr=%s,nqn=%s,"
                                                     "hdr_digest,dhchap_secret=%s,tls\n", &o), 0);
        cr_assert_eq(strv_length(o), 6);
        cr_assert(strv_contains(o, "transport") && strv_contains(o, "tls") && strv_contains(o, "dhchap_secret"));
        cr_assert_not(strv_contains(o, "instance") || strv_contains(o, "cntlid"));
        cr_assert_eq(fabrics_supported_options_parse("instance=3,cntlid=1\n", &o), -EINVAL, "a connect's reply");
        cr_assert_eq(fabrics_supported_options_parse("instance=-1,cntlid=-1\n", &o), -EINVAL, "no option");
        cr_assert_eq(fabrics_supported_options_parse("instance=-1,cntlid=-1,Bad Name=%s", &o), -EINVAL);
        cr_assert_eq(fabrics_supported_options_parse("", &o), -EINVAL);
}

Test(fabrics_device, options_unknown_to_the_module_are_left_out) {
        _cleanup_strv_free_ char **supported = strv_new_empty(), **left = NULL;
        char *s = strdup("nqn=n,transport=tcp,traddr=1.2.3.4,dhchap_secret=DHHC-1:00:YWJj:,tls,tls_key=5");

        cr_assert_not_null(s);
        cr_assert_eq(strv_extend(&supported, "nqn"), 0);
        cr_assert_eq(strv_extend(&supported, "transport"), 0);
        cr_assert_eq(strv_extend(&supported, "traddr"), 0);
        cr_assert_eq(fabrics_options_keep_supported(&s, supported, &left), 0);
        cr_assert_str_eq(s, "nqn=n,transport=tcp,traddr=1.2.3.4");
        cr_assert_eq(strv_length(left), 3);
        cr_assert_str_eq(left[0], "dhchap_secret", "named, never its value");
        cr_assert_str_eq(left[1], "tls");
        cr_assert_str_eq(left[2], "tls_key");
        free(s);
}

Test(fabrics_device, dhchap_secret_form) {
        cr_assert(fabrics_secret_format_ok("DHHC-1:00:YWJj:"));
        cr_assert(fabrics_secret_format_ok("DHHC-1:01:3mKEUQYkiK+Kj6TCBBqdKmPDNDZwrF3kM7uH8E0GovUAcL6T:"));
        cr_assert(fabrics_secret_format_ok("DHHC-1:0a:YWI=:"));
        cr_assert(fabrics_secret_format_ok("DHHC-1:00:YQ==:"));
        cr_assert_not(fabrics_secret_format_ok("DHHC-1:00:YWJj"), "no final colon");
        cr_assert_not(fabrics_secret_format_ok("DHHC-1:0:YWJj:"), "one hex digit");
        cr_assert_not(fabrics_secret_format_ok("DHHC-1:0g:YWJj:"), "not hex");
        cr_assert_not(fabrics_secret_format_ok("DHHC-1:00:YWJ:"), "base64 not a multiple of 4");
        cr_assert_not(fabrics_secret_format_ok("DHHC-1:00::"), "empty key");
        cr_assert_not(fabrics_secret_format_ok("DHHC-1:00:Y===:"), "three pads");
        cr_assert_not(fabrics_secret_format_ok("DHHC-1:00:YWJj:x"), "after the colon");
        cr_assert_not(fabrics_secret_format_ok("DHHC-2:00:YWJj:"));
        cr_assert_not(fabrics_secret_format_ok("password"));
        cr_assert_not(fabrics_secret_format_ok(""));
        cr_assert_not(fabrics_secret_format_ok(NULL));
}

Test(fabrics_device, kernel_lines_lose_their_secrets) {
        struct {
                const char *in, *out;
        } cases[] = {
                { "nvme_fabrics: unknown parameter or missing value 'dhchap_secret=DHHC-1:00:YWJj:' in ctrl creation request",
                  "nvme_fabrics: unknown parameter or missing value 'dhchap_secret=<redacted>' in ctrl creation request" },
                { "nvme_fabrics: Invalid DH-CHAP secret hunter2", "nvme_fabrics: Invalid DH-CHAP secret <redacted>" },
                { "x DHHC-1:01:abcd:, y", "x DHHC-1:<redacted>, y" },
                { "nvme nvme3: failed to connect socket: -111", "nvme nvme3: failed to connect socket: -111" },
                { "dhchap_ctrl_secret=abc;dhchap_secret=", "dhchap_ctrl_secret=<redacted>;dhchap_secret=" },
                { "", "" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *r = fabrics_redact_secrets(cases[i].in);

                cr_assert_not_null(r);
                cr_assert_str_eq(r, cases[i].out, "case %zu", i);
                free(r);
        }
}

static FabricsController tls_controller(void) {
        return (FabricsController) {
                .transport = (char *) "tcp", .traddr = (char *) "127.0.0.1", .trsvcid = (char *) "4420",
                .subsysnqn = (char *) "nqn.a", .ctrl_loss_tmo = FABRICS_OPT_UNSET, .reconnect_delay = FABRICS_OPT_UNSET,
                .fast_io_fail_tmo = FABRICS_OPT_UNSET, .kato = FABRICS_OPT_UNSET, .nr_io_queues = FABRICS_OPT_UNSET,
                .queue_size = FABRICS_OPT_UNSET, .nr_write_queues = FABRICS_OPT_UNSET, .nr_poll_queues = FABRICS_OPT_UNSET,
        };
}

Test(fabrics_device, tls_key_passed_by_its_serial_and_unknown_tls_never_dropped) {
        FabricsController c = tls_controller();
        char *s = NULL;

        c.tls = true, c.tls_configured_key = (char *) "0000002a";
        cr_assert_eq(fabrics_connect_options(&c, NULL, NULL, &s, NULL), 0);
        cr_assert_str_eq(s, "nqn=nqn.a,transport=tcp,traddr=127.0.0.1,trsvcid=4420,tls,tls_key=42",
                         "sysfs shows the serial in hex, the option takes a number");
        free(s);
        c.tls_configured_key = (char *) "zz";
        cr_assert_eq(fabrics_connect_options(&c, NULL, NULL, &s, NULL), 0);
        cr_assert_str_eq(s, "nqn=nqn.a,transport=tcp,traddr=127.0.0.1,trsvcid=4420,tls", "a key we cannot read: tls alone");
        free(s);
        c = tls_controller();
        c.tls_unknown = true;
        cr_assert_eq(fabrics_connect_options(&c, NULL, NULL, &s, NULL), 0);
        cr_assert_str_eq(s, "nqn=nqn.a,transport=tcp,traddr=127.0.0.1,trsvcid=4420,tls",
                         "TLS state unknown: asked for, never dropped");
        free(s);
        c = tls_controller();
        cr_assert_eq(fabrics_connect_options(&c, NULL, NULL, &s, NULL), 0);
        cr_assert_null(strstr(s, "tls"), "no TLS: none asked for");
        free(s);
}
