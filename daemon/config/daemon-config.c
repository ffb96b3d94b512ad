/* SPDX-License-Identifier: Apache-2.0 */

/* The daemon's configuration file: its keys (config_options[] below, the
 * one place that names them), their defaults and how each value is read.
 * Every path is a host path; tests move them all under --root.
 * Unknown sections or keys and bad values are errors naming file, line and reason:
 * a typo must not silently fall back to a default that unloads drives. */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "actions/stack-load.h"
#include "host/crio.h"
#include "report/node-labels.h"
#include "config/daemon-config.h"
#include "util/macro.h"
#include "util/parse-util.h"

#define MAX_READY_TIMEOUT_SEC (7ULL * 24 * 3600)
/* The load runs inside the event loop, which pings the watchdog only between
 * steps: the load, its rollback and the restore that follows must fit in the
 * unit's WatchdogSec=2min, or the watchdog ends the load, not its deadline. */
#define MAX_LOAD_TIMEOUT_SEC 90ULL

static const ConfigOption config_option_table[] = {
        { "Container", "Namespace", "nvidia-network-operator",
          "a Kubernetes name (a-z, 0-9, '-', '.')",
          "the driver pod's namespace (exact match)" },
        { "Container", "Name", "mofed-container",
          "a Kubernetes name (a-z, 0-9, '-', '.')",
          "the driver container's name in its pod (exact match)" },
        { "Container", "PodNamePrefix", "mofed-",
          "a Kubernetes name, or empty",
          "the driver pod's name starts with this; empty matches any pod" },
        { "Swap", "Mode", "enforce",
          "enforce, observe",
          "enforce: swap; observe: follow the container, run every check, report what would be done, "
          "change nothing (no module, no reload block, no pin); switched by a restart, not a reload" },
        { "Swap", "UnloadAt", "auto",
          "container-start, driver-ready, auto",
          "when the in-tree stack goes: at the container's start (while it compiles), at its ready file "
          "(drives up through the compile), or auto: one of the two per container, by the rules of "
          "auto in README.md, \"Which moment: UnloadAt\"" },
        { "Swap", "ReadyFile", "/run/mellanox/drivers/.driver-ready",
          "an absolute path",
          "created by the driver container once its drivers are loaded" },
        { "Swap", "ReadyTimeoutSec", "3600",
          "1 to 604800 seconds",
          "no ready file this long after the container started: give up and restore the in-tree stack" },
        { "Swap", "LoadTimeoutSec", "60",
          "1 to 90 seconds (the load, its rollback and the restore fit in WatchdogSec=2min)",
          "deadline of the load from the container; past it the load is rolled back and the in-tree "
          "stack restored" },
        { "Swap", "ContainerStore", CRIO_STORE_DEFAULT,
          "an absolute path",
          "CRI-O's runtime root (overlay-containers/ inside)" },
        { "Swap", "Modules", "",
          "module names separated by spaces ('-' read as '_'), or empty",
          "stack modules to load from the container and to restore; empty: those loaded before the unload" },
        { "Swap", "LoadFromContainer", "yes",
          "yes, no (also true/false, on/off, 1/0)",
          "yes: load the NVIDIA build from the container's /lib/modules/<release>; no: only report "
          "(older images load it themselves)" },
        { "Swap", "NodeLabelsDirectory", NODE_LABELS_DIR_DEFAULT,
          "an absolute path, or empty",
          "where Node Feature Discovery reads local feature files: the swap's node labels are published "
          "there (nvme-swapguard-labels.service) when it exists; empty: no labels" },
};

const ConfigOption *config_options(size_t *ret_n) {
        *ret_n = ELEMENTSOF(config_option_table);
        return config_option_table;
}

const ConfigOption *config_option_find(const char *section, const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(config_option_table); i++)
                if (streq(config_option_table[i].section, section) && streq(config_option_table[i].key, key))
                        return &config_option_table[i];
        return NULL;
}

Config *config_free(Config *c) {
        if (!c)
                return NULL;
        free(c->container_namespace);
        free(c->container_name);
        free(c->pod_name_prefix);
        free(c->ready_file);
        free(c->container_store);
        free(c->node_labels_dir);
        strv_free(c->modules);
        free(c);
        return NULL;
}


/* The defaults are the table's, read by the same parser as a file: a
 * default the parser would refuse cannot ship. */
