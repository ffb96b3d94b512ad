/* SPDX-License-Identifier: Apache-2.0 */
/* Fault hooks for the fault-injection matrix: an LD_PRELOAD library loaded
 * in front of the fake kernel (tests/fakeroot/fake-kernel.c), for the faults
 * the fake kernel's script cannot express. A test tool, never linked into
 * the product.
 *
 * FAULT_STALL="<call> <module>" with FAULT_STALL_MARK=<file>: the first
 *   matching module call of the process does not happen; instead the mark
 *   file is created and the process sleeps until it is killed. The test
 *   waits for the mark and sends SIGKILL: the daemon dies in the middle of
 *   an unload, a load or a restore, at a known point. call: delete_module
 *   or load (init_module/finit_module); the module of a load is read from
 *   the image's .modinfo, as the fake kernel does.
 *
 * FAULT_DELAY="<call> <module> <ms>": every matching module call of the
 *   process (call and module as for FAULT_STALL) first sleeps ms
 *   milliseconds, then goes on to the fake kernel as usual: a slow but
 *   finite module init, to drive a load past its deadline
 *   (LoadOptions.timeout_sec) without a stall that only SIGKILL ends.
 *
 * FAULT_UEVENT_FIFO=<fifo>: the daemon's udev monitor polls this FIFO
 *   instead of the kernel's netlink socket (udev_monitor_get_fd), and each
 *   byte 'O' written to it makes the next udev_monitor_receive_device fail
 *   with ENOBUFS, as when the kernel dropped uevents because the receive
 *   buffer was full. A fake root produces no real uevents, and an
 *   unprivileged test cannot make the kernel send enough of them to
 *   overflow a 16 MiB buffer: this is the daemon's view of an overflow. */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake-node.h"
#include "fake-syscall.h"

#define EXPORT __attribute__((visibility("default")))

static bool stalled_once;

static bool stall_matches(const char *call, const char *module) {
        const char *want = getenv("FAULT_STALL");
        char wcall[32], wmod[64];

        if (stalled_once || !want || sscanf(want, "%31s %63s", wcall, wmod) != 2)
                return false;
        if (strcmp(wmod, module) != 0)
                return false;
        return module_call_matches(wcall, call);
}

