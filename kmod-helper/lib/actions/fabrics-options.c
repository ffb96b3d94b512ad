/* SPDX-License-Identifier: Apache-2.0 */
/* The connect option string (see fabrics-options.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "actions/fabrics-options.h"
#include "util/string-util.h"
#include "util/strv.h"

/* The kernel's bounds for queue_size (NVMF_MIN_QUEUE_SIZE,
 * NVMF_MAX_QUEUE_SIZE in drivers/nvme/host/fabrics.h, 6.1 and 6.12): a
 * value outside is refused with EINVAL, so one the kernel showed there
 * (sqsize capped below 16 by a target's MQES) is left to the default. */
#define QUEUE_SIZE_MIN 16
#define QUEUE_SIZE_MAX 1024

typedef struct Options {
        char *text;
        bool failed;
} Options;

bool fabrics_option_value_ok(const char *value, bool secret) {
        for (const unsigned char *p = (const unsigned char *) value; p && *p; p++)
                if (*p == ',' || *p < 0x20 || *p == 0x7f || (secret ? *p == ' ' : *p == '='))
                        return false;
        return true;
}

static void add(Options *o, const char *fmt, ...) _printf_(2, 3);
static void add(Options *o, const char *fmt, ...) {
        _cleanup_free_ char *part = NULL;
        char *joined;
        va_list ap;

        if (o->failed)
                return;
        va_start(ap, fmt);
        part = strdup_vprintf(fmt, ap);
        va_end(ap);
        joined = part ? strdup_printf("%s%s%s", o->text ?: "", o->text ? "," : "", part) : NULL;
        /* Both may hold a secret by now: erase before freeing. */
        if (part)
                explicit_bzero(part, strlen(part));
        if (o->text)
                explicit_bzero(o->text, strlen(o->text));
        free(o->text);
        o->text = joined;
        o->failed = !joined;
}

static void add_string(Options *o, const char *key, const char *value) {
        if (value && *value && !streq(value, "none"))
                add(o, "%s=%s", key, value);
}

/* Which options, and when they are left out, as libnvme's build_options()
 * (add_int_argument() leaves out negative and zero values,
 * add_int_or_minus_one_argument() keeps ctrl_loss_tmo=-1; loop has no
 * ctrl_loss_tmo, fast_io_fail_tmo). One difference: keep_alive_tmo=0 is
 * passed when the kernel showed 0 (someone asked for no keep-alive;
 * libnvme's 0 means "unset"). */
static void add_options(Options *o, const FabricsController *c) {
        bool loop = streq(c->transport, "loop");

        if (c->nr_io_queues > 0)
                add(o, "nr_io_queues=%d", c->nr_io_queues);
        if (c->nr_write_queues > 0)
                add(o, "nr_write_queues=%d", c->nr_write_queues);
        if (c->nr_poll_queues > 0)
                add(o, "nr_poll_queues=%d", c->nr_poll_queues);
        if (c->queue_size >= QUEUE_SIZE_MIN && c->queue_size <= QUEUE_SIZE_MAX)
                add(o, "queue_size=%d", c->queue_size);
        if (c->kato >= 0)
                add(o, "keep_alive_tmo=%d", c->kato);
        if (c->reconnect_delay > 0)
                add(o, "reconnect_delay=%d", c->reconnect_delay);
        if (!loop && c->ctrl_loss_tmo >= FABRICS_OPT_OFF)
                add(o, "ctrl_loss_tmo=%d", c->ctrl_loss_tmo);
        if (!loop && c->fast_io_fail_tmo >= 0) /* "off" is the kernel's default */
                add(o, "fast_io_fail_tmo=%d", c->fast_io_fail_tmo);
        if (c->hdr_digest)
                add(o, "hdr_digest");
        if (c->data_digest)
                add(o, "data_digest");
}

/* The first value that may not go into the string, by its option name. */
static const char *refused_field(const FabricsController *c, const char *host_secret, const char *ctrl_secret) {
        const char *names[] = { "nqn", "transport", "traddr", "trsvcid", "host_traddr", "host_iface", "hostnqn", "hostid" };
        const char *values[] = { c->subsysnqn,  c->transport, c->traddr,  c->trsvcid,
                                 c->host_traddr, c->host_iface, c->hostnqn, c->hostid };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (!fabrics_option_value_ok(values[i], false))
                        return names[i];
        if (!fabrics_option_value_ok(host_secret, true))
                return "dhchap_secret";
        if (!fabrics_option_value_ok(ctrl_secret, true))
                return "dhchap_ctrl_secret";
        return NULL;
}