int config_new_default(Config **ret) {
        _cleanup_(config_freep) Config *c = calloc(1, sizeof(*c));
        _cleanup_free_ char *text = NULL;
        const char *section = NULL;
        char **errors = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        if (!c)
                return -ENOMEM;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(config_option_table); i++) {
                const ConfigOption *o = &config_option_table[i];

                if (!section || !streq(section, o->section))
                        fprintf(f, "[%s]\n", o->section);
                section = o->section;
                fprintf(f, "%s=%s\n", o->key, o->default_value);
        }
        if (fclose(f) != 0 || !text)
                return -ENOMEM;
        r = config_parse_string(c, "defaults", text, &errors);
        if (r < 0)
                return r;
        if (errors) {
                strv_free(errors);
                return -EINVAL; /* the table's own default refused: a bug, caught by the unit tests */
        }
        *ret = TAKE_PTR(c);
        return 0;
}

/* State of one file's parse: inih calls the reader, then the handler for the
 * line just read, so the reader's count is the handler's line number. */
typedef struct ParseState {
        Config *config;
        const char *name;
        const char *text; /* remaining input */
        unsigned line;
        char ***errors;
        int oom;
} ParseState;

static void check_syntax(ParseState *p, const char *line);
_printf_(2, 3) static int parse_error(ParseState *p, const char *fmt, ...);

/* One physical line per call, so that inih's line count is ours. */
static char *parse_reader(char *str, int num, void *stream) {
        ParseState *p = stream;
        const char *nl;
        size_t n;

        if (!p->text || *p->text == '\0' || num <= 2)
                return NULL;
        /* A UTF-8 byte order mark (editors on other systems write one) is
         * not part of the first line. */
        if (p->line == 0 && strneq(p->text, "\xef\xbb\xbf", 3))
                p->text += 3;
        p->line++;
        nl = strchr(p->text, '\n');
        n = nl ? (size_t) (nl - p->text) + 1 : strlen(p->text);
        if (n > (size_t) num - 1) {
                /* Too long for inih's buffer: one error on this line, and inih
                 * gets a blank line instead of the pieces (each piece would be
                 * read as a line of its own, with errors on lines that are fine). */
                (void) parse_error(p, "line longer than %d characters", num - 2);
                p->text += n;
                strcpy(str, "\n");
                return str;
        }
        memcpy(str, p->text, n);
        str[n] = '\0';
        p->text += n;
        check_syntax(p, str);
        return str;
}

_printf_(2, 3) static int parse_error(ParseState *p, const char *fmt, ...) {
        _cleanup_free_ char *reason = NULL;
        char *line;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&reason, fmt, ap);
        va_end(ap);
        if (r < 0 || asprintf(&line, "%s:%u: %s", p->name, p->line, reason) < 0) {
                p->oom = 1;
                return 0;
        }
        if (strv_push(p->errors, line) < 0)
                p->oom = 1;
        return 0; /* inih: 0 = error on this line */
}

static bool has_error_at(const ParseState *p, unsigned line) {
        _cleanup_free_ char *prefix = NULL;

        if (asprintf(&prefix, "%s:%u: ", p->name, line) < 0)
                return true; /* no memory: do not add more */
        for (char **e = *p->errors; e && *e; e++)
                if (strneq(*e, prefix, strlen(prefix)))
                        return true;
        return false;
}

/* inih returns only the first error line, so a syntax error after an
 * invalid value would go unreported: spot lines inih cannot parse as it
 * reads them (not blank, not a comment, not [Section], no '=' or ':'). */
static void check_syntax(ParseState *p, const char *line) {
        const char *s = line + strspn(line, " \t");

        if (*s == '\0' || *s == '\n' || *s == '\r' || *s == ';' || *s == '#')
                return;
        if (*s == '[' ? strchr(s, ']') != NULL : strpbrk(s, "=:") != NULL)
                return;
        (void) parse_error(p, "syntax error (expected [Section] or Key=Value)");
}

static int parse_bool(const char *v) {
        static const char *const yes[] = { "yes", "true", "on", "1" };
        static const char *const no[] = { "no", "false", "off", "0" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(v, yes[i]) == 0)
                        return 1;
                if (strcasecmp(v, no[i]) == 0)
                        return 0;
        }
        return -EINVAL;
}

/* Kubernetes names (namespaces, pods, containers): DNS-1123 characters. */
static bool valid_k8s_name(const char *v, bool empty_ok) {
        size_t n = strlen(v);

        if (n == 0)
                return empty_ok;
        if (n > 253)
                return false;
        for (const char *c = v; *c; c++)
                if (!(islower((unsigned char) *c) || isdigit((unsigned char) *c) || *c == '-' || *c == '.'))
                        return false;
        return true;
}

