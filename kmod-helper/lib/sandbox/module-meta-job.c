/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "actions/module-file.h"
#include "sandbox/module-meta-job.h"
#include "sandbox/parser-sandbox.h"
#include "sandbox/sandbox-failure.h"
#include "util/macro.h"
#include "util/strv.h"

/* What the parent accepts of each field: the child sends nothing else. */
static bool result_valid(const char *s) {
        return streq(s, "0") || streq(s, "8") || streq(s, "74"); /* ENOEXEC, EBADMSG */
}

static bool name_valid(const char *s) {
        return module_name_valid(s);
}

static bool vermagic_valid(const char *s) {
        return *s && reply_string_ok(s, MODULE_META_VERMAGIC_MAX) && !strchr(s, ' ');
}

static bool srcversion_valid(const char *s) {
        return reply_string_ok(s, MODULE_META_SRCVERSION_MAX);
}

/* ---- the child ---- */

/* A field sent only when it passes the parent's check: else left out. */
static int put_if(ReplyWriter *w, uint8_t key, const char *s, bool (*valid)(const char *)) {
        return s && valid(s) ? reply_put_string(w, key, s) : 0;
}

static int put_one(ReplyWriter *w, const char *image, size_t size) {
        _cleanup_(module_meta_done) ModuleMeta m = {};
        int r;

        r = module_meta_parse(image, size, &m);
        if (r == -ENOMEM)
                return r; /* the whole job: the parent says so */
        if (r < 0)
                return reply_put_string(w, MODULE_META_REPLY_RESULT, r == -ENOEXEC ? "8" : "74");
        if (strv_length(m.depends) > MODULE_META_DEPENDS_MAX)
                return reply_put_string(w, MODULE_META_REPLY_RESULT, "74"); /* EBADMSG: as a bad depends= */
        if ((r = reply_put_string(w, MODULE_META_REPLY_RESULT, "0")) < 0 ||
            (r = reply_put_string(w, MODULE_META_REPLY_NAME, m.name)) < 0 ||
            (r = put_if(w, MODULE_META_REPLY_VERMAGIC, m.vermagic, vermagic_valid)) < 0 ||
            (r = put_if(w, MODULE_META_REPLY_SRCVERSION, m.srcversion, srcversion_valid)) < 0)
                return r;
        STRV_FOREACH(d, m.depends)
                if ((r = reply_put_string(w, MODULE_META_REPLY_DEPEND, *d)) < 0)
                        return r;
        return 0;
}

