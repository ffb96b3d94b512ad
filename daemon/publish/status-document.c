/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "host/host-root.h"
#include "publish/status-document.h"
#include "util/fileio.h"
#include "util/json-util.h"
#include "util/macro.h"

/* Takes v (also on failure). */
static int add(json_object *o, const char *key, json_object *v) {
        if (json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

/* A string, or null for NULL (json-c's NULL object is JSON null). */
static json_object *string_or_null(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

static int add_string(json_object *o, const char *key, const char *s) {
        json_object *v = string_or_null(s);

        if (s && !v)
                return -ENOMEM;
        return add(o, key, v);
}

static const NodeModule *live_module(const NodeStack *stack) {
        const NodeModule *m = node_stack_find(stack, "nvme");

        if (!m || m->origin == NODE_ORIGIN_ABSENT)
                m = node_stack_find(stack, "nvme_core");
        return m && m->origin != NODE_ORIGIN_ABSENT ? m : NULL;
}

/* The build the node runs: the origin of nvme (of nvme_core when nvme is not
 * loaded), "absent" when neither is, "unknown" when the stack was unreadable. */
static const char *live_build(const NodeStack *stack) {
        const NodeModule *m;

        if (!stack)
                return "unknown";
        m = live_module(stack);
        return m ? node_origin_to_string(m->origin) : "absent";
}

static json_object *modules_to_json(const NodeStack *stack) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; a && i < stack->n_modules; i++) {
                const NodeModule *x = &stack->modules[i];
                json_object *o = json_object_new_object();

                if (!o || add_string(o, "name", x->name) < 0 ||
                    add_string(o, "origin", node_origin_to_string(x->origin)) < 0 ||
                    add_string(o, "build", x->build ?: "unknown") < 0 ||
                    add(o, "shared", json_object_new_boolean(x->shared)) < 0 ||
                    add(o, "gds_hooks", json_object_new_boolean(x->gds_hooks)) < 0 ||
                    json_object_array_add(a, o) < 0) {
                        json_object_put(o);
                        json_object_put(a);
                        return NULL;
                }
        }
        return a;
}

static json_object *strv_to_json(char *const *l) {
        json_object *a = json_object_new_array();

        for (char *const *i = l; a && i && *i; i++)
                if (json_object_array_add(a, json_object_new_string(*i)) < 0) {
                        json_object_put(a);
                        return NULL;
                }
        return a;
}

static int add_modules(json_object *o, const NodeStack *stack) {
        json_object *hooks = json_object_new_object();
        const NodeModule *live = stack ? live_module(stack) : NULL;
        bool any_hooks = false;
        int r;

        if (!hooks)
                return -ENOMEM;
        for (size_t i = 0; stack && i < stack->n_modules; i++)
                any_hooks = any_hooks || (stack->modules[i].origin != NODE_ORIGIN_ABSENT && stack->modules[i].gds_hooks);
        /* present: null when the stack could not be read, rather than a
         * "no" that would send someone hunting for a missing hook. */
        r = add(hooks, "present", stack ? json_object_new_boolean(any_hooks) : NULL);
        if (r >= 0)
                r = add_string(hooks, "module", live && any_hooks ? live->name : NULL);
        if (r < 0) {
                json_object_put(hooks);
                return r;
        }
        r = add(o, "gds_hooks", hooks);
        if (r >= 0)
                r = add_string(o, "live_build", live_build(stack));
        if (r >= 0 && stack) {
                json_object *mods = modules_to_json(stack);

                r = mods ? add(o, "modules", mods) : -ENOMEM;
        } else if (r >= 0)
                r = add(o, "modules", NULL);
        return r;
}

static int format_utc(uint64_t usec, char buf[static 32]) {
        time_t t = (time_t) (usec / 1000000ULL);
        struct tm tm;

        if (!gmtime_r(&t, &tm) || strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                return -EINVAL;
        return 0;
}

static int add_meta(json_object *o, const StatusFacts *f) {
        json_object *daemon = json_object_new_object();
        char when[32];
        int r;

        if (!daemon)
                return -ENOMEM;
        r = add_string(daemon, "version", f->version);
        if (r >= 0)
                r = add(daemon, "pid", json_object_new_int64(f->pid));
        if (r < 0) {
                json_object_put(daemon);
                return r;
        }
        r = format_utc(f->written_at_usec, when);
        if (r >= 0)
                r = add(o, "schema", json_object_new_int(STATUS_DOCUMENT_SCHEMA));
        if (r >= 0)
                r = add(o, "written_at_usec", json_object_new_int64((int64_t) f->written_at_usec));
        if (r >= 0)
                r = add_string(o, "written_at", when);
        if (r >= 0)
                r = add_string(o, "boot_id", f->boot_id);
        if (r >= 0)
                r = add_string(o, "hostname", f->hostname);
        if (r >= 0)
                return add(o, "daemon", daemon);
        json_object_put(daemon);
        return r;
}

/* What other engineers' work will fill: null until this daemon reports it. */
static int add_pending_facts(json_object *o, const StatusFacts *f) {
        json_object *hooks;
        int r;

        if (!json_object_object_get_ex(o, "gds_hooks", &hooks))
                return -EINVAL;
        r = add_string(hooks, "generation", f->hooks_generation);
        if (r >= 0 && f->pins_reported) {
                json_object *pins = strv_to_json(f->pins);

                r = pins ? add(o, "pins", pins) : -ENOMEM;
        } else if (r >= 0)
                r = add(o, "pins", NULL);
        return r;
}

/* NVMe over Fabrics: the connections the swap dropped that are
 * not back, one warning line each with the address and the kernel's error,
 * so the fleet view need not interpret the record's "fabrics" list; []
 * when none. */
static int add_fabrics_warnings(json_object *o, const StateFile *record) {
        _cleanup_json_ json_object *a = json_object_new_array();
        const NodeFabrics *fab = record->fabrics;

        if (!a)
                return -ENOMEM;
        for (size_t i = 0; fab && i < fab->n; i++) {
                const NodeFabricsConnection *c = &fab->items[i];
                _cleanup_free_ char *line = NULL;

                if (c->outcome != NODE_FABRICS_FAILED && c->outcome != NODE_FABRICS_NAMESPACES_MISSING &&
                    c->outcome != NODE_FABRICS_LOST && !(c->outcome == NODE_FABRICS_PENDING && c->error_message))
                        continue;
                if (asprintf(&line, "%s: %s%s%s", c->description ?: c->address ?: "?",
                             c->outcome == NODE_FABRICS_LOST      ? "lost (given up after its ctrl_loss_tmo)"
                             : c->outcome == NODE_FABRICS_PENDING ? "not back yet, tried again"
                             : c->outcome == NODE_FABRICS_FAILED  ? "not reconnected"
                                                                   : "namespaces not back",
                             c->error_message ? ": " : "", c->error_message ?: "") < 0 ||
                    json_array_add(a, json_object_new_string(line)) < 0)
                        return -ENOMEM;
        }
        return add(o, "fabrics_warnings", TAKE_PTR(a));
}

int status_document_to_json(const StatusFacts *f, char **ret) {
        _cleanup_json_ json_object *o = NULL;
        _cleanup_free_ char *record = NULL;
        int r;

        if (!f || !f->record)
                return -EINVAL;
        /* The state file's facts, serialised by the state file itself: one
         * owner for their names and meaning. */
        r = state_file_to_json(f->record, &record);
        if (r < 0)
                return r;
        o = json_tokener_parse(record);
        if (!o || !json_object_is_type(o, json_type_object))
                return -EBADMSG;
        r = add_meta(o, f);
        if (r >= 0)
                r = add_modules(o, f->stack);
        if (r >= 0)
                r = add_pending_facts(o, f);
        if (r >= 0)
                r = add_fabrics_warnings(o, f->record);
        if (r < 0)
                return r;
        return json_to_text(o, ret);
}

/* Atomic (write_file_atomic): a reader, kubelet serving it, sees the old or
 * the new document, and after a crash or a power cut the directory names one
 * of them, never an empty file. 0644 whatever the unit's UMask=0077: the
 * document is for reading. */
int status_document_write(const StatusFacts *f) {
        _cleanup_free_ char *dir = NULL, *path = NULL, *text = NULL;
        int r;

        r = host_path(STATUS_DOCUMENT_DIR, &dir);
        if (r >= 0)
                r = host_path(STATUS_DOCUMENT_FILE, &path);
        if (r >= 0)
                r = status_document_to_json(f, &text);
        if (r < 0)
                return r;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        return write_file_atomic(path, text, 0644);
}

int status_read_boot_id(char **ret) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = host_path(BOOT_ID_FILE, &path);
        if (r < 0)
                return r;
        return read_one_line_file(path, ret);
}

static uint64_t realtime_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* Which GDS hook interface the live build exports: nvme's generations (or
 * another loaded stack module's, nvme_rdma, when nvme has none); "none" when
 * no loaded module exports hooks; NULL when the stack could not be read. */
const char *status_hooks_generation(const NodeStack *stack) {
        const NodeModule *live;

        if (!stack)
                return NULL;
        live = live_module(stack);
        if (live && live->gds_generations)
                return live->gds_generations;
        for (size_t i = 0; i < stack->n_modules; i++)
                if (stack->modules[i].origin != NODE_ORIGIN_ABSENT && stack->modules[i].gds_generations)
                        return stack->modules[i].gds_generations;
        return "none";
}

int status_document_publish(const StateFile *record, const NodeStack *stack) {
        _cleanup_free_ char *boot_id = NULL;
        struct utsname u;

        /* Without a boot id the document is still worth writing: the reader
         * shows "boot unknown" rather than nothing. */
        (void) status_read_boot_id(&boot_id);
        return status_document_write(&(StatusFacts) {
                .record = record,
                .stack = stack,
                .boot_id = boot_id,
                .hostname = uname(&u) >= 0 ? u.nodename : NULL,
                .version = PACKAGE_VERSION,
                .pid = getpid(),
                .written_at_usec = realtime_usec(),
                /* The pin is always on: what it holds now, [] when nothing. */
                .pins_reported = true,
                .pins = record->pins,
                .hooks_generation = status_hooks_generation(stack),
        });
}
