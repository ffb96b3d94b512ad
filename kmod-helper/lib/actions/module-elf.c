/* SPDX-License-Identifier: Apache-2.0 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "actions/module-elf.h"
#include "modules/module-stack.h"
#include "util/macro.h"
#include "util/strv.h"

/* MODULE_NAME_LEN is 64 - sizeof(unsigned long): 56 with the NUL. */
#define MODULE_NAME_MAX 55

ModuleImageKind module_image_kind(const void *image, size_t size) {
        static const struct {
                ModuleImageKind kind;
                const char *magic;
                size_t len;
        } magics[] = {
                { MODULE_IMAGE_ELF, "\177ELF", 4 },
                { MODULE_IMAGE_XZ, "\3757zXZ\0", 6 },
                { MODULE_IMAGE_ZSTD, "\050\265\057\375", 4 },
                { MODULE_IMAGE_GZIP, "\037\213", 2 },
        };

        for (size_t i = 0; i < ELEMENTSOF(magics); i++)
                if (size >= magics[i].len && memcmp(image, magics[i].magic, magics[i].len) == 0)
                        return magics[i].kind;
        return MODULE_IMAGE_UNKNOWN;
}

bool module_image_kind_is_compressed(ModuleImageKind k) {
        return k == MODULE_IMAGE_XZ || k == MODULE_IMAGE_ZSTD || k == MODULE_IMAGE_GZIP;
}

const char *module_image_kind_to_string(ModuleImageKind k) {
        static const char *const names[] = {
                [MODULE_IMAGE_ELF] = "ELF", [MODULE_IMAGE_XZ] = "xz", [MODULE_IMAGE_ZSTD] = "zstd",
                [MODULE_IMAGE_GZIP] = "gzip", [MODULE_IMAGE_UNKNOWN] = "unknown",
        };

        return k >= 0 && (size_t) k < ELEMENTSOF(names) ? names[k] : "unknown";
}

/* [off, off + len) inside [0, size), without overflow. */
static bool in_bounds(uint64_t off, uint64_t len, size_t size) {
        return off <= size && len <= size - off;
}

static int section_header(const uint8_t *img, size_t size, const Elf64_Ehdr *eh, unsigned i, Elf64_Shdr *ret) {
        uint64_t off = eh->e_shoff + (uint64_t) i * sizeof(Elf64_Shdr);

        if (!in_bounds(off, sizeof(Elf64_Shdr), size))
                return -ENOEXEC;
        memcpy(ret, img + off, sizeof(*ret)); /* the image need not be aligned */
        return 0;
}

int module_elf_modinfo(const void *image, size_t size, const char **ret, size_t *ret_size) {
        const uint8_t *img = image;
        Elf64_Ehdr eh;
        Elf64_Shdr strtab;

        if (size < sizeof(eh))
                return -ENOEXEC;
        memcpy(&eh, img, sizeof(eh));
        if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
            eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_REL || eh.e_shentsize != sizeof(Elf64_Shdr) ||
            eh.e_shstrndx >= eh.e_shnum)
                return -ENOEXEC;
        if (section_header(img, size, &eh, eh.e_shstrndx, &strtab) < 0 ||
            !in_bounds(strtab.sh_offset, strtab.sh_size, size))
                return -ENOEXEC;

        for (unsigned i = 0; i < eh.e_shnum; i++) {
                static const char want[] = ".modinfo";
                Elf64_Shdr sh;

                if (section_header(img, size, &eh, i, &sh) < 0)
                        return -ENOEXEC;
                /* The name, with its NUL, must lie inside the string table. */
                if (sh.sh_name >= strtab.sh_size || strtab.sh_size - sh.sh_name < sizeof(want) ||
                    memcmp(img + strtab.sh_offset + sh.sh_name, want, sizeof(want)) != 0)
                        continue;
                if (sh.sh_type == SHT_NOBITS || !in_bounds(sh.sh_offset, sh.sh_size, size))
                        return -ENOEXEC;
                *ret = (const char *) img + sh.sh_offset;
                *ret_size = (size_t) sh.sh_size;
                return 0;
        }
        return -ENOEXEC;
}

int module_modinfo_get(const char *modinfo, size_t size, const char *key, char **ret) {
        size_t klen = strlen(key);

        for (size_t off = 0; off < size;) {
                const char *s = modinfo + off;
                const char *end = memchr(s, '\0', size - off);
                size_t len = end ? (size_t) (end - s) : size - off;

                if (len > klen && s[klen] == '=' && memcmp(s, key, klen) == 0) {
                        const char *v = s + klen + 1;
                        size_t vlen = len - klen - 1;

                        for (size_t i = 0; i < vlen; i++)
                                if ((unsigned char) v[i] < 0x20 || (unsigned char) v[i] >= 0x7f)
                                        return -EBADMSG;
                        *ret = strndup(v, vlen);
                        return *ret ? 0 : -ENOMEM;
                }
                off += len + 1;
        }
        return -ENOENT;
}

bool module_name_valid(const char *s) {
        size_t n = s ? strlen(s) : 0;

        if (n == 0 || n > MODULE_NAME_MAX)
                return false;
        for (const char *c = s; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
                        return false;
        return true;
}

void module_meta_done(ModuleMeta *m) {
        free(m->name);
        free(m->vermagic);
        strv_free(m->depends);
        free(m->srcversion);
        *m = (ModuleMeta) {};
}

static int split_depends(const char *s, char ***ret) {
        _cleanup_free_ char *copy = strdup(s);
        _cleanup_strv_free_ char **l = strv_new_empty();
        char *save = NULL;
        int r;

        if (!copy || !l)
                return -ENOMEM;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                module_name_normalize(t);
                if (!module_name_valid(t))
                        return -EBADMSG;
                r = strv_extend(&l, t);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

int module_meta_parse(const void *image, size_t size, ModuleMeta *ret) {
        _cleanup_free_ char *name = NULL, *vermagic = NULL, *depends = NULL, *srcversion = NULL;
        _cleanup_strv_free_ char **deps = NULL;
        const char *mi;
        size_t misz;
        int r;

        r = module_elf_modinfo(image, size, &mi, &misz);
        if (r < 0)
                return r;
        r = module_modinfo_get(mi, misz, "name", &name);
        if (r == -ENOENT || (r >= 0 && !module_name_valid(name)))
                return -EBADMSG;
        if (r < 0)
                return r;
        r = module_modinfo_get(mi, misz, "vermagic", &vermagic);
        if (r == -ENOMEM)
                return r;
        if (r >= 0)
                vermagic[strcspn(vermagic, " ")] = '\0';
        else
                vermagic = NULL; /* absent or unprintable: the check refuses it */
        r = module_modinfo_get(mi, misz, "depends", &depends);
        if (r == -ENOMEM || r == -EBADMSG)
                return r;
        r = split_depends(r >= 0 ? depends : "", &deps);
        if (r < 0)
                return r;
        r = module_modinfo_get(mi, misz, "srcversion", &srcversion);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                srcversion = NULL; /* absent (no MODULE_VERSION) or unprintable: unknown */
        *ret = (ModuleMeta) { TAKE_PTR(name), TAKE_PTR(vermagic), TAKE_PTR(deps), TAKE_PTR(srcversion) };
        return 0;
}
