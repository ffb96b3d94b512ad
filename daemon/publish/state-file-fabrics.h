/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The state file's "fabrics" list (keys in report/daemon-state.h),
 * shared by the state file and the status document. */

#include <json-c/json.h>

#include "node/node-ops.h"

/* A JSON array of f's connections; an empty array for none. NULL: ENOMEM. */
json_object *fabrics_to_json(const NodeFabrics *f);
/* o's "fabrics" array into *ret (NULL when absent or empty). Entries that
 * are not objects or name no known outcome are skipped. 0 or -ENOMEM. */
int fabrics_from_json(json_object *o, NodeFabrics **ret);
