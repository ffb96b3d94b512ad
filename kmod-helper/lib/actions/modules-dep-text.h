/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The text of a module tree's index, parsed: pure functions over a
 * driver image's bytes, used by the host's tree in the daemon and by the
 * parser child for a container's (sandbox/modules-dep-job.h). They know
 * nothing of a ModuleTree: the caller takes each module. */

/* The module name of a .ko path ("kernel/x/nvme-core.ko.xz" -> "nvme_core").
 * 0, -EINVAL (not a module file name) or -ENOMEM. */
int module_name_from_path(const char *path, char **ret);

/* One module of modules.dep: takes name and depends (module names, never
 * NULL) in every case; relpath is the caller's to copy. 0 or -errno, which
 * stops the parse. */
typedef int (*ModulesDepLineFunc)(void *userdata, char *name, const char *relpath, char **depends);

/* Calls f for each module of a modules.dep text, in the file's order, with
 * duplicates (paths relative to the tree, or absolute
 * /lib/modules/<release>/... as old depmods wrote them, the prefix taken
 * off). Malformed lines, and lines naming a path with a "." or ".."
 * component or another absolute path, or a name that is not a module
 * name, are skipped; so are dependencies that name no module. 0, -ENOMEM,
 * or f's error. */
int modules_dep_parse_text(const char *text, ModulesDepLineFunc f, void *userdata);

/* Appends the module names of a modules.builtin text (one path per line)
 * to *list; lines that name no valid module are skipped. 0 or -ENOMEM. */
int module_builtin_parse(const char *text, char ***list);
