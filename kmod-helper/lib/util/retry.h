/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The one bounded retry for transient kernel answers (EAGAIN: a reference
 * being dropped; EBUSY: a module still coming or going), shared by the
 * removal of modules and their insertion. The step is called again after a
 * back-off that doubles up to a ceiling; a signal does not cut a back-off
 * short (nanosleep resumes with the time left), so the attempts keep their
 * meaning however often the process is signalled. The step itself decides
 * what a try is: the unload re-checks the namespaces inside it, so every
 * retry starts from a fresh usage check. */

typedef struct RetryPolicy {
        unsigned attempts; /* tries in all, at least 1 */
        unsigned first_ms; /* the first back-off */
        unsigned max_ms;   /* the back-off's ceiling */
} RetryPolicy;

/* One try: 0 or a positive value ends the retry (returned as is), and so
 * does any negative errno but -EAGAIN and -EBUSY. */
typedef int (*RetryStep)(void *userdata, unsigned attempt);

/* Runs step until it returns something not transient, or the attempts are
 * spent; returns what the last try returned. */
int retry_transient(const RetryPolicy *p, RetryStep step, void *userdata);

/* Sleeps ms milliseconds, resuming after signals. */
void sleep_ms_uninterrupted(unsigned ms);
