/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Judging the NVMe stack after it changed, the manager's part: samples what
 * stack-settle.c decides on (the clock, the loaded set, the followed driver
 * container's module calls), keeps the loop's SWAP_TIMER_STACK_JUDGE armed
 * while someone's load is in progress, confirms a broken judgment, and
 * never hands a repair a module in use (it reports and waits instead). */

#include <stdbool.h>

#include "config/daemon-config.h"
#include "swap/swap-follow.h"
#include "swap/swap-loop.h"
#include "swap/swap-machine.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-stack.h"

/* A stack module came or went (a uevent, a lost one, the start, a reload):
 * the judgment is (re)armed QUIET from now on; the timer's handler (the
 * manager's) calls stack_judge_run(). */
void stack_judge_changed(SwapStack *s, const SwapLoop *loop);
/* The timer fired: SWAP_EVENT_STACK_BROKEN (reported) for the manager to
 * dispatch, or _SWAP_EVENT_INVALID (working, or re-armed to look again). */
/* What a judgment reads beside the stack's health it keeps (SwapStack) and
 * the machine it notes a refused repair in: the followed container (at
 * work on modules until its ready file is there), the modules wanted, and
 * the node through the step's snapshot. */
typedef struct StackJudgeInputs {
        const SwapFollow *follow;
        bool ready_present;
        const Config *config;
        SwapNodeView node;
} StackJudgeInputs;
SwapEvent stack_judge_run(SwapStack *st, SwapMachine *s, const StackJudgeInputs *in);
