"""Ctrl-C sent to a command under test, as a terminal delivers it.

A shell without job control starts background commands with SIGINT ignored (``make test &``,
``nohup``, some CI runners), and an ignored signal stays ignored across ``exec``: Python then
installs no ``KeyboardInterrupt`` handler, and a test that sends SIGINT watches the command run
to its end. Start the command with ``Popen(..., preexec_fn=restore_sigint)`` to give it the
default disposition back, whatever the test runner inherited.
"""

from __future__ import annotations

import signal


def restore_sigint() -> None:
    """In the child, before ``exec``: SIGINT back to its default, so Python handles it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
