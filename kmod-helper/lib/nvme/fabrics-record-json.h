/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The fabrics record's JSON (its layout: fabrics-record.h), both ways. */

#include "nvme/fabrics-topology.h"

struct json_object;

/* Pure: the record's text into a topology; path names the file in the
 * error (the fuzzer's entry point). As fabrics_record_load(). */
int fabrics_record_parse(const char *text, const char *path, FabricsTopology **ret, char **ret_error);
/* Pure: the record's JSON object. 0 or -ENOMEM. */
int fabrics_record_to_json(const FabricsTopology *t, struct json_object **ret);
