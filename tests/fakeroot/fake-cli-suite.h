/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the CLI's Criterion suites share (tests/fakeroot/test-cli.c,
 * tests/hostile/test-hostile.c): the fake node's trees, the running test's
 * scratch node, and the few helpers every case uses. Criterion-only: the
 * helpers fail the running test on error. */

#include <stdbool.h>

#include "fake-cli-run.h"
#include "fake-node-scratch.h"

#define RELEASE FAKE_NODE_DEFAULT_RELEASE
#define HOST_TREE "/lib/modules/" RELEASE
#define NVME_HOST "kernel/drivers/nvme/host/"
/* The driver container's tree, as its process 4242 shows it. */
#define CONTAINER_TREE "/proc/4242/root/lib/modules/" RELEASE

/* The running test's scratch directory, its node and the node's root
 * directory; set by cli_suite_open(). */
extern FakeNodeScratch scratch;
extern FakeNode *node;
extern const char *root;

/* Opens a scratch node (/tmp/sg-<label>-XXXXXX). Fails the test, not skips
 * it, unless every variable named in env (NULL-terminated) is set: a suite
 * that passes without running is worse than a failing one. */
void cli_suite_open(const char *label, const char *const *env);
void cli_suite_close(void);

/* A .ko in tree at rel (vermagic NULL: the node's own; extra: its other
 * modinfo, NULL-terminated, or NULL). */
void ko(const char *tree, const char *rel, const char *name, const char *deps, const char *vermagic,
        const char *const *extra);
bool loaded(const char *name);
/* The run's exit code, output and kernel log, in the test's log. */
void dump(const CliRun *r);
