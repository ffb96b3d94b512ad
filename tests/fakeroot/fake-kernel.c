/* SPDX-License-Identifier: Apache-2.0 */
/* The fake kernel: an LD_PRELOAD library, in the manner of kmod's
 * testsuite, that stands in for the module system calls and the exclusive
 * open of block devices, against the fake node under FAKE_KERNEL_ROOT (or
 * NVME_SWAPGUARD_ROOT). It is a test tool: never linked into the product.
 *
 * delete_module(name, flags): refused with EWOULDBLOCK while the module has
 *   holders or a refcnt above 0 (as the real kernel), ENOENT when not
 *   loaded; otherwise the module leaves proc/modules and sys/module, and its
 *   dependencies lose it as holder and one reference.
 * init_module / finit_module: the module's name, depends and vermagic come
 *   from the .ko's .modinfo; EEXIST when loaded, ENOEXEC when vermagic does
 *   not match proc/sys/kernel/osrelease, ENOENT when a dependency is not
 *   loaded; otherwise it appears with refcnt 0 and each dependency gains a
 *   holder and a reference. modinfo `fake_taint=OE` sets its taint;
 *   `fake_exports=a,b` adds kallsyms lines for it.
 * open/open64/openat(O_EXCL without O_CREAT) of <root>/dev/X: EBUSY when
 *   the fake node says X is claimed (fake_node_device_claimed: dev/.busy/X,
 *   a mount by devno or source in proc/1/mountinfo, a swap, a holder, or a
 *   claimed partition of X), as the kernel answers for mounted, swapped or
 *   stacked devices. Non-exclusive opens are not touched.
 *
 * open of <root>/dev/nvmeN (a controller): while it is open, delete_module
 *   of the controller's transport and of nvme_core fails with EWOULDBLOCK
 *   (fake-kernel-pins.h), as on Linux 6.1.
 *
 * delete_module of a fabrics transport (nvme_tcp, nvme_rdma, ...) deletes
 *   every controller of that transport with its namespaces, as the
 *   transport's module exit does; nvme_fabrics brings and takes dev/nvme-fabrics.
 * <root>/dev/nvme-fabrics answers a connect (fake-kernel-fabrics.h): the
 *   controller and its namespaces come back from the fake node's targets.
 *
 * FAKE_KERNEL_SCRIPT=file scripts results, one rule per line, consumed in
 * order per (call, module), counts kept per process:
 *   <call> <module> <result> [xN|always] [then-mount DEV MOUNTPOINT [FSTYPE]]
 * call: delete_module, init_module, finit_module, or load (either of the
 * two); result: ok (behave as above) or an errno name (EAGAIN, EBUSY, EPERM,
 * ENOENT, EKEYREJECTED, ENOEXEC, ...: fail without changing anything).
 * "open-excl DEV ERRNO" scripts the exclusive open of /dev/DEV (EACCES,
 * EIO, ...). "readlink-exe PID ERRNO" scripts readlink(2) of
 * <root>/proc/PID/exe: EACCES is what proc_exe_link() answers when the
 * ptrace read check fails (a non-dumpable process the caller may not
 * trace, as an OCI runtime's init). then-mount runs after the call, also after a scripted
 * failure (a mount during the caller's back-off): a mount of DEV appears in
 * proc/1/mountinfo and nvme_core (and nvme, when loaded) gain a reference,
 * as when something starts using a namespace.
 *
 * FAKE_KERNEL_LOG=file gets one line per module call:
 *   "<call> <module> flags=0x<hex> -> <0|ERRNAME>[ scripted]"
 * and, with FAKE_KERNEL_LOG_OPENS=1, "open-excl <dev> -> <0|EBUSY>". */

/* open and open64 are both defined here: no redirection of one to the other. */
#undef _FILE_OFFSET_BITS

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-kernel-fabrics.h"
#include "fake-kernel-pins.h"
#include "fake-node.h"
#include "fake-syscall.h"

#define EXPORT __attribute__((visibility("default")))

/* Declares this library to the product (kmod-helper/lib/host/kernel-target.h):
 * under a fake root, module calls are sent only when this symbol exists. */
EXPORT const int nvme_swapguard_fake_kernel = 1;

static Rule *rules;
static size_t n_rules;
static int script_loaded;

