/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the fakeroot CLI suite's files (test-cli.c, test-cli-unload.c,
 * test-cli-load.c) share: the nodes their cases build, running the CLI and
 * reading its JSON, the checks on the module state and the fake kernel's
 * log. Criterion-only: the helpers fail the running test. */

#include <json-c/json.h>

#include "fake-cli-suite.h"

#define HOLDERS(...) ((const char *const[]) { __VA_ARGS__, NULL })

#define RUN(run, script, ...) \
        cr_assert_eq(cli_run(root, script, (const char *const[]) { __VA_ARGS__, NULL }, run), 0)

/* Building nodes. */
void module(const char *name, int refcnt, const char *const *holders, const char *taint);
void host_tree(void);
void plain_node(void);
void tcp_node(void);
char *module_state(void);

/* Reading the CLI's output. */
struct json_object *parse(const CliRun *r);
struct json_object *get(struct json_object *o, const char *key);
struct json_object *find_named(struct json_object *array, const char *name);
const char *str(struct json_object *o, const char *key);
/* `plan --json`'s order, asserted runnable; pos(): a module's place in it, or -1. */
struct json_object *plan_order(void);
int pos(struct json_object *order, const char *name);
int removal_index(const char *klog, const char *m);

/* The checks. */
void assert_module_state_is(char *before, const char *why);
void assert_touched_nothing(const CliRun *r, char *before);
void assert_refused_untouched(const CliRun *r, char *before, const char *const *named);
void assert_never_forced(const char *klog);
