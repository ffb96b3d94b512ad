/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <errno.h>

#include "swap/reconcile.h"

#define ID "3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3"
#define ID2 "aaaa2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3"

static char *modules[] = { (char *) "nvme", (char *) "nvme_core", NULL };

static StateFile prev(SwapState s, const char *id) {
        return (StateFile) { .state = s, .container_id = (char *) id, .modules_before = modules };
}

Test(reconcile, fresh_node_idle) {
        ReconcileDecision d = reconcile_decide(&(ReconcileInput) { .stack_loaded = true });

        cr_assert_eq(d.state, SWAP_STATE_IDLE);
        cr_assert_eq(d.event, _SWAP_EVENT_INVALID);
}

Test(reconcile, killed_while_waiting_resumes) {
        StateFile p = prev(SWAP_STATE_UNLOADED_WAITING_DRIVER, ID);
        ReconcileDecision d = reconcile_decide(&(ReconcileInput) { .previous = &p, .container_id = ID });

        /* Replaying the start with the stack absent leads back to waiting (or loading). */
        cr_assert_eq(d.state, SWAP_STATE_IDLE);
        cr_assert_eq(d.event, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert(d.keep_record, "what to restore must survive the restart");
}

Test(reconcile, container_gone_while_we_were_down_restores) {
        StateFile p = prev(SWAP_STATE_UNLOADED_WAITING_DRIVER, ID);
        ReconcileDecision d = reconcile_decide(&(ReconcileInput) { .previous = &p });

        cr_assert_eq(d.state, SWAP_STATE_UNLOADED_WAITING_DRIVER);
        cr_assert_eq(d.event, SWAP_EVENT_CONTAINER_EXITED);
        cr_assert(d.keep_record);
}

Test(reconcile, killed_mid_unload_with_container_gone_restores) {
        StateFile p = prev(SWAP_STATE_CONTAINER_SEEN, ID);
        ReconcileDecision d = reconcile_decide(&(ReconcileInput) { .previous = &p });

        cr_assert_eq(d.event, SWAP_EVENT_CONTAINER_EXITED);
}

Test(reconcile, gave_up_on_this_container_stays) {
        StateFile p = prev(SWAP_STATE_RESTORED, ID);
        ReconcileDecision d = reconcile_decide(&(ReconcileInput) { .previous = &p, .container_id = ID, .stack_loaded = true });

        cr_assert_eq(d.state, SWAP_STATE_RESTORED);
        cr_assert_eq(d.event, _SWAP_EVENT_INVALID);
        /* ... but a new container gets a new try. */
        d = reconcile_decide(&(ReconcileInput) { .previous = &p, .container_id = ID2, .stack_loaded = true });
        cr_assert_eq(d.event, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_not(d.keep_record);
}

Test(reconcile, swapped_stays_swapped) {
        StateFile p = prev(SWAP_STATE_SWAPPED, ID);
        ReconcileDecision d = reconcile_decide(
                &(ReconcileInput) { .previous = &p, .container_id = ID, .stack_loaded = true, .replacement_loaded = true });

        cr_assert_eq(d.state, SWAP_STATE_SWAPPED);
        d = reconcile_decide(&(ReconcileInput) { .previous = &p, .stack_loaded = true, .replacement_loaded = true });
        cr_assert_eq(d.state, SWAP_STATE_SWAPPED);
}

Test(reconcile, blocked_rechecks) {
        StateFile p = prev(SWAP_STATE_BLOCKED, ID);
        ReconcileDecision d = reconcile_decide(&(ReconcileInput) { .previous = &p, .container_id = ID, .stack_loaded = true });

        cr_assert_eq(d.state, SWAP_STATE_BLOCKED);
        cr_assert_eq(d.event, SWAP_EVENT_USAGE_CHANGED);
}

Test(reconcile, node_without_nvme_and_no_history_is_left_alone) {
        ReconcileDecision d = reconcile_decide(&(ReconcileInput) { 0 });

        cr_assert_eq(d.state, SWAP_STATE_IDLE);
        cr_assert_eq(d.event, _SWAP_EVENT_INVALID);
}

/* SIGKILL while unloaded, container gone, state file
 * truncated (previous NULL): the drives have no driver, so restore. */
Test(reconcile, driverless_drives_restore_without_a_state_file) {
        ReconcileDecision d = reconcile_decide(&(ReconcileInput) { .nvme_driverless = true });

        cr_assert_eq(d.state, SWAP_STATE_UNLOADED_WAITING_DRIVER);
        cr_assert_eq(d.event, SWAP_EVENT_CONTAINER_EXITED, "the restore path");

        d = reconcile_decide(&(ReconcileInput) { .nvme_driverless = false });
        cr_assert_eq(d.state, SWAP_STATE_IDLE, "no drives without a driver, nothing known: idle");
        d = reconcile_decide(&(ReconcileInput) { .nvme_driverless = true, .stack_loaded = true });
        cr_assert_eq(d.state, SWAP_STATE_IDLE, "the stack is loaded: a controller without a driver is not ours");
}
