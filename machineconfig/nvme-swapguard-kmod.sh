#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# /usr/local/bin/nvme-swapguard-kmod on the nodes: the daemon's binary is
# the CLI too when started under this name (one binary for the
# MachineConfig's size budget). A script, not an Ignition link: the Machine
# Config daemon refuses to apply a config with links to running nodes.
exec -a nvme-swapguard-kmod /usr/local/bin/nvme-swapguard "$@"
