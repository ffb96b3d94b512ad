# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=sh
#
# The stand-in image's mod_load_funcs: openibd's functions, reduced to what
# they do to the node's kernel modules, sourced by fake-mofed-entrypoint.sh
# (busybox sh) inside the simulated driver container. mlnx-ofa_kernel
# installs the real file as /usr/share/mlnx_ofed/mod_load_funcs in the
# image, and that is where the daemon reads check_if_ok_to_stop to choose
# UnloadAt=auto's moment (daemon/swap/swap-moment.c); lib-swapguard.sh
# (SG_OPENIBD) decides whether it is there or hidden.
#
#   [MLF] knneth/mlnx-ofa_kernel ofed_scripts/mod_load_funcs (stop, start,
#         unload, unload_rec, rm_mod, unload_mlx_compat,
#         check_if_ok_to_stop, is_module, is_ref)
#   [OIB] knneth/mlnx-ofa_kernel ofed_scripts/openibd (restart = stop; start)
# log, FORCE, RUNMODE, UNLOAD_STORAGE_MODULES and STORAGE are the
# entrypoint's.

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

# [MLF] check_if_ok_to_stop, as the current driver container has it
# (mlnx-ofa_kernel 26.04, read in knneth/mlnx-ofa_kernel
# ofed_scripts/mod_load_funcs): storage modules in use block the stop; the
# list does NOT name nvme (26.07 briefly added it; doca-driver-build
# #479/#480 took it out again), while its messages do say "nvme": the
# daemon must tell a message from a module it checks. Lustre, VFs, IB
# applications, iSER sessions and SRP multipath are not imitated (none here).
check_if_ok_to_stop() {
	local blocking_modules cannot_continue
	cannot_continue=0
	blocking_modules=""
	for mod in ib_isert nvme_rdma nvmet_rdma rpcrdma xprtrdma ib_srpt; do
		if is_module $mod; then
			if is_ref $mod; then
				# refcnt 0
				continue
			fi
			cannot_continue=1
			blocking_modules="${blocking_modules} $mod"
			case "$mod" in
			ib_isert) log "Please close all isert sessions and unload 'ib_isert' module." ;;
			nvme_rdma) log "Please close all nvme sessions and unload 'nvme_rdma' module." ;;
			nvmet_rdma) log "Please close all nvmet sessions and unload 'nvmet_rdma' module." ;;
			*) log "Please make sure module '$mod' is not in use and unload it." ;;
			esac
		fi
	done
	if [ $cannot_continue -eq 1 ]; then
		log "Error: Cannot unload the Infiniband driver stack due to the above issue(s)!"
		log "To unload the blocking modules, you can run: # modprobe -rv ${blocking_modules}"
		exit 1
	fi
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
	# this container's went in (left loaded when something holds it).
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
