/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* /run/nvme-swapguard/state.json: what the daemon did and is doing, for
 * operators (nvme-swapguard-kmod status shows it) and for the next start of
 * the daemon (reconcile). Replaced atomically: write a temporary file, fsync,
 * rename; a reader sees the old or the new file, never half of one. */

#include <stdint.h>
#include <sys/types.h>

#include "node/node-ops.h"
#include "report/daemon-state.h"
#include "vocabulary/swap-vocabulary.h"
#include "util/macro.h"

/* One definition for the daemon that writes it and the CLI that shows it. */
#define STATE_DIR DAEMON_STATE_DIR
#define STATE_FILE DAEMON_STATE_FILE

typedef struct StateFile {
        SwapState state;
        uint64_t since_usec;          /* CLOCK_REALTIME of the last transition */
        char *container_id;           /* NULL when none */
        char *pod_name;
        pid_t container_pid;
        char **modules_before;        /* loaded before our unload (what restore puts back) */
        NodeNamespaces *namespaces_before; /* seen before the unload, by serial + nsid */
        uint64_t ready_deadline_usec; /* CLOCK_REALTIME; 0 when no deadline runs */
        char *message;                /* the last report, one line */
        char **blockers;              /* when blocked */
        char **missing_namespaces;    /* after a swap or restore: not back (yet) */
        char **pins;                  /* what the pin holds now: "nvme pinned: /dev/nvme1n1
                                         mounted at /data (ext4)" (pin-holder.h) */
        /* The driver container's whole life: */
        char *build_container_id;     /* the container the loaded build came from; NULL: none/unknown */
        char **build_modules;         /* what the last load inserted from that container's tree, recorded
                                         at load: an unload takes its shared modules out with
                                         the stack when the live module confirms (taint O) */
        char *gds;                    /* the GDS hook generation report, one line; NULL: none */
        char *gds_nvme;               /* the generation of each, for machines (NULL: not */
        char *gds_nvidia_fs;          /* checked): what nvme exports, what nvidia_fs asks */
        char *gds_match;              /* for, and whether they match (daemon-state.h) */
        char **container_notes;       /* what the container's environment decided or left assumed */
        char **module_builds;         /* "<module>: <build>" after the last swap or restore */
        /* Mode=observe: */
        SwapMode mode;                /* the mode of the instance that wrote it */
        char *would;                  /* observe: the last "would ..." report, one line; NULL: none */
        /* NVMe over Fabrics: */
        NodeFabrics *fabrics;        /* the connections the last unload dropped (or would), with
                                         their outcome; NULL: none */
} StateFile;

StateFile *state_file_free(StateFile *s);
/* The loaded build's record (build_container_id, build_modules) of from,
 * where to has none; from may be NULL. */
void state_file_keep_build(StateFile *to, const StateFile *from);
DEFINE_TRIVIAL_CLEANUP_FUNC(StateFile *, state_file_free);
void state_file_clear(StateFile *s);
/* Pure: JSON text for s / s from JSON text. -EBADMSG on bad input. */
int state_file_to_json(const StateFile *s, char **ret);
int state_file_from_json(const char *text, StateFile **ret);
/* Through host_path(). state_file_read: -ENOENT when there is none. */
int state_file_write(const StateFile *s);
int state_file_read(StateFile **ret);
