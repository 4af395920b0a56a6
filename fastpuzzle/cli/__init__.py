"""The ``fastpuzzle`` command line.

One module per subcommand (``check``, ``reach``, ``generate``,
``distances``, ``demo``, ``solve``, ``pdb``, ``bench``), each with ``add_parser(subparsers)`` and
``run(args)``.  Building the parser imports the standard library only; a
subcommand loads the kernels, solvers, pattern databases, Dask or tqdm when
it runs.  Every bad input -- an unreadable file, a malformed line, a wrong
shape, a board that is not a permutation, a size that cannot be met -- ends
with one line on standard error naming the file, the line or board and the
problem, and exit status 2.  Output files go through the package's one
writer (:class:`fastpuzzle.atomic.AtomicOutput`).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import sys
import threading

from .common import EXIT_BAD_INPUT, CLIError

__all__ = ["main", "build_parser", "CLIError", "EXIT_BAD_INPUT", "SUBCOMMANDS"]

#: The subcommands, each a module of this package.
SUBCOMMANDS = ("check", "reach", "generate", "distances", "demo", "solve", "pdb", "bench", "draw")


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (``fastpuzzle generate: error: ...``), exit 2;
    ``--help`` shows the full usage."""

    #: The error of the last failed print of ``--help``/``--version`` text (set by any parser).
    lost_output = None

    def error(self, message):
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n")

    def _print_message(self, message, file=None):
        """argparse's print, with a failed write to standard output kept (argparse drops it): the
        ``--help`` or ``--version`` text lost must not end with status 0."""
        if not message:
            return
        file = file or sys.stdout
        try:
            file.write(message)
            if file is sys.stdout:
                file.flush()
        except (OSError, ValueError) as error:
            if file is sys.stdout:
                _Parser.lost_output = error


