/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The CLI's part in keeping the node's NVMe over Fabrics connections across
 * an unload and a load (issue 27); main.c calls it at fixed points of each
 * command and renders what it gathered:
 *   status              the live connections, and a record still pending
 *   check, plan,        each connection the unload will drop, and that the
 *   unload --dry-run    load or restore reconnects it
 *   unload              saves the record (nvme/fabrics-record.h) before the
 *                       first removal; refuses when it cannot; removes the
 *                       record again when nothing was removed, reconnects at
 *                       once when the unload failed and put the stack back
 *   load --from DIR     refuses before touching anything when DIR lacks a
 *                       transport the connections need; after the load, loads
 *                       the transports from DIR and reconnects
 *   restore             loads the in-tree transports and reconnects
 * Messages go to stderr here (the caller's report is stdout); --json gets
 * the "fabrics" object of cli_fabrics_json(), never a secret. */

#include <stdbool.h>
#include <stdio.h>

#include "actions/fabrics-reconnect.h"
#include "actions/stack-load.h"
#include "actions/stack-unload.h"
#include "nvme/fabrics-topology.h"

struct json_object;

typedef enum CliFabricsStage {
        CLI_FABRICS_STATUS,
        CLI_FABRICS_PLAN,    /* check, plan, unload --dry-run */
        CLI_FABRICS_UNLOAD,
        CLI_FABRICS_LOAD,    /* load --from, restore */
} CliFabricsStage;

typedef struct CliFabrics {
        CliFabricsStage stage;
        const char *after;            /* "reconnected after the load" / "... after a restore" */
        FabricsTopology *live;        /* the connections now; NULL when unreadable */
        FabricsTopology *record;      /* a pending record; NULL when none */
        char *record_error;           /* why a record present could not be read */
        bool record_saved;            /* unload: saved before the removal */
        bool record_removed;          /* every recorded connection is back, or none was dropped */
        char **missing;               /* load --from: transports the tree lacks */
        LoadResult *transports;       /* load/restore: loading the transports */
        int transports_error;         /* -errno when that load could not even start */
        FabricsReconnectResult *reconnect;
        int reconnect_error;          /* -errno when the reconnect could not run */
} CliFabrics;

/* Reads the live connections and a pending record into f (a failure to
 * read is said on stderr and leaves that part NULL: the commands'
 * verdicts stand without it). */
void cli_fabrics_read(CliFabrics *f, CliFabricsStage stage);
void cli_fabrics_done(CliFabrics *f);

/* The connections the next unload drops: the live ones. */
bool cli_fabrics_any(const CliFabrics *f);

/* unload: saves the record of the live connections. 0, or -errno (said on
 * stderr): the unload must not run then. */
int cli_fabrics_before_unload(CliFabrics *f);
/* unload: what the outcome means for the record. */
void cli_fabrics_after_unload(CliFabrics *f, const UnloadResult *res);

/* load --from: the transports the tree lacks, said on stderr. 1 when the
 * load must be refused, 0 when it may go on, -errno. */
int cli_fabrics_check_tree(CliFabrics *f, const char *tree);
/* load, restore, after a successful load from tree (NULL: the host's):
 * the transports, then the reconnect. */
void cli_fabrics_after_load(CliFabrics *f, const char *tree);
/* Whether every connection that should be back is. */
bool cli_fabrics_ok(const CliFabrics *f);

/* Adds "fabrics" to o: {"connections","record","plan","missing_transports",
 * "transports","reconnect"} (null when not part of this command). */
int cli_fabrics_json(const CliFabrics *f, struct json_object *o);
/* The text lines for this stage (nothing when there are no connections). */
int cli_fabrics_text(const CliFabrics *f, FILE *out);
