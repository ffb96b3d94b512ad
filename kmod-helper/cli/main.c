/* SPDX-License-Identifier: Apache-2.0 */
/* nvme-swapguard-kmod: the operator's view of the guard. Parses arguments,
 * runs one library call, renders its result. Exit codes: 0 done / all free,
 * 3 refused or in use (nothing touched), 1 error or failure. Its entry is
 * kmod_cli_main(), not main(): two executables run it (kmod-cli.h). */

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions/reload-gate.h"
#include "actions/stack-load.h"
#include "actions/stack-unload.h"
#include "cli-fabrics-verbs.h"
#include "cli-fabrics-report.h"
#include "cli-fabrics.h"
#include "cli-labels.h"
#include "report/node-labels.h"
#include "config.h"
#include "host/host-root.h"
#include "host/kernel-target.h"
#include "kmod-cli.h"
#include "load-fallback.h"
#include "modules/module-stack.h"
#include "modules/removal-plan.h"
#include "nvme/nvme-inventory.h"
#include "report/daemon-state.h"
#include "report/report-json.h"
#include "report/report-text.h"
#include "usage/usage-check.h"
#include "util/json-util.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

#define EXIT_IN_USE 3
/* An hour: beyond any real load; more is a typo. */
#define TIMEOUT_SEC_MAX 3600UL


typedef struct Args {
        const char *command;
        bool json;
        bool dry_run;
        bool no_restore;
        const char *from;
        char **modules;
        unsigned timeout_sec; /* 0: the library's default */
        char **args;          /* fabrics: the words after the command */
} Args;

static const char *program = KMOD_CLI_NAME;

static void help(void) {
        printf("%s COMMAND [OPTIONS]\n\n"
               "Inspect, unload and load the NVMe host stack of this node, safely.\n\n"
               "Commands:\n"
               "  status               Modules of the NVMe stack, their build, and the namespaces\n"
               "  check                Whether any NVMe namespace or partition is in use, by what\n"
               "  plan                 The removal order and what blocks it\n"
               "  unload [--dry-run]   Remove the stack, never forced; put back on failure\n"
               "  load --from DIR      Load the stack from another module tree (a driver container's\n"
               "                       /lib/modules/<release>), dependencies from the host's; on\n"
               "                       failure put the in-tree stack back (unless --no-restore)\n"
               "  restore              Load the in-tree stack from the host's tree\n"
               "  fabrics capture      Record the NVMe over Fabrics connections and their secrets\n"
               "  fabrics connect      Connect the recorded ones again (once; exit 2 some pending,\n"
               "                       3 some given up after their ctrl_loss_tmo)\n"
               "  fabrics serve-request FILE  The daemon's request, answered in result.json\n"
               "  fabrics forget       Drop the record and its secrets\n"
               "  reload-block install-gate  Write /run/modprobe.d/nvme-swapguard.conf: every NVMe\n"
               "                       host module of the running kernel refuses to load while\n"
               "                       /run/nvme-swapguard/reload-blocked exists (the daemon's\n"
               "                       unit runs it as root before the daemon starts)\n\n"
               "  labels publish [SOURCE [DIRECTORY]]  Check the daemon's node labels line by line\n"
               "                       and publish them for Node Feature Discovery (default\n"
               "                       " NODE_LABELS_SOURCE " to\n"
               "                       " NODE_LABELS_DIR_DEFAULT ")\n\n"
               "Options:\n"
               "  --json               One JSON object on stdout\n"
               "  --module NAME        For load/restore: a module to load (repeatable; default nvme)\n"
               "  --timeout SEC        For load: stop a load still running after SEC seconds and\n"
               "                       remove what it loaded (1..3600, default %u)\n"
               "  --no-restore         For load: leave the node as a failed load leaves it\n"
               "  --root DIR           Read /proc, /sys, /dev, /lib/modules under DIR (tests)\n"
               "  -h, --help           This help\n"
               "      --version        The version\n\n"
               "NVMe over Fabrics connections the unload drops are recorded in\n"
               "/run/nvme-swapguard-fabrics/record.json (secrets apart, 0600) and reconnected\n"
               "by load and restore.\n\n"
               "Exit status: 0 done or all free, 3 refused because something is in use or the\n"
               "tree lacks a fabrics transport the node needs (nothing touched), 1 error or\n"
               "failure (after putting back what was removed), 4 load failed and the in-tree\n"
               "stack could not be put back.\n",
               program, LOAD_TIMEOUT_SEC_DEFAULT);
}

