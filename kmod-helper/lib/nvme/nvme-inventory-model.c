/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvme/nvme-inventory-model.h"
#include "util/macro.h"

static void controller_done(NvmeInventoryController *c) {
        free(c->name);
        free(c->transport);
        free(c->address);
        free(c->serial);
        free(c->model);
        free(c->state);
}

static void namespace_done(NvmeInventoryNamespace *n) {
        free(n->name);
        free(n->controller);
}

static void subsystem_done(NvmeInventorySubsystem *s) {
        free(s->name);
        free(s->nqn);
        for (size_t i = 0; i < s->n_controllers; i++)
                controller_done(&s->controllers[i]);
        free(s->controllers);
        for (size_t i = 0; i < s->n_namespaces; i++)
                namespace_done(&s->namespaces[i]);
        free(s->namespaces);
}

NvmeInventory *nvme_inventory_free(NvmeInventory *inv) {
        if (!inv)
                return NULL;
        for (size_t i = 0; i < inv->n_subsystems; i++)
                subsystem_done(&inv->subsystems[i]);
        free(inv->subsystems);
        free(inv);
        return NULL;
}

/* Grows an array by one zeroed element; doubling keeps it linear. */
static void *grow_one(void **array, size_t *n, size_t size) {
        char *grown;

        /* Capacity is implicit: grow when n reaches a power of two (or 0). */
        if ((*n & (*n - 1)) == 0) {
                size_t cap = *n ? *n * 2 : 1;

                grown = realloc(*array, cap * size);
                if (!grown)
                        return NULL;
                *array = grown;
        }
        grown = (char *) *array + *n * size;
        memset(grown, 0, size);
        (*n)++;
        return grown;
}

NvmeInventorySubsystem *nvme_inventory_add_subsystem(NvmeInventory *inv) {
        return grow_one((void **) &inv->subsystems, &inv->n_subsystems, sizeof(NvmeInventorySubsystem));
}

NvmeInventoryController *nvme_inventory_add_controller(NvmeInventorySubsystem *s) {
        return grow_one((void **) &s->controllers, &s->n_controllers, sizeof(NvmeInventoryController));
}

NvmeInventoryNamespace *nvme_inventory_add_namespace(NvmeInventorySubsystem *s) {
        return grow_one((void **) &s->namespaces, &s->n_namespaces, sizeof(NvmeInventoryNamespace));
}

char *nvme_inventory_strdup(const char *s, bool *failed) {
        char *c;

        if (!s)
                return NULL;
        c = strdup(s);
        if (!c)
                *failed = true;
        return c;
}

static int cmp_subsystem(const void *a, const void *b) {
        return strverscmp(((const NvmeInventorySubsystem *) a)->name ?: "",
                          ((const NvmeInventorySubsystem *) b)->name ?: "");
}

void nvme_inventory_sort(NvmeInventory *inv) {
        if (inv->n_subsystems > 1)
                qsort(inv->subsystems, inv->n_subsystems, sizeof(NvmeInventorySubsystem), cmp_subsystem);
}
