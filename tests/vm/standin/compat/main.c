// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-in for mlx_compat.ko (mlnx-ofa_kernel compat/main.c, read in
 * knneth/mlnx-ofa_kernel, DOCA 3.2.1 / OFED 25.10: lines 48-86): the module
 * every NVIDIA-built module depends on through compat-2.6.h. The real one
 * exports an empty mlx_backport_dependency_symbol() and prints its backport
 * release at init; so does this one (the version string says what it is).
 * openibd loads it from the driver container's tree in `openibd restart`
 * and tries to remove it in unload_mlx_compat() (ofed_scripts/mod_load_funcs).
 */
#include <linux/init.h>
#include <linux/module.h>

MODULE_AUTHOR("nvme-swapguard tests (stand-in for mlnx-ofa_kernel compat)");
MODULE_DESCRIPTION("Kernel backport module (stand-in)");
MODULE_LICENSE("GPL");
MODULE_VERSION("25.10-standin");

static char *compat_version = "swapguard-standin";
module_param(compat_version, charp, 0400);
MODULE_PARM_DESC(compat_version, "Version of the kernel compat backport work");

void mlx_backport_dependency_symbol(void)
{
}
EXPORT_SYMBOL_GPL(mlx_backport_dependency_symbol);

static int __init backport_init(void)
{
	pr_info("mlx_compat: backport release: %s (nvme-swapguard stand-in)\n", compat_version);
	return 0;
}
module_init(backport_init);

static void __exit backport_exit(void)
{
}
module_exit(backport_exit);
