/* SPDX-License-Identifier: Apache-2.0 */
#include <ctype.h>
#include <string.h>

#include "swap/unload-moment.h"
#include "util/macro.h"

static const char *const why_names[_UNLOAD_MOMENT_WHY_MAX] = {
        [UNLOAD_MOMENT_SAFE_AT_READY] = "first swap: no NVIDIA build is loaded, in-tree nvme_rdma is absent or the "
                                        "container's to unload, its openibd does not stop on nvme, and the image "
                                        "does not load nvme itself",
        [UNLOAD_MOMENT_BUILD_LOADED] = "an NVIDIA build of the stack is loaded (a restart or an upgrade): its nvme "
                                       "must go before the container's openibd restart",
        [UNLOAD_MOMENT_NVME_RDMA] = "the in-tree nvme_rdma is loaded and UNLOAD_STORAGE_MODULES is not true",
        [UNLOAD_MOMENT_OPENIBD_LISTS_NVME] = "the container's openibd check_if_ok_to_stop lists nvme: a loaded nvme "
                                             "in use would make its openibd restart fail",
        [UNLOAD_MOMENT_OPENIBD_UNKNOWN] = "the container's openibd could not be read",
        [UNLOAD_MOMENT_IMAGE_LOADS_NVME] = "an older image that loads its own nvme after openibd restart",
        [UNLOAD_MOMENT_IMAGE_UNKNOWN] = "whether the image loads nvme itself is not known",
};

static const char *const rule_names[_UNLOAD_MOMENT_WHY_MAX] = {
        [UNLOAD_MOMENT_SAFE_AT_READY] = "safe-at-ready",
        [UNLOAD_MOMENT_BUILD_LOADED] = "build-loaded",
        [UNLOAD_MOMENT_NVME_RDMA] = "nvme-rdma",
        [UNLOAD_MOMENT_OPENIBD_LISTS_NVME] = "openibd-lists-nvme",
        [UNLOAD_MOMENT_OPENIBD_UNKNOWN] = "openibd-unknown",
        [UNLOAD_MOMENT_IMAGE_LOADS_NVME] = "image-loads-nvme",
        [UNLOAD_MOMENT_IMAGE_UNKNOWN] = "image-unknown",
};

const char *unload_moment_rule_to_string(UnloadMomentWhy w) {
        return w >= 0 && w < _UNLOAD_MOMENT_WHY_MAX ? rule_names[w] : NULL;
}

const char *unload_moment_why_to_string(UnloadMomentWhy w) {
        return w >= 0 && w < _UNLOAD_MOMENT_WHY_MAX ? why_names[w] : NULL;
}

static UnloadMoment at_start(UnloadMomentWhy why) {
        return (UnloadMoment) { .at = UNLOAD_AT_CONTAINER_START, .why = why };
}

UnloadMoment unload_moment_decide(const UnloadMomentInput *in) {
        if (in->replacement_loaded || in->earlier_build)
                return at_start(UNLOAD_MOMENT_BUILD_LOADED);
        if (in->image_loads_nvme == KNOWN_YES)
                return at_start(UNLOAD_MOMENT_IMAGE_LOADS_NVME);
        if (in->image_loads_nvme != KNOWN_NO)
                return at_start(UNLOAD_MOMENT_IMAGE_UNKNOWN);
        if (in->nvme_rdma_loaded && in->unload_storage_modules != ENV_FLAG_TRUE)
                return at_start(UNLOAD_MOMENT_NVME_RDMA);
        if (in->openibd_lists_nvme == KNOWN_YES)
                return at_start(UNLOAD_MOMENT_OPENIBD_LISTS_NVME);
        if (in->openibd_lists_nvme != KNOWN_NO)
                return at_start(UNLOAD_MOMENT_OPENIBD_UNKNOWN);
        return (UnloadMoment) { .at = UNLOAD_AT_DRIVER_READY, .why = UNLOAD_MOMENT_SAFE_AT_READY };
}

/* The function's body: from "check_if_ok_to_stop()" (shell spacing
 * allowed) to the first line that is only "}". */
static const char *function_body(const char *text, const char **ret_end) {
        static const char name[] = "check_if_ok_to_stop";
        const char *p = text;

        for (; (p = strstr(p, name)); p += sizeof(name) - 1) {
                const char *q = p + sizeof(name) - 1, *end;
                bool line_start = p == text || p[-1] == '\n' || p[-1] == ' ' || p[-1] == '\t';

                if (!line_start)
                        continue;
                while (*q == ' ' || *q == '\t')
                        q++;
                if (q[0] != '(' || q[1] != ')')
                        continue; /* a call, not the definition */
                end = strstr(q, "\n}");
                *ret_end = end ? end : q + strlen(q);
                return q;
        }
        return NULL;
}

