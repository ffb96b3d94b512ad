/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* One connect through the kernel's /dev/nvme-fabrics (through host-root, so
 * that the fake kernel of the tests can answer): the option string
 * (fabrics-options.h), written in one write(2), then "instance=N,cntlid=M"
 * read back from the same descriptor (nvmf_dev_write(), nvmf_dev_show() in
 * drivers/nvme/host/fabrics.c). The write blocks until the controller is up
 * or has failed (FIELD-NOTES 12): only the short-lived connect unit and the
 * CLI call this, never the daemon. */

/* 0 with *ret_instance (the new controller is nvme<N>), or the kernel's
 * -errno of the write: -ECONNREFUSED (nothing listens), -EAGAIN (accepted,
 * no answer to the handshake), -EKEYREJECTED (authentication), -EINVAL (an
 * option refused, or no handler for the transport), -EALREADY (the same
 * connection exists), ...; -EIO for a short write, -EINVAL for a reply
 * without an instance. The options may hold secrets: never logged here.
 * *ret_kernel_message (may be NULL): on failure, what the kernel logged
 * about it meanwhile (host/kernel-log.h), or NULL when that cannot be had. */
int fabrics_connect(const char *options, unsigned *ret_instance, char **ret_kernel_message);

/* Pure: "instance=3,cntlid=1\n" -> 3. -EINVAL when there is no instance. */
int fabrics_parse_connect_reply(const char *reply, unsigned *ret_instance);
