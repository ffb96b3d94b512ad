/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <time.h>

#include "util/retry.h"

void sleep_ms_uninterrupted(unsigned ms) {
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

int retry_transient(const RetryPolicy *p, RetryStep step, void *userdata) {
        unsigned backoff = p->first_ms;

        for (unsigned attempt = 1;; attempt++) {
                int r = step(userdata, attempt);

                if ((r != -EAGAIN && r != -EBUSY) || attempt >= p->attempts)
                        return r;
                sleep_ms_uninterrupted(backoff);
                backoff = backoff > p->max_ms / 2 ? p->max_ms : backoff * 2;
        }
}