static int parse_timeout(const char *s, unsigned *ret) {
        uint64_t v;
        int r = parse_seconds(s, TIMEOUT_SEC_MAX, &v);

        if (r < 0)
                return r;
        *ret = (unsigned) v;
        return 0;
}

static int parse_args(int argc, char *argv[], Args *a) {
        enum { ARG_JSON = 0x100, ARG_DRY_RUN, ARG_FROM, ARG_MODULE, ARG_TIMEOUT, ARG_ROOT, ARG_VERSION, ARG_NO_RESTORE };
        static const struct option options[] = {
                { "json", no_argument, NULL, ARG_JSON },
                { "dry-run", no_argument, NULL, ARG_DRY_RUN },
                { "no-restore", no_argument, NULL, ARG_NO_RESTORE },
                { "from", required_argument, NULL, ARG_FROM },
                { "module", required_argument, NULL, ARG_MODULE },
                { "timeout", required_argument, NULL, ARG_TIMEOUT },
                { "root", required_argument, NULL, ARG_ROOT },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {},
        };
        int c, r;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case ARG_JSON:
                        a->json = true;
                        break;
                case ARG_DRY_RUN:
                        a->dry_run = true;
                        break;
                case ARG_NO_RESTORE:
                        a->no_restore = true;
                        break;
                case ARG_FROM:
                        if (optarg[0] != '/') {
                                fprintf(stderr, "%s: --from needs an absolute path, got '%s'\n", program, optarg);
                                return -EINVAL;
                        }
                        a->from = optarg;
                        break;
                case ARG_MODULE:
                        if (!optarg[0] || strchr(optarg, '/')) {
                                fprintf(stderr, "%s: --module needs a module name, got '%s'\n", program, optarg);
                                return -EINVAL;
                        }
                        r = strv_extend(&a->modules, optarg);
                        if (r < 0)
                                return r;
                        break;
                case ARG_TIMEOUT:
                        r = parse_timeout(optarg, &a->timeout_sec);
                        if (r < 0) {
                                fprintf(stderr, "%s: --timeout needs a number of seconds between 1 and %lu, got '%s'\n",
                                        program, TIMEOUT_SEC_MAX, optarg);
                                return r;
                        }
                        break;
                case ARG_ROOT:
                        r = host_root_set(optarg);
                        if (r < 0) {
                                fprintf(stderr, "%s: --root needs an absolute path, got '%s'\n", program, optarg);
                                return r;
                        }
                        break;
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("%s %s\n", program, PACKAGE_VERSION);
                        return 0;
                default:
                        return -EINVAL;
                }

        if (optind >= argc) {
                fprintf(stderr, "%s: which command? (status, check, plan, unload, load, restore; see --help)\n",
                        program);
                return -EINVAL;
        }
        a->command = argv[optind];
        if (streq(a->command, "fabrics") || streq(a->command, "reload-block") || streq(a->command, "labels")) {
                a->args = argv + optind + 1;
                return 1;
        }
        if (optind + 1 < argc) {
                fprintf(stderr, "%s: unexpected argument '%s'\n", program, argv[optind + 1]);
                return -EINVAL;
        }
        return 1;
}

static int fail(int r, const char *what) {
        fprintf(stderr, "%s: %s: %s\n", program, what, strerror(r < 0 ? -r : r));
        return EXIT_FAILURE;
}

/* fab: its "fabrics" object joins the report (NULL: none). */
static int emit(int (*to_json)(struct json_object **, const void *, const void *),
                const void *x, const void *y, const CliFabrics *fab) {
        _cleanup_json_ struct json_object *o = NULL;
        int r;

        r = to_json(&o, x, y);
        if (r >= 0 && fab)
                r = cli_fabrics_json(fab, o);
        if (r < 0)
                return r;
        return report_json_print(o, stdout);
}

/* Adapters so emit() can call every JSON renderer the same way. */
typedef struct StatusParts {
        const ModuleStack *stack;
        const UsageReport *usage;
        const NvmeInventory *inventory;
        struct json_object *daemon_state; /* NULL: no state file */
} StatusParts;

