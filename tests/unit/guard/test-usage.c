/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>

#include "fake-tree.h"
#include "host/host-root.h"
#include "nvme-fixtures.h"
#include "usage/exclusive-open.h"
#include "usage/holder-users.h"
#include "usage/mount-users.h"
#include "usage/process-users.h"
#include "usage/swap-space-users.h"
#include "usage/usage-check.h"
#include "usage/usage-scan.h"
#include "util/strv.h"

static NvmeBlockDevices *devices;
static UsageScan scan;

static void setup(void) {
        fake_tree_new();
        fixture_plain_namespace();
        fixture_multipath_head();
}

static void teardown(void) {
        usage_scan_done(&scan);
        devices = nvme_block_devices_free(devices);
        fake_tree_remove();
}

TestSuite(usage, .init = setup, .fini = teardown);

/* dm-0 (vg0-data, 253:0) on nvme0n1p1; optionally dm-1 (vg0-root, 253:1) on dm-0. */
static void fake_dm(const char *name, const char *dev, const char *dm_name, const char *below) {
        char rel[512], target[512];

        fake_block_device("virtual/block", name, dev, "100");
        snprintf(rel, sizeof(rel), "sys/devices/virtual/block/%s/dm/name", name);
        fake_writef(rel, "%s\n", dm_name);
        snprintf(rel, sizeof(rel), "sys/devices/virtual/block/%s/holders", name);
        fake_mkdir(rel);
        snprintf(rel, sizeof(rel), "sys/class/block/%s/holders/%s", below, name);
        snprintf(target, sizeof(target), "../../../../../virtual/block/%s", name); /* not followed by us */
        fake_symlink(rel, target);
        snprintf(rel, sizeof(rel), "dev/mapper/%s", dm_name);
        snprintf(target, sizeof(target), "../%s", name);
        fake_symlink(rel, target);
}

/* Reads devices and holders, builds the index: what usage_check does before the sources. */
static void scan_start(void) {
        cr_assert_eq(nvme_block_devices_scan(&devices), 0);
        cr_assert_eq(usage_scan_init(&scan, devices), 0);
        cr_assert_eq(holder_set_read(devices, &scan.holders, &scan.collector), 0);
        cr_assert_eq(usage_scan_build_index(&scan), 0);
}

static char *describe(size_t i) {
        char *s = NULL;

        cr_assert_lt(i, scan.collector.n_usages);
        cr_assert_eq(usage_describe(&scan.collector.usages[i], &s), 0);
        return s;
}

static void match_mountinfo(const char *text) {
        char path[4096];

        fake_write("tmp-mountinfo", text);
        snprintf(path, sizeof(path), "%s/tmp-mountinfo", host_root());
        cr_assert_eq(mount_users_match_file(&scan, path), 0);
}

Test(usage, mount_matched_by_devno) {
        _cleanup_free_ char *line = NULL;

        scan_start();
        match_mountinfo("22 1 0:21 / /proc rw - proc proc rw\n"
                        "40 1 259:1 / /data rw,relatime shared:1 - xfs /dev/somewhere-else rw\n"
                        "41 1 259:99 / /other rw - xfs /dev/sdz rw\n");
        cr_assert_eq(scan.collector.n_usages, 1);
        cr_assert_eq(scan.collector.usages[0].kind, USAGE_MOUNTED);
        cr_assert_str_eq(scan.collector.usages[0].device, "nvme0n1p1");
        line = describe(0);
        cr_assert_str_eq(line, "nvme0n1p1 is mounted on /data (xfs)");
}

Test(usage, mount_matched_by_source_path) {
        scan_start();
        fake_symlink("dev/disk/by-uuid/1234", "../../nvme1n1");
        match_mountinfo("50 1 0:45 / /btr rw - btrfs /dev/disk/by-uuid/1234 rw\n"
                        "51 1 0:46 / /direct rw - btrfs /dev/nvme0n1 rw\n"
                        "52 1 0:47 / /ov rw - overlay overlay rw\n");
        cr_assert_eq(scan.collector.n_usages, 2);
        cr_assert_str_eq(scan.collector.usages[0].device, "nvme1n1", "multipath head by its by-uuid link");
        cr_assert_str_eq(scan.collector.usages[0].where, "/btr");
        cr_assert_str_eq(scan.collector.usages[1].device, "nvme0n1");
        cr_assert_str_eq(scan.collector.usages[1].what, "btrfs");
}

