/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Whether a driver container is loading or removing kernel modules right
 * now: its processes (those in its crio-<id>.scope) inside init_module,
 * finit_module or delete_module (/proc/<pid>/syscall), or running a module
 * tool (insmod, modprobe, rmmod, openibd, ...: /proc/<pid>/comm, which
 * covers the moments between the tool's start and its call). The stack
 * settle (swap/stack-settle.h) waits for that work to end before judging. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Pure: a /proc/<pid>/syscall text shows a module call in progress (its
 * first field the call's number; "running" or "-1 ..." are not). */
bool syscall_text_is_module_call(const char *text);
/* Pure: comm (without its newline) names a tool whose work is module calls. */
bool comm_is_module_tool(const char *comm);

typedef struct ContainerModuleCalls {
        unsigned n;         /* processes in a module call or running a module tool */
        pid_t first_pid;    /* one of them, for the journal (0: none) */
        char first_comm[16];
} ContainerModuleCalls;

/* Scans host_path("/proc") for the processes of container id. 0 (ret filled,
 * n 0 when none or the container has no process left), -errno when /proc
 * cannot be listed. */
int container_module_calls(const char *id, ContainerModuleCalls *ret);
