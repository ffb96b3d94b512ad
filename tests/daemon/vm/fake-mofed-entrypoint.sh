#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# The driver container's entrypoint (mofed-container), reduced to what it
# does to the node's kernel modules and to the ready file, run by busybox sh
# inside the simulated container's root (lib-swapguard.sh,
# sg_container_start; /proc, /sys and the host's /run/mellanox/drivers are
# mounted there as in the real privileged pod). Every rule names the source
# it imitates:
#
#   [GO]  Mellanox/doca-driver-build entrypoint/internal/entrypoint/entrypoint.go
#         (Run: preStart -> start -> sleep -> stop; handleKernelModules)
#   [DRV] Mellanox/doca-driver-build entrypoint/internal/driver/driver.go
#         (Load, checkLoadedKmodSrcverVsModinfo, restartDriver, loadNfsRdma)
#   [CFG] Mellanox/doca-driver-build entrypoint/internal/config/config.go and
#         entrypoint/pkg/mofedmodules/mofedmodules.go (DefaultStorageModules)
#   [SH]  Mellanox/doca-driver-build entrypoint.sh (the bash entrypoint)
#   [MLF] knneth/mlnx-ofa_kernel ofed_scripts/mod_load_funcs (openibd's
#         functions: stop, start, unload, unload_rec, rm_mod,
#         unload_mlx_compat, check_if_ok_to_stop, is_module, is_ref)
#   [OIB] knneth/mlnx-ofa_kernel ofed_scripts/openibd (restart = stop; start)
#
# What the test controls (the only parts that are not the real thing's):
#   /tmp/compiled  the compile is over (the real one takes 2-40 minutes);
#   /tmp/go-ready  the steps between the driver load and the ready file
#                  (netconfig.Restore) are over;
#   /load-list     an older image (before doca-driver-build PR #91): insmod
#                  these after openibd restart ("modprobe nvme").
# The compile's output (sources mode) waits in /.build-output and is moved
# into /lib/modules when the compile ends, as `make install` + depmod would
# leave it. Progress goes to stdout (the container log) and to /tmp/steps.
#
# Not imitated: the flock on /run/mellanox/drivers/.lock ([GO] lock(), busybox
# has no flock), nvidia_peermem and third-party RDMA checks, udev rules,
# netconfig, the mlx5/ib stack itself (no Mellanox device in the VM: the only
# module of the package here is mlx_compat), DKMS.

READY=${DRIVER_READY_PATH:-/run/mellanox/drivers/.driver-ready} # [CFG] DriverReadyPath
STORAGE=${STORAGE_MODULES:-ib_iser ib_isert ib_srp ib_srpt nvme_rdma nvmet_rdma rpcrdma xprtrdma} # [CFG]
: "${UNLOAD_STORAGE_MODULES:=false}" "${ENABLE_NFSRDMA:=false}" # [SH] lines 32-35
: "${RESTORE_DRIVER_ON_POD_TERMINATION:=false}"                # [CFG] envDefault:"false"
FORCE=0
RUNMODE=manual

log() { echo "mofed-entrypoint: $*"; echo "$*" >>/tmp/steps; }

# [MLF] is_module: lsmod | grep -w
is_module() { lsmod 2>/dev/null | grep -w "$1" >/dev/null 2>&1; }
# [MLF] is_ref: the refcnt as the exit status (true when 0)
is_ref() { return "$(cat "/sys/module/$1/refcnt" 2>/dev/null || echo 0)"; }

# [MLF] rm_mod: rmmod, and on failure print and exit 1 (openibd fails).
rm_mod() {
	if ! out=$(rmmod "$1" 2>&1); then
		log "FAILED: Unloading $1: $out"
		exit 1
	fi
}

# [MLF] unload_rec: modprobe -r (which also removes the module's unused
# dependencies); on failure its holders (the real one parses rmmod's "is in
# use by:", busybox's rmmod does not print it: /sys/module/<m>/holders is the
# same list), recursively only with FORCE (mlnxofedctl force-*), else rm_mod.
unload_rec() {
	is_module "$1" || return 0
	if ! modprobe -r "$1" >/dev/null 2>&1; then
		for dep in /sys/module/"$1"/holders/*; do
			[ -e "$dep" ] || continue
			dep=${dep##*/}
			if [ "$FORCE" -eq 0 ] && [ "$RUNMODE" != auto ]; then
				rm_mod "$1"
			else
				unload_rec "$dep"
			fi
		done
	fi
	is_module "$1" && rm_mod "$1"
	return 0
}

# [MLF] unload: unload_rec, once more if the module is still there.
unload() {
	is_module "$1" || return 0
	unload_rec "$1"
	is_module "$1" && unload_rec "$1"
	return 0
}

# [MLF] check_if_ok_to_stop: storage modules in use block the stop.
check_if_ok_to_stop() {
	for mod in ib_isert nvme_rdma nvmet_rdma rpcrdma xprtrdma ib_srpt; do
		is_module "$mod" || continue
		is_ref "$mod" && continue
		log "Please close all sessions and unload '$mod' module."
		log "Error: Cannot unload the Infiniband driver stack due to the above issue(s)!"
		exit 1
	done
}

# [MLF] unload_mlx_compat: "This is a big hack. Any better alternative than
# to look for nvme that late?"
unload_mlx_compat() {
	is_module mlx_compat || return 0
	if [ ! -d /sys/module/mlx_compat/holders/nvme ]; then
		unload mlx_compat
		return 0
	fi
	if [ "$(cat /sys/module/nvme/refcnt)" -eq 0 ]; then
		log "openibd: unloading nvme (refcnt 0, it holds mlx_compat)"
		unload nvme
		unload mlx_compat
	else
		log "WARNING: mlx_compat is used by NVME. Leaving it loaded."
	fi
}

