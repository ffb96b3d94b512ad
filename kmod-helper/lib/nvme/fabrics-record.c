/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics record on disk (see fabrics-record.h; its JSON is
 * fabrics-record-json.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "nvme/fabrics-record-json.h"
#include "nvme/fabrics-record.h"
#include "util/fileio.h"
#include "util/json-util.h"
#include "util/string-util.h"

/* A record is a few KB per connection; anything far larger is not ours. */
#define FABRICS_RECORD_MAX (4u * 1024u * 1024u)
/* record.json.corrupt.1 .. .N: past that, something keeps writing garbage. */
#define CORRUPT_KEEP_MAX 100

static int make_dir(void) {
        _cleanup_free_ char *dir = NULL;
        int r = host_path(FABRICS_STATE_DIR, &dir);

        if (r < 0)
                return r;
        return mkdir(dir, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

int fabrics_record_save(const FabricsTopology *t) {
        _cleanup_json_ json_object *o = NULL;
        _cleanup_free_ char *path = NULL, *text = NULL;
        int r;

        if (!t || t->n_controllers == 0)
                return fabrics_record_remove();
        if ((r = host_path(FABRICS_RECORD_PATH, &path)) < 0 || (r = make_dir()) < 0 ||
            (r = fabrics_record_to_json(t, &o)) < 0 || (r = json_to_text(o, &text)) < 0)
                return r;
        return write_file_atomic(path, text, 0644);
}

int fabrics_record_load(FabricsTopology **ret, char **ret_error) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        int r;

        r = host_path(FABRICS_RECORD_PATH, &path);
        if (r < 0)
                return r;
        r = read_regular_file(path, FABRICS_RECORD_MAX, &text, NULL);
        if (r == -ENOENT)
                return r;
        if (r < 0) {
                if (ret_error)
                        *ret_error = strdup_printf("%s: %s", path, strerror(-r));
                return r;
        }
        return fabrics_record_parse(text, path, ret, ret_error);
}

int fabrics_record_set_aside(char **ret_path) {
        _cleanup_free_ char *path = NULL;
        int r = host_path(FABRICS_RECORD_PATH, &path);

        if (r < 0)
                return r;
        for (unsigned i = 0; i <= CORRUPT_KEEP_MAX; i++) {
                _cleanup_free_ char *aside = i == 0 ? strdup_printf("%s.corrupt", path)
                                                    : strdup_printf("%s.corrupt.%u", path, i);

                if (!aside)
                        return -ENOMEM;
                /* Never over an earlier one: each may be what someone is looking at. */
                if (renameat2(AT_FDCWD, path, AT_FDCWD, aside, RENAME_NOREPLACE) == 0) {
                        if (ret_path)
                                *ret_path = TAKE_PTR(aside);
                        return 0;
                }
                if (errno != EEXIST)
                        return -errno;
        }
        return -EEXIST;
}

int fabrics_record_remove(void) {
        _cleanup_free_ char *path = NULL;
        int r = host_path(FABRICS_RECORD_PATH, &path);

        if (r < 0)
                return r;
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

int fabrics_record_exists(void) {
        _cleanup_free_ char *path = NULL;
        int r = host_path(FABRICS_RECORD_PATH, &path);

        return r < 0 ? r : path_exists(path);
}