static const struct {
        const char *name;
        int value;
} errno_names[] = {
        { "EAGAIN", EAGAIN }, { "EWOULDBLOCK", EWOULDBLOCK }, { "EBUSY", EBUSY }, { "EPERM", EPERM },
        { "ENOENT", ENOENT }, { "EKEYREJECTED", EKEYREJECTED }, { "ENOEXEC", ENOEXEC }, { "EEXIST", EEXIST },
        { "EINVAL", EINVAL }, { "ENOMEM", ENOMEM }, { "EIO", EIO }, { "EFAULT", EFAULT },
        { "ENOKEY", ENOKEY }, { "EKEYEXPIRED", EKEYEXPIRED }, { "ETXTBSY", ETXTBSY }, { "EINTR", EINTR },
        { "EACCES", EACCES }, { "ECONNREFUSED", ECONNREFUSED }, { "EALREADY", EALREADY },
        { "ETIMEDOUT", ETIMEDOUT }, { "EHOSTUNREACH", EHOSTUNREACH },
};

const char *errno_name(int e) {
        static char buf[16];

        for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
                if (errno_names[i].value == e)
                        return errno_names[i].name;
        snprintf(buf, sizeof(buf), "E%d", e);
        return buf;
}

static int errno_from_name(const char *s) {
        for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
                if (strcmp(errno_names[i].name, s) == 0)
                        return errno_names[i].value;
        return -1;
}

const char *fake_root(void) {
        const char *r = getenv("FAKE_KERNEL_ROOT");

        if (!r || !*r)
                r = getenv("NVME_SWAPGUARD_ROOT");
        return r && *r ? r : NULL;
}

void klog(const char *fmt, ...) {
        const char *path = getenv("FAKE_KERNEL_LOG");
        va_list ap;
        FILE *f;

        if (!path || !*path)
                return;
        f = fopen(path, "ae");
        if (!f)
                return;
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        fputc('\n', f);
        fclose(f);
}

static void load_script(void) {
        const char *path = getenv("FAKE_KERNEL_SCRIPT");
        char line[1024];
        FILE *f;

        if (script_loaded)
                return;
        script_loaded = 1;
        if (!path || !*path || !(f = fopen(path, "re")))
                return;
        while (fgets(line, sizeof(line), f)) {
                char *tok[10] = {}, *save = NULL;
                int k = 0;
                Rule r = { .remaining = 1 };
                Rule *nr;

                for (char *t = strtok_r(line, " \t\n", &save); t && k < 10; t = strtok_r(NULL, " \t\n", &save))
                        tok[k++] = t;
                if (k < 3 || tok[0][0] == '#')
                        continue;
                snprintf(r.call, sizeof(r.call), "%s", tok[0]);
                snprintf(r.module, sizeof(r.module), "%s", tok[1]);
                if (strcmp(tok[2], "ok") != 0) {
                        r.error = errno_from_name(tok[2]);
                        if (r.error < 0) {
                                fprintf(stderr, "fake-kernel: unknown result '%s' in %s\n", tok[2], path);
                                continue;
                        }
                }
                for (int i = 3; i < k; i++) {
                        if (strcmp(tok[i], "always") == 0)
                                r.remaining = -1;
                        else if (tok[i][0] == 'x' && tok[i][1])
                                r.remaining = atoi(tok[i] + 1);
                        else if (strcmp(tok[i], "then-mount") == 0 && i + 2 < k) {
                                snprintf(r.mount_dev, sizeof(r.mount_dev), "%s", tok[i + 1]);
                                snprintf(r.mount_point, sizeof(r.mount_point), "%s", tok[i + 2]);
                                snprintf(r.mount_fstype, sizeof(r.mount_fstype), "%s",
                                         i + 3 < k ? tok[i + 3] : "xfs");
                                break;
                        }
                }
                nr = realloc(rules, (n_rules + 1) * sizeof(Rule));
                if (!nr)
                        break;
                rules = nr;
                rules[n_rules++] = r;
        }
        fclose(f);
}

Rule *take_rule(const char *call, const char *module) {
        load_script();
        for (size_t i = 0; i < n_rules; i++) {
                Rule *r = &rules[i];
                if (!module_call_matches(r->call, call) || strcmp(r->module, module) != 0 || r->remaining == 0)
                        continue;
                if (r->remaining > 0)
                        r->remaining--;
                return r;
        }
        return NULL;
}

FakeNode *node(void) {
        const char *root = fake_root();
        FakeNode *n = NULL;

        if (!root || fake_node_new(root, &n) < 0)
                return NULL;
        return n;
}