static int status_json(struct json_object **o, const void *parts, const void *unused) {
        const StatusParts *p = parts;
        int r;

        r = report_status_json(p->stack, p->usage, p->inventory, o);
        if (r < 0)
                return r;
        /* "daemon": the daemon's state file as it wrote it, or null. */
        return json_object_object_add(*o, "daemon", p->daemon_state ? json_object_get(p->daemon_state) : NULL) < 0
                       ? -ENOMEM
                       : 0;
}
static int check_json(struct json_object **o, const void *u, const void *unused) {
        return report_check_json(u, o);
}
static int plan_json(struct json_object **o, const void *p, const void *u) {
        return report_plan_json(p, u, o);
}
static int load_json(struct json_object **o, const void *l, const void *unused) {
        return report_load_json(l, o);
}

static int cmd_status(const Args *a) {
        _cleanup_(module_stack_freep) ModuleStack *stack = NULL;
        _cleanup_(usage_report_freep) UsageReport *usage = NULL;
        _cleanup_(nvme_inventory_freep) NvmeInventory *inventory = NULL;
        _cleanup_json_ struct json_object *daemon_state = NULL;
        _cleanup_(cli_fabrics_done) CliFabrics fab = {};
        int r;

        r = module_stack_read(&stack);
        if (r < 0)
                return fail(r, "cannot read the NVMe module stack from /proc/modules and /sys/module");
        r = usage_check(&usage);
        if (r < 0)
                return fail(r, "cannot check the NVMe block devices");
        /* The inventory only describes; without it the verdicts above stand. */
        r = nvme_inventory_read(&inventory);
        if (r < 0)
                fprintf(stderr, "%s: cannot read the NVMe inventory, showing without it: %s\n", program,
                        strerror(-r));
        r = daemon_state_read(&daemon_state);
        if (r < 0)
                fprintf(stderr, "%s: cannot read the daemon's state file %s, showing without it: %s\n", program,
                        DAEMON_STATE_FILE, strerror(-r));
        cli_fabrics_read(&fab, CLI_FABRICS_STATUS);
        if (a->json)
                r = emit(status_json, &(StatusParts) { stack, usage, inventory, daemon_state }, NULL, &fab);
        else {
                r = report_status_text(stack, usage, inventory, stdout);
                if (r >= 0)
                        r = cli_fabrics_text(&fab, stdout);
                if (r >= 0)
                        r = daemon_state_print(daemon_state, stdout);
        }
        return r < 0 ? fail(r, "cannot write the report") : EXIT_SUCCESS;
}

static int cmd_check(const Args *a) {
        _cleanup_(usage_report_freep) UsageReport *usage = NULL;
        _cleanup_(cli_fabrics_done) CliFabrics fab = {};
        int r;

        r = usage_check(&usage);
        if (r < 0)
                return fail(r, "cannot check the NVMe block devices");
        cli_fabrics_read(&fab, CLI_FABRICS_PLAN);
        r = a->json ? emit(check_json, usage, NULL, &fab) : report_check_text(usage, stdout);
        if (r >= 0 && !a->json)
                r = cli_fabrics_text(&fab, stdout);
        if (r < 0)
                return fail(r, "cannot write the report");
        return usage_report_in_use(usage) ? EXIT_IN_USE : EXIT_SUCCESS;
}

static int cmd_plan(const Args *a) {
        _cleanup_(module_stack_freep) ModuleStack *stack = NULL;
        _cleanup_(removal_plan_freep) RemovalPlan *plan = NULL;
        _cleanup_(usage_report_freep) UsageReport *usage = NULL;
        _cleanup_(cli_fabrics_done) CliFabrics fab = {};
        int r;

        r = module_stack_read(&stack);
        if (r < 0)
                return fail(r, "cannot read the NVMe module stack from /proc/modules and /sys/module");
        r = removal_plan_build(stack, &plan);
        if (r < 0)
                return fail(r, "cannot build the removal plan");
        r = usage_check(&usage);
        if (r < 0)
                return fail(r, "cannot check the NVMe block devices");
        cli_fabrics_read(&fab, CLI_FABRICS_PLAN);
        r = a->json ? emit(plan_json, plan, usage, &fab) : report_plan_text(plan, usage, stdout);
        if (r >= 0 && !a->json)
                r = cli_fabrics_text(&fab, stdout);
        if (r < 0)
                return fail(r, "cannot write the report");
        return usage_report_in_use(usage) || (plan->blockers && plan->blockers[0]) ? EXIT_IN_USE : EXIT_SUCCESS;
}

