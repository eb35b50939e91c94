"""Output paths of the command-line tools: checked before any work, locked while written.

Every CLI of the project (``consensus_metrics score``, ``node_builder build``, ``reports build``)
checks its output here first, so all of them refuse the same mistakes the same way — one line
naming the path, before any work, without leaving a file behind:

* the output is one of the command's inputs, or lies inside an input folder (or, for an output
  folder, an input lies inside it): writing would destroy input;
* an output file that is an existing folder, an output folder that is an existing file;
* a place where nothing can be created: a read-only folder, ``/proc``, a path below a file
  (tested by creating and removing a probe file in the nearest existing folder).

:class:`LockedOutput` serialises writers of one output file (``fcntl.flock``, POSIX): a second
run into the same file waits until the first is done, then sees its rows.

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> scores = os.path.join(folder, "s.jsonl")
>>> try:
...     check_output_file(scores, [("--samples", scores)])
... except OutputPathError as err:
...     print(str(err).replace(folder, "DIR"))
--out DIR/s.jsonl is also the input --samples DIR/s.jsonl: writing would destroy it; choose another --out
"""

from __future__ import annotations

import fcntl
import os
import stat
import tempfile
from pathlib import Path
from typing import Callable, Iterable

Inputs = Iterable[tuple[str, "str | os.PathLike"]]


class OutputPathError(ValueError):
    """An output path that cannot be used; the message is one line naming the flag and path."""


class OutputWriteError(OSError):
    """A write into an output that failed after the checks (a full disk, a folder that refuses
    a rewrite's temporary file): ``reason`` is the system's word for it, plus the file where it
    is another than the output, for the command's one line (``--out X: cannot write: REASON``)."""

    def __init__(self, err: OSError, path: str | os.PathLike):
        where = f": {err.filename}" if err.filename and os.fspath(err.filename) != os.fspath(path) else ""
        self.reason = f"{err.strerror or err}{where}"
        super().__init__(err.errno, f"{path}: cannot write: {self.reason}")


def _real(path: str | os.PathLike) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(os.fspath(path))))


