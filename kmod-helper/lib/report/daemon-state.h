/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's state file, /run/nvme-swapguard/state.json: its place, its
 * keys and its reading are defined here once, for the daemon that writes it
 * (daemon/state-file.c) and the CLI whose `status` shows what the daemon is
 * doing next to what the kernel says. */

#include <json-c/json.h>
#include <stdio.h>

#define DAEMON_STATE_DIR "/run/nvme-swapguard"
#define DAEMON_STATE_FILE DAEMON_STATE_DIR "/state.json"

/* The daemon writes a few KiB; anything far larger is not its file. */
#define DAEMON_STATE_MAX_BYTES (1024U * 1024U)

/* One JSON object: */
#define DAEMON_STATE_KEY_STATE              "state"               /* swap-state name */
#define DAEMON_STATE_KEY_SINCE              "since_usec"          /* CLOCK_REALTIME of the last transition */
#define DAEMON_STATE_KEY_CONTAINER          "container"           /* object, absent when none: */
#define DAEMON_STATE_KEY_CONTAINER_ID       "id"
#define DAEMON_STATE_KEY_CONTAINER_POD      "pod"
#define DAEMON_STATE_KEY_CONTAINER_PID      "pid"
#define DAEMON_STATE_KEY_MODULES_BEFORE     "modules_before"      /* [string] */
#define DAEMON_STATE_KEY_NAMESPACES_BEFORE  "namespaces_before"   /* [object]: */
#define DAEMON_STATE_KEY_NAMESPACE_NAME     "name"
#define DAEMON_STATE_KEY_NAMESPACE_SERIAL   "serial"
#define DAEMON_STATE_KEY_NAMESPACE_NSID     "nsid"
#define DAEMON_STATE_KEY_READY_DEADLINE     "ready_deadline_usec" /* CLOCK_REALTIME; 0: none runs */
#define DAEMON_STATE_KEY_MESSAGE            "message"             /* the last report, one line */
#define DAEMON_STATE_KEY_BLOCKERS           "blockers"            /* [string], when blocked */
#define DAEMON_STATE_KEY_MISSING_NAMESPACES "missing_namespaces"  /* [string] */
#define DAEMON_STATE_KEY_PINS               "pins"                /* [string]: what the pin holds */
#define DAEMON_STATE_KEY_MODULE_BUILDS      "module_builds"       /* [string]: "nvme: container", "nvme_auth:
                                                                     shared-from-host", as of the last swap or
                                                                     restore (module_build_to_string) */
/* Where the loaded build came from: the driver container and what it gave. */
#define DAEMON_STATE_KEY_BUILD_CONTAINER    "build_container"     /* the container the loaded build came from */
#define DAEMON_STATE_KEY_BUILD_MODULES      "build_modules"       /* [string]: what the last load inserted from that
                                                                     container's tree (recorded at load: the kernel
                                                                     does not say who inserted a module):
                                                                     its shared ones go with its stack */
#define DAEMON_STATE_KEY_GDS                "gds"                 /* GDS hook generations, one line */
#define DAEMON_STATE_KEY_GDS_NVME           "gds_nvme"            /* the hooks nvme exports: "v1", "v1,v2", "none" */
#define DAEMON_STATE_KEY_GDS_NVIDIA_FS      "gds_nvidia_fs"       /* the hooks nvidia_fs asks for: "v2", or
                                                                     "not-loaded", "unknown" */
#define DAEMON_STATE_KEY_GDS_MATCH          "gds_match"           /* same, different, no-hooks, unknown */
#define DAEMON_STATE_KEY_CONTAINER_NOTES    "container_notes"     /* [string]: environment decisions, assumptions */
/* Mode=observe: the daemon says what it would do and does none of it. */
#define DAEMON_STATE_KEY_MODE               "mode"                /* "enforce" or "observe"; absent: enforce */
#define DAEMON_STATE_KEY_WOULD              "would"               /* observe: what it would do now, one line
                                                                     ("would unload nvme nvme_core for <id>") */

/* NVMe over Fabrics across the swap: one object per connection
 * the last unload dropped, with its outcome; absent when none. Never a secret. */
#define DAEMON_STATE_KEY_FABRICS            "fabrics"             /* [object]: */
#define DAEMON_STATE_KEY_FABRICS_DESCRIPTION "description"        /* "nvme1: tcp 127.0.0.1:4420 nqn..." */
#define DAEMON_STATE_KEY_FABRICS_CONTROLLER "controller"          /* its name when recorded */
#define DAEMON_STATE_KEY_FABRICS_NEW_CONTROLLER "new_controller"  /* after the reconnect; absent: not back */
#define DAEMON_STATE_KEY_FABRICS_TRANSPORT  "transport"           /* tcp, rdma, fc */
#define DAEMON_STATE_KEY_FABRICS_ADDRESS    "address"             /* "127.0.0.1:4420" */
#define DAEMON_STATE_KEY_FABRICS_NQN        "subsysnqn"
#define DAEMON_STATE_KEY_FABRICS_OUTCOME    "outcome"             /* live, pending, reconnected, already-live,
                                                                     failed, namespaces-missing, lost */
#define DAEMON_STATE_KEY_FABRICS_ERRNO      "errno"               /* positive; absent: none */
#define DAEMON_STATE_KEY_FABRICS_ERROR      "error"               /* the kernel's answer, one line; absent: none */
#define DAEMON_STATE_KEY_FABRICS_ERROR_KIND "error_kind"          /* refused, no-answer, auth, exists, invalid, other */
#define DAEMON_STATE_KEY_FABRICS_TRADDR     "traddr"              /* the identity's address and port */
#define DAEMON_STATE_KEY_FABRICS_TRSVCID    "trsvcid"
#define DAEMON_STATE_KEY_FABRICS_NEXT_TRY   "next_try_usec"       /* pending: CLOCK_REALTIME usec of the next try */
#define DAEMON_STATE_KEY_FABRICS_GIVE_UP_AT "give_up_at_usec"     /* pending: lost past it; absent: never */

/* Pure: the text of the file as a JSON object; -EBADMSG when it is not one. */
int daemon_state_parse(const char *text, struct json_object **ret);

/* Reads DAEMON_STATE_FILE through host-root. 0 with *ret = NULL when there is
 * no such file (the daemon has not run since boot); -EBADMSG when it is not
 * a regular file of at most DAEMON_STATE_MAX_BYTES holding a JSON object;
 * other -errno from reading. */
int daemon_state_read(struct json_object **ret);

/* One or two lines for the text status: state, message, container. */
int daemon_state_print(const struct json_object *state, FILE *f);
