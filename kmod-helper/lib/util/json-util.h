/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* json-c helpers for every file that builds or reads JSON (the CLI's reports,
 * the daemon's state file, a container's config.json): the cleanup helper
 * and typed lookups that treat a missing key and a value of the wrong type
 * alike. Header-only. */

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/macro.h"
#include "util/strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(json_object *, json_object_put);
#define _cleanup_json_ _cleanup_(json_object_putp)

/* Every string value of o and below overwritten with zeros in place
 * (json_object_put() frees them as they are). */
static inline void json_object_erase_strings(json_object *o) {
        if (json_object_is_type(o, json_type_string))
                explicit_bzero((char *) json_object_get_string(o), (size_t) json_object_get_string_len(o));
        else if (json_object_is_type(o, json_type_array))
                for (size_t i = 0; i < json_object_array_length(o); i++)
                        json_object_erase_strings(json_object_array_get_idx(o, i));
        else if (json_object_is_type(o, json_type_object)) {
                json_object_object_foreach(o, key, v) {
                        (void) key;
                        json_object_erase_strings(v);
                }
        }
}

/* json_object_put() of an object that held secrets: the text of its last
 * serialization (json-c keeps it in the object; made again here with the
 * strings unchanged, so into the same buffer) is erased, then every string
 * value. */
static inline void json_object_erase_put(json_object *o) {
        const char *text;

        if (!o)
                return;
        text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (text)
                explicit_bzero((char *) text, strlen(text));
        json_object_erase_strings(o);
        json_object_put(o);
}
DEFINE_TRIVIAL_CLEANUP_FUNC(json_object *, json_object_erase_put);
#define _cleanup_json_erase_ _cleanup_(json_object_erase_putp)

/* The string under key, or NULL when absent or not a string. */
static inline const char *json_get_string(const json_object *o, const char *key) {
        json_object *v;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

/* The integer under key, or 0 when absent or not an integer. */
static inline int64_t json_get_int64(const json_object *o, const char *key) {
        json_object *v;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
                return 0;
        return json_object_get_int64(v);
}

/* Adds v under key; a NULL v is JSON null. v is the object's now, or put
 * when adding fails (json-c keeps it only when it was added). 0 or -ENOMEM. */
static inline int json_add(json_object *o, const char *key, json_object *v) {
        if (json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

/* The same for a value just constructed: NULL is its constructor's failure. */
static inline int json_add_new(json_object *o, const char *key, json_object *v) {
        return v ? json_add(o, key, v) : -ENOMEM;
}

/* Typed values under key, each 0 or -ENOMEM; a NULL string is JSON null
 * (the reports' contract: absent values are null, never missing keys). */
static inline int json_add_string(json_object *o, const char *key, const char *s) {
        json_object *v = NULL;

        if (s) {
                v = json_object_new_string(s);
                if (!v)
                        return -ENOMEM;
        }
        return json_add(o, key, v);
}

static inline int json_add_bool(json_object *o, const char *key, bool b) {
        json_object *v = json_object_new_boolean(b);

        return v ? json_add(o, key, v) : -ENOMEM;
}

static inline int json_add_int(json_object *o, const char *key, int64_t n) {
        json_object *v = json_object_new_int64(n);

        return v ? json_add(o, key, v) : -ENOMEM;
}

/* A positive errno as its number under num_key and its text under
 * text_key; 0 as null under both. */
static inline int json_add_errno(json_object *o, const char *num_key, const char *text_key, int error) {
        int r;

        if (error == 0)
                return json_add(o, num_key, NULL) < 0 || json_add(o, text_key, NULL) < 0 ? -ENOMEM : 0;
        r = json_add_int(o, num_key, error);
        return r < 0 ? r : json_add_string(o, text_key, strerror(error));
}

/* Appends v to the array a, or puts it. 0 or -ENOMEM. */
static inline int json_array_add(json_object *a, json_object *v) {
        if (!v || json_object_array_add(a, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

/* A new array of the strings of l (empty for NULL). 0 or -ENOMEM. */
static inline int json_array_from_strv(char *const *l, json_object **ret) {
        _cleanup_json_ json_object *a = json_object_new_array();
        int r;

        if (!a)
                return -ENOMEM;
        STRV_FOREACH(s, l) {
                r = json_array_add(a, json_object_new_string(*s));
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(a);
        return 0;
}

/* The strings of l as an array under key (empty for NULL). 0 or -ENOMEM. */
static inline int json_add_strv(json_object *o, const char *key, char *const *l) {
        json_object *a = NULL;
        int r;

        r = json_array_from_strv(l, &a);
        return r < 0 ? r : json_add(o, key, a);
}

/* o as pretty-printed JSON text (slashes unescaped), malloc'd: 0 or -ENOMEM. */
static inline int json_to_text(json_object *o, char **ret) {
        char *text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));

        if (!text)
                return -ENOMEM;
        *ret = text;
        return 0;
}
