"""A monotonic clock that compiled code reads without the GIL.

The search engine checks its time limit every few thousand nodes; on Linux
:func:`clock` calls ``clock_gettime`` from compiled code (about 50 ns, the GIL
stays released), elsewhere it reads ``time.perf_counter`` in object mode.

Examples
--------
>>> t0 = clock(); clock() >= t0
True
"""

from __future__ import annotations

import sys
import time
import warnings

from numba.core.errors import NumbaWarning

from .._jit import jit

__all__ = ["clock"]

# Off Linux the clock is read in object mode (the GIL is taken for well under a
# microsecond every check); Numba warns about that at compile time.
warnings.filterwarnings("ignore", message=".*Code running in object mode won't allow parallel", category=NumbaWarning)

if sys.platform.startswith("linux"):
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def _monotonic_ns(typingctx):
        """``clock_gettime(CLOCK_MONOTONIC)`` in ns, called from compiled code (no GIL)."""

        def codegen(context, builder, signature, args):
            i64, i32 = ir.IntType(64), ir.IntType(32)
            timespec = ir.LiteralStructType([i64, i64])
            fnty = ir.FunctionType(i32, [i32, timespec.as_pointer()])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
            ts = cgutils.alloca_once(builder, timespec)
            builder.call(fn, [ir.Constant(i32, 1), ts])  # CLOCK_MONOTONIC = 1 on Linux
            zero = ir.Constant(i32, 0)
            sec = builder.load(builder.gep(ts, [zero, zero]))
            nsec = builder.load(builder.gep(ts, [zero, ir.Constant(i32, 1)]))
            return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

        return types.int64(), codegen

    @jit
    def clock():
        """Seconds on a monotonic clock (about 50 ns a call, GIL not needed)."""
        return _monotonic_ns() * 1e-9

else:
    from numba import objmode

    @jit
    def clock():
        """Seconds on a monotonic clock (object mode: takes the GIL for a moment)."""
        with objmode(t="float64"):
            t = time.perf_counter()
        return t
