/* SPDX-License-Identifier: Apache-2.0 */
/* The metadata of a .ko image (a driver container's file is outside input):
 * the image kind, the ELF .modinfo section, and name/vermagic/depends read
 * from it. Whatever the bytes, nothing is read outside them, and what is
 * accepted is a name the kernel and a path could take. */
#include <assert.h>
#include <string.h>

#include "actions/module-elf.h"
#include "fuzz-util.h"
#include "util/strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ModuleMeta m = {};
        const char *mi = NULL;
        size_t misz = 0;
        char *v = NULL;

        (void) module_image_kind_to_string(module_image_kind(data, size));
        if (module_elf_modinfo(data, size, &mi, &misz) >= 0) {
                assert(mi >= (const char *) data && mi + misz <= (const char *) data + size);
                for (const char *const *k = (const char *const[]) { "name", "vermagic", "depends", "license", "", NULL };
                     *k; k++)
                        if (module_modinfo_get(mi, misz, *k, &v) >= 0) {
                                for (const char *c = v; *c; c++)
                                        assert((unsigned char) *c >= 0x20 && (unsigned char) *c < 0x7f);
                                free(v);
                                v = NULL;
                        }
        }
        if (module_meta_parse(data, size, &m) >= 0) {
                assert(module_name_valid(m.name));
                assert(!strchr(m.name, '/') && !strstr(m.name, ".."));
                assert(m.depends);
                STRV_FOREACH(d, m.depends)
                        assert(module_name_valid(*d));
                assert(!m.vermagic || !strchr(m.vermagic, ' '));
                module_meta_done(&m);
        }
        return 0;
}
