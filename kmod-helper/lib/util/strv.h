/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <stdarg.h>

/* NULL-terminated string vectors ("strv"), the shape every list of names in
 * the guard has (holders, removal order, notes, ...).
 *
 * Conventions: a strv is a malloc'd array of malloc'd strings ending with
 * NULL. A NULL strv counts as empty in every reader below. Functions that
 * grow a vector take `char ***l` so they can reallocate it. */

#include <stdbool.h>
#include <stddef.h>

#include "util/macro.h"

/* A new empty vector ({ NULL }), or NULL on ENOMEM. */
char **strv_new_empty(void);

/* Frees every string and the array; accepts NULL; returns NULL. */
char **strv_free(char **l);

/* Number of strings before the terminating NULL; 0 for NULL. */
size_t strv_length(char *const *l);

/* True when some string of l equals s. */
bool strv_contains(char *const *l, const char *s);

/* Appends s, taking ownership of it: on failure s is freed too, so callers
 * never leak. *l may be NULL (a vector is created). 0 or -ENOMEM. */
int strv_push(char ***l, char *s);

/* Appends a copy of s. 0 or -ENOMEM. */
int strv_extend(char ***l, const char *s);

/* Appends a printf-formatted string. 0 or -ENOMEM. */
int strv_extendf(char ***l, const char *fmt, ...) _printf_(2, 3);
/* The same with a va_list, for other variadic helpers. */
int strv_extendfv(char ***l, const char *fmt, va_list ap) _printf_(2, 0);

/* A deep copy; NULL l gives an empty vector. 0 or -ENOMEM; *ret untouched on failure. */
int strv_copy(char *const *l, char ***ret);

/* The strings joined with sep ("" for an empty or NULL vector); NULL on ENOMEM. */
char *strv_join(char *const *l, const char *sep);

/* Sorts in place with strcmp order. */
void strv_sort(char **l);

static inline void strv_freep(char ***l) {
        strv_free(*l);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

#define STRV_FOREACH(s, l) for (char *const *s = (l); s && *s; s++)