static void maybe_stall(const char *call, const char *module) {
        const char *mark = getenv("FAULT_STALL_MARK");
        int fd;

        if (!module || !stall_matches(call, module))
                return;
        stalled_once = true;
        if (mark && (fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0) {
                dprintf(fd, "%s %s\n", call, module);
                close(fd);
        }
        for (;;)
                pause(); /* until the test's SIGKILL */
}

/* ms of FAULT_DELAY for this call, 0 when it does not match. */
static long delay_ms(const char *call, const char *module) {
        const char *want = getenv("FAULT_DELAY");
        char wcall[32], wmod[64];
        long ms;

        if (!want || sscanf(want, "%31s %63s %ld", wcall, wmod, &ms) != 3 || ms <= 0)
                return 0;
        if (strcmp(wmod, module) != 0 || !module_call_matches(wcall, call))
                return 0;
        return ms;
}

static void maybe_delay(const char *call, const char *module) {
        long ms = module ? delay_ms(call, module) : 0;
        struct timespec left = { ms / 1000, (ms % 1000) * 1000000L };
        int saved = errno;

        /* the whole delay, also when a handled signal cuts it short */
        while (ms > 0 && nanosleep(&left, &left) < 0 && errno == EINTR)
                ;
        errno = saved;
}

static char *image_module(const void *image, size_t size) {
        const char *mi;
        size_t misz;

        if (fake_elf_modinfo(image, size, &mi, &misz) < 0)
                return NULL;
        return fake_modinfo_get(mi, misz, "name");
}

static void before_load(const char *call, const void *image, size_t size) {
        char *name = image_module(image, size);

        maybe_stall(call, name);
        maybe_delay(call, name);
        free(name);
}

static void before_finit(int fd) {
        ModuleImage image;

        if (module_image_map(fd, &image) < 0)
                return;
        before_load("finit_module", image.data, image.size);
        module_image_unmap(&image);
}

/* The hook runs first; the call itself is the fake kernel's (or libc's). */
static bool before_module_call(const ModuleCall *c, long *ret) {
        switch (c->kind) {
        case MODULE_CALL_DELETE:
                maybe_stall("delete_module", c->name);
                maybe_delay("delete_module", c->name);
                break;
        case MODULE_CALL_INIT:
                before_load("init_module", c->image, c->size);
                break;
        case MODULE_CALL_FINIT:
                before_finit(c->fd);
                break;
        default:
                break;
        }
        return false;
}

FAKE_SYSCALL_INTERPOSER(before_module_call)

EXPORT long delete_module(const char *name, unsigned int flags);
long delete_module(const char *name, unsigned int flags) {
        static long (*next)(const char *, unsigned int);

        maybe_stall("delete_module", name);
        maybe_delay("delete_module", name);
        if (!next)
                next = (long (*)(const char *, unsigned int)) dlsym(RTLD_NEXT, "delete_module");
        return next(name, flags);
}

EXPORT long init_module(void *mem, unsigned long len, const char *args);
long init_module(void *mem, unsigned long len, const char *args) {
        static long (*next)(void *, unsigned long, const char *);

        before_load("init_module", mem, len);
        if (!next)
                next = (long (*)(void *, unsigned long, const char *)) dlsym(RTLD_NEXT, "init_module");
        return next(mem, len, args);
}

EXPORT int finit_module(int fd, const char *args, int flags);
int finit_module(int fd, const char *args, int flags) {
        static int (*next)(int, const char *, int);

        before_finit(fd);
        if (!next)
                next = (int (*)(int, const char *, int)) dlsym(RTLD_NEXT, "finit_module");
        return next(fd, args, flags);
}

/* ---- the udev monitor --------------------------------------------------- */

static int uevent_fifo = -1;

static int fifo_fd(void) {
        const char *path = getenv("FAULT_UEVENT_FIFO");

        /* O_RDWR: never EOF when no writer has it open. */
        if (uevent_fifo < 0 && path && *path)
                uevent_fifo = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
        return uevent_fifo;
}

struct udev_monitor;
struct udev_device;

EXPORT int udev_monitor_get_fd(struct udev_monitor *m);
int udev_monitor_get_fd(struct udev_monitor *m) {
        static int (*next)(struct udev_monitor *);
        int fd = fifo_fd();

        if (fd >= 0)
                return fd;
        if (!next)
                next = (int (*)(struct udev_monitor *)) dlsym(RTLD_NEXT, "udev_monitor_get_fd");
        return next(m);
}

EXPORT struct udev_device *udev_monitor_receive_device(struct udev_monitor *m);
struct udev_device *udev_monitor_receive_device(struct udev_monitor *m) {
        static struct udev_device *(*next)(struct udev_monitor *);
        int fd = fifo_fd();
        char c;

        if (fd >= 0) {
                ssize_t n = read(fd, &c, 1);

                errno = n == 1 && c == 'O' ? ENOBUFS : EAGAIN;
                return NULL;
        }
        if (!next)
                next = (struct udev_device * (*) (struct udev_monitor *)) dlsym(RTLD_NEXT,
                                                                                "udev_monitor_receive_device");
        return next(m);
}

/* ---- inotify ---------------------------------------------------
 *
 * FAULT_INOTIFY_OVERFLOW=<file>: while <file> exists, the next read(2) of an
 *   inotify fd returns one IN_Q_OVERFLOW event in place of the events it
 *   read, and <file> is removed: the kernel's answer to a full queue
 *   (events lost, one overflow event; inotify(7)), without a tiny
 *   fs.inotify.max_queued_events that would hit every process of the
 *   machine.
 *
 * FAULT_INOTIFY_ADD="<substring> <ENOENT|ENOSPC> <file>": while <file>
 *   exists, the next inotify_add_watch(2) of a path holding <substring>
 *   made by a process fails with that errno, once: the process then lets
 *   its calls through until it sees <file> gone (which arms it again).
 *   Each injected failure opens <file> for reading (O_NONBLOCK) and closes
 *   it: made a FIFO, <file> tells the test the fault fired (a writer
 *   blocked in its open returns; the test then removes <file>). ENOENT: the
 *   directory went between the daemon's look and its watch; ENOSPC:
 *   fs.inotify.max_user_watches reached on a busy node. sd-event's watches
 *   name an O_PATH fd (/proc/self/fd/<n>): its target is matched.
 *   The failure happens in whichever process adds the watch, the daemon's
 *   privileged reader included (the store's watches are its), as the
 *   kernel's would. The reader's seccomp filter kills any call it does not
 *   expect and its RLIMIT_FSIZE is 0 (sandbox/privileged-reader.h), and
 *   this library is inherited across its fork: so the hook makes only
 *   calls the reader may make (a stat of <file>, readlink, a read-only
 *   open and close), never access(), unlink() nor a write (to a log file
 *   on fd 2 it is SIGXFSZ), and the one-shot is the process's own memory,
 *   not <file>'s removal. */

#include <sys/inotify.h>
#include <sys/stat.h>

static bool take_trigger(const char *file) {
        return file && *file && unlink(file) == 0;
}

static bool is_inotify_fd(int fd) {
        char link[64], target[64];
        ssize_t l;

        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        l = readlink(link, target, sizeof(target) - 1);
        if (l < 0)
                return false;
        target[l] = '\0';
        return strcmp(target, "anon_inode:inotify") == 0;
}

EXPORT ssize_t read(int fd, void *buf, size_t n);
ssize_t read(int fd, void *buf, size_t n) {
        static ssize_t (*next)(int, void *, size_t);
        const char *trigger = getenv("FAULT_INOTIFY_OVERFLOW");
        struct inotify_event *ev = buf;
        ssize_t r;

        if (!next)
                next = (ssize_t (*)(int, void *, size_t)) dlsym(RTLD_NEXT, "read");
        r = next(fd, buf, n);
        /* The fd's kind first (a readlink): the privileged reader reads no
         * inotify fd, and its filter would kill the access() and unlink(). */
        if (r <= 0 || !trigger || n < sizeof(*ev) || !is_inotify_fd(fd) || access(trigger, F_OK) < 0 ||
            !take_trigger(trigger))
                return r;
        memset(ev, 0, sizeof(*ev));
        ev->wd = -1;
        ev->mask = IN_Q_OVERFLOW;
        return (ssize_t) sizeof(*ev);
}

/* Whether the trigger of FAULT_INOTIFY_ADD fired in this process since
 * it was last seen absent. */
static bool inotify_add_fired;

/* The fault fired: a writer blocked in open() of a FIFO at file returns.
 * O_NONBLOCK: a read-only open of a FIFO then needs no writer. */
static void tell_fired(const char *file) {
        int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

        if (fd >= 0)
                close(fd);
}

EXPORT int inotify_add_watch(int fd, const char *path, uint32_t mask);
int inotify_add_watch(int fd, const char *path, uint32_t mask) {
        static int (*next)(int, const char *, uint32_t);
        const char *spec = getenv("FAULT_INOTIFY_ADD");
        char sub[256], err[16], trigger[512], target[4096];
        const char *p = path;
        struct stat st;
        ssize_t l;

        if (!next)
                next = (int (*)(int, const char *, uint32_t)) dlsym(RTLD_NEXT, "inotify_add_watch");
        if (!spec || sscanf(spec, "%255s %15s %511s", sub, err, trigger) != 3)
                return next(fd, path, mask);
        /* stat(), not access(): the reader's filter allows the stat family. */
        if (stat(trigger, &st) < 0) {
                inotify_add_fired = false;
                return next(fd, path, mask);
        }
        if (inotify_add_fired)
                return next(fd, path, mask);
        if (strncmp(path, "/proc/self/fd/", 14) == 0 && (l = readlink(path, target, sizeof(target) - 1)) >= 0) {
                target[l] = '\0';
                p = target;
        }
        if (!strstr(p, sub))
                return next(fd, path, mask);
        inotify_add_fired = true;
        tell_fired(trigger);
        errno = strcmp(err, "ENOSPC") == 0 ? ENOSPC : ENOENT;
        return -1;
}
