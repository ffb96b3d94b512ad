/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Whether a module is in the kernel right now, read from /sys/module/<m>
 * through host-root (libkmod's own kmod_module_get_initstate() reads the
 * hard-coded /sys, which a fake root cannot redirect). */

/* 1 when /sys/module/<name> exists and its initstate is not "going" (a
 * built-in module has the directory but no initstate: present), 0 when
 * absent or going away, -errno when it cannot be told. */
int module_is_present(const char *name);
