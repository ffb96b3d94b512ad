/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The privileged reader's wire format (privileged-reader.h): fixed 64-byte
 * messages over a SOCK_SEQPACKET socketpair, one message per datagram,
 * little endian. Not JSON, not text: each side decodes what the other sent
 * as if an attacker wrote it (the daemon's identity may be taken over, and
 * the reader answers it; a confused reader must not make the daemon read
 * "free"), checking every field's range and every reserved byte.
 *
 *   0  u32 magic    READER_MAGIC_REQUEST or READER_MAGIC_REPLY
 *   4  u16 version  READER_VERSION
 *   6  u16 kind     a ReaderRequestType or a ReaderRecordKind
 *   8  u32 a        FD: pid; UNREADABLE: pid; END, OPENED, LOOKED and WATCHED:
 *                   status (int32, 0 or -errno); the OPEN_DEVICE request: a
 *                   DeviceOpenKind; the OPEN_STORE_FILE request: a
 *                   CrioStoreFile; LOOK_PATH and WATCH_PATH: a PrivatePath;
 *                   OPEN_SYSCALL: a pid
 *  12  u32 b        FD: fd;  UNREADABLE: errno; END: number of FD records;
 *                   WATCH_PATH: climb (0 or 1); LOOKED: the type (st_mode's
 *                   S_IFMT bits >> 12, 0 on a failure); WATCHED: the watch
 *                   descriptor (>= 1, 0 on a failure)
 *  16  u64 rdev     FD: st_rdev when has_rdev, else 0; END: number of UNREADABLE
 *                   records; LOOKED: st_mtim in microseconds; WATCHED: how
 *                   many directories above the path's parent the watch is
 *                   (at most PRIVATE_PATH_UP_MAX)
 *  24  u8  has_rdev FD only
 *  25  7 bytes      zero
 *  32  32 bytes     FD: the NVMe name (process_fd_name_valid) or "", NUL padded;
 *                   the OPEN_DEVICE request: the device's name
 *                   (device_open_name_valid for its kind), NUL padded;
 *                   the OPEN_STORE_FILE request: the container id's 32 bytes
 *                   (its 64 hex digits, decoded: any 32 bytes are an id, and
 *                   the reader writes the hex itself); LOOK_PATH and
 *                   WATCH_PATH: the same, all zero for PRIVATE_PATH_STORE
 *
 * A SCAN_FDS request is its header alone (bytes 8..63 zero); its answer is
 * its FD and UNREADABLE records, then one END that counts them. An
 * OPEN_DEVICE request carries a kind and a name, never a path: the reader
 * makes the path ("/dev/" and the checked name, device-open.h). An
 * OPEN_STORE_FILE request carries a file of a fixed list and a container id
 * as bytes: the reader's path is its own store's, the id in hex and the
 * file's fixed name (host/crio-store-file.h). The answer to either
 * is one OPENED record: status 0 with exactly one fd passed alongside
 * (SCM_RIGHTS), then one RELEASED record (header alone) once the reader has
 * closed its own copy; or a negative errno and no fd, and nothing after.
 * The daemon returns only after RELEASED: from then on the open file is the
 * daemon's alone (a block device's claim, a module reference that the
 * daemon's close drops at once, as its refcount checks expect).
 *
 * The paths the daemon follows in root-only directories (host/private-path.h):
 * a LOOK_PATH request (a PrivatePath and an id) is answered by one LOOKED
 * record (the lstat's type and mtime, or -errno); a WATCH_PATH request
 * comes with exactly one fd passed alongside, the daemon's inotify fd, on
 * which the reader adds the watch (its mask the reader's, by kind), closes
 * its copy and answers one WATCHED record (the wd and how far up, or
 * -errno); an OPEN_STORE request (header alone) is answered as an open is,
 * with the store directory's fd (for listing); so is an OPEN_SYSCALL
 * request (a pid alone: host/proc-syscall.h). A request of any other type
 * with an fd, or a WATCH_PATH without one, ends the reader. Anything else
 * is refused. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/crio-store-file.h"
#include "host/private-path.h"
#include "host/proc-syscall.h"
#include "usage/device-open.h"
#include "usage/process-fds.h"

#define READER_MSG_SIZE 64
#define READER_MAGIC_REQUEST 0x51524753U /* "SGRQ" */
#define READER_MAGIC_REPLY 0x50524753U   /* "SGRP" */
#define READER_VERSION 1

typedef enum ReaderRequestType {
        READER_REQUEST_SCAN_FDS = 1,    /* who holds which /dev node open (process-fds.h) */
        READER_REQUEST_OPEN_DEVICE = 2, /* an NVMe node opened and passed (device-open.h) */
        READER_REQUEST_OPEN_STORE_FILE = 3, /* a container's file opened and passed (host/crio-store-file.h) */
        READER_REQUEST_LOOK_PATH = 4,       /* a PrivatePath lstat'ed (host/private-path.h) */
        READER_REQUEST_WATCH_PATH = 5,      /* a PrivatePath watched on the inotify fd passed with it */
        READER_REQUEST_OPEN_STORE = 6,      /* the store directory opened and passed, for listing */
        READER_REQUEST_OPEN_SYSCALL = 7,    /* a process's /proc/<pid>/syscall opened and passed */
} ReaderRequestType;

typedef struct ReaderRequest {
        ReaderRequestType type;
        DeviceOpenKind device_kind;             /* OPEN_DEVICE */
        char device_name[DEVICE_OPEN_NAME_MAX]; /* OPEN_DEVICE */
        CrioStoreFile store_file;               /* OPEN_STORE_FILE */
        char store_id[65];                      /* OPEN_STORE_FILE, LOOK_PATH, WATCH_PATH: crio_id_valid
                                                 * ("" for PRIVATE_PATH_STORE) */
        PrivatePath path;                       /* LOOK_PATH, WATCH_PATH */
        bool climb;                             /* WATCH_PATH */
        pid_t pid;                              /* OPEN_SYSCALL: proc_syscall_pid_valid */
} ReaderRequest;

typedef enum ReaderRecordKind {
        READER_RECORD_FD = 1,
        READER_RECORD_UNREADABLE = 2,
        READER_RECORD_END = 3,
        READER_RECORD_OPENED = 4,   /* the answer to OPEN_DEVICE and OPEN_STORE_FILE */
        READER_RECORD_RELEASED = 5, /* after a successful OPENED: the reader's copy is closed */
        READER_RECORD_LOOKED = 6,   /* the answer to LOOK_PATH */
        READER_RECORD_WATCHED = 7,  /* the answer to WATCH_PATH */
} ReaderRecordKind;

typedef struct ReaderRecord {
        ReaderRecordKind kind;
        ProcessFd fd;                 /* READER_RECORD_FD */
        ProcessUnreadable unreadable; /* READER_RECORD_UNREADABLE */
        int status;                   /* END, OPENED, LOOKED, WATCHED: 0 or a negative errno */
        uint32_t n_fds, n_unreadable; /* READER_RECORD_END */
        PrivatePathLook look;         /* READER_RECORD_LOOKED */
        int wd;                       /* READER_RECORD_WATCHED */
        unsigned up;                  /* READER_RECORD_WATCHED */
} ReaderRecord;

/* Encoders: -EINVAL for what the decoder would refuse (so neither side
 * sends what the other drops). */
int reader_request_encode(const ReaderRequest *q, uint8_t buf[static READER_MSG_SIZE]);
int reader_record_encode(const ReaderRecord *r, uint8_t buf[static READER_MSG_SIZE]);

/* Decoders: 0, or -EBADMSG for anything but exactly one well-formed
 * message of READER_MSG_SIZE bytes. */
int reader_request_decode(const uint8_t *buf, size_t len, ReaderRequest *ret);
int reader_record_decode(const uint8_t *buf, size_t len, ReaderRecord *ret);
