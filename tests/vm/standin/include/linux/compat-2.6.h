/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for mlnx-ofa_kernel's include/linux/compat-2.6.h (read in
 * knneth/mlnx-ofa_kernel, DOCA 3.2.1 / OFED 25.10: include/linux/compat-2.6.h,
 * lines 16-38). NVIDIA builds every module of the package, the mlnx-nvme ones
 * included, with `-include compat-2.6.h`; the header redefines module_init()
 * so the module's init first calls mlx_backport_dependency_symbol(), exported
 * by mlx_compat.ko. modpost then records mlx_compat in each module's
 * "depends", /sys/module/mlx_compat/holders/ lists every loaded one, and
 * openibd's check_mlnx_ofed_module() (ofed_scripts/mod_load_funcs) takes
 * "depends contains mlx_compat" as "this is an OFED module".
 *
 * Same mechanism, written for build-oot-nvme.sh; nothing else of NVIDIA's
 * header (backports, config.h) is needed by the 6.1 and 6.12 nvme sources.
 */
#ifndef LINUX_26_COMPAT_H
#define LINUX_26_COMPAT_H

#include <linux/init.h>
#include <linux/module.h>

void mlx_backport_dependency_symbol(void);

#ifdef MODULE
#undef module_init
#define module_init(initfn)                                             \
	static int __init __init_backport(void)                         \
	{                                                               \
		mlx_backport_dependency_symbol();                       \
		return initfn();                                        \
	}                                                               \
	int init_module(void) __copy(initfn)                            \
		__attribute__((alias("__init_backport")));              \
	___ADDRESSABLE(init_module, __initdata);
#endif

/*
 * A module with no module_init() (drivers/nvme/common/auth.c on 6.12 has
 * none) would escape the redefinition above. NVIDIA's package has every
 * module of it hold mlx_compat (FIELD-NOTES section 8; seen on a driver upgrade:
 * an earlier container's own nvme_auth lists in /sys/module/mlx_compat/
 * holders/). Each object compiled with this header takes the symbol's
 * address, so modpost records mlx_compat in every module's "depends".
 */
#ifdef MODULE
static void (*const __mlx_compat_dependency)(void) __used = mlx_backport_dependency_symbol;
#endif

#endif /* LINUX_26_COMPAT_H */
