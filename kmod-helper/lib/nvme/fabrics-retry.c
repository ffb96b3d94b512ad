/* SPDX-License-Identifier: Apache-2.0 */
/* The retry rule of a fabrics connection not back (see fabrics-retry.h). */
#include <string.h>

#include "nvme/fabrics-retry.h"
#include "nvme/fabrics-topology.h"

#define USEC_PER_SEC 1000000ull

FabricsErrorKind fabrics_error_kind_from_errno(int error) {
        switch (error < 0 ? -error : error) {
        case 0:
                return FABRICS_ERROR_NONE;
        case ECONNREFUSED:
                return FABRICS_ERROR_REFUSED;
        case EAGAIN:
        case ETIMEDOUT:
        case EHOSTUNREACH:
        case ENETUNREACH:
                return FABRICS_ERROR_NO_ANSWER;
        case EKEYREJECTED:
        case EKEYEXPIRED:
        case EACCES:
        case EPERM:
                return FABRICS_ERROR_AUTH;
        case EALREADY:
        case EEXIST:
                return FABRICS_ERROR_EXISTS;
        case EINVAL:
                return FABRICS_ERROR_INVALID;
        default:
                return FABRICS_ERROR_OTHER;
        }
}

static const char *const kind_names[_FABRICS_ERROR_KIND_MAX] = {
        [FABRICS_ERROR_REFUSED] = "refused", [FABRICS_ERROR_NO_ANSWER] = "no-answer",
        [FABRICS_ERROR_AUTH] = "auth",       [FABRICS_ERROR_EXISTS] = "exists",
        [FABRICS_ERROR_INVALID] = "invalid", [FABRICS_ERROR_OTHER] = "other",
};

const char *fabrics_error_kind_to_string(FabricsErrorKind k) {
        return k >= 0 && k < _FABRICS_ERROR_KIND_MAX ? kind_names[k] : NULL;
}

FabricsErrorKind fabrics_error_kind_from_string(const char *s) {
        for (int k = 0; s && k < _FABRICS_ERROR_KIND_MAX; k++)
                if (kind_names[k] && strcmp(kind_names[k], s) == 0)
                        return (FabricsErrorKind) k;
        return _FABRICS_ERROR_KIND_INVALID;
}

FabricsRetryPlan fabrics_retry_plan(uint64_t now_usec, uint64_t lost_usec, int reconnect_delay, int ctrl_loss_tmo) {
        FabricsRetryPlan p = {};
        uint64_t delay;

        if (reconnect_delay == FABRICS_OPT_UNSET)
                reconnect_delay = FABRICS_DEFAULT_RECONNECT_DELAY_SEC;
        if (ctrl_loss_tmo == FABRICS_OPT_UNSET)
                ctrl_loss_tmo = FABRICS_DEFAULT_CTRL_LOSS_TMO_SEC;
        delay = (uint64_t) (reconnect_delay < 1 ? 1 : reconnect_delay) * USEC_PER_SEC;
        if (ctrl_loss_tmo >= 0) {
                p.give_up_at_usec = lost_usec + (uint64_t) ctrl_loss_tmo * USEC_PER_SEC;
                if (p.give_up_at_usec == 0) /* lost at the epoch with no time: still a time */
                        p.give_up_at_usec = 1;
                if (now_usec >= p.give_up_at_usec) {
                        p.give_up = true;
                        return p;
                }
        }
        p.next_try_usec = now_usec + delay;
        if (p.give_up_at_usec && p.next_try_usec > p.give_up_at_usec)
                p.next_try_usec = p.give_up_at_usec;
        return p;
}
