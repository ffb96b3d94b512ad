/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Small helpers shared by every file of the project: cleanup attributes,
 * pointer stealing, array sizes. Kept header-only on purpose. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _warn_unused_result_ __attribute__((warn_unused_result))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Hand ownership of *p to the caller: the cleanup attribute then sees NULL. */
#define TAKE_PTR(p)                      \
        ({                               \
                typeof(p) _p_ = (p);     \
                (p) = NULL;              \
                _p_;                     \
        })
#define TAKE_FD(fd)                      \
        ({                               \
                int _fd_ = (fd);         \
                (fd) = -EBADF;           \
                _fd_;                    \
        })

/* Defines `name(type *p)` that calls func(*p) when *p is not NULL, so that
 * `_cleanup_(name) type x = NULL;` works for any library's free function. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)          \
        static inline void func##p(type *p) {            \
                if (*p)                                  \
                        func(*p);                        \
        }

static inline void freep(void *p) {
        free(*(void **) p);
}

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline int negative_errno(void) {
        /* For the rare library call that fails without setting errno. */
        return errno > 0 ? -errno : -EIO;
}

#define streq(a, b) (strcmp((a), (b)) == 0)
#define strneq(a, b, n) (strncmp((a), (b), (n)) == 0)
