/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* One connect through the kernel's /dev/nvme-fabrics (through host-root, so
 * that the fake kernel of the tests can answer; opened and checked by
 * fabrics_device_open(), fabrics-device.h, before anything is written): the option string
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
 * without an instance; -ENODEV, -ENOENT, -EBADMSG when the device is refused
 * or absent (fabrics_device_open()). The options may hold secrets: never
 * logged here. *ret_message (may be NULL): on failure, one malloc'd line:
 * why the device was refused, or the errno's text and what the kernel
 * logged about it meanwhile (host/kernel-log.h), secrets redacted
 * (fabrics_redact_secrets()); NULL when there is nothing to say. */
int fabrics_connect(const char *options, unsigned *ret_instance, char **ret_message);

/* Pure: line with the token after each "DHHC-1:", "secret=" and "secret "
 * replaced by "<redacted>" (a token ends at a space, ',', quote, ';' or the
 * end): what the kernel logs of a connect string ("unknown parameter or
 * missing value 'dhchap_secret=...'", "Invalid DH-CHAP secret ...") copied
 * anywhere. malloc'd; NULL on ENOMEM. NULL in, "" out. */
char *fabrics_redact_secrets(const char *line);

/* Pure: "instance=3,cntlid=1\n" -> 3. -EINVAL when there is no instance. */
int fabrics_parse_connect_reply(const char *reply, unsigned *ret_instance);
