/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Cleanup helpers for libmount types, one owner for them (as kmod-util.h is
 * for libkmod's and json-util.h for json-c's). Header-only. */

#include <libmount.h>

#include "util/macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct libmnt_table *, mnt_unref_table);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct libmnt_iter *, mnt_free_iter);
