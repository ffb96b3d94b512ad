/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Active swap on NVMe, from /proc/swaps:
 *   Filename        Type       Size     Used  Priority
 *   /dev/nvme0n1p2  partition  8388604  0     -2
 *   /data/swapfile  file       1048572  0     -3
 * A swap partition is matched by its path. A swap FILE lives on a
 * filesystem: the mount check already reports that filesystem as in use;
 * this names the swap file too (the operator must swapoff it before the
 * filesystem can be unmounted). */

#include <stdbool.h>
#include <stddef.h>

#include "usage/usage-scan.h"

typedef struct SwapEntry {
        char *filename; /* unescaped: /proc/swaps writes ' ' as \040 */
        bool is_file;   /* type "file"; otherwise a partition or device */
} SwapEntry;

typedef struct SwapTable {
        SwapEntry *entries;
        size_t n_entries;
} SwapTable;

/* Pure: parses /proc/swaps text (header line skipped, malformed lines too). 0 or -ENOMEM. */
int swaps_parse(const char *text, SwapTable *ret);
void swap_table_done(SwapTable *t);

/* Matches parsed entries against the scan; for swap files, against the
 * mounts matched before (run the mount check first). 0 or -ENOMEM. */
int swap_space_users_match(UsageScan *s, const SwapTable *t);

/* Reads host_path("/proc/swaps"); absent = no swap. 0 or -errno. */
int swap_space_users_read(UsageScan *s);
