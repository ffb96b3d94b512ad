/* SPDX-License-Identifier: Apache-2.0 */
/* The syscall() interposer the shims share (see fake-syscall.h). */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "fake-syscall.h"

void syscall_args_unpack(SyscallArgs *ret, long number, va_list ap) {
        ret->number = number;
        for (size_t i = 0; i < sizeof(ret->a) / sizeof(ret->a[0]); i++)
                ret->a[i] = va_arg(ap, long);
}

static long syscall_args_forward(const SyscallArgs *s) {
        static long (*next)(long, ...);

        if (!next)
                next = (long (*)(long, ...)) dlsym(RTLD_NEXT, "syscall");
        return next(s->number, s->a[0], s->a[1], s->a[2], s->a[3], s->a[4], s->a[5]);
}

static bool module_call_from_syscall(const SyscallArgs *s, ModuleCall *ret) {
        switch (s->number) {
        case __NR_delete_module:
                *ret = (ModuleCall) { .kind = MODULE_CALL_DELETE, .name = (const char *) s->a[0],
                                      .flags = (unsigned) s->a[1] };
                return true;
        case __NR_init_module:
                *ret = (ModuleCall) { .kind = MODULE_CALL_INIT, .image = (const void *) s->a[0],
                                      .size = (size_t) s->a[1], .args = (const char *) s->a[2] };
                return true;
        case __NR_finit_module:
                *ret = (ModuleCall) { .kind = MODULE_CALL_FINIT, .fd = (int) s->a[0],
                                      .args = (const char *) s->a[1], .flags = (unsigned) s->a[2] };
                return true;
        default:
                return false;
        }
}

long syscall_dispatch(const SyscallArgs *s, ModuleCallHandler handler) {
        ModuleCall c;
        long r;

        if (module_call_from_syscall(s, &c) && handler(&c, &r))
                return r;
        return syscall_args_forward(s);
}

bool module_call_matches(const char *pattern, const char *call) {
        return strcmp(pattern, call) == 0 || (strcmp(pattern, "load") == 0 && strstr(call, "init_module"));
}

int module_image_map(int fd, ModuleImage *ret) {
        struct stat st;
        void *data;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (st.st_size <= 0)
                return -ENOEXEC;
        data = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (data == MAP_FAILED)
                return -ENOEXEC;
        *ret = (ModuleImage) { .data = data, .size = (size_t) st.st_size };
        return 0;
}

void module_image_unmap(ModuleImage *image) {
        if (image->data)
                munmap(image->data, image->size);
        *image = (ModuleImage) {};
}
