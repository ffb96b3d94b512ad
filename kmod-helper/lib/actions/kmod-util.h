/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Cleanup helpers for libkmod types and a silent log function: library code
 * does not print, and libkmod logs errors to stderr by default. */

#include <libkmod.h>
#include <stdarg.h>

#include "util/macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct kmod_ctx *, kmod_unref);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct kmod_module *, kmod_module_unref);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct kmod_list *, kmod_module_info_free_list);

static inline void kmod_log_silent(void *data, int priority, const char *file, int line,
                                   const char *fn, const char *format, va_list args) {
}

/* kmod_new() without the configuration files of whoever runs us: their
 * blacklists and aliases must not change what a name resolves to. */
static inline struct kmod_ctx *kmod_new_quiet(const char *dir) {
        static const char *const no_config[] = { NULL };
        struct kmod_ctx *ctx = kmod_new(dir, no_config);

        if (ctx)
                kmod_set_log_fn(ctx, kmod_log_silent, NULL);
        return ctx;
}
