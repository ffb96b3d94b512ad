/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "usage/device-index.h"
#include "util/alloc-util.h"

int device_index_add(DeviceIndex *idx, const char *name, dev_t devno, DeviceIndexKind kind, size_t ref,
                     size_t sub) {
        if (ARRAY_RESERVE(idx->pending, idx->alloc, idx->n, 32) < 0)
                return -ENOMEM;
        idx->pending[idx->n] = (DeviceIndexEntry) { .name = name, .devno = devno, .kind = kind, .ref = ref, .sub = sub,
                                                       .seq = idx->n };
        idx->n++;
        return 0;
}

/* Ties keep insertion order (NVMe devices before holders, each in device
 * order), so that results come out in a stable order. */
static int cmp_devno(const void *a, const void *b) {
        const DeviceIndexEntry *x = a, *y = b;

        if (x->devno != y->devno)
                return x->devno < y->devno ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_name(const void *a, const void *b) {
        const DeviceIndexEntry *x = a, *y = b;
        int c = strcmp(x->name, y->name);

        return c != 0 ? c : (x->seq < y->seq ? -1 : x->seq > y->seq);
}

int device_index_seal(DeviceIndex *idx) {
        size_t n = 0;

        idx->by_name = malloc((idx->n + 1) * sizeof(DeviceIndexEntry));
        idx->by_devno = malloc((idx->n + 1) * sizeof(DeviceIndexEntry));
        if (!idx->by_name || !idx->by_devno)
                return -ENOMEM;
        if (idx->n > 0) /* pending is NULL when nothing was added */
                memcpy(idx->by_name, idx->pending, idx->n * sizeof(DeviceIndexEntry));
        idx->n_by_name = idx->n;
        for (size_t i = 0; i < idx->n; i++)
                if (idx->pending[i].devno != 0)
                        idx->by_devno[n++] = idx->pending[i];
        idx->n_by_devno = n;
        qsort(idx->by_name, idx->n_by_name, sizeof(DeviceIndexEntry), cmp_name);
        qsort(idx->by_devno, idx->n_by_devno, sizeof(DeviceIndexEntry), cmp_devno);
        return 0;
}

void device_index_done(DeviceIndex *idx) {
        free(idx->pending);
        free(idx->by_name);
        free(idx->by_devno);
        *idx = (DeviceIndex) {};
}

const DeviceIndexEntry *device_index_by_devno(const DeviceIndex *idx, dev_t devno, size_t *ret_n) {
        size_t lo = 0, hi = idx->n_by_devno, end;

        while (lo < hi) { /* lower bound */
                size_t mid = lo + (hi - lo) / 2;

                if (idx->by_devno[mid].devno < devno)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        for (end = lo; end < idx->n_by_devno && idx->by_devno[end].devno == devno; end++)
                ;
        *ret_n = end - lo;
        return end > lo ? &idx->by_devno[lo] : NULL;
}

const DeviceIndexEntry *device_index_by_name(const DeviceIndex *idx, const char *name, size_t *ret_n) {
        size_t lo = 0, hi = idx->n_by_name, end;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (strcmp(idx->by_name[mid].name, name) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        for (end = lo; end < idx->n_by_name && strcmp(idx->by_name[end].name, name) == 0; end++)
                ;
        *ret_n = end - lo;
        return end > lo ? &idx->by_name[lo] : NULL;
}
