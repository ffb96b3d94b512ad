/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The parser child's answer (parser-sandbox.h): a small typed format, not
 * JSON, because its decoder runs on the privileged side of the boundary and
 * must be small enough to read in one sitting.
 *
 * A reply is a sequence of records, each
 *
 *     u8 type | u8 key | u16 length (little endian) | length bytes
 *
 *   - REPLY_STRING: key names the job's field; the bytes are printable ASCII
 *     (0x20..0x7e), no NUL, at most the field's max_len of the schema;
 *   - REPLY_ERRNO: key 0, 4 bytes: a positive errno (little endian), the
 *     job's own failure (a config that is not JSON, say);
 *   - REPLY_END: key 0, length 0: the last record, exactly at the end.
 *
 * Nothing else: an unknown type or key, a field the schema does not allow as
 * often as it comes, a missing END or bytes after it, a reply over
 * REPLY_MAX: the whole reply is refused. The encoder is used in the child,
 * the decoder in the parent; both are pure. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/macro.h"

enum {
        REPLY_STRING = 1,
        REPLY_ERRNO = 2,
        REPLY_END = 0x7f,
};

#define REPLY_HEADER_SIZE 4U
/* The largest reply a parent reads: far above any job's (a config's
 * identity is under 1 KiB). A job whose reply is a list (a module tree's
 * index) names its own, larger bound (parser_sandbox_run_max()). */
#define REPLY_MAX (64U * 1024U)
/* The longest string of any field: one record's u16 length allows more. */
#define REPLY_STRING_MAX 4096U

/* The child's side: records appended to a bounded buffer, grown as they
 * come (from 64 KiB: a zeroed writer works), never past max. */
typedef struct ReplyWriter {
        uint8_t *buf;
        size_t len, size;
        size_t max;    /* 0: REPLY_MAX */
        bool overflow; /* a record did not fit: the reply is unusable */
} ReplyWriter;
void reply_writer_done(ReplyWriter *w);

/* 0, or -EINVAL when s is not printable or longer than REPLY_STRING_MAX,
 * -EMSGSIZE when the reply is full (the writer is marked overflowed). */
int reply_put_string(ReplyWriter *w, uint8_t key, const char *s);
int reply_put_errno(ReplyWriter *w, int error);
int reply_put_end(ReplyWriter *w);
/* Whether s is a string a reply may carry (printable ASCII, <= max). */
bool reply_string_ok(const char *s, size_t max);

/* The parent's side. A schema entry says what a field may be: how long, how
 * often, and what the daemon would accept (valid may be NULL: printable and
 * bounded is then enough). */
typedef struct ReplyField {
        uint8_t key;
        size_t max_len;          /* <= REPLY_STRING_MAX */
        unsigned max_count;      /* how many records of this key, at most */
        bool (*valid)(const char *s);
        const char *name;        /* for the caller's message */
} ReplyField;

typedef struct ReplyItem {
        uint8_t key;
        char *value;
} ReplyItem;

typedef struct Reply {
        int error;         /* the job's errno (positive), 0 when it answered */
        ReplyItem *items;  /* in the order received */
        size_t n_items;
} Reply;

/* Decodes buf strictly against the schema. 0 with *ret; -EPROTO for any
 * malformed reply, with *ret_why (optional) saying what was wrong (a static
 * string, for the caller's message); -ENOMEM. */
int reply_decode(const uint8_t *buf, size_t len, const ReplyField *schema, size_t n_schema, Reply **ret,
                 const char **ret_why);
/* The same for a job whose replies may be up to max bytes (> REPLY_MAX). */
int reply_decode_max(const uint8_t *buf, size_t len, size_t max, const ReplyField *schema, size_t n_schema,
                     Reply **ret, const char **ret_why);
Reply *reply_free(Reply *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(Reply *, reply_free);
/* The first value of key, NULL when absent. */
const char *reply_get(const Reply *r, uint8_t key);
