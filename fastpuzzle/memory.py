"""The one memory policy: refuse, before allocating, a buffer the machine cannot give.

Every size that comes from a user (a count, a shape, a walk length) or from a
file (an ``.npy`` header, a judge case's ``n``) is checked here before NumPy is
asked for the memory, so a huge request fails at once with the figure instead
of a ``MemoryError`` or the system's out-of-memory killer. Stdlib only, so the
command line can use it before the compiled kernels load.
"""

from __future__ import annotations

import os

from .errors import AllocationError

__all__ = ["available_memory", "check_allocation"]


def available_memory() -> int:
    """Bytes of memory the system can still give (``MemAvailable``, else free pages).

    Examples
    --------
    >>> available_memory() > 0
    True
    """
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 1 << 62


def check_allocation(n_bytes: int, what: str) -> None:
    """Raise :class:`AllocationError` when ``n_bytes`` exceed the memory available.

    Examples
    --------
    >>> check_allocation(1 << 20, "one board")
    >>> try:
    ...     check_allocation(1 << 70, "boards of 10^12 cells")
    ... except AllocationError as e:
    ...     print(e.n_bytes, e.reason.split(" (")[0])
    1180591620717411303424 boards of 10^12 cells would need 1,180,591,620,717,411,303,424 bytes
    """
    if n_bytes > 0:
        have = available_memory()
        if n_bytes > have:
            raise AllocationError(what, n_bytes, have)
