/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/crio-config-job.h"
#include "sandbox/sandbox-failure.h"
#include "sandbox/parser-sandbox.h"
#include "util/macro.h"
#include "util/strv.h"

/* "KEY=" of one of keys: the length of KEY, 0 when none. */
static size_t env_key_of(const char *entry, const char *const *keys) {
        for (size_t i = 0; keys && keys[i]; i++) {
                size_t n = strlen(keys[i]);

                if (strneq(entry, keys[i], n) && entry[n] == '=')
                        return n;
        }
        return 0;
}

/* ---- the child ---- */

static int put_if(ReplyWriter *w, uint8_t key, const char *s, bool (*valid)(const char *)) {
        return s && valid(s) ? reply_put_string(w, key, s) : 0;
}

static int put_env(ReplyWriter *w, char *const *env, const char *const *keys) {
        const char *sent[CRIO_ENV_KEYS_MAX] = {};
        size_t n_sent = 0;

        for (char *const *e = env; e && *e; e++) {
                size_t n = env_key_of(*e, keys);
                char entry[128 + 1 + CRIO_ENV_VALUE_MAX + 1];
                bool dup = false;
                int r;

                if (n == 0 || n > 128)
                        continue;
                for (size_t i = 0; i < n_sent; i++)
                        dup = dup || (strneq(sent[i], *e, n + 1)); /* "KEY=" alike */
                if (dup || n_sent >= ELEMENTSOF(sent))
                        continue; /* the first one counts, as driver_env_get() reads */
                sent[n_sent++] = *e;
                if (reply_string_ok(*e + n + 1, CRIO_ENV_VALUE_MAX))
                        r = reply_put_string(w, CRIO_REPLY_ENV, *e);
                else {
                        memcpy(entry, *e, n + 1);
                        entry[n + 1] = '\0';
                        r = reply_put_string(w, CRIO_REPLY_ENV, entry);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

static int job(int input_fd, ReplyWriter *w, void *userdata) {
        const char *const *keys = userdata;
        _cleanup_(crio_config_freep) CrioConfig *c = NULL;
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r;

        r = parser_sandbox_read_input(input_fd, CRIO_CONFIG_MAX, &text, &len);
        if (r < 0)
                return r;
        r = crio_config_parse(text, len, &c);
        if (r < 0)
                return r;
        if ((r = put_if(w, CRIO_REPLY_NAMESPACE, c->pod_namespace, crio_k8s_label_valid)) < 0 ||
            (r = put_if(w, CRIO_REPLY_POD_NAME, c->pod_name, crio_k8s_subdomain_valid)) < 0 ||
            (r = put_if(w, CRIO_REPLY_CONTAINER_NAME, c->container_name, crio_k8s_label_valid)) < 0 ||
            (r = put_if(w, CRIO_REPLY_POD_UID, c->pod_uid, crio_pod_uid_valid)) < 0 ||
            (r = put_if(w, CRIO_REPLY_CREATED, c->created, crio_created_valid)) < 0)
                return r;
        return put_env(w, c->env, keys);
}

/* ---- the parent ---- */

static bool env_entry_printable(const char *s) {
        return reply_string_ok(s, 128 + 1 + CRIO_ENV_VALUE_MAX);
}

static const ReplyField schema[] = {
        { CRIO_REPLY_NAMESPACE, 63, 1, crio_k8s_label_valid, "namespace" },
        { CRIO_REPLY_POD_NAME, 253, 1, crio_k8s_subdomain_valid, "pod name" },
        { CRIO_REPLY_CONTAINER_NAME, 63, 1, crio_k8s_label_valid, "container name" },
        { CRIO_REPLY_POD_UID, 64, 1, crio_pod_uid_valid, "pod uid" },
        { CRIO_REPLY_CREATED, 64, 1, crio_created_valid, "created" },
        { CRIO_REPLY_ENV, 128 + 1 + CRIO_ENV_VALUE_MAX, CRIO_ENV_KEYS_MAX, env_entry_printable, "env" },
};

static int why(const char **ret_why, const char *s, int r) {
        if (ret_why)
                *ret_why = s;
        return r;
}

static int dup_field(const Reply *reply, uint8_t key, char **ret) {
        const char *v = reply_get(reply, key);

        *ret = v ? strdup(v) : NULL;
        return !v || *ret ? 0 : -ENOMEM;
}

int crio_config_reply_decode(const uint8_t *buf, size_t len, const char *const *env_keys, CrioConfig **ret,
                             const char **ret_why) {
        _cleanup_(reply_freep) Reply *reply = NULL;
        _cleanup_(crio_config_freep) CrioConfig *c = NULL;
        int r;

        r = reply_decode(buf, len, schema, ELEMENTSOF(schema), &reply, ret_why);
        if (r < 0)
                return r;
        switch (reply->error) {
        case 0:
                break;
        case EBADMSG:
        case ENODATA:
        case ENOMEM:
        case EFBIG:
                return why(ret_why, "the parser child could not parse it", -reply->error);
        default:
                return why(ret_why, "the parser child answered an error it cannot have", -EPROTO);
        }
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        if ((r = dup_field(reply, CRIO_REPLY_NAMESPACE, &c->pod_namespace)) < 0 ||
            (r = dup_field(reply, CRIO_REPLY_POD_NAME, &c->pod_name)) < 0 ||
            (r = dup_field(reply, CRIO_REPLY_CONTAINER_NAME, &c->container_name)) < 0 ||
            (r = dup_field(reply, CRIO_REPLY_POD_UID, &c->pod_uid)) < 0 ||
            (r = dup_field(reply, CRIO_REPLY_CREATED, &c->created)) < 0)
                return r;
        for (size_t i = 0; i < reply->n_items; i++) {
                const char *e = reply->items[i].value;

                if (reply->items[i].key != CRIO_REPLY_ENV)
                        continue;
                if (env_key_of(e, env_keys) == 0)
                        return why(ret_why, "the parser child sent an environment key not asked for", -EPROTO);
                if (strv_extend(&c->env, e) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(c);
        return 0;
}

/* json-c seeds its string hash on first use, from getrandom() or
 * /dev/urandom: the child may call neither, so the parent seeds it once
 * before the first fork and every child inherits the seed. */
static void json_seed(void) {
        static bool done;
        json_object *o;

        if (done)
                return;
        o = json_object_new_object();
        if (o) {
                (void) json_object_object_add(o, "seed", NULL);
                json_object_put(o);
        }
        done = true;
}

int crio_config_read_confined(const char *path, const char *const *env_keys, CrioConfig **ret,
                              const char **ret_why) {
        int fd = -EBADF, r;

        r = parser_sandbox_open(path, CRIO_CONFIG_MAX, &fd);
        if (r < 0)
                return r;
        return crio_config_read_confined_fd(fd, env_keys, ret, ret_why);
}

int crio_config_read_confined_fd(int fd_in, const char *const *env_keys, CrioConfig **ret, const char **ret_why) {
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_close_ int fd = fd_in;
        size_t len = 0;
        int r, sig = 0;

        if (strv_length((char *const *) env_keys) > CRIO_ENV_KEYS_MAX)
                return -EINVAL;
        json_seed();
        r = parser_sandbox_run(fd, job, (void *) env_keys, &buf, &len, &sig);
        if (r < 0)
                return why(ret_why, parser_sandbox_failure(r, sig), r);
        return crio_config_reply_decode(buf, len, env_keys, ret, ret_why);
}
