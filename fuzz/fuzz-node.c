/* SPDX-License-Identifier: Apache-2.0 */
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fuzz-node.h"
#include "host/host-root.h"

static NvmeBlockDevice devices[] = {
        { .name = (char *) "nvme0n1", .namespace_name = (char *) "nvme0n1", .nsid = 1, .serial = (char *) "S0" },
        { .name = (char *) "nvme0n1p1", .namespace_name = (char *) "nvme0n1", .is_partition = true, .nsid = 1,
          .serial = (char *) "S0" },
        { .name = (char *) "nvme1n1", .namespace_name = (char *) "nvme1n1", .multipath_head = true, .nsid = 7,
          .serial = (char *) "SA" },
};
static char *no_notes[] = { NULL };
static const NvmeBlockDevices node = { .devices = devices, .n_devices = 3, .notes = no_notes };

int fuzz_scan_init(UsageScan *s) {
        static int rooted;
        int r;

        if (!rooted) {
                char dir[] = "/tmp/swapguard-fuzz-root-XXXXXX";

                if (!mkdtemp(dir) || host_root_set(dir) < 0)
                        return -1;
                rmdir(dir); /* an absent root: every /dev lookup misses */
                for (size_t i = 0; i < 3; i++)
                        devices[i].devno = makedev(259, i);
                rooted = 1;
        }
        r = usage_scan_init(s, &node);
        if (r >= 0)
                r = usage_scan_build_index(s);
        if (r < 0)
                usage_scan_done(s);
        return r;
}
