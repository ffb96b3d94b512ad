/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* `nvme-swapguard-kmod labels publish [SOURCE [DIRECTORY]]`: the root
 * copier of the node labels (report/node-labels.h), run by
 * nvme-swapguard-labels.service whenever the daemon's file changes. It
 * trusts nothing in that file (the daemon's dynamic user wrote it): every
 * line is checked again (our label names only, values we write, the expiry
 * directive in RFC 3339 and within NODE_LABELS_EXPIRY_MAX_SEC of now), and
 * the file it publishes is its own text from what passed, written
 * atomically into DIRECTORY (default NODE_LABELS_DIR_DEFAULT) as a dot-file
 * renamed to NODE_LABELS_FILE_NAME (nfd-worker skips dot-files).
 *   no SOURCE (the daemon stopped writing: labels off)  the published
 *                                                      file is removed
 *   SOURCE refused                                     the published file is
 *                                                      removed (no label that
 *                                                      nothing vouches for),
 *                                                      exit 1, "FILE:LINE: why"
 *   no DIRECTORY (no Node Feature Discovery)           nothing, exit 0
 * Both paths go through host_path() (--root). */

/* args: the words after "labels" (NULL-terminated). The exit code. */
int cli_labels_verb(char **args);
