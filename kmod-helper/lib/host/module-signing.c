/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "host/module-signing.h"
#include "util/fileio.h"
#include "util/macro.h"

/* "none [integrity] confidentiality" -> "integrity"; "none" -> "". */
static void parse_lockdown(const char *text, char ret[static 16]) {
        const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;
        size_t n;

        ret[0] = '\0';
        if (!open || !close)
                return;
        n = (size_t) (close - open - 1);
        if (n == 0 || n >= 16 || strneq(open + 1, "none", n))
                return;
        memcpy(ret, open + 1, n);
        ret[n] = '\0';
}

void module_signing_read(ModuleSigning *ret) {
        _cleanup_free_ char *path = NULL, *value = NULL;

        *ret = (ModuleSigning) {};
        if (host_path("/sys/module/module/parameters/sig_enforce", &path) >= 0 &&
            read_one_line_file(path, &value) >= 0)
                ret->sig_enforce = streq(value, "Y");
        free(path);
        path = NULL;
        free(value);
        value = NULL;
        if (host_path("/sys/kernel/security/lockdown", &path) >= 0 && read_one_line_file(path, &value) >= 0)
                parse_lockdown(value, ret->lockdown);
}

bool module_signing_refused(const ModuleSigning *s, int error) {
        /* EKEYREJECTED is only ever the signature check's answer; EPERM is
         * also "not root", so only under lockdown. */
        return error == EKEYREJECTED || (error == EPERM && s->lockdown[0]);
}

int module_signing_explain(const ModuleSigning *s, char **ret) {
        char why[64];

        if (s->sig_enforce && s->lockdown[0])
                snprintf(why, sizeof(why), "module.sig_enforce=Y, lockdown=%s", s->lockdown);
        else if (s->lockdown[0])
                snprintf(why, sizeof(why), "lockdown=%s, as under Secure Boot", s->lockdown);
        else if (s->sig_enforce)
                snprintf(why, sizeof(why), "module.sig_enforce=Y");
        else
                snprintf(why, sizeof(why), "it rejected the module's signature");
        return asprintf(ret, "this kernel loads only modules signed by a key it trusts (%s): sign NVIDIA's build "
                        "(the kernel's scripts/sign-file, or the driver container's signed build) with a key "
                        "enrolled in the kernel's keyring (mokutil --import KEY.der, confirmed at the next boot), "
                        "or leave this node on the in-tree stack", why) < 0
                       ? -ENOMEM
                       : 0;
}
