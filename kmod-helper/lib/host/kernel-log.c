/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel log's newest records (see kernel-log.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host-root.h"
#include "host/kernel-log.h"
#include "util/macro.h"
#include "util/string-util.h"
#include "util/strv.h"

#define KMSG_RECORD_MAX 8192 /* one read(2) of /dev/kmsg returns one record, up to this */
#define KEEP 3

int kernel_log_open_tail(void) {
        _cleanup_free_ char *path = NULL;
        int fd, r;

        r = host_path("/dev/kmsg", &path);
        if (r < 0)
                return r;
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (lseek(fd, 0, SEEK_END) < 0) {
                r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

char *kernel_log_record_text(const char *record) {
        const char *semi = strchr(record, ';');
        size_t len;

        if (!semi || memchr(record, '\n', (size_t) (semi - record)))
                return NULL;
        semi++;
        len = strcspn(semi, "\n"); /* continuation lines are key=value metadata */
        return strndup(semi, len);
}

/* Adds the records of buf (one or, from a regular file, several). */
static int collect(char *buf, const char *match, char ***lines) {
        char *save = NULL;

        for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                _cleanup_free_ char *text = line[0] == ' ' ? NULL : kernel_log_record_text(line);

                if (!text || !strstr(text, match))
                        continue;
                if (strv_push(lines, TAKE_PTR(text)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int kernel_log_read_new(int fd, const char *match, char **ret) {
        _cleanup_strv_free_ char **lines = NULL;
        char buf[KMSG_RECORD_MAX + 1];
        size_t n;
        int r;

        for (unsigned i = 0; i < 4096; i++) { /* bounded: the log may grow while read */
                ssize_t k = read(fd, buf, KMSG_RECORD_MAX);

                if (k < 0 && errno == EPIPE)
                        continue; /* records overwritten meanwhile: go on with the next */
                if (k <= 0)
                        break;
                buf[k] = '\0';
                if ((r = collect(buf, match, &lines)) < 0)
                        return r;
        }
        n = strv_length(lines);
        if (n == 0) {
                *ret = NULL;
                return 0;
        }
        *ret = strv_join(lines + (n > KEEP ? n - KEEP : 0), "; ");
        return *ret ? 0 : -ENOMEM;
}
