#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
#
# Raw syscalls for the VM tests, so they see exactly what the kernel answers
# (kmod's rmmod checks the refcount itself and never calls delete_module for
# a module in use).  Prints the result as OK or an errno name (EAGAIN, EBUSY,
# ...) on stdout; exits 0 on success, 1 on a syscall error, 2 on misuse.
#
#   sysprobe.py delete-module NAME   delete_module(NAME, O_NONBLOCK), never
#                                    O_TRUNC (the force flag)
#   sysprobe.py excl-open DEV        open(DEV, O_RDONLY|O_EXCL), then close
#   sysprobe.py read DEV [BYTES]     O_DIRECT-free read of the first BYTES

import ctypes
import errno
import os
import sys

SYS_DELETE_MODULE = 176  # x86_64


def errname(e):
    # EWOULDBLOCK and EAGAIN are the same number; say the name people grep for.
    return errno.errorcode.get(e, str(e))


def delete_module(name):
    libc = ctypes.CDLL(None, use_errno=True)
    r = libc.syscall(SYS_DELETE_MODULE, name.encode(), os.O_NONBLOCK)
    if r != 0:
        return ctypes.get_errno()
    return 0


def excl_open(dev):
    try:
        fd = os.open(dev, os.O_RDONLY | os.O_EXCL)
    except OSError as e:
        return e.errno
    os.close(fd)
    return 0


def read(dev, nbytes=4096):
    try:
        with open(dev, "rb", buffering=0) as f:
            data = f.read(nbytes)
    except OSError as e:
        return e.errno
    return 0 if len(data) == nbytes else errno.EIO


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, arg = argv[1], argv[2]
    if cmd == "delete-module":
        e = delete_module(arg)
    elif cmd == "excl-open":
        e = excl_open(arg)
    elif cmd == "read":
        e = read(arg, int(argv[3]) if len(argv) > 3 else 4096)
    else:
        print(f"sysprobe: unknown command {cmd}", file=sys.stderr)
        return 2
    print("OK" if e == 0 else errname(e))
    return 0 if e == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
