/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* /var/log/nvme-swapguard/status.json: the node's swap status for people who
 * are not on the node. Kubelet serves files under /var/log/ through
 * `oc adm node-logs <node> --path=nvme-swapguard/status.json`, so the
 * `oc swapguard` plugin (plugin/kubectl-swapguard) reads every node's
 * document with no credentials on the node and no ssh.
 *
 * The same facts as the state file (daemon/state-file.h: it is serialised by
 * the state file's own code, then extended), plus what a reader far away
 * needs to trust it: the boot id and the time it was written (the document
 * lives under /var/log and so outlives a reboot, unlike the state file in
 * /run: a document from an earlier boot is recognisable as such), the
 * daemon's version, and the report of the swap: origin of each stack module,
 * GDS hooks, namespaces back, blockers, pins.
 *
 * Not a file the MachineConfig manages (the Machine Config daemon would mark
 * the node Degraded if we rewrote one of those): the unit's
 * LogsDirectory=nvme-swapguard creates the directory and lets the sandbox
 * write it. Replaced atomically: temporary file in the same directory,
 * fsync, rename, fsync of the directory. */

#include <stdbool.h>
#include <stdint.h>

#include "node/node-ops.h"
#include "publish/state-file.h"

#define STATUS_DOCUMENT_DIR "/var/log/nvme-swapguard"
#define STATUS_DOCUMENT_FILE STATUS_DOCUMENT_DIR "/status.json"
/* Bumped when a field changes meaning; added fields keep the number. */
#define STATUS_DOCUMENT_SCHEMA 1
#define BOOT_ID_FILE "/proc/sys/kernel/random/boot_id"

typedef struct StatusFacts {
        const StateFile *record;      /* required */
        const NodeStack *stack;      /* the stack modules now; NULL: could not be read */
        const char *boot_id;          /* NULL: unknown (written as null) */
        const char *hostname;         /* NULL: unknown */
        const char *version;          /* the daemon's */
        pid_t pid;                    /* the daemon's */
        uint64_t written_at_usec;     /* CLOCK_REALTIME */
        /* Facts other parts of the daemon are growing. Written as null while
         * this daemon does not report them, so a reader can tell "none" from
         * "not reported by this version":
         *  - hooks_generation: which GDS hook interface the live build
         *    exports ("v1", "v2", "none"):
         *    status_document_publish reports it (status_hooks_generation);
         *  - pins: what the pin holds (status_document_publish reports it);
         *    reported only when pins_reported, then [] means none. */
        const char *hooks_generation;
        bool pins_reported;
        char *const *pins;
} StatusFacts;

/* Pure: the document for f, pretty-printed JSON (no trailing newline). */
int status_document_to_json(const StatusFacts *f, char **ret);

/* Writes the document through host_path(). The directory is created if its
 * parent exists; -ENOENT when it does not. */
int status_document_write(const StatusFacts *f);

/* The host's boot id (BOOT_ID_FILE through host_path(), the same value
 * kubelet reports as the node's status.nodeInfo.bootID). */
int status_read_boot_id(char **ret);

/* Fills boot id, host name, version, pid and time, then writes: what the
 * daemon calls each time it writes the state file. */
int status_document_publish(const StateFile *record, const NodeStack *stack);
/* gds_hooks.generation for a stack: the live build's ("v1"), "none", or
 * NULL (unreadable stack). */
const char *status_hooks_generation(const NodeStack *stack);
