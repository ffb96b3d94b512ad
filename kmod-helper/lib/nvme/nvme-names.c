/* SPDX-License-Identifier: Apache-2.0 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvme/nvme-names.h"
#include "util/macro.h"
#include "util/parse-util.h"

/* Skips "<letter><digits>" at *p; false when not there. */
static bool skip_tagged_number(const char **p, char tag) {
        const char *s = *p;

        if (*s != tag || !isdigit((unsigned char) s[1]))
                return false;
        for (s++; isdigit((unsigned char) *s); s++)
                ;
        *p = s;
        return true;
}

/* Parses nvme<N>[c<N>]n<N>[p<N>]; reports which optional parts were there. */
static bool parse_nvme_name(const char *name, bool *has_ctrl, bool *has_part) {
        const char *p = name;

        if (!name || !strneq(name, "nvme", 4))
                return false;
        p += 3; /* so that skip_tagged_number sees the 'e' as tag: "e<digits>" */
        if (!skip_tagged_number(&p, 'e'))
                return false;
        *has_ctrl = skip_tagged_number(&p, 'c');
        if (!skip_tagged_number(&p, 'n'))
                return false;
        *has_part = skip_tagged_number(&p, 'p');
        return *p == '\0';
}

bool nvme_name_is_controller(const char *name) {
        return name && strneq(name, "nvme", 4) && is_all_digits(name + 4);
}

bool nvme_name_is_hidden_path(const char *name) {
        bool ctrl, part;

        return parse_nvme_name(name, &ctrl, &part) && ctrl;
}

bool nvme_name_is_namespace(const char *name) {
        bool ctrl, part;

        return parse_nvme_name(name, &ctrl, &part) && !ctrl && !part;
}

int nvme_partition_parent_name(const char *name, char **ret) {
        bool ctrl, part;
        char *parent;

        if (!parse_nvme_name(name, &ctrl, &part) || !part)
                return -EINVAL;
        parent = strndup(name, strrchr(name, 'p') - name);
        if (!parent)
                return -ENOMEM;
        *ret = parent;
        return 0;
}

bool nvme_name_belongs_to(const char *device, const char *namespace_name) {
        size_t n;

        if (!device || !namespace_name)
                return false;
        n = strlen(namespace_name);
        if (strncmp(device, namespace_name, n) != 0)
                return false;
        if (device[n] == '\0')
                return true;
        return device[n] == 'p' && device[n + 1] != '\0' && is_all_digits(device + n + 1);
}
