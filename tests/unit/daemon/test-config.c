/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/stack-load.h"
#include "config/daemon-config.h"
#include "host/crio.h"
#include "util/macro.h"
#include "util/strv.h"

static char dir[] = "/tmp/test-daemon-config-XXXXXX";

static void setup(void) {
        cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) {
        char cmd[256];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        (void) !system(cmd);
}

static char *write_file(const char *rel, const char *text) {
        char *p;
        FILE *f;

        cr_assert(asprintf(&p, "%s/%s", dir, rel) > 0);
        if (strchr(rel, '/')) {
                char *d;
                cr_assert(asprintf(&d, "%s/conf.d", dir) > 0);
                (void) mkdir(d, 0755);
                free(d);
        }
        f = fopen(p, "we");
        cr_assert_not_null(f);
        fputs(text, f);
        fclose(f);
        return p;
}

static bool errors_contain(char **errors, const char *needle) {
        for (char **e = errors; e && *e; e++)
                if (strstr(*e, needle))
                        return true;
        return false;
}

TestSuite(config, .init = setup, .fini = teardown);

Test(config, defaults_match_a_real_cluster) {
        Config *c = NULL;

        cr_assert_eq(config_new_default(&c), 0);
        cr_assert_str_eq(c->container_namespace, "nvidia-network-operator");
        cr_assert_str_eq(c->container_name, "mofed-container");
        cr_assert_str_eq(c->pod_name_prefix, "mofed-");
        cr_assert_str_eq(c->ready_file, "/run/mellanox/drivers/.driver-ready");
        cr_assert_str_eq(c->container_store, "/run/containers/storage");
        cr_assert_eq(c->unload_at, UNLOAD_AT_AUTO);
        cr_assert_eq(c->ready_timeout_usec, 3600ULL * 1000000ULL);
        cr_assert_eq(c->load_timeout_sec, 60);
        cr_assert(c->load_from_container);
        cr_assert_null(c->modules);
        config_free(c);
}

Test(config, good_file) {
        char *p = write_file("nvme-swapguard.conf",
                             "# comment\n[Container]\nNamespace=gpu-operator\nName=driver\nPodNamePrefix=\n\n"
                             "[Swap]\nUnloadAt=driver-ready\nReadyFile=/run/x/.ready\nReadyTimeoutSec=120\n"
                             "ContainerStore=/var/run/containers/storage\nModules=nvme nvme-core nvme_rdma\n"
                             "LoadFromContainer=no\n");
        Config *c = NULL;
        char **errors = NULL;

        cr_assert_eq(config_load(p, false, &c, &errors), 0);
        cr_assert_null(errors);
        cr_assert_str_eq(c->container_namespace, "gpu-operator");
        cr_assert_str_eq(c->container_name, "driver");
        cr_assert_str_eq(c->pod_name_prefix, "");
        cr_assert_eq(c->unload_at, UNLOAD_AT_DRIVER_READY);
        cr_assert_str_eq(c->ready_file, "/run/x/.ready");
        cr_assert_eq(c->ready_timeout_usec, 120ULL * 1000000ULL);
        cr_assert_str_eq(c->container_store, "/var/run/containers/storage");
        cr_assert_eq(strv_length(c->modules), 3);
        cr_assert_str_eq(c->modules[1], "nvme_core", "module names take the kernel's spelling");
        cr_assert_not(c->load_from_container);
        config_free(c);
        free(p);
}

Test(config, dropins_override_in_lexical_order) {
        char *p = write_file("nvme-swapguard.conf", "[Swap]\nReadyTimeoutSec=100\nUnloadAt=driver-ready\n");
        Config *c = NULL;
        char **errors = NULL;

        free(write_file("conf.d/20-later.conf", "[Swap]\nReadyTimeoutSec=300\n"));
        free(write_file("conf.d/10-first.conf", "[Swap]\nReadyTimeoutSec=200\n[Container]\nName=other\n"));
        free(write_file("conf.d/30-ignored.conf.disabled", "[Swap]\nReadyTimeoutSec=999\n"));
        cr_assert_eq(config_load(p, false, &c, &errors), 0);
        cr_assert_eq(c->ready_timeout_usec, 300ULL * 1000000ULL, "20-later.conf is read last");
        cr_assert_str_eq(c->container_name, "other");
        cr_assert_eq(c->unload_at, UNLOAD_AT_DRIVER_READY, "keys not overridden stay");
        config_free(c);
        free(p);
}

