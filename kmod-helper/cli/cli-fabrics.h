/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The CLI's part in keeping the node's NVMe over Fabrics connections across
 * an unload and a load; main.c calls it at fixed points of each command and
 * renders what it gathered. The policy is the library's (the capture and
 * connect passes, actions/fabrics-capture.h and fabrics-reconnect.h, the
 * same the connect unit runs for the daemon); this only calls and prints:
 *   status              the live connections, and a record still pending
 *   check, plan,        each connection the unload will drop, and that the
 *   unload --dry-run    load or restore reconnects it
 *   unload              the capture pass before the first removal; refuses
 *                       when it fails; the connect pass when the unload
 *                       removed nothing (the entries are live: dropped) or
 *                       failed and put the stack back
 *   load --from DIR     refuses before touching anything when DIR lacks a
 *                       transport the connections need; after the load, loads
 *                       the transports from DIR and runs the connect pass
 *   restore             loads the in-tree transports and runs the connect pass
 * The process is made non-dumpable before a pass reads a secret.
 * Messages go to stderr here (the caller's report is stdout); --json gets
 * the "fabrics" object of cli_fabrics_json() (cli-fabrics-report.h), never a
 * secret. */

#include <stdbool.h>
#include <stdint.h>

#include "actions/fabrics-pass.h"
#include "actions/stack-load.h"
#include "actions/stack-unload.h"
#include "nvme/fabrics-topology.h"

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
        bool record_saved;            /* unload: captured before the removal */
        bool record_removed;          /* no entry is left in the record */
        char **missing;               /* load --from: transports the tree lacks */
        LoadResult *transports;       /* load/restore: loading the transports */
        int transports_error;         /* -errno when that load could not even start */
        FabricsPassResult *capture;   /* unload: the capture pass */
        FabricsPassResult *reconnect; /* the connect pass */
        int reconnect_error;          /* -errno when the connect pass could not run */
} CliFabrics;

/* Reads the live connections and a pending record into f (a failure to
 * read is said on stderr and leaves that part NULL: the commands'
 * verdicts stand without it). */
void cli_fabrics_read(CliFabrics *f, CliFabricsStage stage);
void cli_fabrics_done(CliFabrics *f);

/* The connections the next unload drops: the live ones. */
bool cli_fabrics_any(const CliFabrics *f);

/* unload: the capture pass. 0, or -errno (said on stderr): the unload must
 * not run then. */
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

/* prctl(PR_SET_DUMPABLE, 0): no core dump, no ptrace by the same uid, before
 * anything reads a DH-HMAC-CHAP secret into this process. */
void cli_fabrics_no_dump(void);
/* CLOCK_REALTIME in usec; under a fake root (tests only) the environment's
 * NVME_SWAPGUARD_FAKE_NOW_USEC when set, so that time can pass without waiting. */
uint64_t cli_fabrics_now(void);
