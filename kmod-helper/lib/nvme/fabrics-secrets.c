/* SPDX-License-Identifier: Apache-2.0 */
/* The secrets file of the fabrics record (see fabrics-secrets.h). Every
 * buffer that held a secret is erased before it is freed. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/printbuf.h> /* the struct only: its functions are private to json-c */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "nvme/fabrics-record.h"
#include "nvme/fabrics-secrets.h"
#include "util/fileio.h"
#include "util/json-util.h"

#define FABRICS_SECRETS_MAX (1024u * 1024u)

void fabrics_secret_free(char *secret) {
        if (!secret)
                return;
        explicit_bzero(secret, strlen(secret));
        free(secret);
}

/* A secret is a few hundred bytes at most (DHHC-1 with a 64-byte key and
 * its CRC in base64: 104). */
#define SECRET_MAX 1024

/* json_tokener_parse() of text, the tokener's own buffer (each string
 * value passes through it) grown to its final size first, by a string of
 * the text's length that holds nothing, so that no realloc() leaves a
 * copy behind; erased before it is freed. */
static int parse_erasing(const char *text, json_object **ret) {
        struct json_tokener *tok = json_tokener_new();
        size_t len = strlen(text);
        _cleanup_free_ char *blank = NULL;
        json_object *o;

        if (!tok)
                return -ENOMEM;
        if (len >= INT32_MAX / 2 || !(blank = malloc(len + 3))) {
                json_tokener_free(tok);
                return -ENOMEM;
        }
        blank[0] = '"';
        memset(blank + 1, 'x', len);
        blank[len + 1] = '"', blank[len + 2] = '\0';
        json_object_put(json_tokener_parse_ex(tok, blank, (int) len + 2));
        json_tokener_reset(tok);
        o = json_tokener_parse_ex(tok, text, (int) len);
        explicit_bzero(tok->pb->buf, (size_t) tok->pb->size);
        json_tokener_free(tok);
        *ret = o;
        return o ? 0 : -EBADMSG;
}

/* A controller's secret from sysfs, read into a buffer of ours that is
 * erased; NULL when it shows "none". */
static int read_sysfs_secret(const char *ctrl, const char *attr, char **ret) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        char buf[SECRET_MAX];
        ssize_t n;
        int r;

        r = host_pathf(&path, "/sys/class/nvme/%s/%s", ctrl, attr);
        if (r < 0)
                return r;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        do
                n = read(fd, buf, sizeof(buf) - 1);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        *ret = streq(buf, "none") || !*buf ? NULL : strdup(buf);
        r = !*ret && !streq(buf, "none") && *buf ? -ENOMEM : 0;
        explicit_bzero(buf, sizeof(buf));
        return r;
}

/* The secrets directory, root 0700: created when missing, its mode put
 * back when someone widened it; refused when it is not a directory of ours
 * (a symlink included). */
static int secrets_dir(void) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        int r;

        if ((r = host_path(FABRICS_SECRETS_DIR, &dir)) < 0)
                return r;
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return -errno;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return errno == ELOOP ? -ENOTDIR : -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (st.st_uid != geteuid())
                return -EPERM;
        if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0)
                return -errno;
        return 0;
}

/* Earlier versions kept the file in the state directory, which the
 * daemon's identity can traverse: moved here (written anew, then the old
 * one removed), so an upgrade loses no secret. One already here is the
 * newer: the old one only goes. */
