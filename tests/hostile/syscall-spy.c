/* SPDX-License-Identifier: Apache-2.0 */
/* A spy for the hostile suite's --root case: an LD_PRELOAD library that
 * stands where the real kernel would be, without being the fake kernel (it
 * does not define nvme_swapguard_fake_kernel). Every module system call that
 * reaches it is logged to $SPY_LOG and fails with ENOSYS, so a test can
 * assert that none was sent and nothing reaches the real kernel either. A
 * test tool, never linked into the product. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>

#define EXPORT __attribute__((visibility("default")))

static long spied(const char *call) {
        const char *path = getenv("SPY_LOG");
        FILE *f = path ? fopen(path, "ae") : NULL;

        if (f) {
                fprintf(f, "%s\n", call);
                fclose(f);
        }
        errno = ENOSYS;
        return -1;
}

EXPORT long delete_module(const char *name, unsigned int flags);
long delete_module(const char *name, unsigned int flags) {
        return spied("delete_module");
}

EXPORT long init_module(void *mem, unsigned long len, const char *args);
long init_module(void *mem, unsigned long len, const char *args) {
        return spied("init_module");
}

EXPORT int finit_module(int fd, const char *args, int flags);
int finit_module(int fd, const char *args, int flags) {
        return (int) spied("finit_module");
}

EXPORT long syscall(long number, ...);
long syscall(long number, ...) {
        static long (*real)(long, ...);
        long a[6];
        va_list ap;

        if (number == __NR_delete_module)
                return spied("delete_module");
        if (number == __NR_finit_module)
                return spied("finit_module");
        if (number == __NR_init_module)
                return spied("init_module");
        va_start(ap, number);
        for (int i = 0; i < 6; i++)
                a[i] = va_arg(ap, long);
        va_end(ap);
        if (!real)
                real = (long (*)(long, ...)) dlsym(RTLD_NEXT, "syscall");
        return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
