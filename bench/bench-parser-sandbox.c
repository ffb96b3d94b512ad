/* SPDX-License-Identifier: Apache-2.0 */
/* bench-parser-sandbox: what the parser child costs per config.json, the
 * shipped code (crio_config_read_confined()) against the same read and
 * parse in-process, interleaved so the shared machine's load weighs on both
 * alike. The parent's heap is grown first (-m MiB, touched) to stand for a
 * daemon's: fork() copies page tables, so its cost grows with the parent.
 * Then the same for a driver container's module tree: the modinfo of one
 * load's preparation (-f files of -s KiB each, all in one child:
 * module_meta_parse_confined() against module_meta_parse() on each), and
 * the tree's index (a copy of -d modules.dep, by default the running
 * kernel's: module_tree_open_at_confined() against module_tree_open_at()).
 * Not a test: it prints numbers, it asserts nothing.
 *
 *   bench-parser-sandbox [-n RUNS] [-m MIB] [-k ENV_KIB] [-f FILES] [-s KIB] [-d MODULES_DEP]
 *
 * Output, one tab-separated line per contender:
 *   label runs median_us p90_us max_us
 * and the mean CPU time per call of each (wall time on a loaded machine is
 * mostly waiting for a core; the CPU time is what the call costs). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "actions/module-elf.h"
#include "actions/module-tree.h"
#include "host/crio.h"
#include "sandbox/crio-config-job.h"
#include "sandbox/module-meta-job.h"
#include "util/fileio.h"

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* CPU time of this process and its reaped children, user + system. */
static uint64_t cpu_usec(void) {
        struct rusage a, b;

        getrusage(RUSAGE_SELF, &a);
        getrusage(RUSAGE_CHILDREN, &b);
        return (uint64_t) (a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) * 1000000ULL +
               (uint64_t) (a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec);
}

