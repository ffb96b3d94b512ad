/* SPDX-License-Identifier: Apache-2.0 */
/* The node labels' grammar, for the daemon that writes them and the copier
 * that checks them (node-labels.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/node-labels.h"
#include "util/macro.h"

static bool label_char(char c) {
        return isalnum((unsigned char) c) || c == '-' || c == '_' || c == '.';
}

bool node_label_value_valid(const char *v) {
        size_t n = strlen(v);

        if (n == 0)
                return true;
        if (n > NODE_LABEL_VALUE_MAX || !isalnum((unsigned char) v[0]) || !isalnum((unsigned char) v[n - 1]))
                return false;
        for (const char *c = v; *c; c++)
                if (!label_char(*c))
                        return false;
        return true;
}

bool node_label_name_valid(const char *v) {
        return v[0] != '\0' && node_label_value_valid(v);
}

static const char *const known[] = { NODE_LABEL_STATE, NODE_LABEL_GDS_READY, NODE_LABEL_GDS_HOOKS, NODE_LABEL_MODE };

static const char *known_name(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(known); i++)
                if (streq(name, known[i]))
                        return known[i];
        return NULL;
}

bool node_label_known(const char *name) {
        return known_name(name) != NULL;
}

static bool one_of(const char *v, const char *const *list) {
        for (; *list; list++)
                if (streq(v, *list))
                        return true;
        return false;
}

bool node_label_value_allowed(const char *name, const char *value) {
        static const char *const booleans[] = { "true", "false", NULL };
        static const char *const hooks[] = { "none", "unknown", "v1", "v2", "v1-v2", NULL };
        static const char *const modes[] = { "enforce", "observe", NULL };

        if (!node_label_known(name) || !node_label_value_valid(value) || value[0] == '\0')
                return false;
        if (streq(name, NODE_LABEL_GDS_READY))
                return one_of(value, booleans);
        if (streq(name, NODE_LABEL_GDS_HOOKS))
                return one_of(value, hooks);
        if (streq(name, NODE_LABEL_MODE))
                return one_of(value, modes);
        /* The state: a swap state's name, lower-case words joined by '-'. */
        for (const char *c = value; *c; c++)
                if (!(islower((unsigned char) *c) || *c == '-'))
                        return false;
        return true;
}

int node_labels_format_time(uint64_t usec, char *buf, size_t size) {
        time_t t = (time_t) (usec / 1000000ULL);
        struct tm tm;

        if (!gmtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                return -EINVAL;
        return 0;
}

/* n decimal digits at *s, advanced past them. */
static int digits(const char **s, unsigned n, int *ret) {
        int v = 0;

        for (unsigned i = 0; i < n; i++, (*s)++) {
                if (!isdigit((unsigned char) **s))
                        return -EINVAL;
                v = v * 10 + (**s - '0');
        }
        *ret = v;
        return 0;
}

static int expect(const char **s, char c) {
        if (**s != c)
                return -EINVAL;
        (*s)++;
        return 0;
}

int node_labels_parse_time(const char *s, uint64_t *ret_usec) {
        struct tm tm = {};
        int year, mon, day, hour, min, sec, oh = 0, om = 0, sign = 0;
        time_t t;

        if (digits(&s, 4, &year) < 0 || expect(&s, '-') < 0 || digits(&s, 2, &mon) < 0 || expect(&s, '-') < 0 ||
            digits(&s, 2, &day) < 0 || expect(&s, 'T') < 0 || digits(&s, 2, &hour) < 0 || expect(&s, ':') < 0 ||
            digits(&s, 2, &min) < 0 || expect(&s, ':') < 0 || digits(&s, 2, &sec) < 0)
                return -EINVAL;
        if (*s == '.') { /* a fraction: Go accepts it; whole seconds are enough here */
                s++;
                if (!isdigit((unsigned char) *s))
                        return -EINVAL;
                while (isdigit((unsigned char) *s))
                        s++;
        }
        if (*s == 'Z')
                s++;
        else if (*s == '+' || *s == '-') {
                sign = *s == '+' ? 1 : -1;
                s++;
                if (digits(&s, 2, &oh) < 0 || expect(&s, ':') < 0 || digits(&s, 2, &om) < 0 || oh > 23 || om > 59)
                        return -EINVAL;
        } else
                return -EINVAL;
        if (*s != '\0' || mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59 ||
            year < 1970)
                return -EINVAL;
        tm.tm_year = year - 1900;
        tm.tm_mon = mon - 1;
        tm.tm_mday = day;
        tm.tm_hour = hour;
        tm.tm_min = min;
        tm.tm_sec = sec;
        t = timegm(&tm);
        /* timegm() normalises 31 February into March: not a date. */
        if (t == (time_t) -1 || tm.tm_mday != day || tm.tm_mon != mon - 1)
                return -EINVAL;
        t -= sign * (oh * 3600 + om * 60);
        if (t < 0)
                return -EINVAL;
        *ret_usec = (uint64_t) t * 1000000ULL;
        return 0;
}
