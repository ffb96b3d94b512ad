/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The option string of one connect through /dev/nvme-fabrics, built from a
 * recorded connection: the kernel's opt_tokens (drivers/nvme/host/fabrics.c),
 * with the names and omissions of libnvme's build_options()
 * (src/nvme/fabrics.c):
 *   nqn=,transport=,traddr=,trsvcid=,host_traddr=,host_iface=,hostnqn=,hostid=,
 *   nr_io_queues=,nr_write_queues=,nr_poll_queues=,queue_size=,keep_alive_tmo=,
 *   reconnect_delay=,ctrl_loss_tmo= (may be -1; not for loop),
 *   fast_io_fail_tmo= (not for loop),[hdr_digest,][data_digest,]
 *   [dhchap_secret=,][dhchap_ctrl_secret=,][tls[,tls_key=<serial>]]
 * (tls also when the TLS state could not be read: never downgraded)
 * an option the kernel did not show is left out (its default applies).
 *
 * The kernel splits the string at ',' and '\n' (strsep() in
 * nvmf_parse_options()), so a value holding either would smuggle in an
 * option of its own choosing: every value is checked first, and one with
 * ',', '\n', '=' or another control character (a secret: ',' or any
 * space or control character; its base64 has '=') refuses the whole
 * connect with -EINVAL, naming the field. */

#include <stdbool.h>

#include "nvme/fabrics-topology.h"

/* Pure: the string for c, secrets passed in (NULL: none). malloc'd, with the
 * secrets in it when given: the caller erases it (fabrics_secret_free()).
 * 0; -EINVAL (no subsysnqn or transport, or a value refused as above) with
 * *ret_field (may be NULL) the option's name (static); -ENOMEM. */
int fabrics_connect_options(const FabricsController *c, const char *host_secret, const char *ctrl_secret,
                            char **ret, const char **ret_field);

/* Pure: whether value may go into the string (see above). */
bool fabrics_option_value_ok(const char *value, bool secret);

/* Pure: whether a DH-HMAC-CHAP secret has the form the kernel takes,
 * "DHHC-1:<2 hex>:<base64>:". The kernel logs one it refuses with its
 * value ("Invalid DH-CHAP secret %s", fabrics.c): one of another form is
 * never sent. */
bool fabrics_secret_format_ok(const char *secret);

/* Pure: leaves out of *options (replaced, the old string erased) each
 * option whose name is not in supported (the loaded nvme_fabrics' own
 * list, fabrics-device.h): the kernel logs an unknown option with its
 * value, a secret included. *ret_left_out (may be NULL): their names, a
 * strv (empty when none). 0 or -ENOMEM (*options untouched). */
int fabrics_options_keep_supported(char **options, char *const *supported, char ***ret_left_out);