static void run_then(FakeNode *n, const Rule *r) {
        int refcnt;

        if (!r || !r->mount_dev[0])
                return;
        if (fake_node_add_mount(n, r->mount_dev, r->mount_point, r->mount_fstype) < 0)
                return;
        klog("then-mount %s %s", r->mount_dev, r->mount_point);
        for (const char *const *m = (const char *const[]) { "nvme_core", "nvme", NULL }; *m; m++)
                if (fake_node_module_loaded(n, *m) > 0 && fake_node_module_refcnt(n, *m, &refcnt) >= 0)
                        fake_node_module_set_refcnt(n, *m, refcnt + 1);
}

static long fail_with(int e) {
        errno = e;
        return -1;
}

static long do_delete_module(const char *name, unsigned flags) {
        FakeNode *n = node();
        Rule *rule = take_rule("delete_module", name);
        char **holders = NULL;
        int refcnt = 0, e = 0;

        if (!n)
                return fail_with(ENOSYS);
        if (rule && rule->error)
                e = rule->error;
        else if (fake_node_module_loaded(n, name) <= 0)
                e = ENOENT;
        else if (fake_node_module_holders(n, name, &holders) < 0 || fake_node_module_refcnt(n, name, &refcnt) < 0)
                e = EIO;
        else if ((holders && holders[0]) || refcnt > 0 || fake_pins_hold(fake_root(), name))
                e = EWOULDBLOCK;
        else if (fake_node_module_removed(n, name) < 0 || fake_node_fabrics_module_removed(n, name) < 0)
                e = EIO; /* a transport's exit deletes its controllers */
        fake_strv_free(holders);

        klog("delete_module %s flags=0x%x -> %s%s", name, flags, e ? errno_name(e) : "0",
             rule && rule->error ? " scripted" : "");
        if (!e || (rule && rule->error)) /* a scripted failure's then-mount: a mount during the back-off */
                run_then(n, rule);
        fake_node_free(n);
        return e ? fail_with(e) : 0;
}

static char **split_depends(const char *s) {
        char **l = calloc(s ? strlen(s) + 2 : 2, sizeof(char *));
        char *copy, *save = NULL;
        size_t k = 0;

        if (!l || !s || !(copy = strdup(s)))
                return l;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                for (char *c = t; *c; c++)
                        if (*c == '-')
                                *c = '_';
                l[k++] = strdup(t);
        }
        free(copy);
        return l;
}

/* A module built into the kernel (the host tree's modules.builtin, as
 * depmod writes it from the kernel build: kernel/block/t10-pi.ko): its
 * symbols are in vmlinux, so a dependency on it is met. */
static bool builtin(FakeNode *n, const char *name) {
        char path[512], line[512], *release = NULL;
        bool found = false;
        FILE *f;

        if (fake_node_get_osrelease(n, &release) < 0)
                return false;
        snprintf(path, sizeof(path), "%s/lib/modules/%s/modules.builtin", fake_node_root(n), release);
        free(release);
        f = fopen(path, "re");
        while (f && !found && fgets(line, sizeof(line), f)) {
                char *base = strrchr(line, '/'), *dot;

                base = base ? base + 1 : line;
                dot = strstr(base, ".ko");
                if (!dot)
                        continue;
                *dot = '\0';
                for (char *c = base; *c; c++)
                        if (*c == '-')
                                *c = '_';
                found = strcmp(base, name) == 0;
        }
        if (f)
                fclose(f);
        return found;
}

static int check_and_insert(FakeNode *n, const char *name, const char *mi, size_t misz) {
        char *vermagic = fake_modinfo_get(mi, misz, "vermagic");
        char *depends = fake_modinfo_get(mi, misz, "depends");
        char *taint = fake_modinfo_get(mi, misz, "fake_taint");
        char *exports = fake_modinfo_get(mi, misz, "fake_exports");
        char *release = NULL, **deps = NULL;
        int e = 0;

        if (fake_node_module_loaded(n, name) > 0)
                e = EEXIST;
        else if (fake_node_get_osrelease(n, &release) < 0 || !vermagic ||
                 strncmp(vermagic, release, strlen(release)) != 0 || vermagic[strlen(release)] != ' ')
                e = ENOEXEC;
        if (!e) {
                deps = split_depends(depends);
                for (size_t i = 0; deps && deps[i] && !e; i++)
                        if (fake_node_module_loaded(n, deps[i]) <= 0 && !builtin(n, deps[i]))
                                e = ENOENT; /* "Unknown symbol" */
        }
        if (!e && fake_node_module_inserted(n, name, (const char *const *) deps, taint ? taint : "") < 0)
                e = EIO;
        if (!e && exports) {
                char **syms = split_depends(exports);

                for (size_t i = 0; syms && syms[i]; i++)
                        fake_node_add_kallsyms(n, syms[i], name);
                fake_strv_free(syms);
        }
        free(vermagic);
        free(depends);
        free(taint);
        free(exports);
        free(release);
        fake_strv_free(deps);
        return e;
}

