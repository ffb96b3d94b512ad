/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake-cli-run.h"

extern char **environ;

char *slurp(const char *path) {
        FILE *f = fopen(path, "re");
        char *buf = NULL;
        size_t size = 0;

        if (!f)
                return NULL;
        if (getdelim(&buf, &size, '\0', f) < 0) {
                free(buf);
                buf = strdup("");
        }
        fclose(f);
        return buf;
}

size_t count_lines_with(const char *text, const char *needle) {
        size_t n = 0;

        for (const char *s = text; s && *s;) {
                const char *e = strchrnul(s, '\n');

                if (memmem(s, (size_t) (e - s), needle, strlen(needle)))
                        n++;
                s = *e ? e + 1 : e;
        }
        return n;
}

static int write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "we");

        if (!f)
                return -errno;
        fputs(text, f);
        return fclose(f) < 0 ? -errno : 0;
}

static void child(const char *root, const char *out, const char *err, const char *log, const char *script,
                  const char *const *argv) {
        const char *prog = getenv("SWAPGUARD_KMOD"), *shim = getenv("FAKE_KERNEL_SO");
        const char *asan = getenv("ASAN_OPTIONS");
        char *args[64], *asan_opts = NULL;
        size_t k = 0;
        int fd;

        if (!prog || !shim)
                _exit(127);
        fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0)
                _exit(126);
        fd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || dup2(fd, 2) < 0)
                _exit(126);

        setenv("NVME_SWAPGUARD_ROOT", root, 1);
        setenv("FAKE_KERNEL_ROOT", root, 1);
        setenv("FAKE_KERNEL_LOG", log, 1);
        if (script)
                setenv("FAKE_KERNEL_SCRIPT", script, 1);
        else
                unsetenv("FAKE_KERNEL_SCRIPT");
        setenv("LD_PRELOAD", shim, 1);
        /* A sanitized CLI meets the shim first in its library list. */
        if (asprintf(&asan_opts, "%s%sverify_asan_link_order=0", asan ? asan : "", asan ? ":" : "") > 0)
                setenv("ASAN_OPTIONS", asan_opts, 1);

        args[k++] = (char *) prog;
        args[k++] = (char *) "--root";
        args[k++] = (char *) root;
        for (size_t i = 0; argv[i] && k < 62; i++)
                args[k++] = (char *) argv[i];
        args[k] = NULL;
        execve(prog, args, environ);
        _exit(127);
}

int cli_run(const char *root, const char *script, const char *const *argv, CliRun *ret) {
        char *out = NULL, *err = NULL, *log = NULL, *spath = NULL;
        int status, r = 0;
        pid_t pid;

        if (asprintf(&out, "%s/../cli.out", root) < 0 || asprintf(&err, "%s/../cli.err", root) < 0 ||
            asprintf(&log, "%s/../kernel.log", root) < 0 || asprintf(&spath, "%s/../kernel.script", root) < 0)
                return -ENOMEM;
        (void) unlink(log);
        if (script && (r = write_text(spath, script)) < 0)
                goto done;

        pid = fork();
        if (pid < 0) {
                r = -errno;
                goto done;
        }
        if (pid == 0)
                child(root, out, err, log, script ? spath : NULL, argv);
        if (waitpid(pid, &status, 0) < 0) {
                r = -errno;
                goto done;
        }
        *ret = (CliRun) {
                .exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                .out = slurp(out),
                .err = slurp(err),
                .klog = slurp(log),
        };
        if (!ret->out)
                ret->out = strdup("");
        if (!ret->err)
                ret->err = strdup("");
        if (!ret->klog)
                ret->klog = strdup("");
done:
        free(out);
        free(err);
        free(log);
        free(spath);
        return r;
}

void cli_run_done(CliRun *r) {
        free(r->out);
        free(r->err);
        free(r->klog);
        *r = (CliRun) {};
}
