/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The one place where every path of the host goes through: /proc, /sys,
 * /dev, /run, /etc, the container store, the ready file.
 *
 * In production the root is "/". Tests point it at a fake root (a directory
 * tree holding proc/, sys/, dev/, run/ ...) with host_root_set() or the
 * environment variable NVME_SWAPGUARD_ROOT, read once by host_root(). */

#include <stdbool.h>

/* Sets the root prefix; NULL or "/" means the real host. Returns 0 or -errno. */
int host_root_set(const char *root);

/* The current root prefix, without trailing slash ("" for the real host). */
const char *host_root(void);

/* True when running against the real host (no prefix). */
bool host_root_is_real(void);

/* Builds "<root><abs_path>" into a malloc'd string; abs_path must start with
 * '/'. Returns 0 or -ENOMEM / -EINVAL; *ret untouched on failure. */
int host_path(const char *abs_path, char **ret);

/* Same with a printf format, e.g. host_pathf(&p, "/sys/module/%s/refcnt", m). */
int host_pathf(char **ret, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
