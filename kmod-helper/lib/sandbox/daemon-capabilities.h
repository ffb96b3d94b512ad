/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon gives up reading what it is not the owner of, once its
 * privileged reader (privileged-reader.h) is forked: CAP_DAC_READ_SEARCH
 * leaves its permitted, effective and inheritable sets, and the ambient set
 * is cleared (the daemon executes nothing). Without it the daemon's
 * identity opens no other user's /proc/<pid>/environ or /proc/<pid>/mem
 * and no 0600 file (secrets.json, sysfs's dhchap_*): those are checked
 * against the file's mode before any ptrace check (FIELD-NOTES section
 * 14); what still needs the capability is the reader's (the /proc/<pid>/fd
 * walk, the NVMe nodes, CRI-O's store, the runtimes' exec fifos). It keeps
 * the rest: under the shipped unit CAP_SYS_MODULE (the loads and unloads)
 * and CAP_SYS_PTRACE (/proc/<pid>/root and /proc/<pid>/exe of the driver
 * container: a ptrace check only). A permitted capability given up cannot
 * come back without an execve() of a file with capabilities, which the
 * unit's NoNewPrivileges= forbids.
 *
 * Library code: no logging. */

/* 0, or -errno from capget/capset/prctl. */
int daemon_capabilities_drop_file_reading(void);
