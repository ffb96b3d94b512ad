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

# openibd's functions (is_module, unload_rec, check_if_ok_to_stop, ...,
# openibd_restart) are in its mod_load_funcs, where mlnx-ofa_kernel installs
# them in the image ([MLF]: /usr/share/mlnx_ofed/mod_load_funcs); the
# stand-in's copy is fake-mod-load-funcs.sh. lib-swapguard.sh puts it there
# (the image's real shape: the daemon reads it to choose UnloadAt=auto's
# moment) or, for the cases written before that moment existed, in a place
# the daemon does not read (/opt/stand-in: auto then falls back to the start).
for f in /usr/share/mlnx_ofed/mod_load_funcs /opt/stand-in/mod_load_funcs; do
	[ -r "$f" ] && { . "$f"; break; }
done
command -v openibd_restart >/dev/null || { echo "mofed-entrypoint: no mod_load_funcs in the image"; exit 1; }

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
# Older images ([SH] before PR #91) load their build here ("modprobe nvme;
# modprobe nvme-rdma"): lib-swapguard.sh's sg_container_loads_own_build
# writes the insmods of its build in place of the next line, in the image's
# copy of this script, named as such an image's own script names them (the
# daemon reads it to tell an older image).
#OWN-LOADS
touch /tmp/done

# [GO] start: readiness.Set, after the steps that follow the load.
while [ ! -e /tmp/go-ready ]; do sleep 0.2; done
touch "$READY"
log "ready: $READY"

# [GO] "configuration done, sleep", until SIGTERM.
sleep 2147483647 &
wait $!
