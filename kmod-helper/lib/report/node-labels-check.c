/* SPDX-License-Identifier: Apache-2.0 */
/* The copier's check of the daemon's node labels file, and the text it
 * publishes from what passed (node-labels.h). Apart from the grammar
 * (node-labels.c): the daemon writes, it never checks. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/node-labels.h"
#include "util/macro.h"

/* The name's constant, for our own names only. */
static const char *known_name(const char *name) {
        static const char *const known[] = { NODE_LABEL_STATE, NODE_LABEL_GDS_READY, NODE_LABEL_GDS_HOOKS,
                                             NODE_LABEL_MODE };

        for (size_t i = 0; i < ELEMENTSOF(known); i++)
                if (streq(name, known[i]))
                        return known[i];
        return NULL;
}

static char *trim(char *s) {
        char *e;

        while (isspace((unsigned char) *s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                *--e = '\0';
        return s;
}

static int refuse(unsigned line, const char *reason, unsigned *ret_line, const char **ret_reason) {
        *ret_line = line;
        *ret_reason = reason;
        return -EBADMSG;
}

/* One line, trimmed as nfd-worker trims it. */
static int check_line(char *line, unsigned no, uint64_t now_usec, bool *have_expiry, NodeLabelsFile *f,
                      unsigned *ret_line, const char **ret_reason) {
        char *eq;
        const char *name;

        if (*line == '\0')
                return 0;
        if (*line == '#') {
                if (strncmp(line, NODE_LABELS_DIRECTIVE_PREFIX, strlen(NODE_LABELS_DIRECTIVE_PREFIX)) != 0)
                        return 0; /* a comment (the copier writes its own: none is kept) */
                line += strlen(NODE_LABELS_DIRECTIVE_PREFIX);
                eq = strchr(line, '=');
                if (!eq || (size_t) (eq - line) != strlen(NODE_LABELS_EXPIRY_KEY) ||
                    strncmp(line, NODE_LABELS_EXPIRY_KEY, strlen(NODE_LABELS_EXPIRY_KEY)) != 0)
                        return refuse(no, "a directive other than '# +expiry-time=<RFC3339>'", ret_line, ret_reason);
                if (*have_expiry)
                        return refuse(no, "a second expiry-time directive", ret_line, ret_reason);
                if (f->n > 0)
                        return refuse(no, "the expiry-time directive after a label (it applies only to the lines after it)",
                                      ret_line, ret_reason);
                if (node_labels_parse_time(trim(eq + 1), &f->expiry_usec) < 0)
                        return refuse(no, "expiry-time is not an RFC 3339 time", ret_line, ret_reason);
                if (f->expiry_usec > now_usec + NODE_LABELS_EXPIRY_MAX_SEC * 1000000ULL)
                        return refuse(no, "expiry-time is further ahead than the daemon ever writes it", ret_line,
                                      ret_reason);
                *have_expiry = true;
                return 0;
        }
        if (!*have_expiry)
                return refuse(no, "a label before the expiry-time directive (it would never expire)", ret_line,
                              ret_reason);
        eq = strchr(line, '=');
        if (!eq)
                return refuse(no, "a label without '=value'", ret_line, ret_reason);
        *eq = '\0';
        if (!node_label_name_valid(line) || !(name = known_name(line)))
                return refuse(no, "not one of nvme-swapguard's label names", ret_line, ret_reason);
        if (!node_label_value_allowed(name, eq + 1))
                return refuse(no, "a value this label does not take (or outside Kubernetes' label syntax)", ret_line,
                              ret_reason);
        for (size_t i = 0; i < f->n; i++)
                if (f->labels[i].name == name)
                        return refuse(no, "the same label twice", ret_line, ret_reason);
        if (f->n >= NODE_LABELS_MAX)
                return refuse(no, "more labels than nvme-swapguard writes", ret_line, ret_reason);
        f->labels[f->n].name = name;
        snprintf(f->labels[f->n].value, sizeof(f->labels[f->n].value), "%s", eq + 1);
        f->n++;
        return 0;
}

int node_labels_check(const char *text, size_t size, uint64_t now_usec, NodeLabelsFile *ret,
                      unsigned *ret_line, const char **ret_reason) {
        _cleanup_free_ char *copy = NULL;
        NodeLabelsFile f = {};
        bool have_expiry = false;
        unsigned no = 0;
        int r;

        if (size > NODE_LABELS_FILE_MAX)
                return refuse(0, "larger than nvme-swapguard ever writes it", ret_line, ret_reason);
        if (memchr(text, '\0', size))
                return refuse(0, "not a text file (a NUL byte)", ret_line, ret_reason);
        copy = strndup(text, size);
        if (!copy)
                return -ENOMEM;
        /* strsep, not strtok: empty lines count in the line numbers. */
        for (char *p = copy, *line; (line = strsep(&p, "\n")); ) {
                no++;
                r = check_line(trim(line), no, now_usec, &have_expiry, &f, ret_line, ret_reason);
                if (r < 0)
                        return r;
        }
        if (!have_expiry)
                return refuse(0, "no expiry-time directive", ret_line, ret_reason);
        *ret = f;
        return 0;
}

int node_labels_file_to_text(const NodeLabelsFile *f, uint64_t now_usec, char **ret) {
        char when[32], *text = NULL;
        size_t size = 0;
        FILE *out;
        int r;

        r = node_labels_format_time(f->expiry_usec, when, sizeof(when));
        if (r < 0)
                return r;
        out = open_memstream(&text, &size);
        if (!out)
                return -ENOMEM;
        fprintf(out, "# nvme-swapguard: this node's NVMe stack swap, as node labels (man nvme-swapguard(8)).\n"
                     "# Published by nvme-swapguard-labels.service from what nvme-swapguard.service wrote; do not edit.\n"
                     NODE_LABELS_DIRECTIVE_PREFIX NODE_LABELS_EXPIRY_KEY "=%s\n", when);
        /* Past its expiry nfd-worker ignores them anyway: say nothing. */
        for (size_t i = 0; f->expiry_usec > now_usec && i < f->n; i++)
                fprintf(out, "%s=%s\n", f->labels[i].name, f->labels[i].value);
        if (fclose(out) != 0) {
                free(text);
                return -ENOMEM;
        }
        *ret = text;
        return 0;
}