int fabrics_connect_options(const FabricsController *c, const char *host_secret, const char *ctrl_secret,
                            char **ret, const char **ret_field) {
        Options o = {};
        const char *refused;

        if (!c->subsysnqn || !*c->subsysnqn || !c->transport || !*c->transport) {
                if (ret_field)
                        *ret_field = !c->subsysnqn || !*c->subsysnqn ? "nqn" : "transport";
                return -EINVAL;
        }
        refused = refused_field(c, host_secret, ctrl_secret);
        if (refused) {
                if (ret_field)
                        *ret_field = refused;
                return -EINVAL;
        }
        add(&o, "nqn=%s", c->subsysnqn);
        add(&o, "transport=%s", c->transport);
        add_string(&o, "traddr", c->traddr);
        add_string(&o, "trsvcid", c->trsvcid);
        add_string(&o, "host_traddr", c->host_traddr);
        add_string(&o, "host_iface", c->host_iface);
        add_string(&o, "hostnqn", c->hostnqn);
        add_string(&o, "hostid", c->hostid);
        add_options(&o, c);
        add_string(&o, "dhchap_secret", host_secret);
        add_string(&o, "dhchap_ctrl_secret", ctrl_secret);
        /* TLS on, or not known to be off: never connected again without it.
         * The key it was configured with by its serial (sysfs shows it as
         * "%08x", the option takes a number); without one the kernel finds
         * the PSK in its .nvme keyring, as when it was first connected. */
        if ((c->tls || c->tls_unknown) && streq(c->transport, "tcp")) {
                unsigned long serial;
                char *end = NULL;

                add(&o, "tls");
                errno = 0;
                serial = c->tls_configured_key ? strtoul(c->tls_configured_key, &end, 16) : 0;
                if (c->tls_configured_key && !errno && end && end != c->tls_configured_key && *end == '\0' &&
                    serial > 0 && serial <= INT32_MAX)
                        add(&o, "tls_key=%lu", serial);
        }
        if (o.failed)
                return -ENOMEM;
        *ret = o.text;
        return 0;
}

bool fabrics_secret_format_ok(const char *s) {
        static const char base64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        size_t n, pad;

        /* DHHC-1:<hash: 2 hex>:<base64 of the key and its CRC>: (NVMe base
         * specification 8.13.5.8; nvme_auth_extract_key()) */
        if (!s || strncmp(s, "DHHC-1:", 7) != 0)
                return false;
        s += 7;
        if (strspn(s, "0123456789abcdefABCDEF") != 2 || s[2] != ':')
                return false;
        s += 3;
        n = strspn(s, base64);
        pad = strspn(s + n, "=");
        if (n == 0 || pad > 2 || (n + pad) % 4 != 0)
                return false;
        return streq(s + n + pad, ":");
}

int fabrics_options_keep_supported(char **options, char *const *supported, char ***ret_left_out) {
        _cleanup_strv_free_ char **left_out = strv_new_empty();
        size_t len = strlen(*options);
        char *kept = malloc(len + 1), *k = kept;
        const char *p = *options;

        if (!kept || !left_out) {
                free(kept);
                return -ENOMEM;
        }
        while (*p) {
                size_t part = strcspn(p, ","), name = strcspn(p, "=,");
                _cleanup_free_ char *key = strndup(p, name);

                if (!key) {
                        explicit_bzero(kept, len + 1);
                        free(kept);
                        return -ENOMEM;
                }
                if (strv_contains(supported, key)) {
                        if (k != kept)
                                *k++ = ',';
                        memcpy(k, p, part), k += part;
                } else if (strv_push(&left_out, TAKE_PTR(key)) < 0) {
                        explicit_bzero(kept, len + 1);
                        free(kept);
                        return -ENOMEM;
                }
                p += part + (p[part] == ',');
        }
        *k = '\0';
        explicit_bzero(*options, len);
        free(*options);
        *options = kept;
        if (ret_left_out)
                *ret_left_out = TAKE_PTR(left_out);
        return 0;
}
