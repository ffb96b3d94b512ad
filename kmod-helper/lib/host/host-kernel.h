/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Facts of the running kernel, read through host-root like every host path,
 * so that a fake root has its own kernel. */

/* The running kernel's release ("6.1.0-57-amd64"), which names the module
 * trees (/lib/modules/<release>, also in a driver container's root):
 * <root>/proc/sys/kernel/osrelease; uname -r only on the real host when
 * that cannot be read (under a fake root the real kernel's release would be
 * a lie). A release that cannot be a path component (empty, with '/' or a
 * blank) is -EINVAL. 0 with *ret, or -errno; *ret untouched on failure. */
int host_kernel_release(char **ret);
