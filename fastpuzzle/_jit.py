"""Numba decorator options, set once for the whole package.

Every kernel in fastpuzzle is compiled through :func:`jit` (serial) or
:func:`pjit` (``prange`` across threads).  Options live here and nowhere else.

Threading: Numba's OpenMP layer spins while it waits for work.  On a small,
shared machine a spinning worker can cost milliseconds per parallel loop, so we
ask the OpenMP runtime to sleep instead of spin (``OMP_WAIT_POLICY=PASSIVE``,
unless the user set it) and batch functions fall back to their serial kernel
for small inputs (:data:`PARALLEL_MIN_CELLS`).  Both must happen before the
threading layer starts, which is why this module sets them at import time.

Start-up: a command-line run pays for Numba on every call, so the Numba
work that fastpuzzle's kernels never need is skipped (the start-up of
``fastpuzzle reach --judge``, as ``python bench/bench_io.py --only judge``
prints it: 1.1-1.3 s of CPU before, 0.75-0.85 s after, on the shared
2-core test machine):

* :func:`_import_numba`: Numba's import also imports SciPy (for a version
  check) and PyYAML (for a config file that is rarely there);
* :class:`QuickLoadCache`: a kernel loaded from the on-disk cache does not
  first load every typing and lowering registry of Numba, which only a
  compile uses;
* :func:`_skip_blas_probe`: before a compile, Numba's array-math support is
  imported with its ``scipy.linalg`` probe for BLAS answered by whether
  SciPy is installed (no kernel here uses BLAS; ``np.dot`` in other jitted
  code still imports BLAS when it is compiled);
* :func:`skip_extension_scan`: the command line does not look for Numba
  extensions among the installed packages;
* :func:`share_inline_copies`: a compile that inlines one of this package's
  functions copies its IR in one go, not block by block;
* :func:`jit_inner`: a helper that only kernels call is compiled for linking
  only (:mod:`fastpuzzle._linkonly`).

:class:`QuickLoadCache` also keys every cached kernel by a stamp of the
whole package's sources (:func:`source_stamp`), so that a kernel never keeps
a stale compiled copy of a kernel it calls from another file (with the
trims off, Numba's own keys: a file's kernels go stale only with that file).

Each trim reaches into Numba's internals, so each checks first that they are
laid out as expected and otherwise leaves Numba as it is, silently (the
kernels never depend on a trim).  ``FASTPUZZLE_PLAIN_NUMBA=1`` in the
environment turns every trim off: plain Numba, as the tests check in a
child process, and a way out should a Numba release change its internals.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import os
import sys
import threading

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("KMP_BLOCKTIME", "0")

import numpy  # noqa: E402  (after the threading settings above)

#: True when ``FASTPUZZLE_PLAIN_NUMBA`` is set (not ``0``): no start-up trim.
PLAIN_NUMBA = os.environ.get("FASTPUZZLE_PLAIN_NUMBA", "0").strip() not in ("", "0")


def _import_numba():
    """``import numba`` without the modules it loads for nothing.

    Numba's import checks the installed SciPy's version (importing SciPy, a
    tenth of a second) and imports PyYAML to read a ``.numba_config.yaml``
    that is almost never there.  Both are hidden while Numba loads (an
    import of a name set to ``None`` in ``sys.modules`` fails at once, which
    Numba takes as "not installed"); YAML only when no such file is in the
    working directory.  Names already imported are left alone.
    """
    if PLAIN_NUMBA:
        import numba

        return numba
    hidden = [m for m in ("scipy",) if m not in sys.modules]
    if not os.path.isfile(".numba_config.yaml") and "yaml" not in sys.modules:
        hidden.append("yaml")
    for m in hidden:
        sys.modules[m] = None  # type: ignore[assignment]
    try:
        import numba
    finally:
        for m in hidden:
            if sys.modules.get(m, 0) is None:
                del sys.modules[m]
    return numba


numba = _import_numba()

from ._linkonly import link_only_class  # noqa: E402  (after Numba, imported just above)


def _skip_blas_probe() -> None:
    """Import ``numba.np.arraymath`` without its ``scipy.linalg`` probe (see above)."""
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


_STAMPS: dict = {}


def _package_root(path: str) -> str:
    """The top-most directory above ``path`` that is a package (holds an
    ``__init__.py``), or ``path``'s own directory when none is."""
    root = here = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(os.path.join(here, "__init__.py")):
        root, here = here, os.path.dirname(here)
    return root