static int move_old_secrets(void) {
        _cleanup_free_ char *old = NULL, *path = NULL;
        _cleanup_secret_ char *text = NULL;
        struct stat st;
        int r;

        if ((r = host_path(FABRICS_OLD_SECRETS_PATH, &old)) < 0)
                return r;
        if (lstat(old, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if ((r = host_path(FABRICS_SECRETS_PATH, &path)) < 0 || (r = secrets_dir()) < 0)
                return r;
        if (S_ISREG(st.st_mode) && access(path, F_OK) < 0) {
                r = read_regular_file(old, FABRICS_SECRETS_MAX, &text, NULL);
                if (r < 0)
                        return r;
                r = write_file_atomic_exclusive(path, text, 0600);
                if (r < 0 && r != -EEXIST)
                        return r;
        }
        return unlink(old) < 0 && errno != ENOENT ? -errno : 0;
}

static int add_value(json_object *o, const char *key, const char *value) {
        return value ? json_add_new(o, key, json_object_new_string(value)) : json_add(o, key, NULL);
}

/* The secrets of a live controller (its name now: live_name), or, for one
 * that is not connected now (a pending record's, kept across a second
 * unload), those the secrets file already holds for that connection. */
static int add_secrets(json_object *o, const FabricsController *c, const char *live_name) {
        _cleanup_secret_ char *host = NULL, *ctrl = NULL;
        int r;

        if (live_name) {
                if (c->dhchap_secret && (r = read_sysfs_secret(live_name, "dhchap_secret", &host)) < 0)
                        return r;
                if (c->dhchap_ctrl_secret && (r = read_sysfs_secret(live_name, "dhchap_ctrl_secret", &ctrl)) < 0)
                        return r;
        } else if ((r = fabrics_secrets_load(c, &host, &ctrl)) < 0 && r != -ENOENT)
                return r;
        if ((r = add_value(o, "dhchap_secret", host)) < 0)
                return r;
        return add_value(o, "dhchap_ctrl_secret", ctrl);
}

static const char *const identity_keys[] = { "transport",  "traddr",    "trsvcid", "host_traddr",
                                             "host_iface", "subsysnqn", "hostnqn", "hostid" };

static int entry_json(const FabricsController *c, const char *live_name, json_object **ret) {
        const char *values[] = { c->transport,  c->traddr,    c->trsvcid, c->host_traddr,
                                 c->host_iface, c->subsysnqn, c->hostnqn, c->hostid };
        _cleanup_json_erase_ json_object *o = json_object_new_object();
        int r;

        if (!o)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(identity_keys); i++)
                if ((r = json_add(o, identity_keys[i], values[i] ? json_object_new_string(values[i]) : NULL)) < 0)
                        return r;
        if ((r = add_secrets(o, c, live_name)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

/* The name the connection has now, by its identity (never by the recorded
 * name: after a swap another controller may have it). */
static const char *live_name(const FabricsTopology *now, const FabricsController *c) {
        const FabricsController *l = fabrics_topology_find(now, c);

        return l ? l->name : NULL;
}

static int secrets_json(const FabricsTopology *t, const FabricsTopology *now, json_object **ret) {
        _cleanup_json_erase_ json_object *o = json_object_new_object();
        json_object *list = json_object_new_array();
        int r;

        if (!o || json_add_new(o, "secrets", list) < 0 ||
            json_add_new(o, "version", json_object_new_int(FABRICS_RECORD_VERSION)) < 0)
                return -ENOMEM;
        for (size_t i = 0; t && i < t->n_controllers; i++) {
                const FabricsController *c = &t->controllers[i];
                json_object *e;

                if (!c->dhchap_secret && !c->dhchap_ctrl_secret)
                        continue;
                if ((r = entry_json(c, live_name(now, c), &e)) < 0 || (r = json_array_add(list, e)) < 0)
                        return r;
        }
        *ret = json_object_array_length(list) > 0 ? TAKE_PTR(o) : NULL;
        return 0;
}

int fabrics_secrets_remove(void) {
        _cleanup_free_ char *path = NULL, *old = NULL;
        int r;

        if ((r = host_path(FABRICS_SECRETS_PATH, &path)) < 0 || (r = host_path(FABRICS_OLD_SECRETS_PATH, &old)) < 0)
                return r;
        if (unlink(old) < 0 && errno != ENOENT)
                return -errno;
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

int fabrics_secrets_save(const FabricsTopology *record, const FabricsTopology *live) {
        _cleanup_json_erase_ json_object *o = NULL;
        _cleanup_free_ char *path = NULL;
        const char *text;
        int r;

        /* first: an entry not live now takes its secret from the file */
        if ((r = move_old_secrets()) < 0)
                return r;
        r = secrets_json(record, live, &o);
        if (r < 0)
                return r;
        if (!o)
                return fabrics_secrets_remove();
        if ((r = host_path(FABRICS_SECRETS_PATH, &path)) < 0 || (r = secrets_dir()) < 0)
                return r;
        text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        return text ? write_file_atomic_exclusive(path, text, 0600) : -ENOMEM;
}

static bool entry_matches(json_object *e, const FabricsController *c) {
        FabricsController k = {};
        char **fields[] = { &k.transport,  &k.traddr,    &k.trsvcid, &k.host_traddr,
                            &k.host_iface, &k.subsysnqn, &k.hostnqn, &k.hostid };

        if (!json_object_is_type(e, json_type_object))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(identity_keys); i++)
                *fields[i] = (char *) json_get_string(e, identity_keys[i]);
        return fabrics_controller_same_connection(&k, c);
}

static int copy_secret(json_object *e, const char *key, char **ret) {
        const char *v = json_get_string(e, key);

        *ret = v ? strdup(v) : NULL;
        return v && !*ret ? -ENOMEM : 0;
}

int fabrics_secrets_load(const FabricsController *c, char **ret_host, char **ret_ctrl) {
        _cleanup_secret_ char *text = NULL;
        _cleanup_free_ char *path = NULL;
        int r;

        if ((r = move_old_secrets()) < 0)
                return r;
        r = host_path(FABRICS_SECRETS_PATH, &path);
        if (r < 0)
                return r;
        r = read_regular_file(path, FABRICS_SECRETS_MAX, &text, NULL);
        if (r < 0)
                return r;
        return fabrics_secrets_parse(text, c, ret_host, ret_ctrl);
}

int fabrics_secrets_parse(const char *text, const FabricsController *c, char **ret_host, char **ret_ctrl) {
        _cleanup_json_erase_ json_object *o = NULL;
        _cleanup_secret_ char *host = NULL, *ctrl = NULL;
        json_object *list = NULL;
        int r;

        r = parse_erasing(text, &o);
        if (r < 0)
                return r;
        if (!json_object_object_get_ex(o, "secrets", &list) || !json_object_is_type(list, json_type_array))
                return -EBADMSG;
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                json_object *e = json_object_array_get_idx(list, i);

                if (!entry_matches(e, c))
                        continue;
                if ((r = copy_secret(e, "dhchap_secret", &host)) < 0 || (r = copy_secret(e, "dhchap_ctrl_secret", &ctrl)) < 0)
                        return r;
                *ret_host = TAKE_PTR(host);
                *ret_ctrl = TAKE_PTR(ctrl);
                return 0;
        }
        return -ENOENT;
}