Test(config, missing_main_file) {
        char *p = NULL;
        Config *c = NULL;
        char **errors = NULL;

        cr_assert(asprintf(&p, "%s/absent.conf", dir) > 0);
        cr_assert_eq(config_load(p, true, &c, &errors), 0, "the default file is optional");
        config_free(c);
        c = NULL;
        cr_assert_eq(config_load(p, false, &c, &errors), -ENOENT, "an explicit --config must exist");
        cr_assert_null(c);
        free(p);
}

Test(config, unknown_key_names_file_and_line) {
        char *p = write_file("nvme-swapguard.conf", "[Swap]\nUnloadAt=container-start\nReadyTimout=5\n");
        Config *c = NULL;
        char **errors = NULL, *want = NULL;

        cr_assert_eq(config_load(p, false, &c, &errors), CONFIG_E_INVALID);
        cr_assert_null(c);
        cr_assert(asprintf(&want, "%s:3: unknown key \"ReadyTimout\" in section [Swap]", p) > 0);
        cr_assert(errors_contain(errors, want), "got: %s", errors ? errors[0] : "(none)");
        strv_free(errors);
        free(want);
        free(p);
}

Test(config, bad_values_each_reported_with_line) {
        char *p = write_file("nvme-swapguard.conf",
                             "[Container]\nNamespace=Not_A_Name\n[Swap]\nUnloadAt=sometime\nReadyTimeoutSec=-1\n"
                             "ReadyTimeoutSec=12abc\nReadyFile=relative/path\nLoadFromContainer=maybe\n"
                             "Modules=nvme ../evil\n");
        Config *c = NULL;
        char **errors = NULL;

        cr_assert_eq(config_load(p, false, &c, &errors), CONFIG_E_INVALID);
        cr_assert_eq(strv_length(errors), 7, "one error per bad line");
        cr_assert(errors_contain(errors, ":2: Namespace=: \"Not_A_Name\""));
        cr_assert(errors_contain(errors, ":4: UnloadAt=: \"sometime\""));
        cr_assert(errors_contain(errors, ":5: ReadyTimeoutSec=: \"-1\""));
        cr_assert(errors_contain(errors, ":6: ReadyTimeoutSec=: \"12abc\""));
        cr_assert(errors_contain(errors, ":7: ReadyFile=: \"relative/path\" is not an absolute path"));
        cr_assert(errors_contain(errors, ":8: LoadFromContainer=: \"maybe\""));
        cr_assert(errors_contain(errors, ":9: Modules=: \"../evil\""));
        strv_free(errors);
        free(p);
}