static int cmp(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

static void print(const char *label, uint64_t *t, size_t n) {
        qsort(t, n, sizeof(*t), cmp);
        printf("%s\t%zu\t%llu\t%llu\t%llu\n", label, n, (unsigned long long) t[n / 2],
               (unsigned long long) t[n * 9 / 10], (unsigned long long) t[n - 1]);
}

/* An ELF64 relocatable object of about size bytes: .modinfo, a filler
 * section standing for the code, the section names and headers. */
static unsigned char *build_ko(const char *name, size_t size, size_t *ret_size) {
        static const char shstr[] = "\0.modinfo\0.shstrtab\0.text";
        char mi[256];
        int milen = snprintf(mi, sizeof(mi), "name=%s%cvermagic=6.1.0-57-amd64 SMP preempt mod_unload%c"
                             "srcversion=0123456789ABCDEF0123456%cdepends=nvme_core,nvme_auth%c", name, 0, 0, 0, 0);
        Elf64_Ehdr eh = { .e_type = ET_REL, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                          .e_ehsize = sizeof(Elf64_Ehdr), .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 4,
                          .e_shstrndx = 2 };
        Elf64_Shdr sh[4] = {};
        size_t fill = size > 4096 ? size - 4096 : 0, off = sizeof(eh), total;
        unsigned char *buf;

        total = off + fill + (size_t) milen + sizeof(shstr) + sizeof(sh);
        buf = calloc(1, total);
        if (!buf)
                return NULL;
        memcpy(eh.e_ident, ELFMAG, SELFMAG);
        eh.e_ident[EI_CLASS] = ELFCLASS64;
        eh.e_ident[EI_DATA] = ELFDATA2LSB;
        eh.e_ident[EI_VERSION] = EV_CURRENT;
        memset(buf + off, 0x90, fill);
        sh[3] = (Elf64_Shdr) { .sh_name = 20, .sh_type = SHT_PROGBITS, .sh_offset = off, .sh_size = fill };
        off += fill;
        memcpy(buf + off, mi, (size_t) milen);
        sh[1] = (Elf64_Shdr) { .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_offset = off, .sh_size = (size_t) milen };
        off += (size_t) milen;
        memcpy(buf + off, shstr, sizeof(shstr));
        sh[2] = (Elf64_Shdr) { .sh_name = 10, .sh_type = SHT_STRTAB, .sh_offset = off, .sh_size = sizeof(shstr) };
        off += sizeof(shstr);
        eh.e_shoff = off;
        memcpy(buf + off, sh, sizeof(sh));
        memcpy(buf, &eh, sizeof(eh));
        *ret_size = total;
        return buf;
}

static int copy_file(const char *from, const char *to) {
        char buf[65536];
        int in = open(from, O_RDONLY | O_CLOEXEC), out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        ssize_t n;

        if (in < 0 || out < 0)
                return -1;
        while ((n = read(in, buf, sizeof(buf))) > 0)
                if (write(out, buf, (size_t) n) != n)
                        return -1;
        close(in);
        return close(out) < 0 || n < 0 ? -1 : 0;
}

/* One load's preparation and one tree's index, confined and in-process. */
static int bench_modules(size_t runs, size_t files, size_t kib, const char *dep) {
        BundlePart parts[MODULE_META_BATCH_MAX];
        ModuleMeta metas[MODULE_META_BATCH_MAX];
        int errors[MODULE_META_BATCH_MAX];
        uint64_t *t[4], cpu[4] = {};
        char root[] = "/tmp/bench-parser-tree-XXXXXX", p[512];
        size_t entries = 0;
        int root_fd;

        if (files == 0 || files > MODULE_META_BATCH_MAX)
                files = 5;
        for (size_t i = 0; i < files; i++) {
                char name[16];

                snprintf(name, sizeof(name), "mod%zu", i);
                parts[i].data = build_ko(name, kib * 1024, &parts[i].size);
                if (!parts[i].data)
                        return 1;
        }
        if (!mkdtemp(root))
                return 1;
        snprintf(p, sizeof(p), "%s/lib", root);
        mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/lib/modules", root);
        mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/lib/modules/x", root);
        mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/lib/modules/x/modules.dep", root);
        if (copy_file(dep, p) < 0) {
                fprintf(stderr, "bench-parser-sandbox: cannot copy %s (-d names a modules.dep)\n", dep);
                return 1;
        }
        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        for (size_t k = 0; k < 4; k++)
                if (!(t[k] = calloc(runs, sizeof(uint64_t))))
                        return 1;
        for (size_t i = 0; i < runs; i++) {
                ModuleTree *tree = NULL;
                uint64_t t0 = now_usec(), c0 = cpu_usec();

                if (module_meta_parse_confined(parts, files, metas, errors, NULL) < 0)
                        return fprintf(stderr, "bench-parser-sandbox: the confined modinfo failed\n"), 1;
                t[0][i] = now_usec() - t0;
                cpu[0] += cpu_usec() - c0;
                for (size_t f = 0; f < files; f++)
                        module_meta_done(&metas[f]);

                t0 = now_usec(), c0 = cpu_usec();
                for (size_t f = 0; f < files; f++)
                        if (module_meta_parse(parts[f].data, parts[f].size, &metas[f]) < 0)
                                return fprintf(stderr, "bench-parser-sandbox: the in-process modinfo failed\n"), 1;
                t[1][i] = now_usec() - t0;
                cpu[1] += cpu_usec() - c0;
                for (size_t f = 0; f < files; f++)
                        module_meta_done(&metas[f]);

                t0 = now_usec(), c0 = cpu_usec();
                if (module_tree_open_at_confined(root_fd, "lib/modules/x", "(bench)", &tree, NULL) < 0)
                        return fprintf(stderr, "bench-parser-sandbox: the confined index failed\n"), 1;
                t[2][i] = now_usec() - t0;
                cpu[2] += cpu_usec() - c0;
                entries = tree->n_entries;
                module_tree_free(tree);

                t0 = now_usec(), c0 = cpu_usec();
                if (module_tree_open_at(root_fd, "lib/modules/x", "(bench)", &tree) < 0)
                        return fprintf(stderr, "bench-parser-sandbox: the in-process index failed\n"), 1;
                t[3][i] = now_usec() - t0;
                cpu[3] += cpu_usec() - c0;
                if (tree->n_entries != entries)
                        return fprintf(stderr, "bench-parser-sandbox: the two indexes differ\n"), 1;
                module_tree_free(tree);
        }
        printf("# modinfo of %zu module images of %zu KiB in one child; index of %s (%zu modules)\n", files, kib,
               dep, entries);
        print("modinfo-confined", t[0], runs);
        print("modinfo-in-process", t[1], runs);
        print("index-confined", t[2], runs);
        print("index-in-process", t[3], runs);
        printf("# CPU per call: modinfo confined %llu us, in-process %llu us; index confined %llu us, in-process "
               "%llu us\n",
               (unsigned long long) (cpu[0] / runs), (unsigned long long) (cpu[1] / runs),
               (unsigned long long) (cpu[2] / runs), (unsigned long long) (cpu[3] / runs));
        close(root_fd);
        snprintf(p, sizeof(p), "rm -rf -- '%s'", root);
        for (size_t k = 0; k < 4; k++)
                free(t[k]);
        for (size_t i = 0; i < files; i++)
                free((void *) parts[i].data);
        return system(p) == 0 ? 0 : 1;
}

int main(int argc, char *argv[]) {
        static const char *const keys[] = { "ENABLE_NFSRDMA", "UNLOAD_STORAGE_MODULES",
                                            "RESTORE_DRIVER_ON_POD_TERMINATION", NULL };
        size_t runs = 300, mib = 16, env_kib = 2, files = 5, kib = 300;
        char dep_default[256];
        const char *dep = NULL;
        struct utsname u;
        char path[] = "/tmp/bench-parser-sandbox-XXXXXX";
        uint64_t *confined, *inproc, cpu_confined = 0, cpu_inproc = 0;
        char *heap;
        FILE *f;
        int opt, fd;

        while ((opt = getopt(argc, argv, "n:m:k:f:s:d:")) != -1) {
                if (opt == 'n')
                        runs = strtoul(optarg, NULL, 10);
                else if (opt == 'm')
                        mib = strtoul(optarg, NULL, 10);
                else if (opt == 'k')
                        env_kib = strtoul(optarg, NULL, 10);
                else if (opt == 'f')
                        files = strtoul(optarg, NULL, 10);
                else if (opt == 's')
                        kib = strtoul(optarg, NULL, 10);
                else if (opt == 'd')
                        dep = optarg;
                else {
                        fprintf(stderr, "usage: %s [-n RUNS] [-m MIB] [-k ENV_KIB] [-f FILES] [-s KIB] [-d MODULES_DEP]\n",
                                argv[0]);
                        return 2;
                }
        }
        if (runs == 0)
                runs = 1;
        heap = malloc(mib * 1024 * 1024 + 1);
        if (!heap)
                return 1;
        memset(heap, 1, mib * 1024 * 1024 + 1);

        /* A driver container's config.json in CRI-O's shape: annotations,
         * an environment of env_kib KiB (tenants' can be larger). */
        fd = mkstemp(path);
        f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f)
                return 1;
        fputs("{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"args\":[\"/root/entrypoint.sh\"],\"env\":["
              "\"PATH=/usr/bin\",\"ENABLE_NFSRDMA=true\",\"UNLOAD_STORAGE_MODULES=true\"",
              f);
        for (size_t i = 0; i < env_kib * 1024 / 32; i++)
                fprintf(f, ",\"VARIABLE_%06zu=some-value-here\"", i);
        fputs("]},\"annotations\":{\"io.kubernetes.container.name\":\"mofed-container\","
              "\"io.kubernetes.cri-o.Created\":\"2026-12-02T14:32:10.5Z\","
              "\"io.kubernetes.pod.name\":\"mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p\","
              "\"io.kubernetes.pod.namespace\":\"nvidia-network-operator\","
              "\"io.kubernetes.pod.uid\":\"0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69\"}}\n",
              f);
        fclose(f);

        confined = calloc(runs, sizeof(*confined));
        inproc = calloc(runs, sizeof(*inproc));
        if (!confined || !inproc)
                return 1;
        for (size_t i = 0; i < runs; i++) {
                CrioConfig *c = NULL;
                char *text = NULL;
                size_t len = 0;
                uint64_t t0 = now_usec(), c0 = cpu_usec();

                if (crio_config_read_confined(path, keys, &c, NULL) < 0) {
                        fprintf(stderr, "bench-parser-sandbox: the confined read failed\n");
                        return 1;
                }
                confined[i] = now_usec() - t0;
                cpu_confined += cpu_usec() - c0;
                crio_config_free(c);
                c = NULL;

                t0 = now_usec();
                c0 = cpu_usec();
                if (read_regular_file(path, CRIO_CONFIG_MAX, &text, &len) < 0 || crio_config_parse(text, len, &c) < 0) {
                        fprintf(stderr, "bench-parser-sandbox: the in-process read failed\n");
                        return 1;
                }
                inproc[i] = now_usec() - t0;
                cpu_inproc += cpu_usec() - c0;
                crio_config_free(c);
                free(text);
        }
        printf("# parent heap %zu MiB touched, config.json with %zu KiB of environment\n", mib, env_kib);
        printf("label\truns\tmedian_us\tp90_us\tmax_us\n");
        print("confined", confined, runs);
        print("in-process", inproc, runs);
        printf("# CPU per call (parent + child, user + system): confined %llu us, in-process %llu us\n",
               (unsigned long long) (cpu_confined / runs), (unsigned long long) (cpu_inproc / runs));
        unlink(path);
        free(confined);
        free(inproc);
        if (!dep && uname(&u) == 0) {
                snprintf(dep_default, sizeof(dep_default), "/lib/modules/%s/modules.dep", u.release);
                dep = dep_default;
        }
        if (dep && bench_modules(runs, files, kib, dep) != 0)
                return 1;
        /* Read back, so the touched heap is not optimised away. */
        opt = ((volatile char *) heap)[mib * 1024 * 1024];
        free(heap);
        return opt == 1 ? 0 : 1;
}
