"""Writing a file a person named (``corpus --report FILE``): whole or not at all, and
never in place of something that is not a file.

The page is written to a new file beside its target, then renamed over it
(``os.replace``), so a reader never sees half a page and a failure leaves the old
one. That rename replaces a *name*: were the name a device, a FIFO or a symbolic
link, the rename would put a regular file in its place (as root, ``--report
/dev/full`` would delete the device). So, before the run and again just before
the rename:

* a **new name** in a folder that exists and can be written is created, with the
  permissions the umask gives (the kernel applies it: the file is created 0666);
* a **regular file** is replaced, and keeps its permission bits;
* a **symbolic link** is written through: its target (a regular file, or a new
  name that is then created) is replaced and the link stays as it was;
* anything else (a folder, a device, a FIFO, a socket, a link to one of those, a
  link loop) is refused in one line, before anything is counted.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from typing import Final

from ..errors import InputError
from ..paths import file_kind, shown_path

__all__ = ["check_output", "write_output"]

#: Tries at a fresh temporary name before giving up (a collision needs 2^48 luck).
_TRIES: Final = 8


def check_output(path: str, *, field: str, what: str) -> str:
    """The file to replace for ``path`` (``path`` itself, or where its links lead),
    or :class:`InputError` saying why it cannot be written."""
    shown = shown_path(path)

    def refuse(why: str) -> InputError:
        return InputError(field, f"cannot write {what} to {shown}: {why}")

    try:
        info = os.stat(path)  # follows links
    except FileNotFoundError:
        # A new name, or a link to a name that does not exist yet (created through it).
        target = os.path.realpath(path) if os.path.islink(path) else path
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise refuse("it is a symbolic link loop: fix or remove the link") from None
        raise refuse(f"{exc.strerror or type(exc).__name__}: name another file") from None
    else:
        if not stat.S_ISREG(info.st_mode):
            kind = file_kind(info.st_mode, "not a regular file")
            raise refuse(f"it is {kind}: name a regular file or a new one")
        target = os.path.realpath(path)
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK | os.X_OK):
        raise refuse("name a file in a folder that exists and can be written")
    return target


def write_output(path: str, text: str, *, field: str, what: str) -> None:
    """Writes all of ``text`` (UTF-8) to ``path`` by the rules above, or nothing."""
    target = check_output(path, field=field, what=what)  # again: the run may have been long
    folder, name = os.path.split(os.path.abspath(target))
    try:
        keep: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        keep = None  # a new file: the umask decides
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(_TRIES):
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.partial")
        try:
            fd = os.open(temporary, flags, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise OSError(errno.EEXIST, "no free temporary name", folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            if keep is not None:
                os.fchmod(handle.fileno(), keep)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
