/* SPDX-License-Identifier: Apache-2.0 */
/* The node labels' copier (cli-labels.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli-labels.h"
#include "host/host-root.h"
#include "report/node-labels.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

static const char *program = "nvme-swapguard-kmod";

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* Our file in dirfd, gone; 0 when it was not there. */
static int unpublish(int dirfd) {
        if (unlinkat(dirfd, NODE_LABELS_FILE_NAME, 0) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

/* A dot-file first, complete and synced, then renamed over ours: nfd-worker
 * reads the old file or the new one, never a part, and skips dot-files. */
static int publish(const char *dir, int dirfd, const char *text) {
        _cleanup_free_ char *tmp = NULL;
        size_t n = strlen(text);
        int fd, r = 0;

        if (asprintf(&tmp, "%s/." NODE_LABELS_FILE_NAME ".XXXXXX", dir) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC); /* O_EXCL, 0600 */
        if (fd < 0)
                return -errno;
        if (write(fd, text, n) != (ssize_t) n)
                r = errno ? -errno : -EIO;
        if (r >= 0 && fchmod(fd, 0644) < 0) /* nfd-worker reads it; nothing in it is secret */
                r = -errno;
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        close(fd);
        if (r >= 0 && renameat(AT_FDCWD, tmp, dirfd, NODE_LABELS_FILE_NAME) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlink(tmp);
                return r;
        }
        (void) fsync(dirfd);
        return 0;
}

static int labels_publish(const char *source_arg, const char *dir_arg) {
        _cleanup_free_ char *source = NULL, *dir = NULL, *text = NULL, *out = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        const char *reason = NULL;
        NodeLabelsFile f;
        unsigned line = 0;
        uint64_t now = now_usec();
        size_t size = 0;
        int r;

        if (host_path(source_arg, &source) < 0 || host_path(dir_arg, &dir) < 0)
                return EXIT_FAILURE;
        dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0) {
                if (errno == ENOENT || errno == ENOTDIR) {
                        printf("No %s (Node Feature Discovery is not on this node): no labels published.\n", dir);
                        return EXIT_SUCCESS;
                }
                fprintf(stderr, "%s: labels: cannot open %s: %s\n", program, dir, strerror(errno));
                return EXIT_FAILURE;
        }
        /* Not followed if a link, not waited on if a FIFO: the directory is the daemon's. */
        r = read_regular_file(source, NODE_LABELS_FILE_MAX, &text, &size);
        if (r == -ENOENT) {
                r = unpublish(dirfd);
                if (r < 0) {
                        fprintf(stderr, "%s: labels: cannot remove %s/%s: %s\n", program, dir, NODE_LABELS_FILE_NAME,
                                strerror(-r));
                        return EXIT_FAILURE;
                }
                printf("No %s (the daemon publishes no labels): %s/%s removed.\n", source, dir, NODE_LABELS_FILE_NAME);
                return EXIT_SUCCESS;
        }
        if (r == -ELOOP || r == -EBADMSG || r == -EFBIG) {
                line = 0;
                reason = r == -ELOOP ? "a symbolic link, not the daemon's file" :
                         r == -EFBIG ? "larger than nvme-swapguard ever writes it" : "not a regular file";
                r = -EBADMSG;
        } else if (r < 0) {
                fprintf(stderr, "%s: labels: cannot read %s: %s\n", program, source, strerror(-r));
                return EXIT_FAILURE;
        } else
                r = node_labels_check(text, size, now, &f, &line, &reason);
        if (r == -EBADMSG) {
                if (line > 0)
                        fprintf(stderr, "%s: labels: %s:%u: refused: %s\n", program, source, line, reason);
                else
                        fprintf(stderr, "%s: labels: %s: refused: %s\n", program, source, reason);
                /* No label that nothing vouches for: what was published goes too. */
                r = unpublish(dirfd);
                fprintf(stderr, "%s: labels: %s/%s %s.\n", program, dir, NODE_LABELS_FILE_NAME,
                        r < 0 ? "could not be removed" : "removed");
                return EXIT_FAILURE;
        }
        if (r < 0) {
                fprintf(stderr, "%s: labels: %s: %s\n", program, source, strerror(-r));
                return EXIT_FAILURE;
        }
        r = node_labels_file_to_text(&f, now, &out);
        if (r >= 0)
                r = publish(dir, dirfd, out);
        if (r < 0) {
                fprintf(stderr, "%s: labels: cannot write %s/%s: %s\n", program, dir, NODE_LABELS_FILE_NAME, strerror(-r));
                return EXIT_FAILURE;
        }
        printf("Published %zu label(s) to %s/%s%s.\n", f.expiry_usec > now ? f.n : 0, dir, NODE_LABELS_FILE_NAME,
               f.expiry_usec > now ? "" : " (expired: none)");
        return EXIT_SUCCESS;
}

int cli_labels_verb(char **args) {
        size_t n = strv_length(args);

        if (n == 0 || !streq(args[0], "publish") || n > 3) {
                fprintf(stderr, "%s: labels publish [SOURCE [DIRECTORY]] (see --help)\n", program);
                return EXIT_FAILURE;
        }
        for (size_t i = 1; i < n; i++)
                if (args[i][0] != '/') {
                        fprintf(stderr, "%s: labels publish: '%s' is not an absolute path\n", program, args[i]);
                        return EXIT_FAILURE;
                }
        return labels_publish(n > 1 ? args[1] : NODE_LABELS_SOURCE, n > 2 ? args[2] : NODE_LABELS_DIR_DEFAULT);
}
