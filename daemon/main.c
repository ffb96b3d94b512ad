/* SPDX-License-Identifier: Apache-2.0 */

/* nvme-swapguard: swaps the host's in-tree NVMe stack for the NVIDIA build
 * of the driver container at the right moment, safely. main() only parses
 * the arguments, reads the configuration and runs the manager; started as
 * nvme-swapguard-kmod (by the nodes' wrapper script, or meson install's
 * symlink) it is the operator CLI instead (kmod-cli.h: one binary in the
 * MachineConfig's budget). */

#include <getopt.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/daemon-config.h"
#include "node/node-ops-observe.h"
#include "node/node-ops.h"
#include "host/crio-store-file.h"
#include "host/crio.h"
#include "host/host-root.h"
#include "host/private-path.h"
#include "host/proc-syscall.h"
#ifndef SWAPGUARD_DAEMON_ONLY
#include "kmod-cli.h"
#endif
#include "publish/log.h"
#include "manager.h"
#include "manager-reader.h"
#include "publish/report.h"
#include "sandbox/daemon-capabilities.h"
#include "sandbox/privileged-reader.h"
#include "usage/device-open.h"
#include "usage/process-users.h"
#include "util/macro.h"
#include "util/strv.h"

static void help(void) {
        printf("Usage: nvme-swapguard [OPTIONS]\n\n"
               "  --config PATH       configuration file (default " CONFIG_DEFAULT_PATH ",\n"
               "                      then conf.d/*.conf next to it)\n"
               "  --check-config      validate the configuration and exit (0 valid, 1 not)\n"
               "  --root DIR          treat DIR as the host's root (tests)\n"
               "  --log-target TARGET auto, journal or stderr\n"
               "  --debug             log debug messages\n"
               "  --version           print the version and exit\n");
}

/* Hidden (not in --help): the configuration keys and the states, one per
 * line, tab-separated, for tests/ship/docs-tables.py, which writes and
 * checks the documentation from them: the tables in the code stay their one
 * owner. */
static void dump_doc_tables(void) {
        const ConfigOption *o;
        size_t n;

        o = config_options(&n);
        for (size_t i = 0; i < n; i++)
                printf("option\t%s\t%s\t%s\t%s\t%s\n",
                       o[i].section, o[i].key, o[i].default_value, o[i].range, o[i].meaning);
        for (SwapState s = 0; s < _SWAP_STATE_MAX; s++)
                printf("state\t%s\t%s\n", swap_state_to_string(s), swap_state_meaning(s));
}

typedef struct Args {
        const char *config;
        const char *root;
        bool check_config;
} Args;

static int parse_args(int argc, char **argv, Args *a) {
        enum { ARG_CONFIG = 0x100, ARG_CHECK, ARG_ROOT, ARG_LOG_TARGET, ARG_DEBUG, ARG_VERSION, ARG_DUMP_DOC_TABLES };
        static const struct option options[] = {
                { "config", required_argument, NULL, ARG_CONFIG },
                { "check-config", no_argument, NULL, ARG_CHECK },
                { "root", required_argument, NULL, ARG_ROOT },
                { "log-target", required_argument, NULL, ARG_LOG_TARGET },
                { "debug", no_argument, NULL, ARG_DEBUG },
                { "version", no_argument, NULL, ARG_VERSION },
                { "help", no_argument, NULL, 'h' },
                { "dump-doc-tables", no_argument, NULL, ARG_DUMP_DOC_TABLES },
                {},
        };
        int c;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case ARG_CONFIG:
                        a->config = optarg;
                        break;
                case ARG_CHECK:
                        a->check_config = true;
                        break;
                case ARG_ROOT:
                        a->root = optarg;
                        break;
                case ARG_LOG_TARGET: {
                        LogTarget t = log_target_from_string(optarg);

                        if (t < 0) {
                                fprintf(stderr, "Unknown log target \"%s\".\n", optarg);
                                return -EINVAL;
                        }
                        log_set_target(t);
                        break;
                }
                case ARG_DEBUG:
                        log_set_max_level(LOG_DEBUG);
                        break;
                case ARG_VERSION:
                        printf("nvme-swapguard %s\n", SWAPGUARD_VERSION);
                        return 0;
                case 'h':
                        help();
                        return 0;
                case ARG_DUMP_DOC_TABLES:
                        dump_doc_tables();
                        return 0;
                default:
                        return -EINVAL;
                }
        if (optind < argc) {
                fprintf(stderr, "Unexpected argument \"%s\".\n", argv[optind]);
                return -EINVAL;
        }
        return 1;
}

