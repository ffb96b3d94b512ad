/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Strict number parsing for what /proc and /sys hand us. The whole string
 * must be the number (one trailing newline is tolerated, since sysfs files
 * end with one): "12abc", "", "-1" for an unsigned, or an overflow give
 * -EINVAL / -ERANGE, never a silently wrong value. *ret untouched on failure. */

#include <stdint.h>
#include <sys/types.h>

int safe_atou(const char *s, unsigned *ret);
int safe_atoi(const char *s, int *ret);
int safe_atou64(const char *s, uint64_t *ret);
/* A whole number of seconds from 1 to max (a configured or given timeout):
 * -EINVAL for 0, anything above max, or anything safe_atou64() refuses. */
int parse_seconds(const char *s, uint64_t max, uint64_t *ret);

/* "259:0" (the format of sysfs `dev` files and mountinfo) -> makedev(259, 0). */
int parse_devno(const char *s, dev_t *ret);

/* A string made only of decimal digits (a pid directory of /proc). */
int is_all_digits(const char *s);
