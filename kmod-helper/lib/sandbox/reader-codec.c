/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader's messages (the format: reader-codec.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "host/crio.h"
#include "sandbox/reader-codec.h"

#define ERRNO_MAX 4095

static void put16(uint8_t *p, uint16_t v) {
        p[0] = (uint8_t) v;
        p[1] = (uint8_t) (v >> 8);
}

static void put32(uint8_t *p, uint32_t v) {
        for (int i = 0; i < 4; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v) {
        for (int i = 0; i < 8; i++)
                p[i] = (uint8_t) (v >> (8 * i));
}

static uint16_t get16(const uint8_t *p) {
        return (uint16_t) (p[0] | (p[1] << 8));
}

static uint32_t get32(const uint8_t *p) {
        uint32_t v = 0;

        for (int i = 3; i >= 0; i--)
                v = (v << 8) | p[i];
        return v;
}

static uint64_t get64(const uint8_t *p) {
        uint64_t v = 0;

        for (int i = 7; i >= 0; i--)
                v = (v << 8) | p[i];
        return v;
}

static bool all_zero(const uint8_t *p, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (p[i])
                        return false;
        return true;
}

static void header(uint8_t *buf, uint32_t magic, uint16_t kind) {
        memset(buf, 0, READER_MSG_SIZE);
        put32(buf, magic);
        put16(buf + 4, READER_VERSION);
        put16(buf + 6, kind);
}

/* c is a lowercase hex digit (crio_id_valid has said so). */
static unsigned hex_value(char c) {
        return c >= 'a' ? (unsigned) (c - 'a' + 10) : (unsigned) (c - '0');
}

/* A file type as lstat gives it, shifted (S_IFMT >> 12): one of seven. */
static bool type_valid(uint32_t t) {
        return t == S_IFIFO >> 12 || t == S_IFCHR >> 12 || t == S_IFDIR >> 12 || t == S_IFBLK >> 12 ||
               t == S_IFREG >> 12 || t == S_IFLNK >> 12 || t == S_IFSOCK >> 12;
}

static void put_id(uint8_t *p, const char *id) {
        for (size_t i = 0; i < 32; i++)
                p[i] = (uint8_t) (hex_value(id[2 * i]) << 4 | hex_value(id[2 * i + 1]));
}

static void get_id(const uint8_t *p, char id[static 65]) {
        static const char hex[] = "0123456789abcdef";

        for (size_t i = 0; i < 32; i++) {
                id[2 * i] = hex[p[i] >> 4];
                id[2 * i + 1] = hex[p[i] & 0xf];
        }
        id[64] = '\0';
}

static bool pid_valid(int64_t pid) {
        return pid > 0 && pid <= PROCESS_PID_MAX;
}

int reader_request_encode(const ReaderRequest *q, uint8_t buf[static READER_MSG_SIZE]) {
        switch (q->type) {
        case READER_REQUEST_SCAN_FDS:
                header(buf, READER_MAGIC_REQUEST, (uint16_t) q->type);
                return 0;
        case READER_REQUEST_OPEN_DEVICE:
                if (!device_open_name_valid(q->device_kind, q->device_name))
                        return -EINVAL;
                header(buf, READER_MAGIC_REQUEST, (uint16_t) q->type);
                put32(buf + 8, (uint32_t) q->device_kind);
                memcpy(buf + 32, q->device_name, strlen(q->device_name));
                return 0;
        case READER_REQUEST_OPEN_STORE_FILE:
                if (!crio_store_file_name(q->store_file) || !crio_id_valid(q->store_id))
                        return -EINVAL;
                header(buf, READER_MAGIC_REQUEST, (uint16_t) q->type);
                put32(buf + 8, (uint32_t) q->store_file);
                put_id(buf + 32, q->store_id);
                return 0;
        case READER_REQUEST_LOOK_PATH:
        case READER_REQUEST_WATCH_PATH:
                if (!private_path_valid(q->path, q->store_id) ||
                    (q->path == PRIVATE_PATH_STORE && q->store_id[0] != '\0'))
                        return -EINVAL;
                header(buf, READER_MAGIC_REQUEST, (uint16_t) q->type);
                put32(buf + 8, (uint32_t) q->path);
                if (q->type == READER_REQUEST_WATCH_PATH)
                        put32(buf + 12, q->climb ? 1U : 0U);
                else if (q->climb)
                        return -EINVAL;
                if (q->path != PRIVATE_PATH_STORE)
                        put_id(buf + 32, q->store_id);
                return 0;
        case READER_REQUEST_OPEN_STORE:
                header(buf, READER_MAGIC_REQUEST, (uint16_t) q->type);
                return 0;
        case READER_REQUEST_OPEN_SYSCALL:
                if (!proc_syscall_pid_valid(q->pid))
                        return -EINVAL;
                header(buf, READER_MAGIC_REQUEST, (uint16_t) q->type);
                put32(buf + 8, (uint32_t) q->pid);
                return 0;
        }
        return -EINVAL;
}

/* n bytes at p: a string and its NUL, then nothing but NULs. */
static bool nul_padded(const uint8_t *p, size_t n) {
        const uint8_t *nul = memchr(p, '\0', n);

        return nul && all_zero(nul, (size_t) (p + n - nul));
}

/* The kind, then the name: checked here as the reader's open checks it
 * again (device_open_direct), so a name with a '/' or a ".." never gets
 * as far as a path. */
static int decode_open_device(const uint8_t *buf, ReaderRequest *ret) {
        ReaderRequest q = { .type = READER_REQUEST_OPEN_DEVICE };
        uint32_t kind = get32(buf + 8);

        if (!all_zero(buf + 12, 32 - 12) || !nul_padded(buf + 32, DEVICE_OPEN_NAME_MAX))
                return -EBADMSG;
        if (kind != DEVICE_OPEN_CONTROLLER && kind != DEVICE_OPEN_EXCLUSIVE)
                return -EBADMSG;
        q.device_kind = (DeviceOpenKind) kind;
        memcpy(q.device_name, buf + 32, DEVICE_OPEN_NAME_MAX);
        if (!device_open_name_valid(q.device_kind, q.device_name))
                return -EBADMSG;
        *ret = q;
        return 0;
}

/* The file, then the id: written back as hex here, so whatever the 32
 * bytes are, the id is 64 lowercase hex digits and names one directory. */
static int decode_open_store_file(const uint8_t *buf, ReaderRequest *ret) {
        ReaderRequest q = { .type = READER_REQUEST_OPEN_STORE_FILE };
        uint32_t file = get32(buf + 8);

        if (!all_zero(buf + 12, 32 - 12) || !crio_store_file_name((CrioStoreFile) file))
                return -EBADMSG;
        q.store_file = (CrioStoreFile) file;
        get_id(buf + 32, q.store_id);
        *ret = q;
        return 0;
}

/* A kind of the closed list, then the id (written back as hex, as above;
 * none for the store itself: 32 zero bytes), then climb (WATCH_PATH: 0 or
 * 1; LOOK_PATH: 0). */
static int decode_path(const uint8_t *buf, ReaderRequestType type, ReaderRequest *ret) {
        ReaderRequest q = { .type = type };
        uint32_t kind = get32(buf + 8), climb = get32(buf + 12);

        if (!all_zero(buf + 16, 32 - 16) || kind < PRIVATE_PATH_STORE || kind > PRIVATE_PATH_MAX_KIND ||
            climb > (type == READER_REQUEST_WATCH_PATH ? 1U : 0U))
                return -EBADMSG;
        q.path = (PrivatePath) kind;
        q.climb = climb == 1;
        if (q.path == PRIVATE_PATH_STORE) {
                if (!all_zero(buf + 32, 32))
                        return -EBADMSG;
        } else
                get_id(buf + 32, q.store_id);
        if (!private_path_valid(q.path, q.store_id))
                return -EBADMSG;
        *ret = q;
        return 0;
}

int reader_request_decode(const uint8_t *buf, size_t len, ReaderRequest *ret) {
        if (len != READER_MSG_SIZE || get32(buf) != READER_MAGIC_REQUEST || get16(buf + 4) != READER_VERSION)
                return -EBADMSG;
        switch (get16(buf + 6)) {
        case READER_REQUEST_SCAN_FDS:
                if (!all_zero(buf + 8, READER_MSG_SIZE - 8))
                        return -EBADMSG;
                *ret = (ReaderRequest) { .type = READER_REQUEST_SCAN_FDS };
                return 0;
        case READER_REQUEST_OPEN_DEVICE:
                return decode_open_device(buf, ret);
        case READER_REQUEST_OPEN_STORE_FILE:
                return decode_open_store_file(buf, ret);
        case READER_REQUEST_LOOK_PATH:
                return decode_path(buf, READER_REQUEST_LOOK_PATH, ret);
        case READER_REQUEST_WATCH_PATH:
                return decode_path(buf, READER_REQUEST_WATCH_PATH, ret);
        case READER_REQUEST_OPEN_STORE:
                if (!all_zero(buf + 8, READER_MSG_SIZE - 8))
                        return -EBADMSG;
                *ret = (ReaderRequest) { .type = READER_REQUEST_OPEN_STORE };
                return 0;
        case READER_REQUEST_OPEN_SYSCALL: {
                uint32_t pid = get32(buf + 8);

                if (!all_zero(buf + 12, READER_MSG_SIZE - 12) || pid > PROCESS_PID_MAX ||
                    !proc_syscall_pid_valid((pid_t) pid))
                        return -EBADMSG;
                *ret = (ReaderRequest) { .type = READER_REQUEST_OPEN_SYSCALL, .pid = (pid_t) pid };
                return 0;
        }
        default:
                return -EBADMSG;
        }
}

static bool fd_valid(const ProcessFd *f) {
        if (!pid_valid(f->pid) || f->fd < 0 || (!f->has_rdev && f->rdev != 0) || (f->has_rdev && f->rdev == 0))
                return false;
        if (memchr(f->name, '\0', sizeof(f->name)) == NULL)
                return false;
        if (f->name[0] && !process_fd_name_valid(f->name))
                return false;
        return f->has_rdev || f->name[0]; /* a record says something */
}

int reader_record_encode(const ReaderRecord *r, uint8_t buf[static READER_MSG_SIZE]) {
        switch (r->kind) {
        case READER_RECORD_FD:
                if (!fd_valid(&r->fd))
                        return -EINVAL;
                header(buf, READER_MAGIC_REPLY, READER_RECORD_FD);
                put32(buf + 8, (uint32_t) r->fd.pid);
                put32(buf + 12, (uint32_t) r->fd.fd);
                put64(buf + 16, (uint64_t) r->fd.rdev);
                buf[24] = r->fd.has_rdev;
                memcpy(buf + 32, r->fd.name, strlen(r->fd.name));
                return 0;
        case READER_RECORD_UNREADABLE:
                if (!pid_valid(r->unreadable.pid) || r->unreadable.error <= 0 || r->unreadable.error > ERRNO_MAX)
                        return -EINVAL;
                header(buf, READER_MAGIC_REPLY, READER_RECORD_UNREADABLE);
                put32(buf + 8, (uint32_t) r->unreadable.pid);
                put32(buf + 12, (uint32_t) r->unreadable.error);
                return 0;
        case READER_RECORD_END:
                if (r->status > 0 || r->status < -ERRNO_MAX || r->n_fds > PROCESS_FDS_MAX ||
                    r->n_unreadable > PROCESS_UNREADABLE_MAX)
                        return -EINVAL;
                header(buf, READER_MAGIC_REPLY, READER_RECORD_END);
                put32(buf + 8, (uint32_t) r->status);
                put32(buf + 12, r->n_fds);
                put64(buf + 16, r->n_unreadable);
                return 0;
        case READER_RECORD_OPENED:
                if (r->status > 0 || r->status < -ERRNO_MAX)
                        return -EINVAL;
                header(buf, READER_MAGIC_REPLY, READER_RECORD_OPENED);
                put32(buf + 8, (uint32_t) r->status);
                return 0;
        case READER_RECORD_RELEASED:
                header(buf, READER_MAGIC_REPLY, READER_RECORD_RELEASED);
                return 0;
        case READER_RECORD_LOOKED: {
                uint32_t t = (uint32_t) r->look.type >> 12;

                if (r->status > 0 || r->status < -ERRNO_MAX || (r->status == 0 && !type_valid(t)) ||
                    (r->status < 0 && (t != 0 || r->look.mtime_usec != 0)) || ((uint32_t) r->look.type & 07777))
                        return -EINVAL;
                header(buf, READER_MAGIC_REPLY, READER_RECORD_LOOKED);
                put32(buf + 8, (uint32_t) r->status);
                put32(buf + 12, t);
                put64(buf + 16, r->look.mtime_usec);
                return 0;
        }
        case READER_RECORD_WATCHED:
                if (r->status > 0 || r->status < -ERRNO_MAX || (r->status == 0 && r->wd < 1) ||
                    (r->status < 0 && (r->wd != 0 || r->up != 0)) || r->wd < 0 || r->up > PRIVATE_PATH_UP_MAX)
                        return -EINVAL;
                header(buf, READER_MAGIC_REPLY, READER_RECORD_WATCHED);
                put32(buf + 8, (uint32_t) r->status);
                put32(buf + 12, (uint32_t) r->wd);
                put64(buf + 16, r->up);
                return 0;
        }
        return -EINVAL;
}

static int decode_fd(const uint8_t *buf, ReaderRecord *ret) {
        ProcessFd f = {};
        uint32_t pid = get32(buf + 8), fd = get32(buf + 12);
        uint64_t rdev = get64(buf + 16);

        if (buf[24] > 1 || !all_zero(buf + 25, 7) || pid > PROCESS_PID_MAX || fd > (uint32_t) INT32_MAX)
                return -EBADMSG;
        f.pid = (pid_t) pid;
        f.fd = (int) fd;
        f.has_rdev = buf[24];
        f.rdev = (dev_t) rdev;
        if ((uint64_t) f.rdev != rdev)
                return -EBADMSG;
        memcpy(f.name, buf + 32, sizeof(f.name));
        if (!nul_padded(buf + 32, sizeof(f.name)))
                return -EBADMSG;
        if (!fd_valid(&f))
                return -EBADMSG;
        *ret = (ReaderRecord) { .kind = READER_RECORD_FD, .fd = f };
        return 0;
}

int reader_record_decode(const uint8_t *buf, size_t len, ReaderRecord *ret) {
        uint32_t a, b;
        uint64_t c;

        if (len != READER_MSG_SIZE || get32(buf) != READER_MAGIC_REPLY || get16(buf + 4) != READER_VERSION)
                return -EBADMSG;
        a = get32(buf + 8);
        b = get32(buf + 12);
        c = get64(buf + 16);
        switch (get16(buf + 6)) {
        case READER_RECORD_FD:
                return decode_fd(buf, ret);
        case READER_RECORD_UNREADABLE:
                if (!pid_valid(a) || b == 0 || b > ERRNO_MAX || c != 0 || !all_zero(buf + 24, READER_MSG_SIZE - 24))
                        return -EBADMSG;
                *ret = (ReaderRecord) { .kind = READER_RECORD_UNREADABLE,
                                        .unreadable = { .pid = (pid_t) a, .error = (int) b } };
                return 0;
        case READER_RECORD_END: {
                int32_t status = (int32_t) a;

                if (status > 0 || status < -ERRNO_MAX || b > PROCESS_FDS_MAX || c > PROCESS_UNREADABLE_MAX ||
                    !all_zero(buf + 24, READER_MSG_SIZE - 24))
                        return -EBADMSG;
                *ret = (ReaderRecord) { .kind = READER_RECORD_END, .status = status, .n_fds = b,
                                        .n_unreadable = (uint32_t) c };
                return 0;
        }
        case READER_RECORD_OPENED: {
                int32_t status = (int32_t) a;

                if (status > 0 || status < -ERRNO_MAX || b != 0 || c != 0 || !all_zero(buf + 24, READER_MSG_SIZE - 24))
                        return -EBADMSG;
                *ret = (ReaderRecord) { .kind = READER_RECORD_OPENED, .status = status };
                return 0;
        }
        case READER_RECORD_RELEASED:
                if (!all_zero(buf + 8, READER_MSG_SIZE - 8))
                        return -EBADMSG;
                *ret = (ReaderRecord) { .kind = READER_RECORD_RELEASED };
                return 0;
        case READER_RECORD_LOOKED: {
                int32_t status = (int32_t) a;

                if (status > 0 || status < -ERRNO_MAX || !all_zero(buf + 24, READER_MSG_SIZE - 24))
                        return -EBADMSG;
                if (status == 0 ? !type_valid(b) : (b != 0 || c != 0))
                        return -EBADMSG;
                *ret = (ReaderRecord) { .kind = READER_RECORD_LOOKED, .status = status,
                                        .look = { .type = (mode_t) (b << 12), .mtime_usec = c } };
                return 0;
        }
        case READER_RECORD_WATCHED: {
                int32_t status = (int32_t) a;

                if (status > 0 || status < -ERRNO_MAX || !all_zero(buf + 24, READER_MSG_SIZE - 24))
                        return -EBADMSG;
                if (status == 0 ? (b < 1 || b > (uint32_t) INT32_MAX || c > PRIVATE_PATH_UP_MAX) : (b != 0 || c != 0))
                        return -EBADMSG;
                *ret = (ReaderRecord) { .kind = READER_RECORD_WATCHED, .status = status, .wd = (int) b,
                                        .up = (unsigned) c };
                return 0;
        }
        default:
                return -EBADMSG;
        }
}