Test(usage, dm_holder_mounted_names_both) {
        _cleanup_free_ char *line = NULL;

        fake_dm("dm-0", "253:0", "vg0-data", "nvme0n1p1");
        scan_start();
        cr_assert_eq(scan.holders.n_records, 1);
        match_mountinfo("60 1 253:0 / /srv rw - ext4 /dev/mapper/vg0-data rw\n");
        cr_assert_eq(scan.collector.n_usages, 0, "the mount is told on the holder");
        cr_assert_eq(holder_set_to_usages(&scan.holders, devices, &scan.collector), 0);
        cr_assert_eq(scan.collector.n_usages, 1);
        line = describe(0);
        cr_assert_str_eq(line, "nvme0n1p1 is held by dm-0 (vg0-data), mounted on /srv (ext4)");
}

Test(usage, dm_holder_mounted_by_source_only) {
        fake_dm("dm-0", "253:0", "vg0-data", "nvme0n1p1");
        scan_start();
        match_mountinfo("60 1 0:99 / /srv rw - btrfs /dev/mapper/vg0-data rw\n");
        cr_assert_eq(holder_set_to_usages(&scan.holders, devices, &scan.collector), 0);
        cr_assert_str_eq(scan.collector.usages[0].mount_point, "/srv");
}

Test(usage, holders_recursion) {
        _cleanup_free_ char *line = NULL;
        const HolderRecord *rec;

        fake_dm("dm-0", "253:0", "luks-1", "nvme0n1");
        fake_dm("dm-1", "253:1", "vg0-root", "dm-0");
        fake_dm("dm-2", "253:2", "vg0-home", "dm-0");
        fake_dm("dm-3", "253:3", "deep", "dm-1"); /* three levels above nvme0n1 */
        scan_start();
        cr_assert_eq(scan.holders.n_records, 1);
        rec = &scan.holders.records[0];
        cr_assert_eq(rec->n_stacked, 4);
        cr_assert_str_eq(rec->stacked[0], "dm-0");
        cr_assert_str_eq(rec->stacked[1], "dm-1");
        cr_assert_str_eq(rec->stacked[2], "dm-3", "depth first");
        cr_assert_str_eq(rec->stacked[3], "dm-2");
        cr_assert_str_eq(rec->friendly[1], "vg0-root");
        cr_assert_eq(rec->devnos[3], makedev(253, 2));
        match_mountinfo("70 1 253:2 / /home rw - xfs /dev/mapper/vg0-home rw\n");
        cr_assert_eq(holder_set_to_usages(&scan.holders, devices, &scan.collector), 0);
        line = describe(0);
        cr_assert_str_eq(line, "nvme0n1 is held by dm-0 (luks-1) through dm-2 (vg0-home), mounted on /home (xfs)");
}

Test(usage, holder_cycle_terminates) {
        fake_dm("dm-0", "253:0", "a", "nvme0n1");
        fake_symlink("sys/devices/virtual/block/dm-0/holders/dm-0", "../../dm-0");
        scan_start();
        cr_assert_eq(scan.holders.records[0].n_stacked, 1);
}

Test(usage, swaps_parse) {
        SwapTable t = {};

        cr_assert_eq(swaps_parse("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                                 "/dev/nvme0n1p1                          partition\t8388604\t\t0\t\t-2\n"
                                 "/data/swap\\040file file 1048572 0 -3\n"
                                 "garbage\n", &t), 0);
        cr_assert_eq(t.n_entries, 2);
        cr_assert_str_eq(t.entries[0].filename, "/dev/nvme0n1p1");
        cr_assert_not(t.entries[0].is_file);
        cr_assert_str_eq(t.entries[1].filename, "/data/swap file");
        cr_assert(t.entries[1].is_file);
        swap_table_done(&t);
}

