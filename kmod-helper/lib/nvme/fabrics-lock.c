/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics record's lock (see fabrics-lock.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/host-root.h"
#include "nvme/fabrics-lock.h"
#include "util/fileio.h"

/* flock() has no timeout of its own and a SIGALRM would reach the caller's
 * handlers: a bounded wait tries again every 50 ms. */
#define LOCK_STEP_MSEC 50u

int fabrics_lock_take(unsigned wait_msec, int *ret_fd) {
        _cleanup_free_ char *dir = NULL, *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        unsigned waited = 0;
        int r;

        if ((r = host_path(FABRICS_STATE_DIR, &dir)) < 0 || (r = host_path(FABRICS_LOCK_PATH, &path)) < 0)
                return r;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno == EINTR)
                        continue;
                if (errno != EWOULDBLOCK)
                        return -errno;
                if (waited >= wait_msec)
                        return -EWOULDBLOCK;
                nanosleep(&(struct timespec) { .tv_nsec = LOCK_STEP_MSEC * 1000000L }, NULL);
                waited += LOCK_STEP_MSEC;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}