static long do_load(const char *call, const void *image, size_t size, unsigned flags) {
        FakeNode *n = node();
        const char *mi = NULL;
        size_t misz = 0;
        char *name = NULL;
        Rule *rule = NULL;
        int e = 0;

        if (!n)
                return fail_with(ENOSYS);
        if (fake_elf_modinfo(image, size, &mi, &misz) < 0 || !(name = fake_modinfo_get(mi, misz, "name")))
                e = ENOEXEC;
        else {
                rule = take_rule(call, name);
                e = rule && rule->error ? rule->error : check_and_insert(n, name, mi, misz);
        }
        klog("%s %s flags=0x%x -> %s%s", call, name ? name : "?", flags, e ? errno_name(e) : "0",
             rule && rule->error ? " scripted" : "");
        if (!e || (rule && rule->error))
                run_then(n, rule);
        free(name);
        fake_node_free(n);
        return e ? fail_with(e) : 0;
}

static long do_finit_module(int fd, const char *args, unsigned flags) {
        ModuleImage image;
        long r;

        r = module_image_map(fd, &image);
        if (r < 0)
                return fail_with((int) -r);
        r = do_load("finit_module", image.data, image.size, flags);
        module_image_unmap(&image);
        return r;
}

/* All of them are the fake kernel's to answer. */
static bool answer_module_call(const ModuleCall *c, long *ret) {
        switch (c->kind) {
        case MODULE_CALL_DELETE:
                *ret = do_delete_module(c->name, c->flags);
                return true;
        case MODULE_CALL_INIT:
                *ret = do_load("init_module", c->image, c->size, 0);
                return true;
        case MODULE_CALL_FINIT:
                *ret = do_finit_module(c->fd, c->args, c->flags);
                return true;
        default:
                return false;
        }
}

EXPORT long delete_module(const char *name, unsigned int flags);
long delete_module(const char *name, unsigned int flags) {
        return do_delete_module(name, flags);
}

EXPORT long init_module(void *mem, unsigned long len, const char *args);
long init_module(void *mem, unsigned long len, const char *args) {
        return do_load("init_module", mem, len, 0);
}

EXPORT int finit_module(int fd, const char *args, int flags);
int finit_module(int fd, const char *args, int flags) {
        return (int) do_finit_module(fd, args, (unsigned) flags);
}

FAKE_SYSCALL_INTERPOSER(answer_module_call)

/* ---- exclusive opens ---------------------------------------------------- */

/* The errno an exclusive open of <root>/dev/X gets: a scripted
 * "open-excl X <ERRNO>" rule (EACCES, EIO: the probe errors the guard must
 * treat as blockers), EBUSY when the node says X is claimed, else 0. */
static int excl_busy(const char *path, int flags) {
        const char *root = fake_root();
        size_t rl;
        FakeNode *n;
        Rule *rule;
        int busy;

        if (!(flags & O_EXCL) || (flags & O_CREAT) || !root || !path)
                return 0;
        rl = strlen(root);
        if (strncmp(path, root, rl) != 0 || strncmp(path + rl, "/dev/", 5) != 0)
                return 0;
        rule = take_rule("open-excl", path + rl + 5);
        if (rule && rule->error) {
                klog("open-excl %s -> %s scripted", path + rl + 5, errno_name(rule->error));
                return rule->error;
        }
        n = node();
        if (!n)
                return 0;
        busy = fake_node_device_claimed(n, path + rl + 5) > 0;
        fake_node_free(n);
        if (getenv("FAKE_KERNEL_LOG_OPENS"))
                klog("open-excl %s -> %s", path + rl + 5, busy ? "EBUSY" : "0");
        return busy ? EBUSY : 0;
}

