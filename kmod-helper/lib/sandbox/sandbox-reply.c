/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/sandbox-reply.h"

bool reply_string_ok(const char *s, size_t max) {
        size_t n = 0;

        if (!s)
                return false;
        for (; s[n]; n++)
                if (n >= max || (unsigned char) s[n] < 0x20 || (unsigned char) s[n] > 0x7e)
                        return false;
        return true;
}

void reply_writer_done(ReplyWriter *w) {
        free(w->buf);
        *w = (ReplyWriter) {};
}

static int put(ReplyWriter *w, uint8_t type, uint8_t key, const void *data, size_t n) {
        size_t max = w->max ?: REPLY_MAX, need = w->len + REPLY_HEADER_SIZE + n;

        if (w->overflow || n > UINT16_MAX || need > max) {
                w->overflow = true;
                return -EMSGSIZE;
        }
        if (need > w->size) {
                size_t size = w->size ?: 64 * 1024;
                uint8_t *b;

                while (size < need)
                        size *= 2;
                if (size > max)
                        size = max;
                b = realloc(w->buf, size);
                if (!b) {
                        w->overflow = true;
                        return -ENOMEM;
                }
                w->buf = b;
                w->size = size;
        }
        w->buf[w->len++] = type;
        w->buf[w->len++] = key;
        w->buf[w->len++] = (uint8_t) (n & 0xff);
        w->buf[w->len++] = (uint8_t) (n >> 8);
        if (n > 0)
                memcpy(w->buf + w->len, data, n);
        w->len += n;
        return 0;
}

int reply_put_string(ReplyWriter *w, uint8_t key, const char *s) {
        if (!reply_string_ok(s, REPLY_STRING_MAX))
                return -EINVAL;
        return put(w, REPLY_STRING, key, s, strlen(s));
}

int reply_put_errno(ReplyWriter *w, int error) {
        uint32_t v = (uint32_t) (error < 0 ? -error : error);
        uint8_t b[4] = { (uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16), (uint8_t) (v >> 24) };

        return put(w, REPLY_ERRNO, 0, b, sizeof(b));
}

int reply_put_end(ReplyWriter *w) {
        return put(w, REPLY_END, 0, NULL, 0);
}

Reply *reply_free(Reply *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n_items; i++)
                free(r->items[i].value);
        free(r->items);
        free(r);
        return NULL;
}

const char *reply_get(const Reply *r, uint8_t key) {
        for (size_t i = 0; r && i < r->n_items; i++)
                if (r->items[i].key == key)
                        return r->items[i].value;
        return NULL;
}

static const ReplyField *field_of(const ReplyField *schema, size_t n, uint8_t key) {
        for (size_t i = 0; i < n; i++)
                if (schema[i].key == key)
                        return &schema[i];
        return NULL;
}

static int refuse(const char **ret_why, const char *why) {
        if (ret_why)
                *ret_why = why;
        return -EPROTO;
}

/* One string record's bytes: printable, within the field's bound, valid. */
static int string_value(const ReplyField *f, const uint8_t *p, size_t n, char **ret, const char **ret_why) {
        char *s;

        if (n > f->max_len || n > REPLY_STRING_MAX)
                return refuse(ret_why, "a field is longer than allowed");
        for (size_t i = 0; i < n; i++)
                if (p[i] < 0x20 || p[i] > 0x7e)
                        return refuse(ret_why, "a field holds a byte that is not printable ASCII");
        s = strndup((const char *) p, n);
        if (!s)
                return -ENOMEM;
        if (f->valid && !f->valid(s)) {
                free(s);
                return refuse(ret_why, "a field's value is not one the daemon accepts");
        }
        *ret = s;
        return 0;
}

int reply_decode(const uint8_t *buf, size_t len, const ReplyField *schema, size_t n_schema, Reply **ret,
                 const char **ret_why) {
        return reply_decode_max(buf, len, REPLY_MAX, schema, n_schema, ret, ret_why);
}

int reply_decode_max(const uint8_t *buf, size_t len, size_t max, const ReplyField *schema, size_t n_schema,
                     Reply **ret, const char **ret_why) {
        _cleanup_(reply_freep) Reply *r = NULL;
        unsigned counts[256] = {};
        size_t off = 0, n_strings = 0, n_items = len / REPLY_HEADER_SIZE + 1, allowed = 0;
        bool end = false, error_seen = false;
        int k;

        if (len > max)
                return refuse(ret_why, "the reply is larger than any reply may be");
        r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        /* Every record is at least a header, and no key comes more often
         * than its schema allows: both bound the items. */
        for (size_t i = 0; i < n_schema; i++)
                allowed += schema[i].max_count;
        if (allowed < n_items)
                n_items = allowed + 1;
        r->items = calloc(n_items, sizeof(*r->items));
        if (!r->items)
                return -ENOMEM;
        while (off < len) {
                uint8_t type, key;
                size_t n;
                const uint8_t *p;

                if (end)
                        return refuse(ret_why, "bytes follow the end record");
                if (len - off < REPLY_HEADER_SIZE)
                        return refuse(ret_why, "the reply is cut inside a record header");
                type = buf[off];
                key = buf[off + 1];
                n = (size_t) buf[off + 2] | (size_t) buf[off + 3] << 8;
                off += REPLY_HEADER_SIZE;
                if (len - off < n)
                        return refuse(ret_why, "the reply is cut inside a record");
                p = buf + off;
                off += n;

                switch (type) {
                case REPLY_STRING: {
                        const ReplyField *f = field_of(schema, n_schema, key);

                        if (!f)
                                return refuse(ret_why, "a field the job does not have");
                        if (++counts[key] > f->max_count)
                                return refuse(ret_why, "a field comes more often than allowed");
                        k = string_value(f, p, n, &r->items[n_strings].value, ret_why);
                        if (k < 0)
                                return k;
                        r->items[n_strings++].key = key;
                        r->n_items = n_strings;
                        break;
                }
                case REPLY_ERRNO: {
                        uint32_t v;

                        if (key != 0 || n != 4 || error_seen)
                                return refuse(ret_why, "a malformed error record");
                        v = (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
                        if (v == 0 || v > 4095)
                                return refuse(ret_why, "an error record with no errno in it");
                        r->error = (int) v;
                        error_seen = true;
                        break;
                }
                case REPLY_END:
                        if (key != 0 || n != 0)
                                return refuse(ret_why, "a malformed end record");
                        end = true;
                        break;
                default:
                        return refuse(ret_why, "a record of an unknown type");
                }
        }
        if (!end)
                return refuse(ret_why, "the reply has no end record (cut short)");
        if (r->error != 0 && r->n_items > 0)
                return refuse(ret_why, "an error record next to fields");
        *ret = TAKE_PTR(r);
        return 0;
}