static int start_reader(const Config *config, PrivilegedReader **ret) {
        _cleanup_free_ char *store = NULL, *containers = NULL;
        PrivilegedReader *reader = NULL;
        int r;

        if (host_path(config->container_store, &store) < 0 || crio_containers_dir(store, &containers) < 0)
                return -ENOMEM;
        r = privileged_reader_start(containers, &reader);
        if (r < 0)
                return r;
        process_users_set_source(privileged_reader_scan_fds, reader);
        crio_store_file_set_source(privileged_reader_open_store_file, reader);
        /* The store's looks, watches and listings and the runtimes' exec
         * fifos (host/private-path.h): the reader's too, under --root as
         * well (a fake root's store is plain directories, which the
         * reader's filter lets it look at and watch), so the fake-root
         * suites run the same path as a node. */
        private_path_set_source(&privileged_reader_path_source, reader);
        /* /proc/<pid>/syscall (0400, its owner's): whether a driver
         * container's process is in finit_module() or delete_module(). */
        proc_syscall_set_source(privileged_reader_open_syscall, reader);
        /* The pin's and the exclusive opens too, on the real host. Under
         * --root the fake kernel (an LD_PRELOAD library) answers an
         * exclusive open and records a pin inside the process that opens,
         * reading and writing the fake node: calls the reader's filter kills
         * it for. There the daemon opens the fake root's regular files
         * itself, through the same checks (device-open.h); the reader's side
         * of it is tested on its own (test-reader-open). */
        if (host_root_is_real())
                device_open_set_source(privileged_reader_open_device, reader);
        *ret = reader;
        return 0;
}

#ifndef SWAPGUARD_DAEMON_ONLY
/* The name the program was started under, without its directory: argv[0]
 * as given (a symlink's own name, or the one the node's wrapper passes with
 * exec -a), never its target's. */
static bool started_as(char **argv, const char *name) {
        const char *slash;

        if (!argv || !argv[0])
                return false;
        slash = strrchr(argv[0], '/');
        return streq(slash ? slash + 1 : argv[0], name);
}
#endif

