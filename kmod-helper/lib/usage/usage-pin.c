/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "nvme/nvme-controllers.h"
#include "usage/device-open.h"
#include "usage/usage-pin.h"
#include "util/macro.h"
#include "util/strv.h"

UsagePin *usage_pin_new(void) {
        UsagePin *p = calloc(1, sizeof(UsagePin));

        if (!p)
                return NULL;
        p->reasons = strv_new_empty();
        p->problems = strv_new_empty();
        if (!p->reasons || !p->problems)
                return usage_pin_free(p);
        return p;
}

static void controllers_free(PinnedController *c, size_t n) {
        for (size_t i = 0; i < n; i++) {
                closep(&c[i].fd);
                free(c[i].name);
        }
        free(c);
}

void usage_pin_release(UsagePin *p) {
        if (!p)
                return;
        controllers_free(p->controllers, p->n_controllers);
        p->controllers = NULL;
        p->n_controllers = 0;
        strv_free(p->reasons);
        strv_free(p->problems);
        p->reasons = strv_new_empty();
        p->problems = strv_new_empty();
}

UsagePin *usage_pin_free(UsagePin *p) {
        if (!p)
                return NULL;
        controllers_free(p->controllers, p->n_controllers);
        strv_free(p->reasons);
        strv_free(p->problems);
        free(p);
        return NULL;
}

bool usage_pin_held(const UsagePin *p) {
        for (size_t i = 0; p && i < p->n_controllers; i++)
                if (p->controllers[i].fd >= 0)
                        return true;
        return false;
}

