/* SPDX-License-Identifier: Apache-2.0 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "host/host-root.h"
#include "host/kernel-target.h"

bool kernel_target_is_fake(void) {
        /* An LD_PRELOAD library's symbols are in the global scope. dlsym is in
         * libc itself since glibc 2.34 (RHEL 9). */
        return dlsym(RTLD_DEFAULT, KERNEL_TARGET_FAKE_SYMBOL) != NULL;
}

int kernel_target_check(void) {
        if (host_root_is_real() || kernel_target_is_fake())
                return 0;
        return -EPERM;
}