/* The load's deadline. Its bound is the watchdog's (config.c). */
Test(config, load_timeout_sec) {
        char *p = write_file("nvme-swapguard.conf", "[Swap]\nLoadTimeoutSec=5\n");
        char *d = write_file("conf.d/50-deadline.conf", "[Swap]\nLoadTimeoutSec=90\n");
        Config *c = NULL;
        char **errors = NULL, *want = NULL;

        cr_assert_eq(config_load(p, false, &c, &errors), 0, "got: %s", errors ? errors[0] : "(none)");
        cr_assert_eq(c->load_timeout_sec, 90, "the drop-in's value, the largest allowed");
        config_free(c);
        c = NULL;
        free(d);

        d = write_file("conf.d/50-deadline.conf", "[Swap]\nLoadTimeoutSec=0\nLoadTimeoutSec=91\n"
                                                  "LoadTimeoutSec=ten\nLoadTimeoutSec=-1\nLoadTimeoutSec=5s\n");
        cr_assert_eq(config_load(p, false, &c, &errors), CONFIG_E_INVALID);
        cr_assert_null(c);
        cr_assert_eq(strv_length(errors), 5, "one error per bad line");
        cr_assert(asprintf(&want, "%s:2: LoadTimeoutSec=: \"0\" is not a number of seconds between 1 and 90", d) > 0);
        cr_assert(errors_contain(errors, want), "got: %s", errors[0]);
        cr_assert(errors_contain(errors, ":3: LoadTimeoutSec=: \"91\" is not a number of seconds between 1 and 90"));
        cr_assert(errors_contain(errors, ":4: LoadTimeoutSec=: \"ten\""));
        cr_assert(errors_contain(errors, ":5: LoadTimeoutSec=: \"-1\""));
        cr_assert(errors_contain(errors, ":6: LoadTimeoutSec=: \"5s\""));
        strv_free(errors);
        free(want);
        free(d);
        free(p);
}

Test(config, error_in_dropin_names_the_dropin) {
        char *p = write_file("nvme-swapguard.conf", "[Swap]\nReadyTimeoutSec=10\n");
        char *d = write_file("conf.d/50-bad.conf", "\n\n[Bogus]\nX=1\n");
        Config *c = NULL;
        char **errors = NULL, *want = NULL;

        cr_assert_eq(config_load(p, false, &c, &errors), CONFIG_E_INVALID);
        cr_assert(asprintf(&want, "%s:4: unknown section [Bogus]", d) > 0);
        cr_assert(errors_contain(errors, want), "got: %s", errors ? errors[0] : "(none)");
        strv_free(errors);
        free(want);
        free(d);
        free(p);
}

Test(config, syntax_errors_and_keys_outside_sections) {
        Config *c = NULL;
        char **errors = NULL;

        cr_assert_eq(config_new_default(&c), 0);
        cr_assert_eq(config_parse_string(c, "t.conf", "Name=x\n[Swap]\nthis line has no equals\n[Container\n", &errors), 0);
        cr_assert(errors_contain(errors, "t.conf:1: key \"Name\" outside of any section"));
        cr_assert(errors_contain(errors, "t.conf:3: syntax error"), "got %s / %s", errors[0], errors[1] ?: "");
        strv_free(errors);
        config_free(c);
}

Test(config, binary_or_huge_file_is_an_error_not_a_crash) {
        char *p = NULL;
        Config *c = NULL;
        char **errors = NULL;
        FILE *f;

        cr_assert(asprintf(&p, "%s/huge.conf", dir) > 0);
        f = fopen(p, "we");
        cr_assert_not_null(f);
        cr_assert_eq(ftruncate(fileno(f), 2 * 1024 * 1024), 0);
        fclose(f);
        cr_assert_eq(config_load(p, false, &c, &errors), CONFIG_E_INVALID);
        cr_assert(errors_contain(errors, "larger than 1 MiB"));
        strv_free(errors);
        free(p);
}

/* An overlong value (a hostile file) is one error on its own line only. */
Test(config, overlong_line_is_one_error_on_its_line) {
        Config *c = NULL;
        char **errors = NULL, *text = NULL, value[509];

        memset(value, 'a', 508);
        value[508] = '\0';
        cr_assert(asprintf(&text, "[Container]\nPodNamePrefix=%s\nName=mofed-container\n[Swap]\nBogus=1\n", value) > 0);
        cr_assert_eq(config_new_default(&c), 0);
        cr_assert_eq(config_parse_string(c, "t.conf", text, &errors), 0);
        cr_assert_eq(strv_length(errors), 2, "got %zu errors: %s | %s | %s", strv_length(errors),
                     errors ? errors[0] : "", errors && errors[0] ? errors[1] ?: "" : "",
                     errors && errors[0] && errors[1] ? errors[2] ?: "" : "");
        cr_assert(errors_contain(errors, "t.conf:2: line longer than"), "%s", errors[0]);
        cr_assert(errors_contain(errors, "t.conf:5: unknown key \"Bogus\""), "the lines after keep their numbers");
        cr_assert_str_eq(c->container_name, "mofed-container", "the next line is still read");
        strv_free(errors);
        config_free(c);
        free(text);
}