def build_parser():
    """The argument parser of every subcommand (standard library only)."""
    parser = _Parser(
        prog="fastpuzzle",
        description="Sliding-tile puzzles at scale: check, generate, compare and solve millions of boards.",
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"fastpuzzle {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f".{name}", __name__).add_parser(sub)
    return parser


class _ClosedStream:
    """Stands for a standard stream the process was started without (``>&-``)."""

    closed = True

    def __init__(self, label):
        self.label = label

    def write(self, text):
        raise OSError(errno.EBADF, "standard output is closed" if self.label == "<stdout>" else "closed", self.label)

    def flush(self):
        pass

    def isatty(self):
        return False


def main(argv=None) -> int:
    """Entry point of the ``fastpuzzle`` console script; returns the exit status."""
    own_process = argv is None  # the console script or ``python -m fastpuzzle``, not a caller's process
    argv = sys.argv[1:] if argv is None else list(argv)
    if sys.stdout is None:
        sys.stdout = _ClosedStream("<stdout>")
    if sys.stderr is None:
        sys.stderr = _ClosedStream("<stderr>")
    status = _main(argv, own_process)
    if own_process and status > 128 and any(t.is_alive() and not t.daemon for t in threading.enumerate()
                                            if t is not threading.main_thread()):  # fmt: skip
        # a signal stopped the command, but worker threads (Dask's, blocked in a read) would keep
        # the process alive: the work is abandoned, so end it now, with the status
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        os._exit(status)
    return status


def _say(command, message):
    prog = f"fastpuzzle {command}" if command else "fastpuzzle"
    try:
        print(f"{prog}: error: {' '.join(str(message).split())}", file=sys.stderr)
    except (OSError, ValueError):  # no standard error to write to: the status still tells
        pass


def _main(argv, own_process=False) -> int:
    try:
        return _parse_and_run(argv, own_process)
    except KeyboardInterrupt as error:  # during start-up (the parser, the imports): no command ran yet
        signum = getattr(error, "signum", signal.SIGINT)
        _say(None, f"interrupted by {signal.Signals(signum).name}")
        return 128 + signum


def _parse_and_run(argv, own_process) -> int:
    parser = build_parser()
    _Parser.lost_output = None
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # a usage error (one line already printed) or --help/--version
        if stop.code in (0, None):
            return _printed_text_status()
        return stop.code if isinstance(stop.code, int) else EXIT_BAD_INPUT
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    from ..io.write import OutputInterrupted

    if own_process:  # this process runs fastpuzzle's kernels only: no Numba extension to look for
        from .._jit import skip_extension_scan

        skip_extension_scan()
    command = args.command
    old_handlers = _stop_on_signals() if own_process else {}
    old_show = _one_line_warnings(command) if own_process else None
    old_hook = _quiet_unraisable_interrupts() if own_process else None
    try:
        status = int(args.run(args) or 0)
        if _SIGNALLED and own_process:  # swallowed on its way (see _SIGNALLED): still an interrupted run
            return _swallowed_interrupt(command, "")
        return status
    except BrokenPipeError:
        _silence_stdout()  # the reader went away (e.g. `| head`): stop quietly
        return 0
    except OSError as error:
        name = getattr(error, "filename", None)
        if name is None and error.errno in _STDOUT_ERRNOS:  # the writer names its files: this was a print
            name = "<stdout>"
        where = f"{name if str(name).isprintable() else repr(name)}: " if name else ""
        _say(command, f"{where}{error.strerror or error}")
        return EXIT_BAD_INPUT
    except OutputInterrupted as error:
        _say(command, f"{error}; the partial output was removed")
        return 128 + error.signum
    except KeyboardInterrupt as error:  # Ctrl-C, or a signal that stopped a kernel (interrupt.Interrupted)
        signum = getattr(error, "signum", signal.SIGINT)
        _say(command, f"interrupted by {signal.Signals(signum).name}; no partial output is left")
        return 128 + signum
    except MemoryError as error:
        _say(command, f"out of memory{': ' + str(error) if str(error) else ''}")
        return EXIT_BAD_INPUT
    except Exception as error:
        if _SIGNALLED and own_process:  # the interrupt surfaced as another error (see _SIGNALLED)
            return _swallowed_interrupt(command, "; no partial output is left")
        if not isinstance(error, (CLIError, ValueError, TypeError, OverflowError)):
            raise
        _say(command, error if str(error) else type(error).__name__)
        return EXIT_BAD_INPUT
    finally:
        for signum, old in old_handlers.items():
            signal.signal(signum, old)
        if old_show is not None:
            import warnings

            warnings.showwarning = old_show
        if old_hook is not None:
            sys.unraisablehook = old_hook


#: Errors of a write with no file name: the commands' own prints to standard output.
_STDOUT_ERRNOS = frozenset(getattr(errno, name) for name in ("ENOSPC", "EIO", "EFBIG", "EDQUOT") if hasattr(errno, name))


def _printed_text_status() -> int:
    """0 once the text of ``--help`` or ``--version`` reached standard output, else one line and 2."""
    lost = _Parser.lost_output
    if lost is None:
        try:
            sys.stdout.flush()
        except (OSError, ValueError) as error:
            lost = error
    if isinstance(lost, BrokenPipeError):  # the reader went away (e.g. `| head`): stop quietly
        _silence_stdout()
        return 0
    if lost is not None:
        _say(None, f"<stdout>: {getattr(lost, 'strerror', None) or lost}")
        return EXIT_BAD_INPUT
    return 0


def _stop_on_signals():
    """SIGTERM and SIGHUP raise (like Ctrl-C) for the whole run, so outputs are cleaned up;
    ``{signal: old handler}`` of those it took (one ignored, as under nohup, or the caller's own
    handler, is left alone)."""

    def stop(signum, frame):
        from ..interrupt import Interrupted

        _SIGNALLED.append(signum)
        raise Interrupted(signum)

    _SIGNALLED.clear()
    taken = {}
    for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None), signal.SIGINT):
        default = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
        if signum is not None and signal.getsignal(signum) is default:
            taken[signum] = signal.signal(signum, stop)
    return taken


#: Signals :func:`_stop_on_signals`' handler received in this run.  Raised where Python cannot
#: pass an exception on (a finaliser, a callback of Numba's compiler), the interrupt may surface
#: as another error later, or not at all: the run is then still reported as interrupted.
_SIGNALLED: list = []


def _swallowed_interrupt(command, after: str) -> int:
    """One line for a run that a signal stopped on its way (see :data:`_SIGNALLED`); its status."""
    _say(command, f"interrupted by {signal.Signals(_SIGNALLED[0]).name}{after}")
    return 128 + _SIGNALLED[0]


def _quiet_unraisable_interrupts():
    """An interrupt raised where Python cannot pass it on (a finaliser, a callback of Numba's
    compiler) is not printed as "Exception ignored in ..." with its traceback: it is recorded in
    :data:`_SIGNALLED` and the run ends as interrupted.  Returns the previous hook."""
    old = sys.unraisablehook

    def hook(unraisable):
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            if not _SIGNALLED:
                _SIGNALLED.append(getattr(unraisable.exc_value, "signum", signal.SIGINT))
            return
        old(unraisable)

    sys.unraisablehook = hook
    return old


def _one_line_warnings(command):
    """Warnings as one line each (``fastpuzzle CMD: warning: ...``), without the source line
    Python would print under them; returns the previous ``warnings.showwarning``."""
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):
        try:
            print(f"{'fastpuzzle ' + command if command else 'fastpuzzle'}: warning: {' '.join(str(message).split())}",
                  file=sys.stderr)  # fmt: skip
        except (OSError, ValueError, AttributeError):  # no standard error to write to
            pass

    old, warnings.showwarning = warnings.showwarning, show
    return old


def _silence_stdout():
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