static bool valid_abs_path(const char *v) {
        return v[0] == '/' && !strstr(v, "/../") && strlen(v) < 4096;
}

static int set_string(ParseState *p, char **field, const char *value) {
        char *s = strdup(value);

        if (!s) {
                p->oom = 1;
                return 0;
        }
        free(*field);
        *field = s;
        return 1;
}

static int set_modules(ParseState *p, const char *value) {
        _cleanup_free_ char *copy = strdup(value);
        char **list = NULL, *save = NULL;

        if (!copy) {
                p->oom = 1;
                return 0;
        }
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                for (char *c = w; *c; c++) {
                        if (*c == '-')
                                *c = '_'; /* the kernel's spelling */
                        if (!(islower((unsigned char) *c) || isdigit((unsigned char) *c) || *c == '_')) {
                                strv_free(list);
                                return parse_error(p, "Modules=: \"%s\" is not a module name", w);
                        }
                }
                if (strv_push(&list, strdup(w)) < 0) {
                        strv_free(list);
                        p->oom = 1;
                        return 0;
                }
        }
        strv_free(p->config->modules);
        p->config->modules = list; /* empty value: NULL, what was loaded */
        return 1;
}

static int handle_container(ParseState *p, const char *key, const char *value) {
        Config *c = p->config;

        if (streq(key, "Namespace") || streq(key, "Name") || streq(key, "PodNamePrefix")) {
                bool prefix = streq(key, "PodNamePrefix");

                if (!valid_k8s_name(value, prefix))
                        return parse_error(p, "%s=: \"%s\" is not a Kubernetes name", key, value);
                return set_string(p, prefix ? &c->pod_name_prefix :
                                     streq(key, "Name") ? &c->container_name : &c->container_namespace,
                                  value);
        }
        return parse_error(p, "unknown key \"%s\" in section [Container]", key);
}

static int handle_swap(ParseState *p, const char *key, const char *value) {
        Config *c = p->config;

        if (streq(key, "Mode")) {
                SwapMode mode = swap_mode_from_string(value);

                if (mode < 0)
                        return parse_error(p, "Mode=: \"%s\" is not enforce or observe", value);
                c->mode = mode;
                return 1;
        }
        if (streq(key, "UnloadAt")) {
                UnloadAt u = unload_at_from_string(value);

                if (u < 0)
                        return parse_error(p, "UnloadAt=: \"%s\" is not container-start, driver-ready or auto", value);
                c->unload_at = u;
                return 1;
        }
        if (streq(key, "ReadyFile") || streq(key, "ContainerStore")) {
                if (!valid_abs_path(value))
                        return parse_error(p, "%s=: \"%s\" is not an absolute path", key, value);
                return set_string(p, streq(key, "ReadyFile") ? &c->ready_file : &c->container_store, value);
        }
        if (streq(key, "ReadyTimeoutSec")) {
                uint64_t v;

                if (parse_seconds(value, MAX_READY_TIMEOUT_SEC, &v) < 0)
                        return parse_error(p, "ReadyTimeoutSec=: \"%s\" is not a number of seconds between 1 and %llu",
                                           value, MAX_READY_TIMEOUT_SEC);
                c->ready_timeout_usec = v * 1000000ULL;
                return 1;
        }
        if (streq(key, "LoadTimeoutSec")) {
                uint64_t v;

                if (parse_seconds(value, MAX_LOAD_TIMEOUT_SEC, &v) < 0)
                        return parse_error(p, "LoadTimeoutSec=: \"%s\" is not a number of seconds between 1 and %llu",
                                           value, MAX_LOAD_TIMEOUT_SEC);
                c->load_timeout_sec = (unsigned) v;
                return 1;
        }
        if (streq(key, "NodeLabelsDirectory")) {
                /* Empty: no labels. */
                if (value[0] != '\0' && !valid_abs_path(value))
                        return parse_error(p, "NodeLabelsDirectory=: \"%s\" is not an absolute path (or empty)", value);
                return set_string(p, &c->node_labels_dir, value);
        }
        if (streq(key, "Modules"))
                return set_modules(p, value);
        if (streq(key, "LoadFromContainer")) {
                int b = parse_bool(value);

                if (b < 0)
                        return parse_error(p, "LoadFromContainer=: \"%s\" is not yes or no", value);
                c->load_from_container = b;
                return 1;
        }
        return parse_error(p, "unknown key \"%s\" in section [Swap]", key);
}

