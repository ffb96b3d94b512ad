/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's configuration: /etc/nvme-swapguard/nvme-swapguard.conf, then
 * every conf.d/<name>.conf next to it in lexical order, later files overriding
 * earlier ones key by key. INI, read with inih. See config.c for the keys. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strv.h"
#include "vocabulary/swap-vocabulary.h"
#include "util/macro.h"

/* An expected outcome, not an error: the files were read but are wrong. */
#define CONFIG_E_INVALID 1

#define CONFIG_DEFAULT_PATH "/etc/nvme-swapguard/nvme-swapguard.conf"


typedef struct Config {
        /* [Container] */
        char *container_namespace;
        char *container_name;
        char *pod_name_prefix;       /* "" matches any pod name */
        /* [Swap] */
        SwapMode mode;
        UnloadAt unload_at;
        char *ready_file;            /* host path, before host_path() */
        uint64_t ready_timeout_usec;
        unsigned load_timeout_sec;   /* the deadline of a load from the container */
        char *container_store;       /* host path, before host_path() */
        char **modules;              /* NULL: restore what was loaded before the unload */
        bool load_from_container;
        char *node_labels_dir;       /* host path, before host_path(); "": no node labels */
} Config;

/* One row per key: the one owner of each key's section, name, default,
 * accepted values and meaning. The parser accepts exactly these keys,
 * config_new_default() applies these defaults through the parser, and the
 * documentation (README.md's table, nvme-swapguard.conf(5), the shipped
 * nvme-swapguard.conf) is generated from it: tests/ship/docs-tables.py,
 * through the daemon's hidden --dump-doc-tables. */
typedef struct ConfigOption {
        const char *section;
        const char *key;
        const char *default_value; /* as written in the file; "" = empty */
        const char *range;         /* the values accepted, in words */
        const char *meaning;       /* one line */
} ConfigOption;

/* The table, *ret_n rows. */
const ConfigOption *config_options(size_t *ret_n);
const ConfigOption *config_option_find(const char *section, const char *key);

int config_new_default(Config **ret);
Config *config_free(Config *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(Config *, config_free);

/* Reads `path` (as given: the caller applies host_path()) and the drop-ins
 * of <dirname(path)>/conf.d/. A missing main file is fine when
 * `main_optional`. Returns 0 with *ret; CONFIG_E_INVALID with *ret_errors
 * (NULL-terminated "file:line: reason" lines) when anything is wrong; or
 * -errno when a file could not be read. */
int config_load(const char *path, bool main_optional, Config **ret, char ***ret_errors);

/* Parses one file's text into an existing config (used by config_load and by
 * tests and fuzzers). `name` is used in messages. Appends errors to *errors. */
int config_parse_string(Config *c, const char *name, const char *text, char ***errors);
