/* SPDX-License-Identifier: Apache-2.0 */
#include "publish/report.h"
#include "swap/swap-pin.h"
#include "swap/swap-record.h"
#include "util/strv.h"

void swap_pin_refresh(Manager *m) {
        char *const *reasons;

        if (pin_holder_refresh(m->pin) <= 0)
                return;
        reasons = pin_holder_reasons(m->pin);
        m->record.pins = strv_free(m->record.pins);
        if (reasons)
                (void) strv_copy(reasons, &m->record.pins);
        report_status_suffix(pin_holder_summary(m->pin));
        swap_record_persist(m);
        swap_status_update(m);
}