static int parse_handler(void *user, const char *section, const char *key, const char *value) {
        ParseState *p = user;

        if (!config_option_find(section, key)) {
                if (section[0] == '\0')
                        return parse_error(p, "key \"%s\" outside of any section", key);
                if (!streq(section, "Container") && !streq(section, "Swap"))
                        return parse_error(p, "unknown section [%s]", section);
                return parse_error(p, "unknown key \"%s\" in section [%s]", key, section);
        }
        if (streq(section, "Container"))
                return handle_container(p, key, value);
        if (streq(section, "Swap"))
                return handle_swap(p, key, value);
        if (section[0] == '\0')
                return parse_error(p, "key \"%s\" outside of any section", key);
        return parse_error(p, "unknown section [%s]", section);
}

int config_parse_string(Config *c, const char *name, const char *text, char ***errors) {
        ParseState p = { .config = c, .name = name, .text = text, .errors = errors };
        int r;

        r = ini_parse_stream(parse_reader, &p, parse_handler, &p);
        if (p.oom || r == -2)
                return -ENOMEM;
        if (r > 0 && !has_error_at(&p, (unsigned) r)) {
                /* Something else inih refused on that line (e.g. an overlong line). */
                p.line = (unsigned) r;
                (void) parse_error(&p, "cannot parse this line");
        }
        return p.oom ? -ENOMEM : 0;
}

/* Refuse absurd sizes before reading: a config file is a few hundred bytes. */
#define CONFIG_FILE_MAX (1024 * 1024)

static int read_text_file(const char *path, char **ret) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t n;
        int fd;

        /* O_NONBLOCK: a FIFO in conf.d must not hang the start. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0 || !(f = fdopen(fd, "r"))) {
                int r = -errno;

                close(fd);
                return r;
        }
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        buf = malloc(CONFIG_FILE_MAX + 1);
        if (!buf)
                return -ENOMEM;
        n = fread(buf, 1, CONFIG_FILE_MAX + 1, f);
        if (ferror(f))
                return -EIO;
        if (n > CONFIG_FILE_MAX)
                return -EFBIG;
        buf[n] = '\0';
        if (strlen(buf) != n)
                return -EBADMSG; /* a NUL byte: not a text file */
        *ret = TAKE_PTR(buf);
        return 0;
}

static int parse_file(Config *c, const char *path, bool optional, char ***errors) {
        _cleanup_free_ char *text = NULL;
        int r;

        r = read_text_file(path, &text);
        if (r == -ENOENT && optional)
                return 0;
        if (r == -EFBIG || r == -EBADMSG || r == -EISDIR || r == -EBADFD) {
                char *line;

                if (asprintf(&line, "%s: %s", path,
                             r == -EFBIG ? "file larger than 1 MiB" :
                             r == -EBADMSG ? "not a text file" :
                             r == -EISDIR ? "is a directory, not a configuration file" :
                                            "not a regular file") < 0)
                        return -ENOMEM;
                return strv_push(errors, line);
        }
        if (r < 0)
                return r;
        return config_parse_string(c, path, text, errors);
}

static int dropin_filter(const struct dirent *de) {
        size_t n = strlen(de->d_name);

        return de->d_name[0] != '.' && n > 5 && streq(de->d_name + n - 5, ".conf");
}

static int parse_dropins(Config *c, const char *main_path, char ***errors) {
        _cleanup_free_ char *copy = strdup(main_path), *dir = NULL;
        struct dirent **entries = NULL;
        int n, r = 0;

        if (!copy)
                return -ENOMEM;
        if (asprintf(&dir, "%s/conf.d", dirname(copy)) < 0)
                return -ENOMEM;
        n = scandir(dir, &entries, dropin_filter, alphasort);
        if (n < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        for (int i = 0; i < n; i++) {
                _cleanup_free_ char *p = NULL;

                if (r >= 0 && asprintf(&p, "%s/%s", dir, entries[i]->d_name) < 0)
                        r = -ENOMEM;
                if (r >= 0)
                        r = parse_file(c, p, /* optional= */ true, errors);
                free(entries[i]);
        }
        free(entries);
        return r;
}

int config_load(const char *path, bool main_optional, Config **ret, char ***ret_errors) {
        _cleanup_(config_freep) Config *c = NULL;
        char **errors = NULL;
        int r;

        r = config_new_default(&c);
        if (r < 0)
                return r;
        r = parse_file(c, path, main_optional, &errors);
        if (r >= 0)
                r = parse_dropins(c, path, &errors);
        if (r < 0) {
                strv_free(errors);
                return r;
        }
        if (errors) {
                *ret_errors = errors;
                return CONFIG_E_INVALID;
        }
        *ret = TAKE_PTR(c);
        return 0;
}
