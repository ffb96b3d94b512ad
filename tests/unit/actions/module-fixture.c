/* SPDX-License-Identifier: Apache-2.0 */
#include "module-fixture.h"

#include <criterion/criterion.h>
#include <elf.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char fixture_tree[64];

size_t fixture_ko(const char *modinfo, size_t milen, unsigned char *buf, size_t cap) {
        /* header, .modinfo, .shstrtab and the section headers (null, .modinfo, .shstrtab) */
        static const char shstr[] = "\0.modinfo\0.shstrtab";
        Elf64_Ehdr eh = { .e_type = ET_REL, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                          .e_ehsize = sizeof(Elf64_Ehdr), .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 3,
                          .e_shstrndx = 2 };
        Elf64_Shdr sh[3] = {};
        size_t off = sizeof(eh);

        memcpy(eh.e_ident, ELFMAG, SELFMAG);
        eh.e_ident[EI_CLASS] = ELFCLASS64;
        eh.e_ident[EI_DATA] = ELFDATA2LSB;
        eh.e_ident[EI_VERSION] = EV_CURRENT;
        cr_assert(off + milen + sizeof(shstr) + sizeof(sh) <= cap);
        memcpy(buf + off, modinfo, milen);
        sh[1] = (Elf64_Shdr) { .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_offset = off, .sh_size = milen };
        off += milen;
        memcpy(buf + off, shstr, sizeof(shstr));
        sh[2] = (Elf64_Shdr) { .sh_name = 10, .sh_type = SHT_STRTAB, .sh_offset = off, .sh_size = sizeof(shstr) };
        off += sizeof(shstr);
        eh.e_shoff = off;
        memcpy(buf + off, sh, sizeof(sh));
        off += sizeof(sh);
        memcpy(buf, &eh, sizeof(eh));
        return off;
}

void fixture_tree_make(const char *prefix) {
        cr_assert_lt((size_t) snprintf(fixture_tree, sizeof(fixture_tree), "/tmp/%s-XXXXXX", prefix),
                     sizeof(fixture_tree));
        cr_assert_not_null(mkdtemp(fixture_tree));
}

static int remove_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(p);
}

void fixture_tree_remove(void) {
        nftw(fixture_tree, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void fixture_tree_write(const char *rel, const void *data, size_t n) {
        char p[256];
        FILE *f;

        snprintf(p, sizeof(p), "%s/%s", fixture_tree, rel);
        for (char *s = strchr(p + strlen(fixture_tree) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                mkdir(p, 0755);
                *s = '/';
        }
        f = fopen(p, "we");
        cr_assert_not_null(f, "%s", p);
        cr_assert_eq(fwrite(data, 1, n, f), n);
        fclose(f);
}
