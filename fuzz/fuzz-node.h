/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* A small node for the usage harnesses: nvme0n1 (259:0) with nvme0n1p1
 * (259:1), and the multipath head nvme1n1 (259:2), as a scan over them
 * would start. The host root points at an empty directory, so that
 * resolving /dev paths named by the input reads nothing of the real host. */

#include "usage/usage-scan.h"

/* 0 with *s ready for the match functions (usage_scan_done() after), or -errno. */
int fuzz_scan_init(UsageScan *s);
