/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader's messages (the format: reader-codec.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
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
                for (size_t i = 0; i < 32; i++)
                        buf[32 + i] = (uint8_t) (hex_value(q->store_id[2 * i]) << 4 | hex_value(q->store_id[2 * i + 1]));
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
        static const char hex[] = "0123456789abcdef";
        ReaderRequest q = { .type = READER_REQUEST_OPEN_STORE_FILE };
        uint32_t file = get32(buf + 8);

        if (!all_zero(buf + 12, 32 - 12) || !crio_store_file_name((CrioStoreFile) file))
                return -EBADMSG;
        q.store_file = (CrioStoreFile) file;
        for (size_t i = 0; i < 32; i++) {
                q.store_id[2 * i] = hex[buf[32 + i] >> 4];
                q.store_id[2 * i + 1] = hex[buf[32 + i] & 0xf];
        }
        q.store_id[64] = '\0';
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
        default:
                return -EBADMSG;
        }
}
