/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader's end on the manager's loop (manager-reader.h). */
#include <stdlib.h>
#include <sys/epoll.h>

#include "manager-reader.h"
#include "manager-signals.h"
#include "manager-sources.h"
#include "publish/log.h"

static int on_reader_end(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;
        PrivilegedReaderEnd end;
        char how[256];
        int r;

        r = privileged_reader_ended(m->sources->reader, &end);
        if (r == 0)
                return 0; /* not reaped yet: the fd stays readable, asked again */
        (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        if (r < 0)
                log_error_errno(r, "Cannot tell how the privileged reader ended: %m");
        else
                log_error("The privileged reader (pid %d) is gone: %s. Without it no namespace can be checked and "
                          "the container store cannot be followed: stopping, to be restarted with a new one.",
                          (int) end.pid, privileged_reader_end_describe(&end, how, sizeof(how)));
        return manager_stop(m, EXIT_FAILURE);
}

int manager_reader_watch(Manager *m, PrivilegedReader *reader) {
        int fd = privileged_reader_end_fd(reader), r;

        if (fd < 0)
                return log_error_errno(fd, "Cannot watch the privileged reader's end (pidfd_open): %m");
        m->sources->reader = reader;
        r = sd_event_add_io(m->event, &m->sources->reader_end, fd, EPOLLIN, on_reader_end, m);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the privileged reader's end: %m");
        (void) sd_event_source_set_description(m->sources->reader_end, "reader-end");
        return 0;
}

void manager_reader_free(Manager *m) {
        if (m->sources)
                m->sources->reader_end = sd_event_source_disable_unref(m->sources->reader_end);
}
