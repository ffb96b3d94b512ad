/* SPDX-License-Identifier: Apache-2.0 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/string-util.h"
#include "util/strv.h"

char **strv_new_empty(void) {
        return calloc(1, sizeof(char *));
}

char **strv_free(char **l) {
        if (!l)
                return NULL;
        for (char **s = l; *s; s++)
                free(*s);
        free(l);
        return NULL;
}

size_t strv_length(char *const *l) {
        size_t n = 0;

        while (l && l[n])
                n++;
        return n;
}

bool strv_contains(char *const *l, const char *s) {
        STRV_FOREACH(i, l)
                if (streq(*i, s))
                        return true;
        return false;
}

int strv_push(char ***l, char *s) {
        size_t n;
        char **grown;

        if (!s)
                return -ENOMEM; /* lets callers write strv_push(&l, strdup(x)) */
        n = strv_length(*l);
        grown = realloc(*l, (n + 2) * sizeof(char *));
        if (!grown) {
                free(s);
                return -ENOMEM;
        }
        grown[n] = s;
        grown[n + 1] = NULL;
        *l = grown;
        return 0;
}

int strv_extend(char ***l, const char *s) {
        return strv_push(l, strdup(s));
}

int strv_extendfv(char ***l, const char *fmt, va_list ap) {
        char *s = strdup_vprintf(fmt, ap);

        return s ? strv_push(l, s) : -ENOMEM;
}

int strv_extendf(char ***l, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = strv_extendfv(l, fmt, ap);
        va_end(ap);
        return r;
}

int strv_copy(char *const *l, char ***ret) {
        _cleanup_strv_free_ char **c = strv_new_empty();
        int r;

        if (!c)
                return -ENOMEM;
        STRV_FOREACH(s, l) {
                r = strv_extend(&c, *s);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(c);
        return 0;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

char *strv_join(char *const *l, const char *sep) {
        size_t len = 1, n_sep = strlen(sep), at = 0;
        char *s;

        STRV_FOREACH(i, l)
                len += strlen(*i) + n_sep;
        s = malloc(len);
        if (!s)
                return NULL;
        STRV_FOREACH(i, l) {
                size_t n = strlen(*i);

                if (i != l) {
                        memcpy(s + at, sep, n_sep);
                        at += n_sep;
                }
                memcpy(s + at, *i, n);
                at += n;
        }
        s[at] = '\0';
        return s;
}

void strv_sort(char **l) {
        size_t n = strv_length(l);

        if (n > 1)
                qsort(l, n, sizeof(char *), cmp_str);
}
