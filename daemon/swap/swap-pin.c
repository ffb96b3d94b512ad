/* SPDX-License-Identifier: Apache-2.0 */
#include "node/pin-holder.h"
#include "publish/log.h"
#include "publish/report.h"
#include "swap/pin-report.h"
#include "swap/swap-pin.h"
#include "swap/swap-record.h"
#include "util/strv.h"
#include "watch/usage-watch.h"

void swap_pin_refresh(Manager *m) {
        int changed = pin_holder_refresh(m->pin);
        char *const *reasons;

        if (changed < 0)
                (void) log_warning_errno(changed, "Cannot check NVMe namespace use for the pin, keeping it as it is: %m");
        else
                pin_report_refresh(m->pin);
        /* An open's close makes no event: look again, backing off, while one
         * holds the pin (usage-watch.h). */
        usage_watch_recheck_opens(m->usage, pin_holder_has_opens(m->pin));
        if (changed <= 0)
                return;
        reasons = pin_holder_reasons(m->pin);
        m->swap.record.pins = strv_free(m->swap.record.pins);
        if (reasons)
                (void) strv_copy(reasons, &m->swap.record.pins);
        report_status_suffix(pin_holder_summary(m->pin));
        swap_record_changed(m);
        swap_status_update(&m->swap, &m->follow);
}
