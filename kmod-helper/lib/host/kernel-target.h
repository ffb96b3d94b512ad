/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Which kernel our module system calls (finit_module, delete_module) reach.
 * Under a fake root (NVME_SWAPGUARD_ROOT or --root not "/"), every decision
 * is made from the fake node: sending the resulting calls to the real kernel
 * would unload or load real modules for reasons that are not true. They are
 * allowed only when the test fake kernel (tests/fakeroot/fake-kernel.c,
 * LD_PRELOAD) stands in for them; it declares itself by defining the symbol
 * below, which no product binary defines. */

#include <stdbool.h>

#define KERNEL_TARGET_FAKE_SYMBOL "nvme_swapguard_fake_kernel"

/* The fake kernel is loaded in this process. */
bool kernel_target_is_fake(void);

/* 0 when module calls may be sent: the real root, or a fake root with the
 * fake kernel; -EPERM otherwise. */
int kernel_target_check(void);