Test(usage, swap_partition_and_swap_file) {
        _cleanup_free_ char *l0 = NULL, *l1 = NULL, *l2 = NULL;

        scan_start();
        match_mountinfo("40 1 259:2 / /data rw - xfs /dev/nvme1n1 rw\n"
                        "41 1 0:30 / / rw - ext4 /dev/sda1 rw\n");
        fake_write("proc/swaps", "Filename Type Size Used Priority\n"
                                 "/dev/nvme0n1p1 partition 8388604 0 -2\n"
                                 "/data/sub/swapfile file 1048572 0 -3\n"
                                 "/elsewhere/swapfile file 1048572 0 -4\n");
        cr_assert_eq(swap_space_users_read(&scan), 0);
        cr_assert_eq(scan.collector.n_usages, 3);
        l0 = describe(0), l1 = describe(1), l2 = describe(2);
        cr_assert_str_eq(l1, "nvme0n1p1 is in use as swap (/dev/nvme0n1p1)");
        cr_assert_str_eq(l2, "nvme1n1 holds the active swap file /data/sub/swapfile (swapoff it first)");
}

Test(usage, process_fd_match_pure) {
        scan_start();
        cr_assert_str_eq(process_fd_match(&scan, "/dev/nvme0n1p1", false, 0)->name, "nvme0n1p1");
        cr_assert_str_eq(process_fd_match(&scan, "/dev/renamed", true, makedev(259, 2))->name, "nvme1n1");
        cr_assert_null(process_fd_match(&scan, "/dev/nvme1c1n1", false, 0), "hidden paths are not devices");
        cr_assert_null(process_fd_match(&scan, "/data/file", false, 0));
        cr_assert_null(process_fd_match(&scan, "socket:[1234]", false, 0));
}

Test(usage, processes_on_temp_proc) {
        _cleanup_free_ char *line = NULL;

        fake_write("proc/100/comm", "fio\n");
        fake_symlink("proc/100/fd/3", "/dev/nvme0n1");
        fake_symlink("proc/100/fd/4", "/dev/nvme0n1"); /* same device twice: one usage */
        fake_symlink("proc/100/fd/5", "/dev/null");
        fake_write("proc/101/comm", "bash\n");
        fake_symlink("proc/101/fd/0", "/dev/pts/0");
        fake_write("proc/self-like", "");
        scan_start();
        cr_assert_eq(process_users_read(&scan), 0);
        cr_assert_eq(scan.collector.n_usages, 1);
        cr_assert_eq(scan.collector.usages[0].pid, 100);
        line = describe(0);
        cr_assert_str_eq(line, "nvme0n1 is open by process 100 (fio)");
        cr_assert_eq(strv_length(scan.collector.notes), 0);
}

/* Fail closed: a process whose open files cannot be read may hold any
 * namespace open; every namespace is unchecked, not free. */
Test(usage, unreadable_fd_directory_blocks_every_namespace) {
        _cleanup_free_ char *l0 = NULL, *l1 = NULL;

        fake_write("proc/102/fd", "not a directory"); /* unreadable: ENOTDIR */
        scan_start();
        cr_assert_eq(process_users_read(&scan), 0);
        cr_assert_eq(scan.collector.n_usages, 2, "one per namespace, none per partition");
        cr_assert_eq(scan.collector.usages[0].kind, USAGE_UNCHECKED);
        l0 = describe(0), l1 = describe(1);
        cr_assert_str_eq(l0, "could not check nvme0n1: could not read the open files of 1 process(es) "
                             "(pid 102: Not a directory), which may hold it open");
        cr_assert_not_null(strstr(l1, "could not check nvme1n1: "), "%s", l1);
        cr_assert_str_eq(usage_kind_to_string(USAGE_UNCHECKED), "unchecked");
}

static const char *const *busy_devices;
static ExclusiveOpenResult scripted_probe(const char *name, int *ret_errno);

static int unlink_in_root(const char *rel) {
        char path[4096];

        snprintf(path, sizeof(path), "%s/%s", host_root(), rel);
        return unlink(path);
}

/* The probe's answers other than free and busy, as the kernel gives them. */
static int scripted_errno;

