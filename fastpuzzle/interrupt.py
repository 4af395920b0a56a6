"""Stopping compiled work on SIGINT, SIGTERM and SIGHUP: a flag the kernels poll.

Python runs its signal handlers between bytecodes of the main thread, so a
kernel that runs for minutes with the GIL released never sees Ctrl-C.  For
the duration of a long call (:func:`interruptible`) a small compiled C
signal handler is installed for SIGINT, SIGTERM and SIGHUP; it stores the signal
number in one process-wide ``int64`` (async-signal-safe: one atomic store).
The long kernels (IDA*, scrambles, the breadth-first builds) read it with
:func:`stop_requested` every few thousand nodes (an atomic load, about a
nanosecond) and return early; on the way out :func:`interruptible` restores
the previous handlers and raises :class:`Interrupted` (a
``KeyboardInterrupt`` that carries ``.signum``).  The command line turns it
into exit status 128 + the signal number (130, 143, 129).

The flag is a C global registered with the JIT linker under one name, so
kernels cached on disk find it again in the next process.  A signal whose
handler the user set (anything but Python's defaults), or ignores, is left
alone.  Where ``libc.signal`` is not reachable (not POSIX) nothing is
installed and the kernels run to the end, as before.

Examples
--------
>>> with interruptible():
...     pending()
0
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import threading

import numpy as np
from llvmlite import binding as _llvm
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from ._jit import jit

__all__ = ["Interrupted", "interruptible", "stop_requested", "shared_flag", "pending", "STOP_SYMBOL", "CAUGHT"]

#: The name compiled code links the flag by.
STOP_SYMBOL = "fastpuzzle_stop_flag"

#: The signals that stop compiled work (SIGHUP: a closed terminal or session, where POSIX has it).
CAUGHT = tuple(s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None)

_FLAG = (ctypes.c_int64 * 1)(0)
_llvm.add_symbol(STOP_SYMBOL, ctypes.addressof(_FLAG))


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP stopped compiled work; ``.signum`` says which."""

    def __init__(self, signum: int):
        self.signum = int(signum)
        super().__init__(f"interrupted by {signal.Signals(self.signum).name}")


def _flag_global(builder):
    gv = builder.module.globals.get(STOP_SYMBOL)
    if gv is None:
        gv = cgutils.add_global_variable(builder.module, ir.IntType(64), STOP_SYMBOL)
        gv.linkage = "external"
    return gv


@intrinsic
def stop_requested(typingctx):
    """The pending signal number, 0 when none (compiled code only; an atomic load)."""

    def codegen(context, builder, signature, args):
        return builder.load_atomic(_flag_global(builder), "monotonic", 8)

    return types.int64(), codegen


@intrinsic
def shared_flag(typingctx, flags):
    """``flags[0]`` read with an atomic load (compiled code only): a flag another thread sets, such
    as a portfolio's "stop, the answer is proved", seen by a kernel however it keeps its loads."""
    if not (isinstance(flags, types.Array) and flags.dtype == types.int64 and flags.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        return builder.load_atomic(data, "monotonic", 8)

    return types.int64(flags), codegen


@intrinsic
def _store_flag(typingctx, value):
    def codegen(context, builder, signature, args):
        builder.store_atomic(args[0], _flag_global(builder), "monotonic", 8)
        return context.get_dummy_value()

    return types.void(types.int64), codegen


def pending() -> int:
    """The signal number that asked the current long call to stop (0: none)."""
    return int(_FLAG[0])


@jit
def _on_signal(signum):
    """The C signal handler (its C entry point): one atomic store, nothing else."""
    _store_flag(np.int64(signum))


_lock = threading.Lock()
_depth = 0
_saved: dict = {}
_handler = None  # the compiled C handler, made on first use
_libc = None


def _c_signal():
    """``libc.signal`` and the compiled handler's address, or None off POSIX."""
    global _handler, _libc
    if _libc is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.signal.restype = ctypes.c_void_p
            libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]
        except (OSError, AttributeError):
            _libc = False
            return None
        _on_signal.compile((types.int32,))  # loaded from the on-disk cache after the first run
        result = _on_signal.overloads[(types.int32,)]
        address = result.library.get_pointer_to_function(result.fndesc.llvm_cfunc_wrapper_name)
        _handler, _libc = address, libc
    return None if _libc is False else (_libc, _handler)


def _ours_to_take(signum) -> bool:
    """Only Python's defaults (or the command line's own handlers) are replaced: a handler the
    user set, or SIG_IGN, stays."""
    current = signal.getsignal(signum)
    default = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
    return current is default or str(getattr(current, "__module__", None) or "").startswith("fastpuzzle.")


class _Guard:
    """The handlers for one long call (see :func:`interruptible`)."""

    __slots__ = ()

    def __enter__(self):
        global _depth
        with _lock:
            if _depth == 0:
                _FLAG[0] = 0
                c = _c_signal()
                if c is not None:
                    libc, address = c
                    for signum in CAUGHT:
                        if _ours_to_take(signum):
                            _saved[signum] = libc.signal(signum, address)
            _depth += 1
        return self

    def __exit__(self, exc_type, exc, tb):
        global _depth
        with _lock:
            _depth -= 1
            if _depth == 0:
                while _saved:
                    signum, old = _saved.popitem()
                    _libc.signal(signum, old)
            signum = int(_FLAG[0])
            if _depth == 0:
                _FLAG[0] = 0
        if signum and exc_type is None:
            raise Interrupted(signum)
        return False


_NOTHING = contextlib.nullcontext()


def interruptible(long: bool = True):
    """A context manager: SIGINT/SIGTERM/SIGHUP stop the kernels called inside, then
    :class:`Interrupted` is raised on the way out.

    Re-entrant and thread-safe: the handlers are installed by the outermost
    call and restored by the last one out; the flag is cleared on entry.  A
    call known to be short passes ``long=False`` and pays nothing (installing
    the handlers costs a few microseconds).
    """
    return _Guard() if long else _NOTHING
