/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Temporary fake host roots for the unit tests: a fresh directory under
 * $TMPDIR (or /tmp), populated with mkdir -p / write file / symlink, and
 * made the host root with host_root_set(). Each helper aborts the test
 * (Criterion assertion) when the file system refuses. */

/* Creates the tree, sets it as host root; returns its path (static buffer). */
const char *fake_tree_new(void);
/* Removes the tree and points the host root back at "/". */
void fake_tree_remove(void);

/* Paths are relative to the fake root, with or without a leading '/'. */
void fake_mkdir(const char *rel);
void fake_write(const char *rel, const char *content);
void fake_writef(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fake_symlink(const char *rel, const char *target);

/* A sysfs block device as 6.1 lays it out: /sys/devices/<parent>/<name>/
 * with `dev` and `size`, and the class link /sys/class/block/<name>. */
void fake_block_device(const char *parent, const char *name, const char *dev, const char *size);
