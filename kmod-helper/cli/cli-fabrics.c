/* SPDX-License-Identifier: Apache-2.0 */
/* The CLI's fabrics steps (see cli-fabrics.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "actions/fabrics-build-check.h"
#include "actions/fabrics-capture.h"
#include "actions/fabrics-reconnect.h"
#include "cli-fabrics.h"
#include "host/host-root.h"
#include "nvme/fabrics-record.h"
#include "nvme/fabrics-topology-sysfs.h"
#include "util/parse-util.h"
#include "report/fabrics-report.h"
#include "report/report-json.h"
#include "util/json-util.h"
#include "util/escape.h"
#include "util/strv.h"

static const char *program = "nvme-swapguard-kmod";

void cli_fabrics_read(CliFabrics *f, CliFabricsStage stage) {
        int r;

        f->stage = stage;
        f->after = stage == CLI_FABRICS_LOAD ? NULL : "reconnected after the load or restore";
        r = fabrics_topology_read(&f->live);
        if (r < 0)
                fprintf(stderr, "%s: cannot read the NVMe over Fabrics connections from /sys/class/nvme: %s\n",
                        program, strerror(-r));
        r = fabrics_record_load(&f->record, &f->record_error);
        if (r < 0 && r != -ENOENT) {
                /* the record's own text may be quoted in it: escaped */
                _cleanup_free_ char *e = escape_control(f->record_error ?: strerror(-r));

                fprintf(stderr, "%s: cannot read the fabrics record: %s\n", program, e ?: "?");
        }
}

void cli_fabrics_done(CliFabrics *f) {
        fabrics_topology_free(f->live);
        fabrics_topology_free(f->record);
        free(f->record_error);
        strv_free(f->missing);
        load_result_free(f->transports);
        fabrics_pass_result_free(f->capture);
        fabrics_pass_result_free(f->reconnect);
        *f = (CliFabrics) {};
}

bool cli_fabrics_any(const CliFabrics *f) {
        return f->live && f->live->n_controllers > 0;
}

