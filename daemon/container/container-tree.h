/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Whether a driver container's module tree already holds a build of a
 * module, before anything is compiled: NVIDIA's packages install into
 * extra/ (RPM layout: extra/mlnx-nvme/host/nvme.ko) or updates/ (DKMS,
 * SUSE/Fedora); the host's own modules live under kernel/. Only a
 * precompiled image has one at container start. */

#include "container/driver-env.h"

/* tree_dir: an openable path of <root>/lib/modules/<release>. */
TreeBuild container_tree_build(const char *tree_dir, const char *module);