def source_stamp(py_func) -> str:
    """A hash of the size and modification time of every ``.py`` file of the
    package that defines ``py_func`` (computed once per package and process).

    Numba keys a cached kernel by its own file alone, and a kernel holds
    compiled copies of the kernels it calls: after an edit or upgrade of the
    callee's file, the caller would keep running the old callee.  With this
    stamp in every cache key, any change to the package's sources compiles
    every kernel afresh.

    Examples
    --------
    >>> source_stamp(source_stamp) == source_stamp(_package_root)
    True
    """
    root = _package_root(py_func.__code__.co_filename)
    stamp = _STAMPS.get(root)
    if stamp is None:
        digest = hashlib.sha256()
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith(".py")):
                path = os.path.join(folder, name)
                st = os.stat(path)
                digest.update(f"{os.path.relpath(path, root)}:{st.st_size}:{st.st_mtime_ns};".encode())
        stamp = _STAMPS[root] = digest.hexdigest()
    return stamp


def _quick_cache_class():
    """:class:`QuickLoadCache`: a ``FunctionCache`` whose hits skip Numba's
    registry refresh (``None`` where Numba's cache is laid out otherwise).

    Numba's cache load first "refreshes" the compiler: it imports and
    registers every typing and lowering registry (a quarter of a second),
    which only compiling uses.  A hit needs the runtime (NRT) alone; on a
    miss the BLAS probe is skipped and compiling refreshes as usual.
    """
    if PLAIN_NUMBA:
        return None
    try:
        from numba.core.caching import FunctionCache
        from numba.core.runtime import rtsys
    except ImportError:  # another Numba layout: load as usual
        return None
    needed = [(FunctionCache, "load_overload"), (FunctionCache, "_load_overload"), (FunctionCache, "_index_key"),
              (FunctionCache, "_guard_against_spurious_io_errors"), (rtsys, "initialize")]
    if not all(callable(getattr(owner, name, None)) for owner, name in needed):
        return None

    class QuickLoadCache(FunctionCache):
        def _index_key(self, sig, codegen):
            return (*super()._index_key(sig, codegen), source_stamp(self._py_func))

        def load_overload(self, sig, target_context):
            rtsys.initialize(target_context)
            with self._guard_against_spurious_io_errors():
                found = self._load_overload(sig, target_context)
                if found is None:
                    _before_compile()
                return found
            _before_compile()  # an I/O error was swallowed: a compile follows
            return None

    return QuickLoadCache


def _before_compile() -> None:
    """The trims for a compile, made on a cache miss (a load needs neither, and importing
    Numba's compiler modules costs the cached start-up): no BLAS probe (the compile's refresh
    imports arraymath), and the inlined kernels copied in one go."""
    _skip_blas_probe()
    share_inline_copies()


QuickLoadCache = _quick_cache_class()


def _quick_loading(dispatcher):
    """``dispatcher`` with cache hits that skip the registry refresh (see above)."""
    cache = getattr(dispatcher, "_cache", None)
    if QuickLoadCache is not None and type(cache) is QuickLoadCache.__mro__[1]:
        cache.__class__ = QuickLoadCache
    return dispatcher


def skip_extension_scan() -> None:
    """Take Numba's third-party extensions as loaded, without looking for them.

    Before its first compile or cache load Numba reads the entry points of
    every installed distribution, looking for Numba extensions (about 50 ms
    with a few hundred packages).  fastpuzzle's kernels use none, so a
    process that runs only them -- the command line -- skips the scan.  Not
    for a library's caller: their own jitted code may need an extension.
    """
    if PLAIN_NUMBA:
        return
    try:
        from numba.core import entrypoints

        if isinstance(getattr(entrypoints, "_already_initialized", None), bool):
            entrypoints._already_initialized = True
    except ImportError:  # another Numba layout: it scans as usual
        pass


