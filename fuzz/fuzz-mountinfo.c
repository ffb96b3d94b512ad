/* SPDX-License-Identifier: Apache-2.0 */
/* The host's mount table: libmount parses the bytes (from a temporary file,
 * as it reads /proc/1/mountinfo), then mount_users_match() finds the NVMe
 * devices of a small node by devno and by source path. */
#include <libmount.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-node.h"
#include "fuzz-util.h"
#include "usage/mount-users.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct libmnt_table *tb;
        char path[64];
        UsageScan s;
        int fd;

        fd = memfd_create("mountinfo", MFD_CLOEXEC);
        if (fd < 0)
                return 0;
        if (write(fd, data, size) != (ssize_t) size) {
                close(fd);
                return 0;
        }
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        tb = mnt_new_table();
        if (tb && mnt_table_parse_file(tb, path) == 0 && fuzz_scan_init(&s) >= 0) {
                (void) mount_users_match(&s, tb);
                usage_scan_done(&s);
        }
        mnt_unref_table(tb);
        close(fd);
        return 0;
}
