/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Mounted NVMe devices, from the host's mount table: /proc/1/mountinfo
 * (PID 1's: the host's namespace, also when we run in a private one),
 * parsed with libmount. A mount matches a device by its devno
 * (major:minor in mountinfo), or by its source path (/dev/nvme0n1p1,
 * /dev/disk/by-..., /dev/mapper/..., resolved under the host root): btrfs
 * and some others show an anonymous devno. Mounts of stacked devices
 * (dm, md) are told on their holder record. One pass over the table. */

#include "usage/usage-scan.h"

struct libmnt_table;

/* Pure (but for resolving /dev symlinks): matches an already parsed table. 0 or -ENOMEM. */
int mount_users_match(UsageScan *s, struct libmnt_table *tb);

/* Parses mountinfo at `path` (an openable path) and matches it. 0 or -errno. */
int mount_users_match_file(UsageScan *s, const char *path);

/* host_path("/proc/1/mountinfo"); unreadable is a note, not a failure
 * (the exclusive open still catches mounts). 0 or -ENOMEM. */
int mount_users_read(UsageScan *s);
