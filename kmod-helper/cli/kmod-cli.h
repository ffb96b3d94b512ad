/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The operator CLI, nvme-swapguard-kmod, as a function: one program linked
 * into two executables. The standalone nvme-swapguard-kmod (the tests', and
 * a developer's) calls it from its main(); the daemon's binary calls it when
 * it was started under the CLI's name, so the MachineConfig, whose size
 * budget the library linked into both would otherwise fill twice, carries
 * one binary (machineconfig/render.py).
 *
 * Returns the CLI's exit status (0 done / all free, 3 refused or in use,
 * 1 error or failure, 4 load failed and the in-tree stack not put back). */
#define KMOD_CLI_NAME "nvme-swapguard-kmod"

int kmod_cli_main(int argc, char *argv[]);