int main(int argc, char **argv) {
        _cleanup_(node_ops_observe_freep) NodeOps *observe_ops = NULL;
        _cleanup_free_ char *default_path = NULL;
        _cleanup_(privileged_reader_freep) PrivilegedReader *reader = NULL;
        Args a = {};
        Config *config = NULL;
        Manager *m = NULL;
        char **errors = NULL;
        const char *path;
        int r;

        /* First, before any of the daemon's setup: the CLI is its own
         * program, with its own arguments and allocator defaults. (Not in
         * the daemon-only link that proves the daemon's code calls no
         * fabrics secrets code: daemon/meson.build.) */
#ifndef SWAPGUARD_DAEMON_ONLY
        if (started_as(argv, KMOD_CLI_NAME))
                return kmod_cli_main(argc, argv);
#endif

        /* A swap reads whole module files for their .modinfo (a .ko
         * with its debug info is megabytes; up to MODULE_FILE_MAX), then the
         * daemon idles for weeks. glibc's dynamic threshold would grow to the
         * largest such buffer once it was freed, serve the next ones from the
         * heap and never trim it: some 6 MB of RssAnon kept after a swap.
         * Fixed thresholds (glibc's defaults, no longer adjusted) keep large
         * buffers in mappings of their own, unmapped when freed. */
        (void) mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        (void) mallopt(M_TRIM_THRESHOLD, 128 * 1024);

        r = parse_args(argc, argv, &a);
        if (r <= 0)
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        if (a.root && host_root_set(a.root) < 0) {
                fprintf(stderr, "--root needs an absolute path.\n");
                return EXIT_FAILURE;
        }
        if (host_path(CONFIG_DEFAULT_PATH, &default_path) < 0)
                return EXIT_FAILURE;
        path = a.config ?: default_path;

        r = config_load(path, !a.config, &config, &errors);
        if (r == CONFIG_E_INVALID) {
                for (char **e = errors; *e; e++)
                        if (a.check_config)
                                fprintf(stderr, "%s\n", *e);
                        else
                                report_event(LOG_ERR, SWAPGUARD_MESSAGE_CONFIG_INVALID, NULL, "%s", *e);
                strv_free(errors);
                return EXIT_FAILURE;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot read the configuration %s: %m", path);
                return EXIT_FAILURE;
        }
        if (a.check_config) {
                printf("%s: valid.\n", path);
                config_free(config);
                return EXIT_SUCCESS;
        }

        /* The privileged reader, forked before anything but the
         * configuration (the admin's) is parsed: the one process of the
         * daemon that lists other users' /proc/<pid>/fd, opens CRI-O's
         * store's files (root's 0700 directories) and, on the real host, the
         * NVMe nodes the pin and the claims open
         * (sandbox/privileged-reader.h). It serves the store configured now
         * (ContainerStore= applies at a restart). Should it die, every
         * namespace reads as unchecked, never free, and no store file can
         * be read, until the daemon sees its end and stops
         * (manager-reader.h). */
        r = start_reader(config, &reader);
        if (r < 0) {
                config_free(config);
                log_error_errno(r, "Cannot start the privileged reader: %m");
                return EXIT_FAILURE;
        }
        /* The reader holds CAP_DAC_READ_SEARCH from here on; the daemon,
         * which parses what tenants control, gives it up
         * (sandbox/daemon-capabilities.h): no other process's environ or
         * mem, no 0600 file. On the real host only: under --root the
         * daemon opens the fake kernel's nodes itself (start_reader), and
         * a test run as a plain user holds nothing to give up. */
        if (host_root_is_real()) {
                r = daemon_capabilities_drop_file_reading();
                if (r < 0) {
                        config_free(config);
                        log_error_errno(r, "Cannot give up CAP_DAC_READ_SEARCH after forking the privileged "
                                           "reader: %m");
                        return EXIT_FAILURE;
                }
                log_debug("CAP_DAC_READ_SEARCH given up: the privileged reader (pid %d) keeps it.",
                          (int) privileged_reader_pid(reader));
        }

        /* Mode=observe: the same daemon over a guard that only
         * rehearses; every entry from here on carries the mode. */
        report_set_mode(swap_mode_to_string(config->mode));
        if (config->mode == SWAP_MODE_OBSERVE && node_ops_observe_new(&node_ops_real, &observe_ops) < 0) {
                config_free(config);
                log_oom();
                return EXIT_FAILURE;
        }
        r = manager_new(&(ManagerOptions) { .config_path = path, .config_optional = !a.config,
                                            .ops = observe_ops ?: &node_ops_real },
                        config, &m);
        if (r < 0) {
                config_free(config);
                log_error_errno(r, "Cannot create the manager: %m");
                return EXIT_FAILURE;
        }
        /* The reader's end stops the daemon with a failure (the unit
         * restarts it with a new reader): blind, it would sit idle for good
         * (manager-reader.h). Watched before the start, whose reconcile
         * already asks the reader. */
        r = manager_reader_watch(m, reader);
        if (r >= 0)
                r = manager_start(m);
        if (r >= 0)
                r = manager_run(m);
        manager_free(m);
        process_users_set_source(NULL, NULL);
        device_open_set_source(NULL, NULL);
        crio_store_file_set_source(NULL, NULL);
        private_path_set_source(NULL, NULL);
        proc_syscall_set_source(NULL, NULL);
        /* manager_run(): the code the loop ended with (manager_stop()). */
        return r != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
