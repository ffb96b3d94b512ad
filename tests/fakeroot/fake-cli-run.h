/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Runs nvme-swapguard-kmod ($SWAPGUARD_KMOD) against a fake node, under the
 * fake kernel ($FAKE_KERNEL_SO, LD_PRELOAD), with --root, and collects its
 * exit code, stdout, stderr and the fake kernel's log. */

#include <stddef.h>

typedef struct CliRun {
        int exit_code;  /* -1 when it did not exit normally */
        char *out;
        char *err;
        char *klog;     /* the fake kernel's log of this run only */
} CliRun;

/* argv: NULL-terminated, without the program name. script: the fake
 * kernel's script text, or NULL. 0 or -errno. */
int cli_run(const char *root, const char *script, const char *const *argv, CliRun *ret);
void cli_run_done(CliRun *r);

/* Lines of text that contain needle. */
size_t count_lines_with(const char *text, const char *needle);
/* The whole file, or NULL. */
char *slurp(const char *path);
