// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-in for mlnx-nvme's drivers/nvme/host/nvfs-dma.c and nvfs-rdma.c
 * (knneth/mlnx-ofa_kernel, DOCA 3.2.1: nvfs-dma.c lines 6-42, nvfs.h lines
 * 17-24): the GPUDirect Storage hooks nvidia-fs looks up with __symbol_get
 * (<prefix>_register_nvfs_dma_ops / <prefix>_unregister_nvfs_dma_ops),
 * linked into nvme.ko (prefix nvme_v1, or nvme_v2 in DOCA 26.01+ builds) and
 * nvme-rdma.ko (prefix nvme_rdma_v1). build-oot-nvme.sh compiles this file
 * once per module with -DNVFS_MODULE_PREFIX=<prefix>.
 *
 * Only the exported names and the register/unregister contract are kept: the
 * ops are stored and dropped, nothing in the I/O path uses them (the
 * stand-in's DMA path is the kernel's own). The real register refuses ops
 * without the scatterlist features (-ENOTSUPP); this one refuses NULL.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/compiler.h>

#ifndef NVFS_MODULE_PREFIX
#error "build with -DNVFS_MODULE_PREFIX=nvme_v1 (or nvme_v2, nvme_rdma_v1)"
#endif

#define NVFS_REGSTR2(x) x##_register_nvfs_dma_ops
#define NVFS_REGSTR(x) NVFS_REGSTR2(x)
#define NVFS_UNREGSTR2(x) x##_unregister_nvfs_dma_ops
#define NVFS_UNREGSTR(x) NVFS_UNREGSTR2(x)
#define NVFS_REGISTER_FUNC NVFS_REGSTR(NVFS_MODULE_PREFIX)
#define NVFS_UNREGISTER_FUNC NVFS_UNREGSTR(NVFS_MODULE_PREFIX)

struct nvfs_dma_rw_ops;

static struct nvfs_dma_rw_ops *nvfs_ops;

int NVFS_REGISTER_FUNC(struct nvfs_dma_rw_ops *ops);
void NVFS_UNREGISTER_FUNC(void);

int NVFS_REGISTER_FUNC(struct nvfs_dma_rw_ops *ops)
{
	if (!ops)
		return -EINVAL;
	WRITE_ONCE(nvfs_ops, ops);
	return 0;
}
EXPORT_SYMBOL_GPL(NVFS_REGISTER_FUNC);

void NVFS_UNREGISTER_FUNC(void)
{
	WRITE_ONCE(nvfs_ops, NULL);
}
EXPORT_SYMBOL_GPL(NVFS_UNREGISTER_FUNC);