def _same(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    if _real(a) == _real(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links
    except OSError:
        return False


def _inside(child: str | os.PathLike, parent: str | os.PathLike) -> bool:
    parent_real = _real(parent)
    return _real(child).startswith(parent_real.rstrip(os.sep) + os.sep)


def _probe_creatable(path: str, flag: str, shown: str | None = None) -> None:
    """Raise unless a file can be created in ``path``'s nearest existing ancestor folder."""
    shown = shown or path
    folder = Path(os.path.abspath(path)).parent
    while not os.path.lexists(folder):
        folder = folder.parent
    if not folder.is_dir():
        raise OutputPathError(f"{flag} {shown}: {folder} is not a folder")
    try:
        handle, probe = tempfile.mkstemp(prefix=".write-test-", dir=folder)
    except OSError as err:
        raise OutputPathError(f"{flag} {shown}: cannot create files in {folder} ({err.strerror or err})") from None
    os.close(handle)
    os.unlink(probe)


def check_output_file(out: str | os.PathLike, inputs: Inputs = (), flag: str = "--out",
                      folders: Inputs = ()) -> Path:
    """Refuse an output *file* that cannot work (see the module docstring); creates nothing.

    ``inputs`` are ``(flag, path)`` pairs of the command's inputs (files or folders);
    ``folders`` are input folders that may not exist yet (a work dir).
    """
    shown, out = os.fspath(out), Path(out)
    for label, path in [*inputs, *folders]:
        if _same(out, path):
            raise OutputPathError(f"{flag} {shown} is also the input {label} {path}: writing would "
                                  f"destroy it; choose another {flag}")
        if (os.path.isdir(path) or (label, path) in folders) and _inside(out, path):
            raise OutputPathError(f"{flag} {shown} lies inside the input {label} {path}; choose another {flag}")
    if out.is_dir():
        raise OutputPathError(f"{flag} {shown}: is a directory (give a file name)")
    if out.exists():
        if not out.is_file():
            raise OutputPathError(f"{flag} {shown}: not a regular file")
        try:
            with open(out, "ab"):
                pass
        except OSError as err:
            raise OutputPathError(f"{flag} {shown}: cannot write to it ({err.strerror or err})") from None
    else:
        _probe_creatable(shown, flag)
    return out


def check_output_folder(out: str | os.PathLike, inputs: Inputs = (), flag: str = "--out") -> Path:
    """Refuse an output *folder* that cannot work: an existing file, an input or a folder that
    holds an input, a place where nothing can be created. Creates nothing."""
    shown, out = os.fspath(out), Path(out)
    for label, path in inputs:
        if _same(out, path) or _inside(path, out):
            raise OutputPathError(f"{flag} {shown} holds the input {label} {path}: writing would "
                                  f"destroy it; choose another {flag}")
    if out.exists() and not out.is_dir():
        raise OutputPathError(f"{flag} {shown}: is a file, not a folder")
    _probe_creatable(os.path.join(shown, "probe"), flag, shown)
    return out


class LockedOutput:
    """An exclusive lock on an output file, held while the file is read, rewritten and appended.

    ``with LockedOutput(path, on_wait) as out:`` creates ``path`` if needed and waits (telling
    ``on_wait()`` once) while another process holds the lock. :meth:`rewrite` replaces the
    whole file atomically (temporary file, ``fsync``, ``os.replace``) without ever releasing the
    lock; :meth:`append` adds one line and flushes it to the kernel. A kill leaves at most a torn
    last line, never a half-rewritten file.
    """

    def __init__(self, path: str | os.PathLike, on_wait: Callable[[], None] | None = None):
        self.path = Path(path)
        self.on_wait = on_wait
        self.fd: int | None = None

    def __enter__(self) -> "LockedOutput":
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if self.on_wait is not None:
                    self.on_wait()
                    self.on_wait = None
                fcntl.flock(fd, fcntl.LOCK_EX)
            # the holder may have replaced the file (rewrite): then lock the new one
            mine, now = os.fstat(fd), os.stat(self.path) if self.path.exists() else None
            if now is not None and (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino):
                self.fd = fd
                return self
            os.close(fd)

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            os.close(self.fd)  # releases the lock
            self.fd = None

    def rewrite(self, lines: Iterable[str]) -> None:
        """Replace the file's content by ``lines`` (each without its newline), atomically; an
        :class:`OutputWriteError` leaves the file as it was."""
        try:
            self._rewrite(lines)
        except OutputWriteError:
            raise
        except OSError as err:
            raise OutputWriteError(err, self.path) from None

    def _rewrite(self, lines: Iterable[str]) -> None:
        handle, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)  # nobody else knows the new file yet: immediate
            # surrogateescape: lines read that way keep their exact bytes, even ones that are not UTF-8
            with os.fdopen(os.dup(handle), "w", encoding="utf-8", errors="surrogateescape") as stream:
                for line in lines:
                    stream.write(line + "\n")
                stream.flush()
                os.fsync(stream.fileno())
            os.chmod(temporary, stat.S_IMODE(os.fstat(self.fd).st_mode))  # the file keeps its mode
            os.replace(temporary, self.path)
        except BaseException:
            os.close(handle)
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
        fcntl.fcntl(handle, fcntl.F_SETFL, fcntl.fcntl(handle, fcntl.F_GETFL) | os.O_APPEND)
        os.close(self.fd)
        self.fd = handle

    def append(self, line: str) -> None:
        """Add one line (without its newline) at the end of the file."""
        data = (line + "\n").encode("utf-8")
        written = 0
        try:
            while written < len(data):
                written += os.write(self.fd, data[written:])
        except OSError as err:  # a full disk: at most a torn last line, which a resume drops
            raise OutputWriteError(err, self.path) from None
