// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-in for NVIDIA's nvidia-fs.ko (GPUDirect Storage), reduced to how it
 * finds NVMe's hooks, so the daemon's generation check (nvme-swapguard-kmod
 * lib/actions/nvfs-check.c) meets a module file of the real thing's shape.
 *
 * Read from NVIDIA/gds-nvidia-fs (src/nvfs-mod.c probe_module_list and
 * cleanup_module_list; src/nvfs-core.c modules_list[]): nvidia-fs has no
 * link-time dependency on nvme. Its modules_list[] names, per vendor module,
 * the register/unregister symbols as strings ("nvme_v1_register_nvfs_dma_ops",
 * or the v2 names when nvidia-fs was built against a kernel with the blk-mq
 * DMA iterator API, HAVE_BLK_RQ_DMA_MAP_ITER_START), and probe_module_list
 * takes them with __symbol_get() each time /dev/nvidia-fs* is opened; a
 * complete pair is registered, then cleanup_module_list unregisters and
 * __symbol_put()s both when the last user closes. When nvme exports the
 * other generation, __symbol_get finds nothing and GDS silently falls back
 * to compatibility mode (gds-nvidia-fs issue #87).
 *
 * Here one probe/cleanup cycle runs at module load (as one open and close of
 * /dev/nvidia-fs0 would) and its outcome goes to the kernel log; no
 * reference on nvme is kept afterwards, as the real module keeps none while
 * no GDS process runs. build-oot-nvme.sh builds it twice:
 * -DNVFS_NVME_PREFIX=nvme_v1 and nvme_v2.
 */
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/printk.h>

#ifndef NVFS_NVME_PREFIX
#error "build with -DNVFS_NVME_PREFIX=nvme_v1 (or nvme_v2)"
#endif

#define NVFS_STR2(x) #x
#define NVFS_STR(x) NVFS_STR2(x)
#define NVFS_PREFIX_STR NVFS_STR(NVFS_NVME_PREFIX)

struct nvfs_dma_rw_ops {
	unsigned long long ft_bmap; /* the features nvme checks; opaque here */
};

typedef int (*nvfs_register_fn)(struct nvfs_dma_rw_ops *ops);
typedef void (*nvfs_unregister_fn)(void);

/* As in nvfs-core.c: the symbol names are strings, never linked. */
struct module_entry {
	const char *name;
	const char *reg_ksym;
	const char *dreg_ksym;
};

static const struct module_entry nvme_entry = {
	.name = "nvme",
	.reg_ksym = NVFS_PREFIX_STR "_register_nvfs_dma_ops",
	.dreg_ksym = NVFS_PREFIX_STR "_unregister_nvfs_dma_ops",
};

static struct nvfs_dma_rw_ops standin_ops = { .ft_bmap = 1 };

static int __init nvfs_standin_init(void)
{
	nvfs_register_fn reg;
	nvfs_unregister_fn dreg;
	int ret;

	reg = (nvfs_register_fn)__symbol_get(nvme_entry.reg_ksym);
	if (!reg) {
		pr_info("nvidia-fs stand-in: %s not found: nvme not registered (GDS compatibility mode)\n",
			nvme_entry.reg_ksym);
		return 0; /* the real module loads all the same */
	}
	dreg = (nvfs_unregister_fn)__symbol_get(nvme_entry.dreg_ksym);
	if (!dreg) {
		__symbol_put(nvme_entry.reg_ksym);
		pr_err("nvidia-fs stand-in: deregister function not found %s\n", nvme_entry.dreg_ksym);
		return 0;
	}
	ret = reg(&standin_ops);
	if (ret == 0)
		dreg();
	__symbol_put(nvme_entry.dreg_ksym);
	__symbol_put(nvme_entry.reg_ksym);
	pr_info("nvidia-fs stand-in: %s: registration %s (%d)\n", nvme_entry.reg_ksym,
		ret ? "failed" : "worked", ret);
	return 0;
}

static void __exit nvfs_standin_exit(void)
{
}

module_init(nvfs_standin_init);
module_exit(nvfs_standin_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("nvme-swapguard test stand-in for nvidia-fs (hook lookup only)");
