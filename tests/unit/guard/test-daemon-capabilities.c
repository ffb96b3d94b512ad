/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's drop of CAP_DAC_READ_SEARCH after its reader's fork
 * (sandbox/daemon-capabilities.h): gone from the permitted, effective and
 * inheritable sets, the ambient set empty, everything else kept. Checked in
 * a child, from its /proc/self/status, whatever this test runs as (as
 * root: all of them held before; as a user: none, and the drop still
 * succeeds). */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/daemon-capabilities.h"

static uint64_t cap_field(const char *name) {
        char line[256];
        uint64_t v = UINT64_MAX;
        size_t n = strlen(name);
        FILE *f = fopen("/proc/self/status", "re");

        if (!f)
                return UINT64_MAX;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, name, n) == 0 && line[n] == ':')
                        v = strtoull(line + n + 1, NULL, 16);
        fclose(f);
        return v;
}

Test(daemon_capabilities, drops_only_dac_read_search) {
        pid_t pid = fork();
        int st;

        cr_assert_geq(pid, 0);
        if (pid == 0) {
                const uint64_t drs = 1ULL << CAP_DAC_READ_SEARCH;
                uint64_t prm = cap_field("CapPrm"), eff = cap_field("CapEff");

                if (prm == UINT64_MAX || eff == UINT64_MAX)
                        _exit(10);
                if (daemon_capabilities_drop_file_reading() != 0)
                        _exit(11);
                if (cap_field("CapPrm") != (prm & ~drs) || cap_field("CapEff") != (eff & ~drs))
                        _exit(12); /* DAC_READ_SEARCH gone, the rest (SYS_MODULE, SYS_PTRACE...) kept */
                if (cap_field("CapInh") & drs)
                        _exit(13);
                if (cap_field("CapAmb") != 0)
                        _exit(14);
                _exit(0);
        }
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st), "status %d", st);
        cr_assert_eq(WEXITSTATUS(st), 0, "child check %d failed (10: status unreadable, 11: the drop, 12: the "
                                         "sets, 13: inheritable, 14: ambient)", WEXITSTATUS(st));
}
