/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Escaping for text meant for people and line-based channels: the CLI's
 * text output, journal MESSAGE= and sd_notify STATUS=. A name we print may
 * come from outside (a mount point, a command name, a container's file
 * path): a newline in it must not start a line of its own, where it could
 * read as another tool's output or as sd_notify's MAINPID=. Structured
 * outputs (JSON, journal fields other than MESSAGE=) stay binary-safe and
 * are not escaped.
 *
 * Bytes below 0x20 and 0x7f become a backslash and three octal digits
 * (\012 for a newline), the kernel's spelling in /proc/self/mountinfo. */

#include <stdio.h>

/* A malloc'd escaped copy; NULL only when out of memory. NULL in, "" out. */
char *escape_control(const char *s);
/* Writes s escaped. 0, or -EIO. */
int fputs_escaped(const char *s, FILE *f);
