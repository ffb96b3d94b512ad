/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* When a driver container was created, and whether a file was made for it.
 * CRI-O writes io.kubernetes.cri-o.Created as Go's time.RFC3339Nano
 * ("2026-12-02T14:32:10.123456789Z" or with a "+02:00" offset; trailing
 * zeros of the fraction dropped) at CreateContainer (cri-o
 * server/container_create_linux.go). A ready file older than that was left
 * by an earlier instance: it says nothing about this one. Pure. */

#include <stdbool.h>
#include <stdint.h>

/* 0 with *ret (µs since the epoch, UTC); -EINVAL when s is not RFC 3339. */
int rfc3339_parse_usec(const char *s, uint64_t *ret);

typedef enum ReadyFreshness {
        READY_FRESH,      /* made at or after the container's creation */
        READY_STALE,      /* made before it: left by an earlier instance */
        READY_UNKNOWN,    /* no creation time to compare with: counted as fresh */
} ReadyFreshness;

/* file_usec: when the ready file was made (its birth time where the
 * filesystem has one, else its mtime); created_usec: the container's
 * creation, 0 when unknown. */
ReadyFreshness ready_file_freshness(uint64_t file_usec, uint64_t created_usec);

/* When the file at path (already through host_path()) was made: statx's
 * birth time where the filesystem keeps one, else its mtime. 0 or -errno. */
int file_made_usec(const char *path, uint64_t *ret);
