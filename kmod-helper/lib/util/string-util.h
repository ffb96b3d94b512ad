/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Formatting into a new string, for the many "message from a format"
 * functions (reports, failures, host paths). */

#include <stdarg.h>

#include "util/macro.h"

/* A malloc'd printf-formatted string, or NULL on ENOMEM. */
char *strdup_vprintf(const char *fmt, va_list ap) _printf_(1, 0);
char *strdup_printf(const char *fmt, ...) _printf_(1, 2);
