/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* A CRI-O container's config.json (host/crio.h), parsed in the parser child
 * (parser-sandbox.h): the file comes from every container created on the
 * node, tenant pods included, whose annotations and environment their
 * owners write. The parent opens it and checks what comes back; the child
 * runs crio_config_parse() and sends only:
 *   - the three names (namespace, pod, container), each left out when it
 *     is not Kubernetes syntax (then the caller sees it missing);
 *   - the pod uid and Created, left out when they do not look like one;
 *   - of process.env, only the keys asked for, first occurrence each, as
 *     "KEY=value"; a value that is not printable or longer than
 *     CRIO_ENV_VALUE_MAX is sent empty (the daemon's flags compare with
 *     "true": any other value reads the same).
 * The parent refuses a reply with anything else, or with a field that fails
 * those same checks. */

#include <stddef.h>
#include <stdint.h>

#include "host/crio.h"

#define CRIO_ENV_VALUE_MAX 256U
/* At most this many keys can be asked for. */
#define CRIO_ENV_KEYS_MAX 16U

/* 0 with *ret (names NULL when absent or refused; env NULL when none of
 * env_keys is set). From the open: -ENOENT, -ELOOP (a symlink), -EBADMSG
 * (not a regular file), -EFBIG (over CRIO_CONFIG_MAX). From the parse in
 * the child, as crio_config_parse() says them: -EBADMSG (not one JSON
 * object: half-written), -ENODATA, -ENOMEM. From the child or its reply:
 * -ETIME, -EPROTO, -EPERM, -EMSGSIZE (parser_sandbox_run()), with *ret_why
 * (optional; static) saying what happened. env_keys: NULL-terminated, may
 * be NULL (no env wanted). */
/* The same, from an fd already opened and checked (a regular file of at
 * most CRIO_CONFIG_MAX: host/crio-store-file.h); takes it over (closed in
 * all cases). */
int crio_config_read_confined_fd(int fd, const char *const *env_keys, CrioConfig **ret, const char **ret_why);
int crio_config_read_confined(const char *path, const char *const *env_keys, CrioConfig **ret,
                              const char **ret_why);

/* The reply's schema and its decoding into a CrioConfig, for the tests and
 * the fuzzer: -EPROTO (with *ret_why) for any reply the parent refuses, the
 * job's own error as above, -ENOMEM. */
int crio_config_reply_decode(const uint8_t *buf, size_t len, const char *const *env_keys, CrioConfig **ret,
                             const char **ret_why);

/* The record keys. */
enum {
        CRIO_REPLY_NAMESPACE = 1,
        CRIO_REPLY_POD_NAME,
        CRIO_REPLY_CONTAINER_NAME,
        CRIO_REPLY_POD_UID,
        CRIO_REPLY_CREATED,
        CRIO_REPLY_ENV,
};
