"""Real file-system faults for the tests of every command's "one line, exit 2" promise: a full
disk and a read-only folder.

* :func:`full_disk` -- a folder on a tiny ``tmpfs`` filled to the last block: every write there
  fails with ``ENOSPC``, as on a real full disk. Mounting needs root (CI's container runs as
  root); elsewhere the test is skipped and the in-process fakes of the same tests stand in
  (:func:`no_space_left`).
* :func:`read_only_folder` -- a folder where nothing can be created: ``chmod 555`` for a normal
  user, a read-only ``tmpfs`` for root (root ignores the mode bits, not a read-only mount).
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from pathlib import Path

import pytest


def _mount(target: Path, options: str) -> bool:
    target.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)],
                          capture_output=True, text=True)
    return done.returncode == 0


def _umount(target: Path) -> None:
    subprocess.run(["umount", "-l", str(target)], capture_output=True)


@contextlib.contextmanager
def full_disk(tmp_path: Path, files: dict[str, bytes] | None = None):
    """A folder on a full file system, holding ``files`` (name -> content) written before it
    filled up; skips the test where no file system can be mounted."""
    target = tmp_path / "full"
    if not _mount(target, "size=256k"):
        pytest.skip("a full file system needs a tmpfs mount (root)")
    try:
        for name, content in (files or {}).items():
            (target / name).write_bytes(content)
        with open(target / ".filler", "wb", buffering=0) as filler:  # fill every block left
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError as err:
                assert err.errno == errno.ENOSPC
        yield target
    finally:
        _umount(target)


@contextlib.contextmanager
def read_only_folder(tmp_path: Path, files: dict[str, bytes] | None = None, writable_files: bool = True):
    """A folder where no file can be created, holding ``files``. For a normal user the files stay
    writable (``writable_files``), the folder is ``chmod 555``; root gets a read-only mount (its
    files are read-only too: skipped when ``writable_files`` is needed)."""
    target = tmp_path / "ro"
    if os.geteuid() != 0:
        target.mkdir()
        for name, content in (files or {}).items():
            (target / name).write_bytes(content)
        target.chmod(0o555)
        try:
            yield target
        finally:
            target.chmod(0o755)
        return
    if writable_files and files:
        pytest.skip("root: a folder it cannot write into but with files it can write needs a normal user")
    if not _mount(target, "size=256k"):
        pytest.skip("root ignores file modes, and no read-only tmpfs can be mounted here")
    try:
        for name, content in (files or {}).items():
            (target / name).write_bytes(content)
        subprocess.run(["mount", "-o", "remount,ro", str(target)], check=True, capture_output=True)
        yield target
    finally:
        _umount(target)


def no_space_left(*args, **kwargs):
    """Stands in for ``os.write`` in the in-process fakes: a full disk, where none can be made."""
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