int usage_pin_modules(const UsagePin *p, char ***ret) {
        _cleanup_strv_free_ char **l = strv_new_empty();

        if (!l)
                return -ENOMEM;
        for (size_t i = 0; p && i < p->n_controllers; i++) {
                const PinnedController *c = &p->controllers[i];

                if (c->fd >= 0 && c->module && !strv_contains(l, c->module) && strv_extend(&l, c->module) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

static int join(char *const *l, const char *sep, char **ret) {
        size_t len = 1;
        char *s;

        STRV_FOREACH(i, l)
                len += strlen(*i) + strlen(sep);
        s = calloc(1, len);
        if (!s)
                return -ENOMEM;
        STRV_FOREACH(i, l) {
                if (i != l)
                        strcat(s, sep);
                strcat(s, *i);
        }
        *ret = s;
        return 0;
}

int usage_pin_reason(const Usage *u, char *const *modules, char **ret) {
        _cleanup_free_ char *mods = NULL, *what = NULL;
        int r;

        r = modules && modules[0] ? join(modules, ", ", &mods) : ((mods = strdup("the NVMe stack")) ? 0 : -ENOMEM);
        if (r < 0)
                return r;
        if (u->kind == USAGE_MOUNTED)
                r = u->what ? asprintf(&what, "/dev/%s mounted at %s (%s)", u->device, u->where, u->what)
                            : asprintf(&what, "/dev/%s mounted at %s", u->device, u->where);
        else
                r = usage_describe(u, &what) < 0 ? -1 : 0;
        if (r < 0)
                return -ENOMEM;
        return asprintf(ret, "%s pinned: %s", mods, what) < 0 ? -ENOMEM : 0;
}

/* ---- which controllers -------------------------------------------------- */

typedef struct Want {
        PinnedController *items;
        size_t n;
} Want;

static PinnedController *want_find(Want *w, const char *name) {
        for (size_t i = 0; i < w->n; i++)
                if (streq(w->items[i].name, name))
                        return &w->items[i];
        return NULL;
}

static int want_add(Want *w, const char *name, const char *module) {
        PinnedController *n;

        if (want_find(w, name))
                return 0;
        n = reallocarray(w->items, w->n + 1, sizeof(PinnedController));
        if (!n)
                return -ENOMEM;
        w->items = n;
        n[w->n] = (PinnedController) { .name = strdup(name), .module = module, .fd = -EBADF };
        if (!n[w->n].name)
                return -ENOMEM;
        w->n++;
        return 0;
}

static const char *namespace_of(const UsageReport *r, const char *device) {
        const NvmeBlockDevice *d = nvme_block_devices_find(r->devices, device);

        return d && d->namespace_name ? d->namespace_name : device;
}

/* The controllers of one usage's namespace into w, their modules into
 * *modules; what cannot be found becomes a problem. */
static int want_usage(UsagePin *p, Want *w, const UsageReport *r, const Usage *u, char ***modules) {
        _cleanup_strv_free_ char **ctrls = NULL;
        const char *ns = namespace_of(r, u->device);
        int k;

        k = nvme_namespace_controllers(ns, &ctrls);
        if (k == -ENOMEM)
                return k;
        if (k < 0)
                return strv_extendf(&p->problems, "could not find the controllers of %s to pin: %s", ns, strerror(-k));
        STRV_FOREACH(c, ctrls) {
                const char *module = NULL;

                k = nvme_controller_transport_module(*c, &module);
                if (k == -ENOMEM)
                        return k;
                if (k < 0 && strv_extendf(&p->problems, "%s (for %s): transport module unknown (%s); pinned anyway",
                                          *c, ns, strerror(-k)) < 0)
                        return -ENOMEM;
                if (want_add(w, *c, module) < 0)
                        return -ENOMEM;
                if (module && !strv_contains(*modules, module) && strv_extend(modules, module) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* ---- holding them open --------------------------------------------------- */

/* /dev/<ctrl>, a character device on the real host (device-open.h: a
 * stray file proves nothing). The open itself is the pin: no I/O is ever
 * made. */
static int open_controller(const char *name, int *ret_fd) {
        return device_open(DEVICE_OPEN_CONTROLLER, name, ret_fd);
}

/* Moves the open descriptor of a controller already held, else opens it. */
static int hold(UsagePin *p, PinnedController *c) {
        int r;

        for (size_t i = 0; i < p->n_controllers; i++)
                if (streq(p->controllers[i].name, c->name) && p->controllers[i].fd >= 0) {
                        c->fd = TAKE_FD(p->controllers[i].fd);
                        return 0;
                }
        r = open_controller(c->name, &c->fd);
        if (r >= 0)
                return 0;
        c->open_errno = -r;
        return strv_extendf(&p->problems, "could not pin %s: opening /dev/%s failed: %s%s", c->name, c->name,
                            strerror(-r), r == -EWOULDBLOCK ? " (the controller is not live: resetting or connecting?)"
                                                            : "");
}

static int cmp_controller(const void *a, const void *b) {
        return strcmp(((const PinnedController *) a)->name, ((const PinnedController *) b)->name);
}

int usage_pin_update(UsagePin *p, const UsageReport *usage) {
        _cleanup_strv_free_ char **reasons = strv_new_empty(), **old_problems = NULL;
        Want w = {};
        int r = reasons ? 0 : -ENOMEM;

        old_problems = TAKE_PTR(p->problems);
        p->problems = strv_new_empty();
        if (!p->problems)
                r = -ENOMEM;
        for (size_t i = 0; r >= 0 && usage && i < usage->n_usages; i++) {
                _cleanup_strv_free_ char **modules = strv_new_empty();
                char *reason = NULL;

                r = modules ? want_usage(p, &w, usage, &usage->usages[i], &modules) : -ENOMEM;
                if (r >= 0)
                        r = usage_pin_reason(&usage->usages[i], modules, &reason);
                if (r >= 0)
                        r = strv_push(&reasons, reason);
        }
        for (size_t i = 0; r >= 0 && i < w.n; i++)
                r = hold(p, &w.items[i]);
        if (r < 0) {
                controllers_free(w.items, w.n);
                return r;
        }
        if (w.n > 0) /* qsort(NULL, 0, ...) is undefined (UBSan says so) */
                qsort(w.items, w.n, sizeof(PinnedController), cmp_controller);
        controllers_free(p->controllers, p->n_controllers); /* closes what is no longer wanted */
        p->controllers = w.items;
        p->n_controllers = w.n;
        strv_free(p->reasons);
        p->reasons = TAKE_PTR(reasons);
        return 0;
}
