/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The opens of NVMe device nodes the guard makes: a controller's
 * /dev/nvmeN (the pin: root's 0600 character device) and a namespace's or
 * partition's /dev/nvmeXnY[pZ] with O_EXCL (the exclusive probe and the
 * claim hold: root:disk 0660 block devices). Apart because they are the
 * opens that need the file access the daemon gives up: the daemon asks its
 * privileged reader (sandbox/privileged-reader.h), which makes them with
 * device_open_direct() and passes the fd back; the CLI (root) opens in
 * process.
 *
 * The open is made as if an attacker chose the name: the name must be a
 * kernel name of the kind asked (no '/', no "..", nothing but
 * nvme<digits>...), the node is lstat'ed first (on the real host it must be
 * a character device for a controller, a block device for a namespace; a
 * symlink, FIFO, directory or regular file is refused before any open) and
 * opened with O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, then fstat'ed again: the
 * same type and device number, or the fd is closed and the open refused. In
 * a fake root (tests) the nodes are regular files, and regular files are
 * what is accepted there.
 *
 * Library code: no logging. */

#include <stdbool.h>

typedef enum DeviceOpenKind {
        DEVICE_OPEN_CONTROLLER = 1, /* /dev/nvmeN, read-only: the pin */
        DEVICE_OPEN_EXCLUSIVE = 2,  /* /dev/nvmeXnY[pZ], read-only with O_EXCL: the claim */
} DeviceOpenKind;

/* At most this long with its NUL (the reader's message carries it). */
#define DEVICE_OPEN_NAME_MAX 32

/* Whether name is a kernel name of the kind's devices: "nvme<N>" for a
 * controller; "nvme<N>n<N>" or "nvme<N>n<N>p<N>" (no hidden path device)
 * for an exclusive open. Shorter than DEVICE_OPEN_NAME_MAX. */
bool device_open_name_valid(DeviceOpenKind kind, const char *name);

/* Opens host_path("/dev/<name>") as described above. 0 with *ret_fd, or:
 * -EINVAL for a kind or name that is not valid; -ENOTTY (controller) or
 * -ENOTBLK (exclusive) when the node is not of the kind's type; otherwise
 * the open's own -errno (-EBUSY: claimed; -ENOENT, -ENXIO, -ENODEV: gone;
 * -EWOULDBLOCK: a controller that is not live). */
int device_open_direct(DeviceOpenKind kind, const char *name, int *ret_fd);

/* Who opens: by default this process (device_open_direct); the daemon sets
 * its privileged reader here. A source returns what device_open_direct
 * returns, or another negative errno when it could not ask (a reader that is
 * gone): callers read every failure but -EBUSY as "not known", never "free".
 * NULL restores the default. */
typedef int (*DeviceOpenSource)(void *userdata, DeviceOpenKind kind, const char *name, int *ret_fd);
void device_open_set_source(DeviceOpenSource source, void *userdata);

/* Through the source set above. The fd is O_CLOEXEC. */
int device_open(DeviceOpenKind kind, const char *name, int *ret_fd);
