/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Whether the running kernel loads only signed modules: booted with
 * module.sig_enforce=1 (/sys/module/module/parameters/sig_enforce reads
 * "Y"; a kernel built with CONFIG_MODULE_SIG_FORCE too), or under lockdown
 * (/sys/kernel/security/lockdown "none [integrity] confidentiality": the
 * bracketed mode; Secure Boot turns it on on RHEL/RHCOS). The kernel then
 * refuses an unsigned module, or one signed by a key it does not trust:
 * EKEYREJECTED under sig_enforce, EPERM under lockdown alone
 * (kernel/module/signing.c, module_sig_check(), 6.1). Read through
 * host-root. */

#include <stdbool.h>

typedef struct ModuleSigning {
        bool sig_enforce;  /* sig_enforce reads Y */
        char lockdown[16]; /* "integrity", "confidentiality"; "" for none or unknown */
} ModuleSigning;

/* Never fails: what cannot be read is "not enforced" (the errno of the load
 * still says what happened). */
void module_signing_read(ModuleSigning *ret);

/* Pure: whether a load that failed with error (positive errno) was refused
 * for its signature on a kernel in this state. */
bool module_signing_refused(const ModuleSigning *s, int error);

/* Pure: the explanation and the remedies for such a refusal, one line:
 * "this kernel loads only signed modules (module.sig_enforce=Y): ...".
 * 0 with *ret, -ENOMEM. */
int module_signing_explain(const ModuleSigning *s, char **ret);