Test(config, utf8_bom_is_accepted) {
        Config *c = NULL;
        char **errors = NULL;

        cr_assert_eq(config_new_default(&c), 0);
        cr_assert_eq(config_parse_string(c, "t.conf", "\xef\xbb\xbf[Container]\nName=x-container\n", &errors), 0);
        cr_assert_null(errors, "got %s", errors ? errors[0] : "");
        cr_assert_str_eq(c->container_name, "x-container");
        config_free(c);
}

Test(config, directory_is_a_clear_error) {
        char *p = NULL;
        Config *c = NULL;
        char **errors = NULL;

        cr_assert(asprintf(&p, "%s/adir.conf", dir) > 0);
        cr_assert_eq(mkdir(p, 0755), 0);
        cr_assert_eq(config_load(p, false, &c, &errors), CONFIG_E_INVALID);
        cr_assert(errors_contain(errors, "adir.conf: is a directory, not a configuration file"), "%s",
                  errors ? errors[0] : "(none)");
        strv_free(errors);
        free(p);
}

/* Mode=: enforce by default, observe when asked, a drop-in
 * switches it, anything else is an error that names the line. */
Test(config, mode) {
        Config *c = NULL;
        char **errors = NULL;
        char *p;

        cr_assert_eq(config_new_default(&c), 0);
        cr_assert_eq(c->mode, SWAP_MODE_ENFORCE, "the default acts, as before Mode= existed");
        c = config_free(c);

        p = write_file("nvme-swapguard.conf", "[Swap]\nMode=observe\n");
        cr_assert_eq(config_load(p, false, &c, &errors), 0);
        cr_assert_eq(c->mode, SWAP_MODE_OBSERVE);
        c = config_free(c);

        free(write_file("conf.d/50-enforce.conf", "[Swap]\nMode=enforce\n"));
        cr_assert_eq(config_load(p, false, &c, &errors), 0);
        cr_assert_eq(c->mode, SWAP_MODE_ENFORCE, "the drop-in overrides the main file");
        c = config_free(c);
        free(p);

        p = write_file("nvme-swapguard.conf", "[Swap]\nMode=dry-run\n");
        cr_assert_eq(config_load(p, false, &c, &errors), CONFIG_E_INVALID);
        cr_assert(errors_contain(errors, ":2: Mode=: \"dry-run\" is not enforce or observe"));
        strv_free(errors);
        free(p);

        cr_assert_str_eq(swap_mode_to_string(SWAP_MODE_OBSERVE), "observe");
        cr_assert_eq(swap_mode_from_string("Observe"), _SWAP_MODE_INVALID, "values are exact, like UnloadAt=");
}

Test(config, unload_at_auto) {
        char *p = write_file("auto.conf", "[Swap]\nUnloadAt=auto\n");
        Config *c = NULL;
        char **errors = NULL;

        cr_assert_eq(config_load(p, false, &c, &errors), 0);
        cr_assert_null(errors);
        cr_assert_eq(c->unload_at, UNLOAD_AT_AUTO);
        cr_assert_str_eq(unload_at_to_string(c->unload_at), "auto");
        config_free(c);
        free(p);
}

