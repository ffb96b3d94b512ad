/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host-root.h"
#include "nvme/nvme-controllers.h"
#include "nvme/nvme-names.h"
#include "usage/claim-hold.h"
#include "usage/device-open.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

static size_t n_stack_modules(void) {
        size_t n = 0;

        while (nvme_stack_modules[n])
                n++;
        return n;
}

/* refcnt of every stack module, -1 when absent or unreadable. */
static void read_refcnts(int *out) {
        for (size_t i = 0; nvme_stack_modules[i]; i++) {
                _cleanup_free_ char *path = NULL, *v = NULL;
                int n = -1;

                if (host_pathf(&path, "/sys/module/%s/refcnt", nvme_stack_modules[i]) >= 0 &&
                    read_one_line_file(path, &v) >= 0 && safe_atoi(v, &n) < 0)
                        n = -1;
                out[i] = n;
        }
}

/* own += after - before, for the modules readable both times. */
static void account(int *own, const int *before, const int *after, int sign) {
        for (size_t i = 0; nvme_stack_modules[i]; i++)
                if (before[i] >= 0 && after[i] >= 0) {
                        own[i] += sign * (after[i] - before[i]);
                        if (own[i] < 0)
                                own[i] = 0;
                }
}

/* A plain namespace's open pins its controller's transport; a head's none. */
static const char *pinned_transport(const NvmeBlockDevice *d) {
        _cleanup_strv_free_ char **ctrls = NULL;
        const char *module = NULL;

        if (d->multipath_head || nvme_namespace_controllers(d->name, &ctrls) < 0 || !ctrls[0])
                return NULL;
        return nvme_controller_transport_module(ctrls[0], &module) >= 0 ? module : "nvme";
}

static int claim_one(ClaimHold *h, const NvmeBlockDevice *d) {
        HeldClaim *n;
        int fd, r;

        r = device_open(DEVICE_OPEN_EXCLUSIVE, d->name, &fd);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0; /* not held: the next usage check probes and reports it */
        n = reallocarray(h->claims, h->n_claims + 1, sizeof(HeldClaim));
        if (!n) {
                close(fd);
                return -ENOMEM;
        }
        h->claims = n;
        n[h->n_claims] = (HeldClaim) { .device = strdup(d->name), .transport = pinned_transport(d), .fd = fd };
        if (!n[h->n_claims].device) {
                close(fd);
                return -ENOMEM;
        }
        h->n_claims++;
        return 0;
}

ClaimHold *claim_hold_free(ClaimHold *h) {
        if (!h)
                return NULL;
        for (size_t i = 0; i < h->n_claims; i++) {
                closep(&h->claims[i].fd);
                free(h->claims[i].device);
        }
        free(h->claims);
        free(h->own_refs);
        free(h);
        return NULL;
}

int claim_hold_take(const NvmeBlockDevices *d, ClaimHold **ret) {
        _cleanup_(claim_hold_freep) ClaimHold *h = calloc(1, sizeof(ClaimHold));
        size_t n = n_stack_modules();
        _cleanup_free_ int *before = calloc(n + 1, sizeof(int)), *after = calloc(n + 1, sizeof(int));
        int r;

        if (!h || !before || !after || !(h->own_refs = calloc(n + 1, sizeof(int))))
                return -ENOMEM;
        read_refcnts(before);
        for (size_t i = 0; i < d->n_devices; i++)
                if (!d->devices[i].is_partition && (r = claim_one(h, &d->devices[i])) < 0)
                        return r;
        read_refcnts(after);
        account(h->own_refs, before, after, +1);
        *ret = TAKE_PTR(h);
        return 0;
}

size_t claim_hold_release_pinning(ClaimHold *h, const char *module) {
        size_t n = n_stack_modules(), closed = 0;
        bool all = streq(module, "nvme_core");
        _cleanup_free_ int *before = calloc(n + 1, sizeof(int)), *after = calloc(n + 1, sizeof(int));

        if (!h)
                return 0;
        if (before)
                read_refcnts(before);
        for (size_t i = 0; i < h->n_claims; i++) {
                HeldClaim *c = &h->claims[i];

                if (c->fd < 0 || !(all || (c->transport && streq(c->transport, module))))
                        continue;
                closep(&c->fd);
                c->fd = -EBADF;
                closed++;
        }
        if (before && after && closed > 0) {
                read_refcnts(after);
                account(h->own_refs, after, before, -1); /* own -= before - after */
        }
        if (all)
                memset(h->own_refs, 0, n * sizeof(int));
        return closed;
}

bool claim_hold_covers(const ClaimHold *h, const char *device) {
        for (size_t i = 0; h && i < h->n_claims; i++)
                if (h->claims[i].fd >= 0 && nvme_name_belongs_to(device, h->claims[i].device))
                        return true;
        return false;
}

int claim_hold_devices(const ClaimHold *h, char ***ret) {
        _cleanup_strv_free_ char **l = strv_new_empty();

        if (!l)
                return -ENOMEM;
        for (size_t i = 0; h && i < h->n_claims; i++)
                if (h->claims[i].fd >= 0 && strv_extend(&l, h->claims[i].device) < 0)
                        return -ENOMEM;
        *ret = TAKE_PTR(l);
        return 0;
}

void claim_hold_discount(const ClaimHold *h, ModuleStack *stack) {
        for (size_t k = 0; h && nvme_stack_modules[k]; k++) {
                ModuleInfo *m = (ModuleInfo *) module_stack_find(stack, nvme_stack_modules[k]);

                if (m && m->refcnt > 0)
                        m->refcnt = m->refcnt > h->own_refs[k] ? m->refcnt - h->own_refs[k] : 0;
        }
}