static ExclusiveOpenResult failing_probe(const char *name, int *ret_errno) {
        *ret_errno = scripted_errno;
        return scripted_errno == ENOENT ? EXCLUSIVE_OPEN_GONE : EXCLUSIVE_OPEN_FAILED;
}

Test(usage, probe_errors_are_blockers) {
        _cleanup_free_ char *line = NULL;
        int errs[] = { EACCES, EIO, EPERM };

        for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
                scripted_errno = errs[i];
                usage_scan_done(&scan);
                devices = nvme_block_devices_free(devices);
                scan_start();
                cr_assert_eq(exclusive_open_check_with(&scan, failing_probe), 0);
                cr_assert_eq(scan.collector.n_usages, 3, "nvme0n1, nvme0n1p1, nvme1n1 each unchecked");
                for (size_t k = 0; k < scan.collector.n_usages; k++)
                        cr_assert_eq(scan.collector.usages[k].kind, USAGE_UNCHECKED);
        }
        line = describe(0);
        cr_assert_str_eq(line, "could not check nvme0n1: the exclusive open of /dev/nvme0n1 failed: "
                               "Operation not permitted");
}

Test(usage, gone_counts_only_when_sysfs_agrees) {
        _cleanup_free_ char *line = NULL;

        scripted_errno = ENOENT;
        scan_start(); /* sysfs still lists all three */
        cr_assert_eq(exclusive_open_check_with(&scan, failing_probe), 0);
        cr_assert_eq(scan.collector.n_usages, 3);
        line = describe(2);
        cr_assert_not_null(strstr(line, "could not check nvme1n1: the exclusive open of /dev/nvme1n1 failed "
                                        "(No such file or directory) but sysfs still lists the device"), "%s", line);

        /* Gone from sysfs too (the scan was made before): a note, no blocker. */
        usage_scan_done(&scan);
        devices = nvme_block_devices_free(devices);
        scan_start();
        cr_assert_eq(unlink_in_root("sys/class/block/nvme1n1"), 0);
        cr_assert_eq(exclusive_open_check_with(&scan, failing_probe), 0);
        cr_assert_eq(scan.collector.n_usages, 2);
        cr_assert_eq(strv_length(scan.collector.notes), 1);
        cr_assert_not_null(strstr(scan.collector.notes[0], "sysfs no longer lists it"), "%s", scan.collector.notes[0]);
}

Test(usage, held_namespaces_are_not_probed) {
        char *held[] = { (char *) "nvme0n1", NULL };

        busy_devices = (const char *const[]) { "nvme0n1", "nvme0n1p1", "nvme1n1", NULL };
        scan_start();
        scan.held = held;
        cr_assert_eq(exclusive_open_check_with(&scan, scripted_probe), 0);
        cr_assert_eq(scan.collector.n_usages, 1, "our own claim on nvme0n1 (and its partition) is no user");
        cr_assert_str_eq(scan.collector.usages[0].device, "nvme1n1");
}

Test(usage, exclusive_open_gone_is_a_note) {
        int err = 0;

        cr_assert_eq(exclusive_open_probe("nvme0n1", &err), EXCLUSIVE_OPEN_GONE);
        cr_assert_eq(err, ENOENT);
        fake_write("dev/nvme0n1", "");
        cr_assert_eq(exclusive_open_probe("nvme0n1", &err), EXCLUSIVE_OPEN_FREE);
}

/* The kernel's scripted answers: which devices an exclusive open finds busy. */

static ExclusiveOpenResult scripted_probe(const char *name, int *ret_errno) {
        for (const char *const *b = busy_devices; b && *b; b++)
                if (strcmp(*b, name) == 0) {
                        *ret_errno = EBUSY;
                        return EXCLUSIVE_OPEN_CLAIMED;
                }
        *ret_errno = 0;
        return EXCLUSIVE_OPEN_FREE;
}

