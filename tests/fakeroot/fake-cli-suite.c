/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>

#include "fake-cli-suite.h"

FakeNodeScratch scratch;
FakeNode *node;
const char *root;

void cli_suite_open(const char *label, const char *const *env) {
        for (const char *const *v = env; v && *v; v++)
                cr_assert(getenv(*v), "%s is not set: run through `meson test`", *v);
        cr_assert_eq(fake_node_scratch_open(&scratch, label), 0);
        root = scratch.root;
        node = scratch.node;
}

void cli_suite_close(void) {
        fake_node_scratch_close(&scratch);
        node = NULL;
        root = NULL;
}

void ko(const char *tree, const char *rel, const char *name, const char *deps, const char *vermagic,
        const char *const *extra) {
        cr_assert_eq(fake_node_add_ko(node, tree, rel, name, deps, vermagic, extra), 0, "ko %s", rel);
}

bool loaded(const char *name) {
        return fake_node_module_loaded(node, name) > 0;
}

void dump(const CliRun *r) {
        cr_log_info("exit %d\n--- stdout\n%s--- stderr\n%s--- kernel log\n%s", r->exit_code, r->out, r->err,
                    r->klog);
}
