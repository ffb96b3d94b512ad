/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's request file and serving it (see fabrics-request.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/fabrics-capture.h"
#include "actions/fabrics-reconnect.h"
#include "actions/fabrics-request.h"
#include "actions/fabrics-result.h"
#include "host/host-root.h"
#include "nvme/fabrics-paths.h"
#include "util/fileio.h"
#include "util/parse-util.h"
#include "util/string-util.h"

static int line_error(char **ret_error, const char *path, unsigned line, const char *what, const char *value) {
        if (ret_error && !(*ret_error = strdup_printf("%s:%u: %s%s%.64s%s", path, line, what, value ? " \"" : "",
                                                       value ?: "", value ? "\"" : "")))
                return -ENOMEM;
        return -EBADMSG;
}

static bool is_decimal(const char *s) {
        return *s && strspn(s, "0123456789") == strlen(s);
}

int fabrics_request_parse(const char *text, const char *path, FabricsRequest *ret, char **ret_error) {
        FabricsRequest req = { .verb = _FABRICS_VERB_INVALID };
        bool have_token = false;
        unsigned line = 0;
        const char *p = text ?: "";

        *ret = (FabricsRequest) { .verb = _FABRICS_VERB_INVALID };
        while (*p) {
                size_t len = strcspn(p, "\n");
                _cleanup_free_ char *l = strndup(p, len);
                char *eq;

                line++;
                if (!l)
                        return -ENOMEM;
                p += len + (p[len] == '\n');
                eq = strchr(l, '=');
                if (!eq)
                        return line_error(ret_error, path, line, "not key=value:", l);
                *eq = '\0';
                if (streq(l, "verb")) {
                        if (req.verb >= 0)
                                return line_error(ret_error, path, line, "verb given twice", NULL);
                        req.verb = fabrics_verb_from_string(eq + 1);
                        if (req.verb < 0)
                                return line_error(ret_error, path, line, "verb: not capture or connect:", eq + 1);
                } else if (streq(l, "token")) {
                        if (have_token)
                                return line_error(ret_error, path, line, "token given twice", NULL);
                        if (!is_decimal(eq + 1) || safe_atou64(eq + 1, &req.token) < 0)
                                return line_error(ret_error, path, line, "token: not a decimal number:", eq + 1);
                        have_token = true;
                        ret->token = req.token;
                } else
                        return line_error(ret_error, path, line, "unknown key:", l);
        }
        if (req.verb < 0 || !have_token)
                return line_error(ret_error, path, line + 1, req.verb < 0 ? "no verb= line" : "no token= line", NULL);
        *ret = req;
        return 0;
}

/* Removes what is at name in dfd, a directory with everything in it
 * (depth bounded: a request is a file; never following a symlink). */
static int remove_at(int dfd, const char *name, unsigned depth) {
        _cleanup_close_ int sub = -EBADF;
        DIR *d;
        struct dirent *de;
        int r = 0;

        if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
                return 0;
        if (errno != EISDIR && errno != EPERM)
                return -errno;
        if (depth > 8)
                return -ELOOP;
        sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
                return -errno;
        d = fdopendir(sub);
        if (!d)
                return -errno;
        sub = -EBADF; /* the DIR owns it now */
        while (r == 0 && (de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        r = remove_at(dirfd(d), de->d_name, depth + 1);
        closedir(d);
        if (r < 0)
                return r;
        return unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT ? -errno : 0;
}

static const char *type_name(mode_t mode) {
        return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO" : S_ISLNK(mode) ? "a symbolic link"
               : S_ISSOCK(mode) ? "a socket" : S_ISCHR(mode) || S_ISBLK(mode) ? "a device node" : "not a regular file";
}

/* The request's text; anything at the path that is not a regular file of
 * at most FABRICS_REQUEST_MAX bytes (a directory, a FIFO, a symlink, a
 * device node, a big file) is removed unread and answered: while anything
 * is there the path unit starts us again, and a request we cannot remove
 * would run into its start limit, which stops all later requests. */
static int read_request(const char *path, FabricsRequest *req, char **ret_error) {
        _cleanup_free_ char *full = NULL, *text = NULL, *dir = NULL;
        _cleanup_close_ int fd = -EBADF, dfd = -EBADF;
        const char *base, *refused = NULL;
        struct stat st;
        int r;

        if ((r = host_path(path, &full)) < 0)
                return r;
        base = strrchr(full, '/') + 1;
        if (!(dir = strndup(full, (size_t) (base - full))))
                return -ENOMEM;
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return (*ret_error = strdup_printf("%s: %s", path, strerror(errno))) ? -EBADMSG : -ENOMEM;
        /* O_NONBLOCK: a FIFO must not hold us; O_NOFOLLOW: never a symlink's target */
        fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 && errno != ELOOP && errno != ENXIO && errno != EISDIR)
                return (*ret_error = strdup_printf("%s: %s", path, strerror(errno))) ? -EBADMSG : -ENOMEM;
        if (fd >= 0 ? fstat(fd, &st) < 0 : fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return (*ret_error = strdup_printf("%s: %s", path, strerror(errno))) ? -EBADMSG : -ENOMEM;
        if (!S_ISREG(st.st_mode))
                refused = type_name(st.st_mode);
        else if ((uint64_t) st.st_size > FABRICS_REQUEST_MAX)
                refused = "over 4 KiB";
        else if ((r = read_regular_fd(fd, FABRICS_REQUEST_MAX, &text, NULL)) < 0)
                return r == -ENOMEM || !(*ret_error = strdup_printf("%s: %s", path, strerror(-r))) ? -ENOMEM : -EBADMSG;
        closep(&fd);
        fd = -EBADF;
        /* Before acting: the path unit starts us again while it exists. */
        r = remove_at(dfd, base, 0);
        if (r < 0)
                return (*ret_error = strdup_printf("%s: %s%s, cannot remove it: %s", path, refused ? "is " : "",
                                                   refused ?: "", strerror(-r))) ? -EBADMSG : -ENOMEM;
        if (refused)
                return (*ret_error = strdup_printf("%s: is %s, not a request: removed unread", path, refused)) ? -EBADMSG
                                                                                                            : -ENOMEM;
        return fabrics_request_parse(text, path, req, ret_error);
}

int fabrics_serve_request(const char *path, uint64_t (*now)(void), FabricsPassResult **ret_result, char **ret_error) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *res = NULL;
        _cleanup_free_ char *error = NULL;
        FabricsRequest req = { .verb = _FABRICS_VERB_INVALID };
        int r, exit_code;

        r = read_request(path, &req, &error);
        if (r == -ENOMEM)
                return r;
        if (r >= 0) {
                r = req.verb == FABRICS_VERB_CAPTURE ? fabrics_capture_pass(now(), &res) : fabrics_connect_pass_due(now(), &res);
                if (r < 0)
                        return r;
        }
        exit_code = res ? res->exit_code : FABRICS_EXIT_ERROR;
        r = fabrics_result_write(res, req.verb, req.token, now(), error);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* The daemon waits for this file: without it, it only sees its deadline pass. */
                free(error);
                error = strdup_printf("%s: %s", FABRICS_RESULT_PATH, strerror(-r));
                if (!error)
                        return -ENOMEM;
                exit_code = FABRICS_EXIT_ERROR;
        }
        if (ret_result)
                *ret_result = TAKE_PTR(res);
        if (ret_error)
                *ret_error = TAKE_PTR(error);
        return exit_code;
}
