/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* UnloadAt=auto: when, for this swap, the in-tree stack may go. At the
 * ready file the drives stay up through the container's compile (2 to 40
 * minutes) and the node is driverless only for the swap itself; at the
 * container's start (what the hand workaround did) it is driverless for the
 * whole compile. The ready file is safe only when the container's `openibd
 * restart` does not trip on a loaded nvme stack (FIELD-NOTES sections 1 and
 * 8; mlnx-ofa_kernel ofed_scripts/mod_load_funcs, doca-driver-build):
 *   - no NVIDIA (out-of-tree) build loaded: with one, its nvme holds
 *     mlx_compat and openibd's stop removes it unguarded or fails: it must
 *     go before (a restart, an upgrade);
 *   - this is the node's first swap for the container (no earlier build);
 *   - the in-tree nvme_rdma absent, or the container's to unload
 *     (UNLOAD_STORAGE_MODULES=true): it holds rdma_cm/ib_core, which openibd
 *     must unload; else the entrypoint refuses to start;
 *   - the container's openibd check_if_ok_to_stop does not list nvme (26.07
 *     briefly did: a loaded nvme in use then fails openibd restart), read
 *     from the container's own tree;
 *   - the image does not load nvme itself after openibd restart (images
 *     before doca-driver-build PR #91 did, and crashed on a loaded stack).
 * Anything not known counts against the ready file. Pure. */

#include <stdbool.h>

#include "container/driver-env.h"
#include "swap/swap-state.h"

typedef enum Knowledge {
        KNOWN_NO,
        KNOWN_YES,
        KNOWN_UNKNOWN,
} Knowledge;

typedef struct UnloadMomentInput {
        bool replacement_loaded;          /* an NVIDIA / out-of-tree build is loaded now */
        bool earlier_build;               /* the loaded build is an earlier container's (restart, upgrade) */
        bool nvme_rdma_loaded;            /* the in-tree nvme_rdma is loaded */
        EnvFlag unload_storage_modules;   /* the container's UNLOAD_STORAGE_MODULES */
        Knowledge openibd_lists_nvme;     /* its check_if_ok_to_stop names nvme */
        Knowledge image_loads_nvme;       /* the image loads nvme itself (older images) */
} UnloadMomentInput;

typedef enum UnloadMomentWhy {
        UNLOAD_MOMENT_SAFE_AT_READY,         /* ready file: every rule holds */
        UNLOAD_MOMENT_BUILD_LOADED,          /* start: NVIDIA's build is loaded (restart, upgrade) */
        UNLOAD_MOMENT_NVME_RDMA,             /* start: in-tree nvme_rdma loaded, not the container's to unload */
        UNLOAD_MOMENT_OPENIBD_LISTS_NVME,    /* start: its openibd refuses a loaded nvme in use */
        UNLOAD_MOMENT_OPENIBD_UNKNOWN,       /* start: its openibd could not be read */
        UNLOAD_MOMENT_IMAGE_LOADS_NVME,      /* start: an older image that loads nvme itself */
        UNLOAD_MOMENT_IMAGE_UNKNOWN,         /* start: whether the image loads nvme itself is not known */
        _UNLOAD_MOMENT_WHY_MAX,
} UnloadMomentWhy;

typedef struct UnloadMoment {
        UnloadAt at;         /* UNLOAD_AT_DRIVER_READY or UNLOAD_AT_CONTAINER_START */
        UnloadMomentWhy why;
} UnloadMoment;

UnloadMoment unload_moment_decide(const UnloadMomentInput *in);
/* A short name for the journal's SWAPGUARD_MOMENT_RULE=: "safe-at-ready", "build-loaded", ... */
const char *unload_moment_rule_to_string(UnloadMomentWhy w);
/* One phrase for the journal: "no NVIDIA build is loaded, ..." */
const char *unload_moment_why_to_string(UnloadMomentWhy w);

/* Pure: whether an openibd (or its mod_load_funcs) text's
 * check_if_ok_to_stop names the module nvme among those it refuses to stop
 * while in use (nvme_rdma, nvmet_rdma are other modules). KNOWN_UNKNOWN
 * when the text has no such function. */
Knowledge openibd_check_lists_nvme(const char *text);
/* Pure: whether a driver container's entrypoint script loads an nvme
 * module itself (a `modprobe` or `insmod` of nvme, nvme-core, nvme-rdma ...
 * outside comments: images before doca-driver-build PR #91 ran `modprobe
 * nvme; modprobe nvme-rdma` after openibd restart). KNOWN_UNKNOWN for no
 * text. */
Knowledge entrypoint_loads_nvme(const char *script);
