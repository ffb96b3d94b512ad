/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged reader's decoders (sandbox/reader-codec.h): the request, as
 * the reader decodes what a taken-over daemon sends it (a scan, a device to
 * open by kind and name, a store file by id, a look at or a watch on a
 * root-only path by kind and id, the store's listing, a process's
 * /proc/<pid>/syscall by pid), and the records, as
 * the daemon decodes what a confused reader answers. The input is cut into
 * 64-byte messages (its last piece may be short, as a datagram can be).
 * What either decoder accepts must encode back to the same bytes and pass
 * the checks its user relies on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "host/crio.h"
#include "host/private-path.h"
#include "host/proc-syscall.h"
#include "sandbox/reader-codec.h"
#include "usage/device-open.h"
#include "usage/process-fds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_record(const uint8_t *msg, size_t len) {
        uint8_t again[READER_MSG_SIZE];
        ReaderRecord r;

        if (reader_record_decode(msg, len, &r) < 0)
                return;
        if ((r.kind == READER_RECORD_OPENED || r.kind == READER_RECORD_LOOKED || r.kind == READER_RECORD_WATCHED) &&
            (r.status > 0 || r.status < -4095))
                abort();
        /* A look's type is a file type, and none with a failure. */
        if (r.kind == READER_RECORD_LOOKED && (r.status == 0 ? (r.look.type & ~S_IFMT) || r.look.type == 0
                                                             : r.look.type != 0 || r.look.mtime_usec != 0))
                abort();
        /* A watch descriptor with a success only; never further up than the bound. */
        if (r.kind == READER_RECORD_WATCHED &&
            ((r.status == 0 ? r.wd < 1 : r.wd != 0) || r.up > PRIVATE_PATH_UP_MAX))
                abort();
        if (r.kind == READER_RECORD_FD) {
                if (r.fd.pid <= 0 || r.fd.pid > PROCESS_PID_MAX || r.fd.fd < 0)
                        abort();
                if (memchr(r.fd.name, '\0', sizeof(r.fd.name)) == NULL)
                        abort();
                if (r.fd.name[0] && !process_fd_name_valid(r.fd.name))
                        abort();
        }
        if (reader_record_encode(&r, again) < 0 || memcmp(again, msg, READER_MSG_SIZE) != 0)
                abort(); /* accepted, so canonical */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        for (size_t off = 0; off < size; off += READER_MSG_SIZE) {
                size_t len = size - off < READER_MSG_SIZE ? size - off : READER_MSG_SIZE;
                uint8_t again[READER_MSG_SIZE];
                ReaderRequest q;

                if (reader_request_decode(data + off, len, &q) == 0) {
                        if (q.type != READER_REQUEST_SCAN_FDS && q.type != READER_REQUEST_OPEN_DEVICE &&
                            q.type != READER_REQUEST_OPEN_STORE_FILE && q.type != READER_REQUEST_LOOK_PATH &&
                            q.type != READER_REQUEST_WATCH_PATH && q.type != READER_REQUEST_OPEN_STORE &&
                            q.type != READER_REQUEST_OPEN_SYSCALL)
                                abort();
                        /* The pid the reader makes a /proc path of. */
                        if (q.type == READER_REQUEST_OPEN_SYSCALL && !proc_syscall_pid_valid(q.pid))
                                abort();
                        /* A path of the closed list, and an id the reader
                         * makes a directory name of (none for the store). */
                        if ((q.type == READER_REQUEST_LOOK_PATH || q.type == READER_REQUEST_WATCH_PATH) &&
                            (!private_path_valid(q.path, q.store_id) ||
                             (q.path == PRIVATE_PATH_STORE ? q.store_id[0] != '\0' : !crio_id_valid(q.store_id)) ||
                             (q.type == READER_REQUEST_LOOK_PATH && q.climb)))
                                abort();
                        /* The id the reader makes a directory name of. */
                        if (q.type == READER_REQUEST_OPEN_STORE_FILE &&
                            (!crio_id_valid(q.store_id) || !crio_store_file_name(q.store_file)))
                                abort();
                        /* The name the reader makes a path of: the kind's
                         * kernel name, no '/' and no "..". */
                        if (q.type == READER_REQUEST_OPEN_DEVICE &&
                            (!device_open_name_valid(q.device_kind, q.device_name) || strchr(q.device_name, '/') ||
                             strstr(q.device_name, "..")))
                                abort();
                        if (reader_request_encode(&q, again) < 0 || memcmp(again, data + off, READER_MSG_SIZE) != 0)
                                abort();
                }
                check_record(data + off, len);
        }
        return 0;
}