static bool word_at(const char *p, const char *start, const char *word) {
        size_t n = strlen(word);

        if (strncmp(p, word, n) != 0)
                return false;
        if (p > start && (isalnum((unsigned char) p[-1]) || p[-1] == '_' || p[-1] == '-'))
                return false;
        return !(isalnum((unsigned char) p[n]) || p[n] == '_' || p[n] == '-');
}

/* The closing quote of the string opening at p (a backslash escapes in
 * double quotes only), NULL when it does not close before end. */
static const char *quoted_end(const char *p, const char *end) {
        char quote = *p;

        for (p++; p < end; p++) {
                if (quote == '"' && *p == '\\' && p + 1 < end)
                        p++;
                else if (*p == quote)
                        return p;
        }
        return NULL;
}

static bool span_has_space(const char *p, const char *end) {
        for (; p < end; p++)
                if (*p == ' ' || *p == '\t' || *p == '\n')
                        return true;
        return false;
}

Knowledge openibd_check_lists_nvme(const char *text) {
        const char *body, *end;

        if (!text)
                return KNOWN_UNKNOWN;
        body = function_body(text, &end);
        if (!body)
                return KNOWN_UNKNOWN;
        /* The names it checks are words of its body (a "for mod in ..."
         * list, or is_module tests): nvme alone, never nvme_rdma. Comments
         * are skipped, and so are quoted sentences: 26.04's own body says
         * "Please close all nvme sessions and unload 'nvme_rdma' module."
         * (a message, not a module it checks), while a quoted single word
         * ("nvme") is still a name. */
        for (const char *p = body; p < end; p++) {
                if (*p == '#') {
                        while (p < end && *p != '\n')
                                p++;
                        continue;
                }
                if (*p == '"' || *p == '\'') {
                        const char *q = quoted_end(p, end);

                        if (!q)
                                continue;
                        if (!span_has_space(p + 1, q))
                                for (const char *w = p + 1; w < q; w++)
                                        if (word_at(w, p + 1, "nvme") && !(w > p + 1 && w[-1] == '/'))
                                                return KNOWN_YES;
                        p = q;
                        continue;
                }
                if (word_at(p, body, "nvme") && !(p > body && p[-1] == '/'))
                        return KNOWN_YES;
        }
        return KNOWN_NO;
}

/* The word after a modprobe/insmod (options skipped) names an nvme module
 * (nvme, nvme-core, nvme_rdma, .../nvme.ko ...). */
static bool names_nvme(const char *p, const char *eol) {
        for (;;) {
                const char *w, *base;
                size_t n;

                while (p < eol && (*p == ' ' || *p == '\t'))
                        p++;
                if (p >= eol)
                        return false;
                w = p;
                while (p < eol && *p != ' ' && *p != '\t' && *p != ';' && *p != '&' && *p != '|')
                        p++;
                n = (size_t) (p - w);
                if (n == 0)
                        return false;
                if (w[0] == '-') {
                        if ((n == 2 && w[1] == 'r') || (n == 8 && strncmp(w, "--remove", 8) == 0))
                                return false; /* a removal, not a load */
                        continue;            /* another option */
                }
                base = w;
                for (const char *c = w; c < w + n; c++)
                        if (*c == '/')
                                base = c + 1;
                if (*base == '"' || *base == '\'')
                        base++;
                return strncmp(base, "nvme", 4) == 0 && (base + 4 == w + n || strchr("-_.\"'", base[4]));
        }
}

Knowledge entrypoint_loads_nvme(const char *script) {
        if (!script)
                return KNOWN_UNKNOWN;
        for (const char *line = script; *line;) {
                const char *eol = strchrnul(line, '\n');

                for (const char *p = line; p < eol && *p != '#'; p++) {
                        static const char *const tools[] = { "modprobe", "insmod" };

                        for (size_t i = 0; i < ELEMENTSOF(tools); i++) {
                                size_t n = strlen(tools[i]);

                                if (word_at(p, line, tools[i]) && p + n <= eol && names_nvme(p + n, eol))
                                        return KNOWN_YES;
                        }
                }
                line = *eol ? eol + 1 : eol;
        }
        return KNOWN_NO;
}
