/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions/load-refusal.h"
#include "host/module-signing.h"
#include "util/macro.h"

int load_refusal_why(int error, char **ret) {
        _cleanup_free_ char *explain = NULL;
        ModuleSigning s;
        int r;

        if (error == ENOEXEC)
                r = asprintf(ret, "%s", " (rejected as invalid for this kernel)");
        else if (error != EKEYREJECTED && error != EPERM)
                r = asprintf(ret, "%s", "");
        else {
                module_signing_read(&s);
                if (!module_signing_refused(&s, error))
                        r = asprintf(ret, "%s", "");
                else if (module_signing_explain(&s, &explain) < 0)
                        return -ENOMEM;
                else
                        r = asprintf(ret, " (signature rejected by the kernel: %s)", explain);
        }
        return r < 0 ? -ENOMEM : 0;
}