static int job(int input_fd, ReplyWriter *w, void *userdata) {
        size_t n = *(const size_t *) userdata;

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *image = NULL;
                size_t size;
                int r;

                r = sandbox_bundle_next(input_fd, MODULE_FILE_MAX, &image, &size);
                if (r >= 0)
                        r = put_one(w, image, size);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- the parent ---- */

size_t module_meta_reply_max(size_t n) {
        size_t per = (REPLY_HEADER_SIZE + 2) + (REPLY_HEADER_SIZE + 55) + (REPLY_HEADER_SIZE + MODULE_META_VERMAGIC_MAX) +
                     (REPLY_HEADER_SIZE + MODULE_META_SRCVERSION_MAX) +
                     MODULE_META_DEPENDS_MAX * (REPLY_HEADER_SIZE + 55);
        size_t max = n * per + 2 * REPLY_HEADER_SIZE + 4;

        return max < REPLY_MAX ? REPLY_MAX : max;
}

static int refuse(const char **ret_why, const char *why) {
        if (ret_why)
                *ret_why = why;
        return -EIO;
}

static void metas_done(ModuleMeta *metas, size_t n) {
        for (size_t i = 0; i < n; i++)
                module_meta_done(&metas[i]);
}

static int take(char **dst, const char *v, const char **ret_why) {
        if (*dst)
                return refuse(ret_why, "a module's field comes twice");
        *dst = strdup(v);
        return *dst ? 0 : -ENOMEM;
}

/* The items of one reply, image by image; metas[] is filled on success only. */
static int decode_items(const Reply *reply, size_t n, ModuleMeta *metas, int *errors, const char **ret_why) {
        size_t cur = 0; /* images begun */
        bool ok = false; /* the current image answered 0 */
        int r;

        for (size_t i = 0; i < reply->n_items; i++) {
                const ReplyItem *it = &reply->items[i];
                ModuleMeta *m = cur > 0 ? &metas[cur - 1] : NULL;

                if (it->key == MODULE_META_REPLY_RESULT) {
                        if (m && ok && !m->name)
                                return refuse(ret_why, "a module without a name");
                        if (cur >= n)
                                return refuse(ret_why, "more results than images");
                        errors[cur] = streq(it->value, "0") ? 0 : streq(it->value, "8") ? -ENOEXEC : -EBADMSG;
                        ok = errors[cur] == 0;
                        metas[cur].depends = ok ? strv_new_empty() : NULL;
                        if (ok && !metas[cur].depends)
                                return -ENOMEM;
                        cur++;
                        continue;
                }
                if (!m || !ok)
                        return refuse(ret_why, "a field of no module, or of one that failed");
                switch (it->key) {
                case MODULE_META_REPLY_NAME:
                        r = take(&m->name, it->value, ret_why);
                        break;
                case MODULE_META_REPLY_VERMAGIC:
                        r = take(&m->vermagic, it->value, ret_why);
                        break;
                case MODULE_META_REPLY_SRCVERSION:
                        r = take(&m->srcversion, it->value, ret_why);
                        break;
                case MODULE_META_REPLY_DEPEND:
                        if (strv_length(m->depends) >= MODULE_META_DEPENDS_MAX)
                                return refuse(ret_why, "a module with more dependencies than allowed");
                        r = strv_extend(&m->depends, it->value);
                        break;
                default:
                        return refuse(ret_why, "a field the job does not have");
                }
                if (r < 0)
                        return r;
        }
        if (cur > 0 && ok && !metas[cur - 1].name)
                return refuse(ret_why, "a module without a name");
        if (cur != n)
                return refuse(ret_why, "fewer results than images");
        return 0;
}

int module_meta_reply_decode(const uint8_t *buf, size_t len, size_t n, ModuleMeta *ret_metas, int *ret_errors,
                             const char **ret_why) {
        const ReplyField schema[] = {
                { MODULE_META_REPLY_RESULT, 2, (unsigned) n, result_valid, "result" },
                { MODULE_META_REPLY_NAME, 55, (unsigned) n, name_valid, "name" },
                { MODULE_META_REPLY_VERMAGIC, MODULE_META_VERMAGIC_MAX, (unsigned) n, vermagic_valid, "vermagic" },
                { MODULE_META_REPLY_SRCVERSION, MODULE_META_SRCVERSION_MAX, (unsigned) n, srcversion_valid,
                  "srcversion" },
                { MODULE_META_REPLY_DEPEND, 55, (unsigned) (n * MODULE_META_DEPENDS_MAX), name_valid, "depends" },
        };
        _cleanup_(reply_freep) Reply *reply = NULL;
        _cleanup_free_ ModuleMeta *metas = NULL;
        _cleanup_free_ int *errors = NULL;
        const char *why = NULL;
        int r;

        if (n == 0 || n > MODULE_META_BATCH_MAX)
                return -EINVAL;
        r = reply_decode_max(buf, len, module_meta_reply_max(n), schema, ELEMENTSOF(schema), &reply, &why);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return refuse(ret_why, why);
        if (reply->error == ENOMEM)
                return refuse(ret_why, "the parser child ran out of memory");
        if (reply->error != 0)
                return refuse(ret_why, "the parser child could not read the images");
        metas = calloc(n, sizeof(*metas));
        errors = calloc(n, sizeof(*errors));
        if (!metas || !errors)
                return -ENOMEM;
        r = decode_items(reply, n, metas, errors, ret_why);
        if (r < 0) {
                metas_done(metas, n);
                return r;
        }
        memcpy(ret_metas, metas, n * sizeof(*metas));
        memcpy(ret_errors, errors, n * sizeof(*errors));
        return 0;
}

int module_meta_parse_confined(const BundlePart *images, size_t n, ModuleMeta *ret_metas, int *ret_errors,
                               const char **ret_why) {
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t len = 0;
        int r, sig = 0;

        if (n == 0 || n > MODULE_META_BATCH_MAX)
                return -EINVAL;
        r = sandbox_bundle_new(images, n, &fd);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return refuse(ret_why, "the images could not be handed to the parser child");
        r = parser_sandbox_run_max(fd, module_meta_reply_max(n), job, &n, &buf, &len, &sig);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return refuse(ret_why, parser_sandbox_failure(r, sig));
        return module_meta_reply_decode(buf, len, n, ret_metas, ret_errors, ret_why);
}

int module_meta_parse_in(bool confined, const void *image, size_t size, ModuleMeta *ret, const char **ret_why) {
        int r, error = 0;

        if (!confined)
                return module_meta_parse(image, size, ret);
        r = module_meta_parse_confined(&(BundlePart) { image, size }, 1, ret, &error, ret_why);
        return r < 0 ? r : error;
}
