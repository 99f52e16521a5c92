"""What talking to a device can fail with: one error type whose message is one line for the user."""

from __future__ import annotations

import sys

import anyio

if sys.version_info >= (3, 11):
    _GROUP = BaseExceptionGroup
else:  # Python 3.10 (xiaozhi-esp32-server's image): anyio brings the backport
    from exceptiongroup import BaseExceptionGroup as _GROUP


class DeviceError(Exception):
    """A device could not be reached or refused a call; the message is one line for the user."""

    def __init__(self, message: str, *, retryable: bool = True):
        super().__init__(" ".join(str(message).split()))
        self.retryable = retryable


def root_cause(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, which anyio task groups wrap errors in."""
    while isinstance(exc, _GROUP):
        inner = [e for e in exc.exceptions if not isinstance(e, anyio.get_cancelled_exc_class())]
        exc = (inner or list(exc.exceptions))[0]
    return exc