Test(usage, kernel_claim_only_when_nothing_explains) {
        _cleanup_free_ char *line = NULL;

        /* nvme0n1 busy with its partition: the partition is named, not the disk.
         * nvme1n1 busy but mounted: already explained, no claim. */
        busy_devices = (const char *const[]) { "nvme0n1", "nvme0n1p1", "nvme1n1", NULL };
        scan_start();
        match_mountinfo("40 1 259:2 / /data rw - xfs /dev/nvme1n1 rw\n");
        cr_assert_eq(exclusive_open_check_with(&scan, scripted_probe), 0);
        cr_assert_eq(scan.collector.n_usages, 2);
        cr_assert_eq(scan.collector.usages[1].kind, USAGE_KERNEL_CLAIM);
        cr_assert_str_eq(scan.collector.usages[1].device, "nvme0n1p1");
        line = describe(1);
        cr_assert_not_null(strstr(line, "nvme0n1p1 is claimed in the kernel"), "%s", line);
}

Test(usage, kernel_claim_of_a_whole_disk) {
        busy_devices = (const char *const[]) { "nvme0n1", NULL };
        scan_start();
        cr_assert_eq(exclusive_open_check_with(&scan, scripted_probe), 0);
        cr_assert_eq(scan.collector.n_usages, 1);
        cr_assert_str_eq(scan.collector.usages[0].device, "nvme0n1");
}

Test(usage, swap_on_a_dm_holder) {
        _cleanup_free_ char *line = NULL;

        fake_dm("dm-0", "253:0", "vg0-swap", "nvme1n1");
        scan_start();
        fake_write("proc/swaps", "Filename Type Size Used Priority\n/dev/dm-0 partition 1 0 -2\n");
        cr_assert_eq(swap_space_users_read(&scan), 0);
        cr_assert_eq(holder_set_to_usages(&scan.holders, devices, &scan.collector), 0);
        cr_assert_eq(scan.collector.n_usages, 1);
        line = describe(0);
        cr_assert_str_eq(line, "nvme1n1 is held by dm-0 (vg0-swap), used as swap");
}

Test(usage, usage_check_whole) {
        UsageReport *r = NULL;
        _cleanup_free_ char *line = NULL;

        fake_write("dev/nvme0n1", "");
        fake_write("dev/nvme0n1p1", "");
        fake_write("dev/nvme1n1", "");
        fake_write("proc/1/mountinfo", "40 1 259:2 / /data rw - xfs /dev/nvme1n1 rw\n");
        fake_write("proc/swaps", "Filename Type Size Used Priority\n");
        cr_assert_eq(usage_check(&r), 0);
        cr_assert_eq(r->devices->n_devices, 3);
        cr_assert(usage_report_in_use(r));
        cr_assert_eq(r->n_usages, 1);
        cr_assert(usage_report_device_in_use(r, "nvme1n1"));
        cr_assert_not(usage_report_device_in_use(r, "nvme0n1"));
        cr_assert_eq(strv_length(r->notes), 0, "%s", r->notes[0]);
        cr_assert_eq(usage_describe(&r->usages[0], &line), 0);
        cr_assert_str_eq(line, "nvme1n1 is mounted on /data (xfs)");
        usage_report_free(r);
}

Test(usage, usage_check_in_device_order_with_partition_use) {
        UsageReport *r = NULL;

        fake_write("dev/nvme0n1", "");
        fake_write("dev/nvme0n1p1", "");
        fake_write("dev/nvme1n1", "");
        fake_write("proc/1/mountinfo", "40 1 259:2 / /data rw - xfs /dev/nvme1n1 rw\n"
                                       "41 1 259:1 / /boot rw - vfat /dev/nvme0n1p1 rw\n");
        cr_assert_eq(usage_check(&r), 0);
        cr_assert_eq(r->n_usages, 2);
        cr_assert_str_eq(r->usages[0].device, "nvme0n1p1", "device order, not table order");
        cr_assert_str_eq(r->usages[1].device, "nvme1n1");
        cr_assert(usage_report_device_in_use(r, "nvme0n1"), "a used partition makes its namespace in use");
        usage_report_free(r);
}

Test(usage, kinds_have_names) {
        cr_assert_str_eq(usage_kind_to_string(USAGE_KERNEL_CLAIM), "kernel-claim");
        cr_assert_null(usage_kind_to_string(_USAGE_KIND_MAX));
}
