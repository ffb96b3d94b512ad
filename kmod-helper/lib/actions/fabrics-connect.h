/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* One connect through the kernel's /dev/nvme-fabrics (through host-root, so
 * that the fake kernel of the tests can answer): the option string, written
 * in one write(2), then "instance=N,cntlid=M" read back from the same
 * descriptor (nvmf_dev_write(), nvmf_dev_show() in
 * drivers/nvme/host/fabrics.c). The builders of the string are declared in
 * fabrics-reconnect.h. */

/* 0 with *ret_instance (the new controller is nvme<N>), or the kernel's
 * -errno of the write: -ECONNREFUSED (nothing listens), -EINVAL (an option
 * the kernel refuses, or no handler for the transport: its module is not
 * loaded), -EALREADY (the same connection exists), -EKEYREJECTED
 * (authentication failed), -ETIMEDOUT, ...; -EIO for a short write,
 * -EINVAL for a reply without an instance. The options may hold secrets:
 * never logged here. */
/* *ret_kernel_message (may be NULL): on failure, what the kernel logged
 * about it meanwhile (host/kernel-log.h), or NULL when that cannot be had. */
int fabrics_connect(const char *options, unsigned *ret_instance, char **ret_kernel_message);
