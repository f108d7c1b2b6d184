"""Library statuses as Python exceptions, carrying the library's message."""
from ._mns import ffi, lib


class MNSError(Exception):
    """A call into the mns C library failed; .status is the mns_status."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class InvalidArgumentError(MNSError, ValueError):
    """MNS_EINVAL / MNS_ERANGE / MNS_EPARSE: bad input."""


class NotInvertibleError(MNSError, ZeroDivisionError, ValueError):
    """MNS_ERANGE of an inversion: the element has no inverse (0, or a common
    factor with a composite modulus). Both a ZeroDivisionError (what x / 0
    raises in Python) and a ValueError (what pow(0, -1, p) raises)."""


class NotSupportedError(MNSError):
    """MNS_ENOTSUP: the backend cannot serve this modulus or this CPU."""


def check(status):
    """Raises the exception for a non-zero status, with mns_last_error()."""
    if status == lib.MNS_OK:
        return
    reason = ffi.string(lib.mns_last_error()).decode(errors="replace")
    text = ffi.string(lib.mns_strerror(status)).decode()
    message = f"{text}: {reason}" if reason else text
    if status == lib.MNS_ENOTSUP:
        raise NotSupportedError(status, message)
    if status == lib.MNS_ENOMEM:
        raise MemoryError(message)
    raise InvalidArgumentError(status, message)