static int unload_exit_code(UnloadOutcome o) {
        switch (o) {
        case UNLOAD_OUTCOME_REMOVED:
        case UNLOAD_OUTCOME_NOT_LOADED:
        case UNLOAD_OUTCOME_WOULD_REMOVE:
                return EXIT_SUCCESS;
        case UNLOAD_OUTCOME_REFUSED_IN_USE:
        case UNLOAD_OUTCOME_REFUSED_BLOCKED:
                return EXIT_IN_USE;
        default:
                return EXIT_FAILURE;
        }
}

static int cmd_unload(const Args *a) {
        _cleanup_(unload_result_freep) UnloadResult *res = NULL;
        _cleanup_json_ struct json_object *o = NULL;
        _cleanup_(cli_fabrics_done) CliFabrics fab = {};
        UnloadOptions opts = { .dry_run = a->dry_run };
        int r;

        cli_fabrics_read(&fab, a->dry_run ? CLI_FABRICS_PLAN : CLI_FABRICS_UNLOAD);
        /* The record first: what the unload drops must be known after it. */
        if (!a->dry_run && cli_fabrics_before_unload(&fab) < 0)
                return EXIT_FAILURE;
        r = stack_unload(&opts, &res);
        if (r < 0) {
                cli_fabrics_after_unload(&fab, &(UnloadResult) { .outcome = UNLOAD_OUTCOME_NOT_LOADED });
                return fail(r, "cannot read the NVMe module stack, nothing unloaded");
        }
        cli_fabrics_after_unload(&fab, res);
        if (a->json) {
                r = report_unload_json(res, a->dry_run, &o);
                if (r >= 0)
                        r = cli_fabrics_json(&fab, o);
                if (r >= 0)
                        r = report_json_print(o, stdout);
        } else {
                r = report_unload_text(res, a->dry_run, stdout);
                if (r >= 0)
                        r = cli_fabrics_text(&fab, stdout);
        }
        if (r < 0)
                return fail(r, "cannot write the report");
        return unload_exit_code(res->outcome);
}

/* load --from refused before anything is touched: the tree lacks a
 * transport the node's fabrics connections need. */
static int refuse_load(const Args *a, const char *tree, const CliFabrics *fab) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        int r = o ? 0 : -ENOMEM;

        if (a->json) {
                if (r >= 0 && (json_object_object_add(o, "ok", json_object_new_boolean(false)) < 0 ||
                               json_object_object_add(o, "tree", json_object_new_string(tree)) < 0))
                        r = -ENOMEM;
                if (r >= 0)
                        r = cli_fabrics_json(fab, o);
                if (r >= 0)
                        r = report_json_print(o, stdout);
                if (r < 0)
                        return fail(r, "cannot write the report");
        }
        return EXIT_IN_USE;
}

