/* SPDX-License-Identifier: Apache-2.0 */
#include "node/pin-holder.h"
#include "publish/log.h"
#include "publish/report.h"
#include "swap/pin-report.h"
#include "swap/swap-pin.h"
#include "swap/swap-record.h"
#include "util/strv.h"
#include "watch/usage-watch.h"

void swap_pin_refresh(PinHolder *pin, UsageWatch *usage, SwapMachine *s, const SwapFollow *f, const SwapLoop *loop) {
        int changed = pin_holder_refresh(pin);
        char *const *reasons;

        if (changed < 0)
                (void) log_warning_errno(changed, "Cannot check NVMe namespace use for the pin, keeping it as it is: %m");
        else
                pin_report_refresh(pin);
        /* An open's close makes no event: look again, backing off, while one
         * holds the pin (usage-watch.h). */
        usage_watch_recheck_opens(usage, pin_holder_has_opens(pin));
        if (changed <= 0)
                return;
        reasons = pin_holder_reasons(pin);
        s->record.pins = strv_free(s->record.pins);
        if (reasons)
                (void) strv_copy(reasons, &s->record.pins);
        report_status_suffix(pin_holder_summary(pin));
        swap_loop_save(loop, SWAP_SAVE_CHANGED);
        swap_status_update(s, f);
}
