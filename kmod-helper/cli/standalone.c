/* SPDX-License-Identifier: Apache-2.0 */
/* The standalone nvme-swapguard-kmod executable: the CLI and nothing else
 * (the tests and development run it; the node runs the daemon's binary
 * under this name, kmod-cli.h says why). */

#include "kmod-cli.h"

int main(int argc, char *argv[]) {
        return kmod_cli_main(argc, argv);
}