static int run_restore(const Args *a) {
        _cleanup_(load_result_freep) LoadResult *res = NULL;
        _cleanup_(cli_fabrics_done) CliFabrics fab = {};
        LoadOptions opts = { .modules = a->modules }; /* the host's tree, no rollback: some driver beats none */
        int r;

        cli_fabrics_read(&fab, CLI_FABRICS_LOAD);
        r = stack_load(&opts, &res);
        if (r < 0) {
                fprintf(stderr, "%s: cannot load from the host's module tree: %s\n", program, strerror(-r));
                return EXIT_FAILURE;
        }
        if (load_result_ok(res))
                cli_fabrics_after_load(&fab, NULL);
        r = a->json ? emit(load_json, res, NULL, &fab) : report_load_text(res, stdout);
        if (r >= 0 && !a->json)
                r = cli_fabrics_text(&fab, stdout);
        if (r < 0)
                return fail(r, "cannot write the report");
        return load_result_ok(res) && cli_fabrics_ok(&fab) ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int cmd_load(const Args *a) {
        _cleanup_(cli_fabrics_done) CliFabrics fab = {};
        int r;

        if (!a->from) {
                fprintf(stderr, "%s: load needs --from DIR (a module tree such as "
                        "/proc/<pid>/root/lib/modules/<release>); to load the host's, use restore\n", program);
                return EXIT_FAILURE;
        }
        cli_fabrics_read(&fab, CLI_FABRICS_LOAD);
        r = cli_fabrics_check_tree(&fab, a->from);
        if (r != 0)
                return r > 0 ? refuse_load(a, a->from, &fab) : EXIT_FAILURE;
        /* A half-loaded replacement stack is removed again (the library's
         * rollback), then the in-tree stack is put back (load-fallback.h);
         * the fabrics connections are reconnected through whichever build
         * is then loaded. */
        return load_with_fallback(&(LoadFallbackOptions) {
                .program = program,
                .from = a->from,
                .modules = a->modules,
                .timeout_sec = a->timeout_sec,
                .json = a->json,
                .no_restore = a->no_restore,
                .fabrics = &fab,
        });
}

static int cmd_restore(const Args *a) {
        return run_restore(a);
}

static int cmd_fabrics(const Args *a) {
        return cli_fabrics_verb(a->args, a->json);
}

/* The daemon's unit runs this as root before the daemon (ExecStartPre=+):
 * the daemon's own identity must never write modprobe configuration
 * (actions/reload-gate.h says why). */
static int cmd_reload_block(const Args *a) {
        _cleanup_strv_free_ char **modules = NULL;
        _cleanup_free_ char *list = NULL;
        int r;

        if (!a->args || !a->args[0] || !streq(a->args[0], "install-gate") || a->args[1]) {
                fprintf(stderr, "%s: reload-block needs exactly one word: install-gate\n", program);
                return EXIT_FAILURE;
        }
        r = reload_gate_install(&modules);
        if (r < 0) {
                fprintf(stderr, "%s: cannot write the reload gate %s%s: %s\n", program, host_root_is_real() ? "" : host_root(),
                        RELOAD_GATE_PATH, strerror(-r));
                return EXIT_FAILURE;
        }
        list = strv_join(modules, " ");
        if (!list)
                return fail(-ENOMEM, "reload-block");
        if (a->json) {
                _cleanup_(json_object_putp) struct json_object *o = json_object_new_object(), *arr = json_object_new_array();

                STRV_FOREACH(m, modules)
                        json_object_array_add(arr, json_object_new_string(*m));
                json_object_object_add(o, "gate", json_object_new_string(RELOAD_GATE_PATH));
                json_object_object_add(o, "flag", json_object_new_string(RELOAD_GATE_FLAG));
                json_object_object_add(o, "modules", json_object_get(arr));
                puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
                return EXIT_SUCCESS;
        }
        printf("%s: %zu module(s) gated on %s: %s\n", RELOAD_GATE_PATH, strv_length(modules), RELOAD_GATE_FLAG,
               list[0] ? list : "(none: the kernel's tree has no NVMe host module files)");
        return EXIT_SUCCESS;
}

static int cmd_labels(const Args *a) {
        return cli_labels_verb(a->args);
}

int kmod_cli_main(int argc, char *argv[]) {
        static const struct {
                const char *name;
                int (*run)(const Args *a);
        } commands[] = {
                { "status", cmd_status }, { "check", cmd_check },   { "plan", cmd_plan },
                { "unload", cmd_unload }, { "load", cmd_load },     { "restore", cmd_restore },
                { "fabrics", cmd_fabrics }, { "reload-block", cmd_reload_block },
                { "labels", cmd_labels },
        };
        Args a = {};
        int r, ret = EXIT_FAILURE;

        r = parse_args(argc, argv, &a);
        if (r <= 0) {
                strv_free(a.modules);
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        }
        if (a.dry_run && !streq(a.command, "unload"))
                fprintf(stderr, "%s: --dry-run only applies to unload, ignoring it\n", program);
        if (a.no_restore && !streq(a.command, "load"))
                fprintf(stderr, "%s: --no-restore only applies to load, ignoring it\n", program);
        /* Not for restore, which keeps the library's deadline: cut short, it
         * would leave the namespaces without a driver. */
        if (a.timeout_sec && !streq(a.command, "load")) {
                fprintf(stderr, "%s: --timeout only applies to load, ignoring it\n", program);
                a.timeout_sec = 0;
        }
        /* Decisions from a fake tree must not become calls to the real kernel. */
        if ((streq(a.command, "load") || streq(a.command, "restore") || (streq(a.command, "unload") && !a.dry_run)) &&
            kernel_target_check() < 0) {
                fprintf(stderr,
                        "%s: refusing to %s: the root is %s (--root or NVME_SWAPGUARD_ROOT), not /, but module "
                        "calls would reach the real kernel; only the test fake kernel may receive them\n",
                        program, a.command, host_root());
                strv_free(a.modules);
                return EXIT_FAILURE;
        }

        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (streq(a.command, commands[i].name)) {
                        ret = commands[i].run(&a);
                        strv_free(a.modules);
                        return ret;
                }
        fprintf(stderr, "%s: unknown command '%s' (see --help)\n", program, a.command);
        strv_free(a.modules);
        return EXIT_FAILURE;
}
