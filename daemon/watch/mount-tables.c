/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "host/host-root.h"
#include "watch/mount-tables.h"
#include "util/macro.h"

struct MountTablesSubscription {
        MountTables *tables; /* a reference */
        MountTablesSubscription *prev, *next;
        MountTablesHandler handler;
        void *userdata;
        bool listening;
};

struct MountTables {
        unsigned n_ref;
        sd_event *event;
        int host_fd; /* /proc/1/mountinfo */
        sd_event_source *host;
        MountTablesSubscription *subscriptions;
};

/* The source is on while someone listens; off, a busy node's container
 * mounts wake nobody. */
static int update_listening(MountTables *t) {
        bool any = false;

        for (MountTablesSubscription *s = t->subscriptions; s; s = s->next)
                any = any || s->listening;
        return sd_event_source_set_enabled(t->host, any ? SD_EVENT_ON : SD_EVENT_OFF);
}

static int on_host_table(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        MountTables *t = userdata;

        /* The kernel cleared the condition for this open file in its poll
         * handler: no read is needed to hear the next change. */
        for (MountTablesSubscription *s = t->subscriptions; s; s = s->next)
                if (s->listening)
                        s->handler(t, s->userdata);
        (void) update_listening(t);
        return 0;
}

static MountTables *mount_tables_free(MountTables *t) {
        if (!t)
                return NULL;
        sd_event_source_disable_unref(t->host);
        closep(&t->host_fd);
        sd_event_unref(t->event);
        free(t);
        return NULL;
}

MountTables *mount_tables_ref(MountTables *t) {
        if (t)
                t->n_ref++;
        return t;
}

MountTables *mount_tables_unref(MountTables *t) {
        if (t && --t->n_ref == 0)
                mount_tables_free(t);
        return NULL;
}

int mount_tables_new(sd_event *e, MountTables **ret) {
        _cleanup_(mount_tables_unrefp) MountTables *t = calloc(1, sizeof(*t));
        _cleanup_free_ char *path = NULL;
        int r;

        if (!t)
                return -ENOMEM;
        t->n_ref = 1;
        t->event = sd_event_ref(e);
        t->host_fd = -EBADF;
        r = host_path("/proc/1/mountinfo", &path);
        if (r < 0)
                return r;
        t->host_fd = open(path, O_RDONLY | O_CLOEXEC);
        if (t->host_fd < 0)
                return -errno;
        r = sd_event_add_io(e, &t->host, t->host_fd, EPOLLPRI, on_host_table, t);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(t->host, "host-mountinfo");
        r = sd_event_source_set_enabled(t->host, SD_EVENT_OFF);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(t);
        return 0;
}

int mount_tables_subscribe(MountTables *t, MountTablesHandler handler, void *userdata,
                           MountTablesSubscription **ret) {
        MountTablesSubscription *s = calloc(1, sizeof(*s));

        if (!s)
                return -ENOMEM;
        s->tables = mount_tables_ref(t);
        s->handler = handler;
        s->userdata = userdata;
        s->next = t->subscriptions;
        if (s->next)
                s->next->prev = s;
        t->subscriptions = s;
        *ret = s;
        return 0;
}

MountTablesSubscription *mount_tables_unsubscribe(MountTablesSubscription *s) {
        MountTables *t;

        if (!s)
                return NULL;
        t = s->tables;
        if (s->prev)
                s->prev->next = s->next;
        else
                t->subscriptions = s->next;
        if (s->next)
                s->next->prev = s->prev;
        if (s->listening)
                (void) update_listening(t);
        mount_tables_unref(t);
        free(s);
        return NULL;
}

int mount_tables_listen(MountTablesSubscription *s, bool listening) {
        if (!s)
                return 0;
        if (s->listening == listening)
                return 0;
        s->listening = listening;
        return update_listening(s->tables);
}

sd_event *mount_tables_event(MountTables *t) {
        return t->event;
}

int mount_tables_fingerprint(MountTables *t, MountFingerprint *ret) {
        return mount_fingerprint_read_fd(t->host_fd, ret);
}
