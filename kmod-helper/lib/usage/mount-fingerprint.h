/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* A cheap summary of "which block devices are mounted" from a mountinfo
 * text, so that the always-on usage watch can tell a mount-table change
 * that may matter to the guard from the container churn of a busy node
 * (overlay, tmpfs, proc, bind mounts of directories already mounted)
 * without running a full usage check each time.
 *
 * The summary is the set of distinct devices behind the mounts: the
 * major:minor of every entry with a major other than 0, and the source of
 * every major-0 entry whose source is a /dev path (btrfs reports an
 * anonymous device number). Equal fingerprints mean the same devices are
 * mounted, wherever and however often; a bind mount of a directory of a
 * mounted disk (a pod's volume) changes nothing. One pass, no allocation
 * per line, order-independent. */

#include <stddef.h>
#include <stdint.h>

typedef struct MountFingerprint {
        uint64_t hash;   /* of the sorted distinct keys */
        size_t n_keys;   /* distinct devices */
        size_t n_lines;  /* mount entries read */
} MountFingerprint;

/* Pure: the fingerprint of a mountinfo text. 0 or -ENOMEM. */
int mount_fingerprint_of_text(const char *text, size_t len, MountFingerprint *ret);

/* Reads fd from offset 0 (a /proc/1/mountinfo kept open for POLLPRI) and
 * fingerprints it. 0 or -errno. */
int mount_fingerprint_read_fd(int fd, MountFingerprint *ret);

static inline int mount_fingerprint_equal(const MountFingerprint *a, const MountFingerprint *b) {
        return a->hash == b->hash && a->n_keys == b->n_keys;
}
