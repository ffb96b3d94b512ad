/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Reading NVMe's sysfs directories (/sys/class/nvme/nvme<N>/,
 * /sys/class/nvme-subsystem/nvme-subsys<N>/), which the kernel changes
 * under the reader: an attribute an older kernel does not have, or a
 * controller deleted while it is read (ENODEV), reads as absent. Paths are
 * already through host_path(). */

/* <dir>/<attr>'s first line; -errno as read_one_line_file() says. */
int nvme_sysfs_read(const char *dir, const char *attr, char **ret);
/* An optional attribute: NULL (and 0) when absent. */
int nvme_sysfs_read_opt(const char *dir, const char *attr, char **ret);
/* The same in an open directory. */
int nvme_sysfs_read_opt_at(int dfd, const char *attr, char **ret);
/* The entries of dir; an absent directory has none. */
int nvme_sysfs_list(const char *dir, char ***ret);
/* The controllers ("nvme<N>") among dir's entries, e.g. of /sys/class/nvme;
 * an absent directory has none. */
int nvme_sysfs_controllers(const char *dir, char ***ret);
