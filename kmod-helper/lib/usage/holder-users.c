/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "usage/holder-users.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

static void record_done(HolderRecord *r) {
        strv_free(r->stacked);
        strv_free(r->friendly);
        free(r->devnos);
        free(r->mount_point);
        free(r->fstype);
}

void holder_set_done(HolderSet *s) {
        for (size_t i = 0; i < s->n_records; i++)
                record_done(&s->records[i]);
        free(s->records);
        *s = (HolderSet) {};
}

static int list_holders(const char *name, char ***ret) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = host_pathf(&path, "/sys/class/block/%s/holders", name);
        if (r < 0)
                return r;
        r = read_dir_names(path, ret);
        return r == -ENOENT || r == -ENOTDIR ? strv_copy(NULL, ret) : r;
}

static int read_block_attr(const char *name, const char *attr, char **ret) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = host_pathf(&path, "/sys/class/block/%s/%s", name, attr);
        if (r < 0)
                return r;
        r = read_one_line_file(path, ret);
        if (r == -ENOENT || r == -ENOTDIR) {
                *ret = NULL;
                return 0;
        }
        return r;
}

/* dm/name for device-mapper (the LVM or LUKS name), md/level for md. */
static int read_friendly_name(const char *name, char **ret) {
        char *v = NULL;
        int r;

        r = read_block_attr(name, "dm/name", &v);
        if (r >= 0 && !v)
                r = read_block_attr(name, "md/level", &v);
        if (r < 0)
                return r;
        *ret = v ? v : strdup("");
        return *ret ? 0 : -ENOMEM;
}

static int record_add_member(HolderRecord *rec, const char *name) {
        _cleanup_free_ char *dev = NULL, *friendly = NULL;
        dev_t devno = 0, *grown;
        int r;

        if ((r = read_block_attr(name, "dev", &dev)) < 0 || (r = read_friendly_name(name, &friendly)) < 0)
                return r;
        if (dev)
                (void) parse_devno(dev, &devno); /* unknown: found by name only */
        grown = realloc(rec->devnos, (rec->n_stacked + 1) * sizeof(dev_t));
        if (!grown)
                return -ENOMEM;
        rec->devnos = grown;
        if ((r = strv_extend(&rec->stacked, name)) < 0 || (r = strv_push(&rec->friendly, TAKE_PTR(friendly))) < 0)
                return r;
        rec->devnos[rec->n_stacked++] = devno;
        return 0;
}

/* Depth-first over what is stacked on `name`. Chains are short (a handful of
 * levels), so membership is a linear look-up in the record's own list. */
static int walk_above(HolderRecord *rec, const char *name, unsigned depth, UsageCollector *c) {
        _cleanup_strv_free_ char **above = NULL;
        int r;

        r = list_holders(name, &above);
        if (r < 0)
                return r;
        STRV_FOREACH(h, above) {
                if (strv_contains(rec->stacked, *h))
                        continue; /* reached twice (a diamond), or a cycle: already counted */
                if (depth >= HOLDER_MAX_DEPTH)
                        return usage_collector_note(c, "%s: devices stacked more than %d deep above %s; "
                                                    "not followed further", *h, HOLDER_MAX_DEPTH, name);
                if ((r = record_add_member(rec, *h)) < 0 || (r = walk_above(rec, *h, depth + 1, c)) < 0)
                        return r;
        }
        return 0;
}

static int add_record(HolderSet *s, size_t device, const char *holder, UsageCollector *c) {
        HolderRecord rec = { .device = device };
        int r;

        if (!(rec.stacked = strv_new_empty()) || !(rec.friendly = strv_new_empty()))
                r = -ENOMEM;
        else if ((r = record_add_member(&rec, holder)) >= 0)
                r = walk_above(&rec, holder, 1, c);
        if (r >= 0 && s->n_records == s->alloc) {
                size_t alloc = s->alloc * 2 + 8;
                HolderRecord *grown = realloc(s->records, alloc * sizeof(HolderRecord));

                if (grown) {
                        s->records = grown;
                        s->alloc = alloc;
                } else
                        r = -ENOMEM;
        }
        if (r < 0) {
                record_done(&rec);
                return r;
        }
        s->records[s->n_records++] = rec;
        return 0;
}

int holder_set_read(const NvmeBlockDevices *devices, HolderSet *ret, UsageCollector *c) {
        HolderSet s = {};
        int r = 0;

        for (size_t i = 0; r >= 0 && i < devices->n_devices; i++) {
                _cleanup_strv_free_ char **holders = NULL;

                r = list_holders(devices->devices[i].name, &holders);
                STRV_FOREACH(h, r >= 0 ? holders : NULL)
                        if ((r = add_record(&s, i, *h, c)) < 0)
                                break;
        }
        if (r < 0) {
                holder_set_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

int holder_set_index(const HolderSet *s, DeviceIndex *idx) {
        int r;

        for (size_t i = 0; i < s->n_records; i++)
                for (size_t k = 0; k < s->records[i].n_stacked; k++) {
                        const HolderRecord *rec = &s->records[i];

                        r = device_index_add(idx, rec->stacked[k], rec->devnos[k], DEVICE_INDEX_HOLDER, i, k);
                        if (r < 0)
                                return r;
                }
        return 0;
}

int holder_record_set_use(HolderSet *s, size_t ref, size_t sub, const char *mount_point, const char *fstype) {
        HolderRecord *rec = &s->records[ref];

        if (rec->mount_point)
                return 0;
        rec->mount_point = strdup(mount_point);
        rec->fstype = fstype ? strdup(fstype) : NULL;
        if (!rec->mount_point || (fstype && !rec->fstype))
                return -ENOMEM;
        rec->used_member = sub;
        return 0;
}

/* "dm-1 (vg0-root)", or "dm-1" when it has no friendly name. */
static char *describe_member(const HolderRecord *rec, size_t k) {
        char *s = NULL;

        if (rec->friendly[k][0] == '\0')
                return strdup(rec->stacked[k]);
        if (asprintf(&s, "%s (%s)", rec->stacked[k], rec->friendly[k]) < 0)
                return NULL;
        return s;
}

static int record_to_usage(const HolderRecord *rec, const NvmeBlockDevices *devices, UsageCollector *c) {
        const char *friendly = rec->friendly[0][0] ? rec->friendly[0] : rec->stacked[0];
        Usage *u;
        int i;

        i = usage_collector_add(c, USAGE_HOLDER, devices->devices[rec->device].name, friendly, rec->stacked[0], 0);
        if (i < 0)
                return i;
        u = &c->usages[i];
        if (!rec->mount_point)
                return 0;
        u->mount_point = strdup(rec->mount_point);
        if (!u->mount_point || (rec->fstype && !(u->fstype = strdup(rec->fstype))))
                return -ENOMEM;
        if (rec->used_member > 0 && !(u->via = describe_member(rec, rec->used_member)))
                return -ENOMEM;
        return 0;
}

int holder_set_to_usages(const HolderSet *s, const NvmeBlockDevices *devices, UsageCollector *c) {
        int r;

        for (size_t i = 0; i < s->n_records; i++)
                if ((r = record_to_usage(&s->records[i], devices, c)) < 0)
                        return r;
        return 0;
}
