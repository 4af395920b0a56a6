"""Numba decorator options, set once for the whole package.

Every kernel in fastpuzzle is compiled through :func:`jit` (serial) or
:func:`pjit` (``prange`` across threads).  Options live here and nowhere else.

Threading: Numba's OpenMP layer spins while it waits for work.  On a small,
shared machine a spinning worker can cost milliseconds per parallel loop, so we
ask the OpenMP runtime to sleep instead of spin (``OMP_WAIT_POLICY=PASSIVE``,
unless the user set it) and batch functions fall back to their serial kernel
for small inputs (:data:`PARALLEL_MIN_CELLS`).  Both must happen before the
threading layer starts, which is why this module sets them at import time.

Start-up: Numba's array-math support, loaded with the first kernel, imports
``scipy.linalg`` only to learn whether BLAS is there (a few tenths of a second,
more than loading all of fastpuzzle's cached kernels).  No kernel here uses
BLAS, so :func:`_skip_blas_probe` loads that module with the probe answered by
whether SciPy is installed, without importing it; ``np.dot`` in other jitted
code still imports BLAS when it is compiled.
"""

from __future__ import annotations

import importlib.util
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("KMP_BLOCKTIME", "0")

import numba  # noqa: E402


def _skip_blas_probe() -> None:
    """Import ``numba.np.arraymath`` without its ``scipy.linalg`` probe (see above)."""
    import sys

    if "numba.np.arraymath" in sys.modules:
        return
    try:
        from numba.np import linalg

        probe = linalg.ensure_blas
        linalg.ensure_blas = lambda: None
        try:
            from numba.np import arraymath
        finally:
            linalg.ensure_blas = probe
        arraymath.ensure_blas = probe
        arraymath._HAVE_BLAS = importlib.util.find_spec("scipy") is not None
    except (ImportError, AttributeError):  # another Numba layout: let it probe as usual
        pass


_skip_blas_probe()

#: Options shared by every kernel: compiled code is cached on disk, the GIL is
#: released so callers may run kernels from their own threads.
JIT_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", boundscheck=False)

#: Below this many cells a batch runs on the serial kernel: starting the
#: thread pool costs more than it saves.
PARALLEL_MIN_CELLS = 1 << 18

#: Batches are processed in chunks of about this many cells, so temporary
#: arrays (relabelled copies, masks) stay small next to the input.
CHUNK_CELLS = 1 << 24


def jit(*args, **kwargs):
    """``numba.njit`` with the package options (serial kernel)."""
    opts = dict(JIT_OPTIONS, **kwargs)
    if args and callable(args[0]):
        return numba.njit(**opts)(args[0])
    return numba.njit(*args, **opts)


def pjit(*args, **kwargs):
    """``numba.njit(parallel=True)`` with the package options."""
    opts = dict(JIT_OPTIONS, parallel=True, **kwargs)
    if args and callable(args[0]):
        return numba.njit(**opts)(args[0])
    return numba.njit(*args, **opts)


def use_threads(n_cells: int) -> bool:
    """True when a batch of ``n_cells`` cells is worth the thread pool."""
    return n_cells >= PARALLEL_MIN_CELLS and numba.get_num_threads() > 1
