/* SPDX-License-Identifier: Apache-2.0 */
/* Opens of a container's files in CRI-O's store, checked (the design:
 * crio-store-file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/crio-store-file.h"
#include "host/crio.h"
#include "util/macro.h"

static CrioStoreFileSource store_source;
static void *store_source_userdata;

void crio_store_file_set_source(CrioStoreFileSource source, void *userdata) {
        store_source = source;
        store_source_userdata = userdata;
}

const char *crio_store_file_name(CrioStoreFile f) {
        switch (f) {
        case CRIO_STORE_FILE_CONFIG:
                return CRIO_CONFIG_FILE;
        case CRIO_STORE_FILE_PIDFILE:
                return CRIO_PIDFILE;
        }
        return NULL;
}

size_t crio_store_file_max(CrioStoreFile f) {
        switch (f) {
        case CRIO_STORE_FILE_CONFIG:
                return CRIO_CONFIG_MAX;
        case CRIO_STORE_FILE_PIDFILE:
                return CRIO_PIDFILE_MAX;
        }
        return 0;
}

/* One component below dir, never through a symlink. */
static int open_below(int dir, const char *name, int flags) {
        int fd = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);

        return fd < 0 ? -errno : fd;
}

int crio_store_file_open_direct(const char *containers_dir, const char *id, CrioStoreFile f, int *ret_fd) {
        _cleanup_close_ int top = -EBADF, entry = -EBADF, userdata = -EBADF, fd = -EBADF;
        const char *name = crio_store_file_name(f);
        struct stat st;

        if (!containers_dir || !name || !crio_id_valid(id))
                return -EINVAL;
        /* containers_dir is the configured store's (the admin's, not a
         * tenant's): followed as given; what is below it is not. */
        top = open(containers_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (top < 0)
                return -errno;
        if ((entry = open_below(top, id, O_RDONLY | O_DIRECTORY)) < 0)
                return entry;
        if ((userdata = open_below(entry, "userdata", O_RDONLY | O_DIRECTORY)) < 0)
                return userdata;
        if ((fd = open_below(userdata, name, O_RDONLY | O_NONBLOCK)) < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADMSG;
        if ((uint64_t) st.st_size > crio_store_file_max(f))
                return -EFBIG;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int crio_store_file_open(const char *containers_dir, const char *id, CrioStoreFile f, int *ret_fd) {
        if (store_source)
                return store_source(store_source_userdata, containers_dir, id, f, ret_fd);
        return crio_store_file_open_direct(containers_dir, id, f, ret_fd);
}
