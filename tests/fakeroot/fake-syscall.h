/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the LD_PRELOAD shims (fake-kernel.c, tests/faults/fault-hooks.c)
 * share to stand in for the module system calls. libkmod makes them through
 * syscall(2) (finit_module, delete_module: glibc has no wrapper for them),
 * so each shim also defines syscall(): it unpacks the variadic arguments,
 * handles the module calls and passes every other number on unchanged.
 *
 * Everything here is hidden: each shim links its own copy, and the next
 * syscall() must be looked up from the shim that asks (RTLD_NEXT is
 * relative to the calling object; one shared copy would call itself). */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define FAKE_SYSCALL_INTERNAL __attribute__((visibility("hidden")))

typedef enum ModuleCallKind {
        MODULE_CALL_DELETE, /* delete_module(name, flags) */
        MODULE_CALL_INIT,   /* init_module(image, size, args) */
        MODULE_CALL_FINIT,  /* finit_module(fd, args, flags) */
        _MODULE_CALL_KIND_MAX,
        _MODULE_CALL_KIND_INVALID = -1,
} ModuleCallKind;

/* One module call with its arguments; only those of its kind are set. */
typedef struct ModuleCall {
        ModuleCallKind kind;
        const char *name;
        const void *image;
        size_t size;
        int fd;
        const char *args;
        unsigned flags;
} ModuleCall;

/* syscall()'s number and its six argument words, as the caller passed them
 * (the kernel's syscall ABI: unused words are ignored). */
typedef struct SyscallArgs {
        long number;
        long a[6];
} SyscallArgs;

/* Fills *ret from the arguments after number; ap is started by the caller
 * (va_start only works in the variadic function itself). */
FAKE_SYSCALL_INTERNAL void syscall_args_unpack(SyscallArgs *ret, long number, va_list ap);

/* What a shim does with a module call: true and *ret when it answers the
 * call itself, false to pass it on to the next syscall(). */
typedef bool (*ModuleCallHandler)(const ModuleCall *c, long *ret);

/* Module calls to handler; every other number, and the module calls it
 * passes on, to the next syscall() (libc's, or another shim's). */
FAKE_SYSCALL_INTERNAL long syscall_dispatch(const SyscallArgs *s, ModuleCallHandler handler);

/* Defines the shim's exported syscall() around syscall_dispatch(). */
#define FAKE_SYSCALL_INTERPOSER(handler)                                       \
        __attribute__((visibility("default"))) long syscall(long number, ...); \
        long syscall(long number, ...) {                                       \
                SyscallArgs s_;                                                \
                va_list ap_;                                                   \
                                                                               \
                va_start(ap_, number);                                         \
                syscall_args_unpack(&s_, number, ap_);                         \
                va_end(ap_);                                                   \
                return syscall_dispatch(&s_, handler);                         \
        }

/* Whether a scripted call name selects call ("delete_module",
 * "init_module", "finit_module"): its own name, or "load" for either load. */
FAKE_SYSCALL_INTERNAL bool module_call_matches(const char *pattern, const char *call);

/* A module file mapped read-only, as the kernel reads it for finit_module. */
typedef struct ModuleImage {
        void *data;
        size_t size;
} ModuleImage;

/* 0, or -errno of fstat, or -ENOEXEC (empty, or cannot be mapped). */
FAKE_SYSCALL_INTERNAL int module_image_map(int fd, ModuleImage *ret);
FAKE_SYSCALL_INTERNAL void module_image_unmap(ModuleImage *image);
