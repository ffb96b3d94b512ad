/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Inside the container store: its entries (container-store.c: identity,
 * pid, start) and its watching (container-store-watch.c: inotify, looks,
 * scans). Not for other users of the store. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "container/container-store.h"
#include "watch/exec-watch.h"
#include "watch/path-watch.h"

/* One container directory we look at. */
typedef enum EntryState {
        ENTRY_PENDING,   /* waiting for a complete config.json */
        ENTRY_IGNORED,   /* not ours, or unreadable: we stop looking */
        ENTRY_WANTED,    /* ours: following its pidfile */
} EntryState;

typedef struct Entry {
        ContainerStore *store;
        char id[65];
        EntryState state;
        ContainerIdentity *identity;
        pid_t pid;
        bool privileged;   /* its init may give us kernel code (container-privilege.h) */
        bool awaiting_exec;  /* created: its process still runs the runtime's init */
        bool reported;       /* its pid was reported as started */
        sd_event_source *start_check; /* looks again for the start while created */
        uint64_t start_check_usec;    /* the next interval, doubling */
        uint64_t created_since_usec;  /* CLOCK_MONOTONIC when first seen created, 0 if not */
        bool created_long_logged;     /* "created for long" said once */
        bool start_polled_logged;     /* "looked for every 2 s" said once */
        int wd;              /* the store's watch on userdata/ (or <id>/ before it exists), -1 none */
        bool wd_on_userdata;
        struct Entry *next;
} Entry;

struct ContainerStore {
        sd_event *event;
        char *dir;                 /* <store>/overlay-containers */
        PathWatch *dir_watch;      /* overlay-containers/ existing or not */
        int inotify_fd;            /* ours: overlay-containers/ and each entry's directory */
        sd_event_source *inotify_source;
        int dir_wd;                /* overlay-containers/ in inotify_fd, -1 while not watched */
        sd_event_source *retry;    /* a scan again in a second: a watch could not be had */
        bool retry_logged;         /* the warning for it said once until a scan succeeds */
        ExecWatch *execs;          /* only while a wanted container is created, not started */
        bool execs_unavailable;    /* the process connector refused us once: stop asking */
        Entry *entries;
        ContainerStoreWant want;
        ContainerStoreHandler handler;
        void *userdata;
};

/* container-store.c */
Entry *store_entry_free(Entry *e);
/* Reads what is new in the entry's files; may call the handler, which may
 * free the store's entries: the caller's last use of e. */
void store_entry_refresh(Entry *e);
Entry **store_entry_find(ContainerStore *s, const char *id);
/* The entry's directory is gone: forgotten, REMOVED reported if it was. */
void store_entry_removed(ContainerStore *s, const char *id);
void store_remove_all(ContainerStore *s);
void store_update_exec_watch(ContainerStore *s);
/* Drops the entry's inotify watch (its wd in the store's inotify fd). */
void store_entry_unwatch(Entry *e);

/* container-store-watch.c: calls into container-store.c, never the other
 * way (tests/ship/house-check.py). */
