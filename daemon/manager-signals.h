/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include "swap/manager-data.h"

/* SIGTERM, SIGINT (stop) and SIGHUP (reload) on the manager's loop. */
int manager_signals_add(Manager *m);