void cli_fabrics_no_dump(void) {
        (void) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

uint64_t cli_fabrics_now(void) {
        const char *fake = host_root_is_real() ? NULL : getenv("NVME_SWAPGUARD_FAKE_NOW_USEC");
        struct timespec ts;
        uint64_t v;

        if (fake && safe_atou64(fake, &v) >= 0)
                return v;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

int cli_fabrics_before_unload(CliFabrics *f) {
        int r;

        if (!f->live) {
                fprintf(stderr, "%s: refusing to unload: the NVMe over Fabrics connections cannot be read, and "
                        "nothing could reconnect what the unload drops\n", program);
                return -EIO;
        }
        if (!cli_fabrics_any(f))
                return 0;
        cli_fabrics_no_dump();
        r = fabrics_capture_pass(cli_fabrics_now(), &f->capture);
        if (r < 0 || f->capture->exit_code != FABRICS_EXIT_OK) {
                _cleanup_free_ char *e = escape_control(r < 0 ? strerror(-r) : f->capture->error ?: "failed");

                fprintf(stderr, "%s: refusing to unload: cannot record the NVMe over Fabrics connections it drops: %s\n",
                        program, e ?: "?");
                return r < 0 ? r : -EIO;
        }
        f->record_saved = true;
        return 0;
}

/* The connect pass over the record (the transports must be loaded). */
static void reconnect(CliFabrics *f) {
        cli_fabrics_no_dump();
        f->reconnect_error = fabrics_connect_pass(cli_fabrics_now(), &f->reconnect);
        if (f->reconnect_error < 0) {
                fprintf(stderr, "%s: cannot reconnect the NVMe over Fabrics connections: %s\n", program,
                        strerror(-f->reconnect_error));
                return;
        }
        if (f->reconnect->error) {
                _cleanup_free_ char *e = escape_control(f->reconnect->error);

                fprintf(stderr, "%s: cannot reconnect the NVMe over Fabrics connections: %s\n", program, e ?: "?");
        }
        f->record_removed = fabrics_record_exists() == 0;
}

void cli_fabrics_after_unload(CliFabrics *f, const UnloadResult *res) {
        if (!f->record_saved)
                return;
        switch (res->outcome) {
        case UNLOAD_OUTCOME_REMOVED:
                return; /* the record waits for the load or restore */
        case UNLOAD_OUTCOME_FAILED_UNRESTORED:
                return; /* no driver: restore reconnects */
        default:
                /* the stack is back (a transport's removal may have taken
                 * connections) or nothing was removed (the entries are
                 * live: the pass drops them) */
                reconnect(f);
        }
}

/* The connections a load must serve: the record's, and the live ones. */
static int needed(const CliFabrics *f, FabricsTopology *ret) {
        const FabricsTopology *parts[] = { f->record, f->live };

        for (size_t p = 0; p < ELEMENTSOF(parts); p++)
                for (size_t i = 0; parts[p] && i < parts[p]->n_controllers; i++) {
                        FabricsController *c;

                        c = fabrics_topology_add_controller(ret);
                        if (!c)
                                return -ENOMEM;
                        c->transport = strdup(parts[p]->controllers[i].transport);
                        if (!c->transport)
                                return -ENOMEM;
                }
        return 0;
}

static void say_missing(const CliFabrics *f, const char *tree) {
        _cleanup_free_ char *list = strv_join(f->missing, ", ");
        const FabricsTopology *t = f->record ?: f->live;

        fprintf(stderr, "%s: refusing to load from %s: it has no %s, which the node's NVMe over Fabrics "
                "connections need:\n", program, tree, list ?: "?");
        for (size_t i = 0; t && i < t->n_controllers; i++) {
                _cleanup_free_ char *d = fabrics_controller_describe(&t->controllers[i]);
                _cleanup_free_ char *e = escape_control(d ?: "?"); /* a target's NQN, an address: outside input */

                fprintf(stderr, "  %s\n", e ?: "?");
        }
        fprintf(stderr, "Nothing was touched. Use a driver build that ships %s, or `restore` to bring the "
                "connections back on the in-tree stack.\n", list ?: "it");
}

int cli_fabrics_check_tree(CliFabrics *f, const char *tree) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *need = calloc(1, sizeof(FabricsTopology));
        LoadOptions opts = { .module_tree = tree };
        int r;

        if (!need)
                return -ENOMEM;
        r = needed(f, need);
        if (r >= 0)
                r = fabrics_transports_missing(need, &opts, &f->missing);
        if (r == -ENOENT || r == -ENOTDIR)
                return 0; /* no such tree: the load itself says so */
        if (r < 0) {
                _cleanup_free_ char *e = escape_control(tree);

                fprintf(stderr, "%s: cannot check %s for the fabrics transports: %s\n", program, e ?: "?", strerror(-r));
                return r;
        }
        if (!f->missing || !f->missing[0])
                return 0;
        say_missing(f, tree);
        return 1;
}

void cli_fabrics_after_load(CliFabrics *f, const char *tree) {
        _cleanup_strv_free_ char **modules = NULL;
        LoadOptions opts = { .module_tree = tree };
        int r;

        if (!f->record || f->record->n_controllers == 0)
                return;
        r = fabrics_topology_transport_modules(f->record, &modules);
        if (r < 0) {
                f->transports_error = r;
                return;
        }
        opts.modules = modules;
        /* The transports come from the same tree as the stack: NVIDIA's nvme_tcp
         * over NVIDIA's nvme_core. */
        f->transports_error = stack_load(&opts, &f->transports);
        if (f->transports_error < 0) {
                fprintf(stderr, "%s: cannot load the fabrics transports %s: %s\n", program, modules[0],
                        strerror(-f->transports_error));
                return;
        }
        if (!load_result_ok(f->transports))
                return;
        reconnect(f);
}

bool cli_fabrics_ok(const CliFabrics *f) {
        if (f->transports_error < 0 || f->reconnect_error < 0)
                return false;
        if (f->transports && !load_result_ok(f->transports))
                return false;
        return !f->reconnect || f->reconnect->exit_code == FABRICS_EXIT_OK;
}