class _CopyWithSharedMemo:
    """The ``copy`` module as Numba's inliner sees it once :func:`share_inline_copies` ran:
    ``deepcopy`` of a block uses :data:`_INLINE_COPY`'s memo while one of this package's
    functions is being inlined; everything else is ``copy``'s own."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(x, memo=None):
        shared = getattr(_INLINE_COPY, "memo", None)
        if memo is None and shared is not None and isinstance(x, _IR_BLOCK):
            memo = shared
        return copy.deepcopy(x, memo)


_INLINE_COPY = threading.local()
_IR_BLOCK = None


def share_inline_copies() -> bool:
    """Let Numba copy an inlined kernel of this package in one go instead of block by block.

    Before inlining a function (``inline="always"``), Numba deep-copies its
    IR twice, one block at a time: each block's copy drags along its own copy
    of the function's whole variable scope, so the work grows with blocks x
    variables.  While one of this package's functions is being inlined, its
    blocks share one memo here: the scope is copied once per copy, and the
    IR that comes out is the same up to variable versions (one shared scope
    numbers them, where the per-block copies each kept their own).  The
    constructive solver's first call spends about half as long inlining.
    Made on the first cache miss (:class:`QuickLoadCache`: a process that
    only loads kernels does not import Numba's inliner).  Returns whether the
    trim is on (off with ``FASTPUZZLE_PLAIN_NUMBA`` or another Numba layout;
    the inlining of other packages' functions is left alone).
    """
    global _IR_BLOCK
    if PLAIN_NUMBA:
        return False
    try:
        from numba.core import inline_closurecall, ir
    except ImportError:
        return False
    worker = getattr(inline_closurecall, "InlineWorker", None)
    inline_ir = getattr(worker, "inline_ir", None)
    if getattr(inline_ir, "_fastpuzzle_trim", False):
        return True
    if not callable(inline_ir) or inline_closurecall.__dict__.get("copy") is not copy or not isinstance(ir.Block, type):
        return False
    package = __name__.split(".")[0] + "."

    def shared_memo_inline_ir(self, caller_ir, block, i, callee_ir, *args, **kwargs):
        func = getattr(getattr(callee_ir, "func_id", None), "func", None)
        if not str(getattr(func, "__module__", None) or "").startswith(package):  # None for exec'd code
            return inline_ir(self, caller_ir, block, i, callee_ir, *args, **kwargs)
        outer = getattr(_INLINE_COPY, "memo", None)
        _INLINE_COPY.memo = {}
        try:
            return inline_ir(self, caller_ir, block, i, callee_ir, *args, **kwargs)
        finally:
            _INLINE_COPY.memo = outer

    shared_memo_inline_ir._fastpuzzle_trim = True
    _IR_BLOCK = ir.Block
    inline_closurecall.copy = _CopyWithSharedMemo()
    worker.inline_ir = shared_memo_inline_ir
    return True


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
        return _quick_loading(numba.njit(**opts)(args[0]))
    decorate = numba.njit(*args, **opts)
    return lambda func: _quick_loading(decorate(func))


def jit_inner(*args, always_inline=False, **kwargs):
    """:func:`jit` for a helper that only other kernels call: compiled for
    linking into them only (:mod:`fastpuzzle._linkonly`), not cached on its
    own; a call from Python runs an ordinary twin.  ``always_inline``: LLVM
    inlines it into every caller (for a small helper of a hot loop: Numba
    types and lowers it once, where ``inline="always"`` copies it into its
    callers' IR at every call).  Where the trim is off, an ordinary kernel
    without the C entry point (a ``cfunc`` wrapper, for first-class function
    use) that Numba otherwise builds for every function.
    """
    if LinkOnlyDispatcher is None or (args and not callable(args[0])) or "locals" in kwargs:
        return jit(*args, no_cfunc_wrapper=True, **kwargs)  # signatures and locals: an ordinary kernel
    opts = dict(JIT_OPTIONS, nopython=True, no_cfunc_wrapper=True, **kwargs)
    del opts["cache"]  # its code is cached in its callers'
    link_only = lambda func: LinkOnlyDispatcher.make(func, opts, always_inline)  # noqa: E731
    return link_only(args[0]) if args else link_only


#: The dispatcher of :func:`jit_inner` (None: plain Numba, see :mod:`fastpuzzle._linkonly`).
LinkOnlyDispatcher = None if PLAIN_NUMBA else link_only_class(
    lambda func, options: jit(func, no_cfunc_wrapper=True, **options))


def pjit(*args, **kwargs):
    """``numba.njit(parallel=True)`` with the package options."""
    opts = dict(JIT_OPTIONS, parallel=True, **kwargs)
    if args and callable(args[0]):
        return _quick_loading(numba.njit(**opts)(args[0]))
    decorate = numba.njit(*args, **opts)
    return lambda func: _quick_loading(decorate(func))


@jit(inline="always")
def as_unsigned(i):
    """An index known to be >= 0 as unsigned: Numba then skips the negative-index wraparound."""
    return numpy.uintp(i)


def use_threads(n_cells: int) -> bool:
    """True when a batch of ``n_cells`` cells is worth the thread pool."""
    return n_cells >= PARALLEL_MIN_CELLS and numba.get_num_threads() > 1


_POOL = None
_POOL_LOCK = threading.Lock()
_IN_POOL = threading.local()


def _pool(threads: int):
    """The shared thread pool (made on first use, remade when the thread count changes)."""
    global _POOL
    from concurrent.futures import ThreadPoolExecutor

    with _POOL_LOCK:
        if _POOL is None or _POOL._max_workers != threads:
            if _POOL is not None:
                _POOL.shutdown(wait=False)
            _POOL = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="fastpuzzle",
                                       initializer=setattr, initargs=(_IN_POOL, "active", True))
        return _POOL


class _Worker:
    """A thread that runs one part at a time, handed to it and back by two locks.

    A part through a ``ThreadPoolExecutor`` costs a future, a queue and a
    condition variable each way: about 65 us of CPU a call on the shared
    2-core machine, against about 18 us so (measured with parts that do
    nothing), which is most of a millisecond a hundred steps of a vector
    environment.
    """

    def __init__(self):
        self._go, self._done = threading.Lock(), threading.Lock()
        self._go.acquire()
        self._done.acquire()
        self._job = self._out = None
        threading.Thread(target=self._loop, name="fastpuzzle-part", daemon=True).start()

    def _loop(self):
        _IN_POOL.active = True  # a split_threads inside a part runs serially
        while True:
            self._go.acquire()
            work, lo, hi = self._job
            self._job = None
            try:
                self._out = (work(lo, hi), None)
            except BaseException as error:  # handed to the caller, who raises it
                self._out = (None, error)
            self._done.release()

    def start(self, work, lo, hi):
        self._job = (work, lo, hi)
        self._go.release()

    def result(self):
        self._done.acquire()
        (value, error), self._out = self._out, None
        if error is not None:
            raise error
        return value


_WORKERS: list = []
#: Held by the one caller whose parts run on :data:`_WORKERS` (another caller meanwhile uses the pool).
_WORKERS_LOCK = threading.Lock()


def _forget_workers():
    """In a forked child: the workers' threads are not there (new ones are made on first use)."""
    global _WORKERS_LOCK
    _WORKERS.clear()
    _WORKERS_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)


def _on_workers(work, bounds):
    """:func:`split_threads`' parts, the first on this thread and the others on :data:`_WORKERS`
    (the caller holds :data:`_WORKERS_LOCK`)."""
    while len(_WORKERS) < len(bounds) - 1:
        _WORKERS.append(_Worker())
    started = []
    error = None
    try:
        for worker, (lo, hi) in zip(_WORKERS, bounds[1:]):
            worker.start(work, lo, hi)
            started.append(worker)
        results = [work(*bounds[0])]
    except BaseException as exc:  # every started part is still awaited: a worker is reused only once done
        error, results = exc, []
    try:
        for worker in started:
            try:
                results.append(worker.result())
            except Exception as exc:  # the part's own error: the first one is raised
                error = error or exc
    except BaseException:  # interrupted while waiting: these workers may still be running, make new ones
        _WORKERS.clear()
        raise
    if error is not None:
        raise error
    return results


def split_threads(work, n_items: int, *, align: int = 1) -> list:
    """``[work(lo, hi), ...]`` over ``range(n_items)`` cut into one contiguous
    part per Numba thread (part bounds multiples of ``align``), the parts run
    on Python threads.

    The kernels release the GIL (``nogil``), so a serial kernel run on parts
    uses every core like a ``prange`` twin would, without compiling that twin
    (a ``parallel=True`` kernel re-optimises all the code it calls: seconds on
    a first run).  The caller's thread runs the first part, and every part
    when there is one, or when the caller is itself one of the threads
    running parts.  The other parts go to threads kept for this
    (:class:`_Worker`, a lock each way) or, while another thread's call is
    using those, to a shared ``ThreadPoolExecutor``.

    Examples
    --------
    >>> split_threads(lambda lo, hi: hi - lo, 10, align=4)[0] % 4 == 0
    True
    >>> sum(split_threads(lambda lo, hi: hi - lo, 10, align=4))
    10
    """
    threads = max(1, numba.get_num_threads())
    per = -(-n_items // threads)
    per = max(align, -(-per // align) * align)
    bounds = [(lo, min(n_items, lo + per)) for lo in range(0, n_items, per)] or [(0, 0)]
    if len(bounds) == 1 or getattr(_IN_POOL, "active", False):
        return [work(lo, hi) for lo, hi in bounds]
    lock = _WORKERS_LOCK
    if lock.acquire(blocking=False):  # the lean workers, unless another thread is using them now
        try:
            return _on_workers(work, bounds)
        finally:
            lock.release()
    pool = _pool(threads - 1)  # the caller's thread runs the first part
    futures = [pool.submit(work, lo, hi) for lo, hi in bounds[1:]]
    first = work(*bounds[0])
    return [first] + [f.result() for f in futures]
