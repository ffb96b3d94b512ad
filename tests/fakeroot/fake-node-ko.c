/* SPDX-License-Identifier: Apache-2.0 */
/* Module files: small ELF objects with a .modinfo section, written and read
 * (see fake-node-ko.h). */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-node-private.h"

int fake_elf_modinfo(const void *image, size_t size, const char **ret, size_t *ret_size) {
        const Elf64_Ehdr *eh = image;
        const Elf64_Shdr *sh, *strtab;

        if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
                return -ENOEXEC;
        if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
            (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
                return -ENOEXEC;
        sh = (const Elf64_Shdr *) ((const char *) image + eh->e_shoff);
        strtab = &sh[eh->e_shstrndx];
        if (strtab->sh_offset > size || strtab->sh_size > size - strtab->sh_offset)
                return -ENOEXEC;
        for (unsigned i = 0; i < eh->e_shnum; i++) {
                const char *name;

                if (sh[i].sh_name >= strtab->sh_size)
                        continue;
                name = (const char *) image + strtab->sh_offset + sh[i].sh_name;
                if (strnlen(name, strtab->sh_size - sh[i].sh_name) == strtab->sh_size - sh[i].sh_name ||
                    strcmp(name, ".modinfo") != 0)
                        continue;
                if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
                        return -ENOEXEC;
                *ret = (const char *) image + sh[i].sh_offset;
                *ret_size = sh[i].sh_size;
                return 0;
        }
        return -ENOEXEC;
}

char *fake_modinfo_get(const char *modinfo, size_t size, const char *key) {
        size_t kl = strlen(key);

        for (size_t i = 0; i < size;) {
                const char *s = modinfo + i;
                size_t l = strnlen(s, size - i);

                if (l > kl && strncmp(s, key, kl) == 0 && s[kl] == '=')
                        return strndup(s + kl + 1, l - kl - 1);
                i += l + 1;
        }
        return NULL;
}

static int write_elf(const char *path, const char *modinfo, size_t modinfo_len) {
        static const char shstrtab[] = "\0.modinfo\0.shstrtab";
        size_t off_modinfo = sizeof(Elf64_Ehdr), off_str = off_modinfo + modinfo_len;
        size_t off_sh = (off_str + sizeof(shstrtab) + 7) & ~(size_t) 7;
        size_t total = off_sh + 3 * sizeof(Elf64_Shdr);
        char *buf = calloc(1, total);
        Elf64_Ehdr *eh = (Elf64_Ehdr *) buf;
        Elf64_Shdr *sh;
        FILE *f;
        int r = 0;

        if (!buf)
                return -ENOMEM;
        memcpy(eh->e_ident, ELFMAG, SELFMAG);
        eh->e_ident[EI_CLASS] = ELFCLASS64;
        eh->e_ident[EI_DATA] = ELFDATA2LSB;
        eh->e_ident[EI_VERSION] = EV_CURRENT;
        eh->e_type = ET_REL;
        eh->e_machine = EM_X86_64;
        eh->e_version = EV_CURRENT;
        eh->e_shoff = off_sh;
        eh->e_ehsize = sizeof(Elf64_Ehdr);
        eh->e_shentsize = sizeof(Elf64_Shdr);
        eh->e_shnum = 3;
        eh->e_shstrndx = 2;
        memcpy(buf + off_modinfo, modinfo, modinfo_len);
        memcpy(buf + off_str, shstrtab, sizeof(shstrtab));
        sh = (Elf64_Shdr *) (buf + off_sh);
        sh[1] = (Elf64_Shdr) { .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
                               .sh_offset = off_modinfo, .sh_size = modinfo_len, .sh_addralign = 1 };
        sh[2] = (Elf64_Shdr) { .sh_name = 10, .sh_type = SHT_STRTAB, .sh_offset = off_str,
                               .sh_size = sizeof(shstrtab), .sh_addralign = 1 };

        f = fopen(path, "we");
        if (!f)
                r = -errno;
        else {
                if (fwrite(buf, 1, total, f) != total)
                        r = -EIO;
                if (fclose(f) < 0 && r == 0)
                        r = -errno;
        }
        free(buf);
        return r;
}

int fake_node_add_ko(FakeNode *n, const char *tree, const char *relpath, const char *name,
                     const char *depends, const char *vermagic, const char *const *extra) {
        _auto_free_ char *path = fnode_rpath(n, "%s/%s", tree, relpath), *dir = NULL, *release = NULL, *mi = NULL;
        size_t milen = 0;
        FILE *m;
        char *slash;
        int r;

        if (!path || !(dir = strdup(path)))
                return -ENOMEM;
        slash = strrchr(dir, '/');
        *slash = '\0';
        if ((r = fnode_mkdir_p(dir)) < 0)
                return r;
        if (!vermagic) {
                r = fake_node_get_osrelease(n, &release);
                if (r < 0)
                        return r;
        }
        m = open_memstream(&mi, &milen);
        if (!m)
                return -ENOMEM;
        /* The strings a real module carries, each NUL-terminated. */
        fprintf(m, "license=GPL%cdescription=fake %s%cdepends=%s%cretpoline=Y%cname=%s%cvermagic=%s SMP preempt mod_unload modversions %c",
                0, name, 0, depends ? depends : "", 0, 0, name, 0, vermagic ? vermagic : release, 0);
        for (size_t i = 0; extra && extra[i]; i++)
                fprintf(m, "%s%c", extra[i], 0);
        if (fclose(m) < 0)
                return -ENOMEM;
        return write_elf(path, mi, milen);
}
