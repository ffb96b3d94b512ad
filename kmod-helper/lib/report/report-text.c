/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-text.h"
#include "util/escape.h"
#include "util/macro.h"
#include "util/strv.h"

static void print_list(FILE *f, char *const *l, const char *sep) {
        if (!l || !l[0]) {
                fputs("-", f);
                return;
        }
        STRV_FOREACH(s, l) {
                fputs(s == l ? "" : sep, f);
                (void) fputs_escaped(*s, f);
        }
}

/* prefix, then s escaped (it may come from outside: a mount point, a
 * command name, a container's path), then a newline. */
static void print_line(FILE *f, const char *prefix, const char *s) {
        fputs(prefix, f);
        (void) fputs_escaped(s, f);
        fputc('\n', f);
}

static int print_usages(FILE *f, const UsageReport *usage, const char *indent) {
        for (size_t i = 0; usage && i < usage->n_usages; i++) {
                _cleanup_free_ char *text = NULL;
                int r;

                r = usage_describe(&usage->usages[i], &text);
                if (r < 0)
                        return r;
                print_line(f, indent, text);
        }
        return 0;
}

static const char *yes_no(bool b) {
        return b ? "yes" : "no";
}

static void format_size(uint64_t bytes, char buf[static 16]) {
        static const char units[] = "BKMGTPE";
        double v = (double) bytes;
        unsigned u = 0;

        while (v >= 1024.0 && u < sizeof(units) - 2) {
                v /= 1024.0;
                u++;
        }
        snprintf(buf, 16, u ? "%.1f%c" : "%.0f%c", v, units[u]);
}

static int status_modules(const ModuleStack *stack, FILE *f) {
        fprintf(f, "%-14s %-6s %-12s %-16s %6s %6s  %-5s %s\n", "MODULE", "LOADED", "ORIGIN", "BUILD", "REFCNT",
                "OTHER", "TAINT", "HOLDERS");
        for (size_t i = 0; i < stack->n_modules; i++) {
                const ModuleInfo *m = &stack->modules[i];

                if (!m->loaded) {
                        fprintf(f, "%-14s %-6s %-12s %-16s %6s %6s  %-5s -\n", m->name, "no",
                                module_origin_to_string(m->origin), "-", "-", "-", "-");
                        continue;
                }
                fprintf(f, "%-14s %-6s %-12s %-16s %6d %6u  %-5s ", m->name, "yes",
                        module_origin_to_string(m->origin), module_build_to_string(module_stack_build_of(stack, m)),
                        m->refcnt, module_info_refs_beyond_holders(m),
                        m->taint && m->taint[0] ? m->taint : "-");
                print_list(f, m->holders, ",");
                if (m->has_gds_hooks)
                        fprintf(f, "  [GDS hooks %s]", m->gds_generations ?: "");
                if (m->initstate && !streq(m->initstate, "live"))
                        fprintf(f, "  [%s]", m->initstate);
                fputc('\n', f);
        }
        return 0;
}

static void status_inventory(const NvmeInventory *inv, FILE *f) {
        fprintf(f, "\n%-14s %-10s %-9s %-24s %-20s %s\n", "SUBSYSTEM", "CONTROLLER", "TRANSPORT", "ADDRESS", "SERIAL",
                "MODEL");
        if (inv->n_subsystems == 0)
                fputs("(no NVMe subsystems)\n", f);
        for (size_t i = 0; i < inv->n_subsystems; i++) {
                const NvmeInventorySubsystem *s = &inv->subsystems[i];

                for (size_t j = 0; j < s->n_controllers; j++) {
                        const NvmeInventoryController *c = &s->controllers[j];
                        _cleanup_free_ char *addr = escape_control(c->address ? c->address : "-"),
                                            *serial = escape_control(c->serial ? c->serial : "-"),
                                            *model = escape_control(c->model ? c->model : "-");

                        fprintf(f, "%-14s %-10s %-9s %-24s %-20s %s\n", s->name, c->name,
                                c->transport ? c->transport : "-", addr ?: "?", serial ?: "?", model ?: "?");
                }
                print_line(f, "  nqn: ", s->nqn ? s->nqn : "-");
        }
}

int report_status_text(const ModuleStack *stack, const UsageReport *usage, const NvmeInventory *inventory,
                       FILE *f) {
        int r;

        r = status_modules(stack, f);
        if (r < 0)
                return r;
        if (inventory)
                status_inventory(inventory, f);
        if (!usage)
                return ferror(f) ? -EIO : 0;

        fprintf(f, "\n%-12s %8s %-9s %-20s %s\n", "NAMESPACE", "SIZE", "MULTIPATH", "SERIAL", "IN USE");
        if (!usage->devices || usage->devices->n_devices == 0)
                fputs("(no NVMe namespaces)\n", f);
        for (size_t i = 0; usage->devices && i < usage->devices->n_devices; i++) {
                const NvmeBlockDevice *d = &usage->devices->devices[i];
                _cleanup_free_ char *serial = NULL;
                char size[16];

                if (d->is_partition)
                        continue;
                serial = escape_control(d->serial ? d->serial : "-");
                format_size(d->size_bytes, size);
                fprintf(f, "%-12s %8s %-9s %-20s %s\n", d->name, size, yes_no(d->multipath_head),
                        serial ?: "?", yes_no(usage_report_device_in_use(usage, d->name)));
        }
        r = print_usages(f, usage, "  ");
        if (r < 0)
                return r;
        return ferror(f) ? -EIO : 0;
}

