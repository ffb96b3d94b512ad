/* SPDX-License-Identifier: Apache-2.0 */
/* A container's config.json (any container on the node can put anything in
 * its annotations) and the matcher that decides whether it is the driver
 * container: parse, then match against the default and a prefix rule, and
 * the id and scope-name checks on the same bytes. */
#include <assert.h>

#include "container/container-match.h"
#include "container/container-store.h"
#include "host/crio.h"
#include "fuzz-util.h"

static const char id[] = "3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ContainerIdentity *c = NULL;
        char *text = fuzz_text(data, size), scope_id[65];

        if (!text)
                return 0;
        if (container_config_parse(id, (const char *) data, size, &c) >= 0) {
                assert(c->id && c->pod_namespace && c->pod_name && c->container_name);
                (void) container_match(c, "nvidia-network-operator", "mofed-container", NULL);
                (void) container_match(c, "nvidia-network-operator", "mofed-container", "mofed-");
                (void) container_match(c, c->pod_namespace, c->container_name, c->pod_name);
                container_identity_free(c);
        }
        (void) crio_id_valid(text);
        if (crio_id_from_scope(text, scope_id))
                assert(strlen(scope_id) == 64 && crio_id_valid(scope_id));
        free(text);
        return 0;
}
