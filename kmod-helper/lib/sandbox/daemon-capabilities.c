/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's capabilities after its privileged reader is forked (the
 * design: daemon-capabilities.h). */
#include <errno.h>
#include <linux/capability.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/daemon-capabilities.h"

static int caps_get(struct __user_cap_header_struct *h, struct __user_cap_data_struct d[static 2]) {
        *h = (struct __user_cap_header_struct) { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        return syscall(SYS_capget, h, d) < 0 ? -errno : 0;
}

int daemon_capabilities_drop_file_reading(void) {
        struct __user_cap_header_struct h;
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
        const uint32_t drop = 1U << CAP_DAC_READ_SEARCH; /* below 32 */
        int r;

        if ((r = caps_get(&h, d)) < 0)
                return r;
        /* Ambient first: it must stay a subset of permitted and
         * inheritable, and nothing is executed that would use it. */
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        d[0].permitted &= ~drop;
        d[0].effective &= ~drop;
        d[0].inheritable &= ~drop;
        if (syscall(SYS_capset, &h, d) < 0)
                return -errno;
        return 0;
}
