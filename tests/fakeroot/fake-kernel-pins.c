/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-kernel-pins.h"

static int is_ctrl_node(const char *name) {
        if (strncmp(name, "nvme", 4) != 0 || !name[4])
                return 0;
        for (const char *c = name + 4; *c; c++)
                if (*c < '0' || *c > '9')
                        return 0;
        return 1;
}

void fake_pins_opened(const char *root, const char *path, int fd) {
        size_t rl = strlen(root);
        char dir[PATH_MAX], entry[PATH_MAX + 64];
        FILE *f;

        if (strncmp(path, root, rl) != 0 || strncmp(path + rl, "/dev/", 5) != 0 || !is_ctrl_node(path + rl + 5))
                return;
        snprintf(dir, sizeof(dir), "%s/run/fake-kernel-pins", root);
        (void) mkdir(dir, 0755);
        snprintf(entry, sizeof(entry), "%s/%d.%d", dir, (int) getpid(), fd);
        f = fopen(entry, "we");
        if (!f)
                return;
        fprintf(f, "%s\n", path + rl + 5);
        fclose(f);
}

static const char *transport_module(const char *root, const char *ctrl) {
        char p[PATH_MAX], t[32] = "";
        FILE *f;

        snprintf(p, sizeof(p), "%s/sys/class/nvme/%s/transport", root, ctrl);
        f = fopen(p, "re");
        if (f) {
                if (!fgets(t, sizeof(t), f))
                        t[0] = '\0';
                fclose(f);
        }
        t[strcspn(t, "\n")] = '\0';
        return strcmp(t, "tcp") == 0 ? "nvme_tcp" : strcmp(t, "rdma") == 0 ? "nvme_rdma" :
               strcmp(t, "fc") == 0 ? "nvme_fc" : "nvme";
}

/* The controller an entry names, if its fd still points at the node. */
static int entry_live(const char *root, const char *dir, const char *name, char *ctrl, size_t n) {
        char p[PATH_MAX + 300], fdlink[64], target[PATH_MAX], want[PATH_MAX + 80];
        int pid, fd;
        ssize_t k;
        FILE *f;

        if (sscanf(name, "%d.%d", &pid, &fd) != 2)
                return 0;
        snprintf(p, sizeof(p), "%s/%s", dir, name);
        f = fopen(p, "re");
        if (!f)
                return 0;
        if (!fgets(ctrl, (int) n, f))
                ctrl[0] = '\0';
        fclose(f);
        ctrl[strcspn(ctrl, "\n")] = '\0';
        snprintf(fdlink, sizeof(fdlink), "/proc/%d/fd/%d", pid, fd);
        k = readlink(fdlink, target, sizeof(target) - 1);
        snprintf(want, sizeof(want), "%s/dev/%s", root, ctrl);
        if (k < 0 || (target[k] = '\0', strcmp(target, want) != 0)) {
                (void) unlink(p); /* closed, or the holder is gone */
                return 0;
        }
        return 1;
}

int fake_pins_hold(const char *root, const char *module) {
        char dir[PATH_MAX], ctrl[64];
        struct dirent *de;
        int held = 0;
        DIR *d;

        snprintf(dir, sizeof(dir), "%s/run/fake-kernel-pins", root);
        d = opendir(dir);
        if (!d)
                return 0;
        while (!held && (de = readdir(d)))
                if (de->d_name[0] != '.' && entry_live(root, dir, de->d_name, ctrl, sizeof(ctrl)))
                        held = strcmp(module, "nvme_core") == 0 || strcmp(module, transport_module(root, ctrl)) == 0;
        closedir(d);
        return held;
}