int report_check_text(const UsageReport *usage, FILE *f) {
        size_t n = usage->devices ? usage->devices->n_devices : 0;
        int r;

        if (usage_report_in_use(usage)) {
                fprintf(f, "in use:\n");
                r = print_usages(f, usage, "  ");
                if (r < 0)
                        return r;
        } else
                fprintf(f, "free: none of the %zu NVMe block device%s is in use\n", n, n == 1 ? "" : "s");
        STRV_FOREACH(s, usage->notes)
                print_line(f, "note: ", *s);
        return ferror(f) ? -EIO : 0;
}

int report_plan_text(const RemovalPlan *plan, const UsageReport *usage, FILE *f) {
        bool blocked = plan->blockers && plan->blockers[0];
        bool in_use = usage && usage_report_in_use(usage);
        int r;

        fputs("removal order: ", f);
        print_list(f, plan->order, " ");
        fputc('\n', f);
        STRV_FOREACH(s, plan->blockers)
                print_line(f, "blocked: ", *s);
        STRV_FOREACH(s, plan->kept)
                print_line(f, "stays (the container build's, shared, in use): ", *s);
        if (in_use) {
                fputs("in use:\n", f);
                r = print_usages(f, usage, "  ");
                if (r < 0)
                        return r;
        }
        if (!plan->order || !plan->order[0])
                fputs("nothing to remove: no module of the NVMe stack is loaded\n", f);
        else if (!blocked && !in_use)
                fputs("the plan can run now\n", f);
        return ferror(f) ? -EIO : 0;
}

static void print_restore(const UnloadResult *res, FILE *f) {
        if (res->restored && res->restored[0]) {
                fputs("put back: ", f);
                print_list(f, res->restored, " ");
                fputc('\n', f);
        }
        if (res->outcome == UNLOAD_OUTCOME_FAILED_UNRESTORED) {
                fprintf(f, "putting back %s failed: ",
                        res->restore_failed_module ? res->restore_failed_module : "the removed modules");
                print_line(f, "", res->restore_failed_reason ? res->restore_failed_reason : "unknown error");
                fputs("the NVMe devices may have no driver: run 'nvme-swapguard-kmod restore'\n", f);
        }
}

int report_unload_text(const UnloadResult *res, bool dry_run, FILE *f) {
        bool touched = res->removed && res->removed[0];
        int r;

        switch (res->outcome) {
        case UNLOAD_OUTCOME_NOT_LOADED:
                fputs("nothing to do: no module of the NVMe stack is loaded\n", f);
                break;
        case UNLOAD_OUTCOME_WOULD_REMOVE:
        case UNLOAD_OUTCOME_REMOVED:
                fputs(res->outcome == UNLOAD_OUTCOME_REMOVED ? "removed: " : "would remove, in order: ", f);
                print_list(f, res->outcome == UNLOAD_OUTCOME_REMOVED ? res->removed : res->planned, " ");
                fputc('\n', f);
                break;
        case UNLOAD_OUTCOME_REFUSED_IN_USE:
                fprintf(f, "refused: NVMe devices are in use%s\n",
                        touched ? " (found right before the next removal)" : ", nothing unloaded");
                r = print_usages(f, res->usage, "  ");
                if (r < 0)
                        return r;
                break;
        case UNLOAD_OUTCOME_REFUSED_BLOCKED:
                fprintf(f, "refused: the removal plan is blocked%s\n",
                        touched ? " (found right before the next removal)" : ", nothing unloaded");
                STRV_FOREACH(s, res->plan_blockers)
                        print_line(f, "  ", *s);
                break;
        case UNLOAD_OUTCOME_FAILED_RESTORED:
        case UNLOAD_OUTCOME_FAILED_UNRESTORED:
                fprintf(f, "failed: removing %s: %s\n", res->failed_module ? res->failed_module : "?",
                        strerror(res->failed_errno ? res->failed_errno : EIO));
                if (touched) {
                        fputs("had removed: ", f);
                        print_list(f, res->removed, " ");
                        fputc('\n', f);
                }
                break;
        default:
                return -EINVAL;
        }
        if (touched && res->outcome != UNLOAD_OUTCOME_REMOVED)
                print_restore(res, f);
        STRV_FOREACH(s, res->kept)
                print_line(f, "stays (the container build's, shared, in use): ", *s);
        (void) dry_run;
        return ferror(f) ? -EIO : 0;
}

int report_load_text(const LoadResult *res, FILE *f) {
        for (size_t i = 0; i < res->n_modules; i++) {
                const LoadedModule *m = &res->modules[i];

                if (m->builtin)
                        fprintf(f, "built into the kernel: %s\n", m->name);
                else if (m->already_loaded)
                        fprintf(f, "already loaded: %s\n", m->name);
                else {
                        fprintf(f, "loaded: %s from ", m->name);
                        print_line(f, "", m->path ? m->path : "?");
                }
        }
        STRV_FOREACH(x, res->replaced)
                fprintf(f, "replaced: %s (the loaded build was free; the tree's own went in)\n", *x);
        STRV_FOREACH(x, res->kept)
                print_line(f, "kept: ", *x);
        if (res->failed_module) {
                print_line(f, "failed: ", res->failed_reason ? res->failed_reason : res->failed_module);
                if (res->rolled_back && res->rolled_back[0]) {
                        fputs("removed again: ", f);
                        print_list(f, res->rolled_back, " ");
                        fputc('\n', f);
                }
                if (res->rollback_stopped)
                        fprintf(f, "left loaded: %s\n", res->rollback_stopped);
        }
        return ferror(f) ? -EIO : 0;
}
