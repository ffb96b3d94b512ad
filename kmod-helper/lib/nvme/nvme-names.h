/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* NVMe device names as the kernel gives them (drivers/nvme/host/core.c,
 * multipath.c): "nvme<N>" a controller, "nvme<ctrl>n<ns>" a namespace,
 * "nvme<subsys>c<ctrl>n<ns>" a hidden path device, "...p<part>" a
 * partition. Pure: by name alone, no lookup. */

#include <stdbool.h>

/* "nvme<N>": a controller (/sys/class/nvme/nvme0). */
bool nvme_name_is_controller(const char *name);
bool nvme_name_is_hidden_path(const char *name);
bool nvme_name_is_namespace(const char *name);
/* "nvme0n1p2" -> "nvme0n1" (malloc'd); -EINVAL when name is no partition name. */
int nvme_partition_parent_name(const char *name, char **ret);
/* Whether `device` is the namespace `namespace_name` itself or one of its
 * partitions ("nvme0n1p2" belongs to "nvme0n1"), by name alone: no lookup,
 * so reports can match usages to devices in constant time. */
bool nvme_name_belongs_to(const char *device, const char *namespace_name);
