/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Why the kernel refused a module, in words an operator can act on: the
 * text that follows strerror() in a load's failed_reason. A signature
 * refusal says whether the kernel loads only signed modules
 * (host/module-signing.h) and what the remedies are, so that the CLI's
 * and the daemon's reports carry them alike. */

/* error: the positive errno of the insert. " (...)" or "" in *ret; 0 or -ENOMEM. */
int load_refusal_why(int error, char **ret);