/* An open /dev/nvmeN pins its transport and nvme_core (fake-kernel-pins.h). */
static int pin_if_controller(const char *path, int fd) {
        const char *root = fake_root();

        if (fd >= 0 && root && path) {
                fake_pins_opened(root, path, fd);
                fake_fabrics_opened(root, path, fd);
        }
        return fd;
}

#define OPEN_MODE(flags, mode)                                  \
        do {                                                    \
                if ((flags) & (O_CREAT | O_TMPFILE)) {           \
                        va_list ap_;                            \
                        va_start(ap_, flags);                   \
                        mode = va_arg(ap_, int);                \
                        va_end(ap_);                            \
                }                                               \
        } while (0)

#define DEFINE_OPEN(fn)                                                         \
        EXPORT int fn(const char *path, int flags, ...);                        \
        int fn(const char *path, int flags, ...) {                              \
                static int (*real)(const char *, int, ...);                     \
                int mode = 0;                                                   \
                OPEN_MODE(flags, mode);                                         \
                int e_ = excl_busy(path, flags);                                \
                if (e_)                                                         \
                        return (int) fail_with(e_);                             \
                if (!real)                                                      \
                        real = (int (*)(const char *, int, ...)) dlsym(RTLD_NEXT, #fn); \
                return pin_if_controller(path, real(path, flags, mode));        \
        }

DEFINE_OPEN(open)
DEFINE_OPEN(open64)

#define DEFINE_OPENAT(fn)                                                       \
        EXPORT int fn(int dirfd, const char *path, int flags, ...);             \
        int fn(int dirfd, const char *path, int flags, ...) {                   \
                static int (*real)(int, const char *, int, ...);                \
                int mode = 0;                                                   \
                OPEN_MODE(flags, mode);                                         \
                int e_ = path[0] == '/' ? excl_busy(path, flags) : 0;           \
                if (e_)                                                         \
                        return (int) fail_with(e_);                             \
                if (!real)                                                      \
                        real = (int (*)(int, const char *, int, ...)) dlsym(RTLD_NEXT, #fn); \
                return path[0] == '/' ? pin_if_controller(path, real(dirfd, path, flags, mode)) \
                                      : real(dirfd, path, flags, mode);        \
        }

DEFINE_OPENAT(openat)
DEFINE_OPENAT(openat64)

/* readlink of <root>/proc/<pid>/exe: the scripted error, or 0. */
static int exe_link_error(const char *path) {
        const char *root = fake_root(), *p;
        char pid[16];
        size_t rl, n;
        Rule *rule;

        if (!root || !path)
                return 0;
        rl = strlen(root);
        if (strncmp(path, root, rl) != 0 || strncmp(path + rl, "/proc/", 6) != 0)
                return 0;
        p = path + rl + 6;
        n = strspn(p, "0123456789");
        if (n == 0 || n >= sizeof(pid) || strcmp(p + n, "/exe") != 0)
                return 0;
        memcpy(pid, p, n);
        pid[n] = '\0';
        rule = take_rule("readlink-exe", pid);
        return rule ? rule->error : 0;
}

EXPORT ssize_t readlink(const char *path, char *buf, size_t size);
ssize_t readlink(const char *path, char *buf, size_t size) {
        static ssize_t (*real)(const char *, char *, size_t);
        int e = exe_link_error(path);

        if (e)
                return fail_with(e);
        if (!real)
                real = (ssize_t (*)(const char *, char *, size_t)) dlsym(RTLD_NEXT, "readlink");
        return real(path, buf, size);
}

EXPORT ssize_t __readlink_chk(const char *path, char *buf, size_t size, size_t buflen);
ssize_t __readlink_chk(const char *path, char *buf, size_t size, size_t buflen) {
        static ssize_t (*real)(const char *, char *, size_t, size_t);
        int e = exe_link_error(path);

        if (e)
                return fail_with(e);
        if (!real)
                real = (ssize_t (*)(const char *, char *, size_t, size_t)) dlsym(RTLD_NEXT, "__readlink_chk");
        return real(path, buf, size, buflen);
}

/* _FORTIFY_SOURCE builds call these instead. */
EXPORT int __open_2(const char *path, int flags);
int __open_2(const char *path, int flags) {
        return open(path, flags);
}
EXPORT int __open64_2(const char *path, int flags);
int __open64_2(const char *path, int flags) {
        return open64(path, flags);
}
EXPORT int __openat_2(int dirfd, const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags) {
        return openat(dirfd, path, flags);
}
