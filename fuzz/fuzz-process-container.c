/* SPDX-License-Identifier: Apache-2.0 */
/* What the namespace scan reads from others: the text of a
 * /proc/<pid>/ns/mnt link, a /proc/<pid>/cgroup file (which CRI-O scope)
 * and a container's config.json (its pod's annotations). The same input
 * goes to all three parsers. */
#include <stdlib.h>

#include "fuzz-util.h"
#include "host/crio.h"
#include "usage/mount-namespace-set.h"
#include "usage/process-container.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ProcessContainer c = {};
        uint64_t inode;
        char id[65];
        char *text = fuzz_text(data, size);

        if (!text)
                return 0;
        (void) mount_namespace_parse_link(text, &inode);
        (void) crio_id_from_cgroup(text, id);
        (void) process_container_parse_config(text, &c);
        free(c.pod_namespace);
        free(c.pod_name);
        free(c.container_name);
        free(text);
        return 0;
}