# [MLF] stop (the parts that touch modules that exist here).
openibd_stop() {
	check_if_ok_to_stop
	# unload_all_modules: UNLOAD_MODULES, extended with the storage modules
	# by [DRV] unloadStorageModules / [SH] unload_storage_modules (sed).
	if [ "$UNLOAD_STORAGE_MODULES" = true ]; then
		for mod in $STORAGE; do unload "$mod"; done
	fi
	unload_mlx_compat
}

# [MLF] start: load_mlx5 -> load_module mlx5_core, which pulls mlx_compat
# from this container's tree (modules.dep); a failed load exits 1.
openibd_start() {
	was=$(is_module mlx_compat && echo yes || echo no)
	if ! out=$(modprobe mlx_compat 2>&1); then
		log "FAILED: Loading HCA driver and Access Layer: $out"
		exit 1
	fi
	# Tests: whether the stop part took the earlier mlx_compat out, so that
	# this container's went in (it stays loaded when something holds it).
	if [ "$was" = no ]; then
		log "openibd: mlx_compat loaded from this container's tree"
	else
		log "openibd: mlx_compat was still loaded, not replaced"
	fi
}

# [OIB] restart: do_stop; do_start
openibd_restart() {
	log "openibd restart"
	openibd_stop
	openibd_start
	log "openibd restart: done (mlx_compat holders: $(ls /sys/module/mlx_compat/holders 2>/dev/null | tr '\n' ' '))"
}

# [GO] stop / [SH] termination_handler: clear the ready file; restore the
# inbox drivers only when asked ([GO] "RESTORE_DRIVER_ON_POD_TERMINATION is
# false, keep existing driver loaded"). The restore is `mlnxofedctl
# --alt-mods force-restart`, whose force mode recurses into holders.
on_term() {
	log "stop: clearing $READY"
	rm -f "$READY"
	# Tests: a cleanup that takes longer than the pod's grace period
	# (kubelet kills it before it touches a module).
	if [ -e /tmp/slow-cleanup ]; then
		log "stop: the cleanup takes longer than the grace period"
		sleep 2147483647 &
		wait $!
	fi
	if [ "$RESTORE_DRIVER_ON_POD_TERMINATION" = true ]; then
		log "restore inbox driver (force-stop: holders of mlx_compat too)"
		FORCE=1
		unload_rec mlx_compat
	else
		log "RESTORE_DRIVER_ON_POD_TERMINATION is false, keep existing driver loaded"
	fi
	exit 0
}

# --- [GO] Run ----------------------------------------------------------------
# [SH] near the end: the driver version is mandatory ([CFG] required,notEmpty).
[ -n "${NVIDIA_NIC_DRIVER_VER:-}" ] || { log "Mandatory container driver ver. ENV variable not set, terminating"; exit 1; }
trap on_term TERM INT

# [GO] preStart: commonCleanup (readiness.Clear) first.
rm -f "$READY"
log "started (ENABLE_NFSRDMA=$ENABLE_NFSRDMA UNLOAD_STORAGE_MODULES=$UNLOAD_STORAGE_MODULES RESTORE_DRIVER_ON_POD_TERMINATION=$RESTORE_DRIVER_ON_POD_TERMINATION)"

# [GO] handleKernelModules: refuse to start (the pod crash-loops) while a
# storage module is loaded and UNLOAD_STORAGE_MODULES is not true.
if [ "$UNLOAD_STORAGE_MODULES" != true ]; then
	for mod in $STORAGE; do
		if is_module "$mod"; then
			log "storage modules are loaded for current driver,terminating prior driver reload failure due to UNLOAD_STORAGE_MODULES not set to \"true\" ($mod)"
			exit 1
		fi
	done
fi

# [GO] preStart: drivermgr.Build (sources mode): the compile.
log "compiling"
while [ ! -e /tmp/compiled ]; do sleep 0.2; done
if [ -d /.build-output/lib/modules ]; then
	for d in /.build-output/lib/modules/*; do mv "$d" /lib/modules/; done
fi
log "compiled: $(ls /lib/modules/*/extra 2>/dev/null | tr '\n' ' ')"

# [GO] start: drivermgr.Load. [DRV] Load: mlx5_core, mlx5_ib, ib_core (and
# nvme_rdma, rpcrdma with ENABLE_NFSRDMA) loaded with the container's
# srcversion, or openibd restart. mlx5_core never loads here (no device).
restart=0
for mod in mlx5_core mlx5_ib ib_core; do is_module "$mod" || restart=1; done
if [ "$ENABLE_NFSRDMA" = true ]; then
	for mod in nvme_rdma rpcrdma; do is_module "$mod" || restart=1; done
fi
if [ $restart = 1 ]; then
	openibd_restart
	# [DRV] loadNfsRdma: modprobe rpcrdma, failure not fatal.
	[ "$ENABLE_NFSRDMA" = true ] && { modprobe rpcrdma >/dev/null 2>&1 || log "modprobe rpcrdma failed (not fatal)"; }
fi
# Older images ([SH] before PR #91): "modprobe nvme; modprobe nvme-rdma".
if [ -s /load-list ]; then
	for ko in $(cat /load-list); do insmod "$ko" || log "insmod $ko failed"; done
	log "loaded its own build: $(cat /load-list | tr '\n' ' ')"
fi
touch /tmp/done

# [GO] start: readiness.Set, after the steps that follow the load.
while [ ! -e /tmp/go-ready ]; do sleep 0.2; done
touch "$READY"
log "ready: $READY"

# [GO] "configuration done, sleep", until SIGTERM.
sleep 2147483647 &
wait $!