Test(config, node_labels_directory) {
        Config *c = NULL;
        char **errors = NULL;
        char *p;

        cr_assert_eq(config_new_default(&c), 0);
        cr_assert_str_eq(c->node_labels_dir, "/etc/kubernetes/node-feature-discovery/features.d");
        c = config_free(c);

        p = write_file("nvme-swapguard.conf", "[Swap]\nNodeLabelsDirectory=\n");
        cr_assert_eq(config_load(p, false, &c, &errors), 0);
        cr_assert_str_eq(c->node_labels_dir, "", "empty: no labels");
        c = config_free(c);
        free(p);

        p = write_file("nvme-swapguard.conf", "[Swap]\nNodeLabelsDirectory=/var/lib/nfd/features.d\n");
        cr_assert_eq(config_load(p, false, &c, &errors), 0);
        cr_assert_str_eq(c->node_labels_dir, "/var/lib/nfd/features.d");
        c = config_free(c);
        free(p);

        p = write_file("nvme-swapguard.conf", "[Swap]\n\nNodeLabelsDirectory=features.d\n");
        cr_assert_eq(config_load(p, false, &c, &errors), CONFIG_E_INVALID);
        cr_assert(errors_contain(errors, ":3: NodeLabelsDirectory=: \"features.d\" is not an absolute path (or empty)"));
        strv_free(errors);
        free(p);
}

/* The table is the documentation's source: each row's default is what
 * config_new_default() gives, the table's ranges are the parser's, and every
 * key the parser takes is a row. */
Test(config, table_rows_are_what_the_parser_takes) {
        const ConfigOption *o;
        size_t n;

        o = config_options(&n);
        cr_assert_geq(n, 11);
        for (size_t i = 0; i < n; i++) {
                Config *c = NULL;
                char **errors = NULL;
                char *text;

                cr_assert(asprintf(&text, "[%s]\n%s=%s\n", o[i].section, o[i].key, o[i].default_value) > 0);
                cr_assert_eq(config_new_default(&c), 0);
                cr_assert_eq(config_parse_string(c, "row", text, &errors), 0);
                cr_assert_null(errors, "%s=%s refused: %s", o[i].key, o[i].default_value, errors ? errors[0] : "");
                cr_assert_not_null(o[i].range);
                cr_assert(strlen(o[i].meaning) > 10, "%s= has no meaning", o[i].key);
                cr_assert(!strchr(o[i].meaning, '\t') && !strchr(o[i].meaning, '\n'), "one line: %s", o[i].key);
                cr_assert_eq(config_option_find(o[i].section, o[i].key), &o[i]);
                free(text);
                config_free(c);
        }
        cr_assert_null(config_option_find("Swap", "Namespace"));
}

Test(config, table_defaults_are_the_libraries_and_ranges_hold) {
        const char *ok[] = { "ReadyTimeoutSec=604800", "LoadTimeoutSec=90", "ReadyTimeoutSec=1", "LoadTimeoutSec=1" };
        const char *bad[] = { "ReadyTimeoutSec=604801", "LoadTimeoutSec=91", "ReadyTimeoutSec=0", "LoadTimeoutSec=0" };
        Config *c = NULL;

        cr_assert_eq(config_new_default(&c), 0);
        cr_assert_eq(c->load_timeout_sec, LOAD_TIMEOUT_SEC_DEFAULT);
        cr_assert_str_eq(c->container_store, CRIO_STORE_DEFAULT);
        cr_assert_str_eq(config_option_find("Swap", "ReadyTimeoutSec")->range, "1 to 604800 seconds");
        cr_assert(strneq(config_option_find("Swap", "LoadTimeoutSec")->range, "1 to 90 seconds", 15));
        for (size_t i = 0; i < ELEMENTSOF(ok); i++) {
                char **errors = NULL, *text;

                cr_assert(asprintf(&text, "[Swap]\n%s\n", ok[i]) > 0);
                cr_assert_eq(config_parse_string(c, "t", text, &errors), 0);
                cr_assert_null(errors, "%s refused", ok[i]);
                free(text);
                cr_assert(asprintf(&text, "[Swap]\n%s\n", bad[i]) > 0);
                cr_assert_eq(config_parse_string(c, "t", text, &errors), 0);
                cr_assert_not_null(errors, "%s accepted", bad[i]);
                strv_free(errors);
                free(text);
        }
        config_free(c);
}
