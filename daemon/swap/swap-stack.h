/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The module stack's health as the swap follows it: the settle's samples
 * (stack-judge.c: the stack is judged once module changes settle, on the
 * loop's SWAP_TIMER_STACK_JUDGE) and whether the last restore was refused by the kernel
 * (swap-actions.c), which the next judgment must not answer with another
 * restore. */

#include <stdbool.h>

#include "swap/stack-settle.h"

typedef struct SwapStack {
        StackSettleState settle;       /* the settle's samples so far */
        bool restore_gave_up;          /* the last action was a restore the kernel refused */
} SwapStack;
