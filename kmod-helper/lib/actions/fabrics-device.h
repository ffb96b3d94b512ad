/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Opening the kernel's /dev/nvme-fabrics so that a write of a connect
 * string (DH-HMAC-CHAP secrets included) can only reach that device. /dev
 * is a place another process may have written to (a symlink to a disk, a
 * FIFO, a regular file where the node was): the entry is opened with
 * O_NOFOLLOW, then fstat()ed, and accepted only as a character device whose
 * number is the one the kernel shows for its misc device
 * (/sys/class/misc/nvme-fabrics/dev, "10:<minor>\n": the minor is dynamic).
 * Nothing is written or read before that check. Both paths through
 * host-root. */

#include <stdbool.h>
#include <sys/types.h>

#define FABRICS_DEVICE_PATH "/dev/nvme-fabrics"
#define FABRICS_DEVICE_SYSFS_DEV "/sys/class/misc/nvme-fabrics/dev"

/* Pure: "10:122\n" -> makedev(10, 122). -EINVAL for anything else. */
int fabrics_device_parse_dev(const char *text, dev_t *ret);

/* Pure: the decision on what was found at the path (mode and st_rdev of an
 * fstat(), or of an lstat() after O_NOFOLLOW refused a symlink) against the
 * expected device number. 0 to accept; -ENODEV when it is not the kernel's
 * device, with *ret_what (may be NULL; static) naming what it is:
 * "a symbolic link", "a FIFO", "a regular file", "a directory", "a socket",
 * "a block device", "another character device". */
int fabrics_device_verdict(mode_t mode, dev_t rdev, dev_t expected, const char **ret_what);

/* Opens the checked device with flags O_RDWR|O_NOFOLLOW|O_CLOEXEC. 0 and
 * *ret_fd; otherwise -errno with *ret_error (may be NULL) a malloc'd line
 * naming the path and what was found ("/dev/nvme-fabrics is a FIFO, not the
 * kernel's character device 10:122: nothing written"), -ENOMEM without one:
 * -ENOENT (no device: nvme_fabrics not loaded), -ENODEV (refused as above),
 * -EBADMSG (the sysfs number unreadable), other -errno of open/fstat. */
int fabrics_device_open(int *ret_fd, char **ret_error);

/* Pure: the option names of the loaded nvme_fabrics from what a read of
 * /dev/nvme-fabrics without a controller shows (nvmf_dev_show() ->
 * __nvmf_concat_opt_tokens(): "instance=-1,cntlid=-1,transport=%s,...,tls\n",
 * 5.17+), as libnvme's __nvmf_supported_options() reads it: a strv of
 * names ("transport", "tls", ...), instance and cntlid left out. -EINVAL
 * for text that is not that listing, -ENOMEM. */
int fabrics_supported_options_parse(const char *text, char ***ret);

/* The options of the loaded nvme_fabrics, read through a checked open of
 * the device (a descriptor of its own: a written one answers only with the
 * new controller). 0 and *ret; -errno with *ret_error as for
 * fabrics_device_open() (or naming the unreadable listing, -EBADMSG). */
int fabrics_supported_options_read(char ***ret, char **ret_error);
