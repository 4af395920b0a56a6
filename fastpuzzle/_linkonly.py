"""Helpers compiled for linking only: optimised and turned into machine code once, in the kernel.

Numba compiles every jitted function it meets as a library of its own:
optimised, turned into machine code (so that Python can call it) and
cached on disk.  A helper that only kernels call (:func:`fastpuzzle._jit.jit_inner`)
needs none of that: each compiled caller links the helper's code into its
own and optimises and compiles the whole again.  With helpers nested four
deep (the constructive solver's tile walk), the innermost code was
optimised and compiled four times over on a first call.

:class:`LinkOnlyDispatcher` compiles a helper to its LLVM code alone:
typed, lowered and given Numba's function passes, but neither
module-optimised nor compiled to machine code nor cached.  The kernel that
calls it links it in and optimises and compiles everything once (its own
library, cached as usual: the helper's code lives in it).  The kernels
give the same answers in the same time side by side; the constructive
solver's first call on an empty cache costs far less CPU (``python
bench/bench_constructive.py --cold-against -``, both compile trims).

A helper called from Python (a test, a doctest) runs a twin compiled the
usual way.  A helper whose code needs its Numba environment (``print``, an
exception with run-time arguments) is compiled the usual way too: a linked
copy would find no environment.  Each piece reaches into Numba's
internals, so :func:`link_only_class` checks them first and returns None
where they differ (``FASTPUZZLE_PLAIN_NUMBA`` too): the helpers are then
plain Numba functions, as the tests check.
"""

from __future__ import annotations

import threading

__all__ = ["link_only_class", "uses_environment"]


def link_only_class(twin_factory):
    """The :class:`LinkOnlyDispatcher` class, or None where Numba's internals differ.

    ``twin_factory(py_func, options)``: the ordinary jitted function a
    Python call of a helper runs (``options``: the helper's own).
    """
    try:
        import llvmlite.binding
        from numba.core import base as numba_base, codegen, compiler, dispatcher, registry
    except ImportError:
        return None
    library = getattr(codegen, "JITCodeLibrary", None)
    base = getattr(registry, "CPUDispatcher", None)
    needed = [(dispatcher, "_FunctionCompiler"), (library, "finalize"), (library, "_get_module_for_linking"),
              (library, "_raise_if_finalized"), (codegen, "require_global_compiler_lock"),
              (getattr(dispatcher, "_FunctionCompiler", None), "_customize_flags"), (base, "add_overload"),
              (numba_base.BaseContext, "insert_user_function"), (llvmlite.binding.ValueRef, "add_function_attribute")]
    if not all(getattr(owner, name, None) is not None for owner, name in needed):
        return None
    if not hasattr(compiler.Flags(), "no_compile"):
        return None

    class LinkOnlyLibrary(library):
        """A library finished by linking what it calls: no optimisation, no machine code."""

        def finalize(self):
            codegen.require_global_compiler_lock()
            self._raise_if_finalized()
            seen = set()
            reload_init = getattr(self, "_reload_init", None)  # Numba 0.60 on
            for linked in self._linking_libraries:
                if linked not in seen:
                    seen.add(linked)
                    if reload_init is not None:  # as Numba's finalize does
                        reload_init.update(linked._reload_init)
                    self._final_module.link_in(linked._get_module_for_linking(), preserve=True)
            self._finalized = True

        def get_pointer_to_function(self, name):
            raise RuntimeError(f"{self.name} is compiled for linking only: it has no machine code")

        def serialize_using_object_code(self):
            raise RuntimeError(f"{self.name} is compiled for linking only: it has no machine code")

    class LinkOnlyCompiler(dispatcher._FunctionCompiler):
        """Stops after lowering; the usual compile where the code needs its environment."""

        usual = False

        def _customize_flags(self, flags):
            if not self.usual:
                flags.no_compile = True
                flags.no_cpython_wrapper = True
            return flags

        def _compile_core(self, args, return_type):
            cres = super()._compile_core(args, return_type)
            if cres.entry_point is None and uses_environment(cres):
                self.usual = True
                try:
                    cres = super()._compile_core(args, return_type)
                finally:
                    self.usual = False
            return cres

    class LinkOnlyEntry:
        """Where a compiled caller finds a link-only overload (Numba keys its calls by entry point)."""

        __slots__ = ("name", "args")

        def __init__(self, name, args):
            self.name = name
            self.args = args

        def __repr__(self):
            return f"<link-only {self.name}{self.args}>"

    class LinkOnlyDispatcher(base):
        """A jitted helper compiled for linking into its callers only (see the module)."""

        #: Whether LLVM inlines the helper into every caller (see :func:`fastpuzzle._jit.jit_inner`).
        always_inline = False

        def __init__(self, py_func, locals=None, targetoptions=None, pipeline_class=compiler.Compiler):
            # None is Numba's default from 0.60 on, {} before
            super().__init__(py_func, {} if locals is None else locals, {} if targetoptions is None else targetoptions,
                             pipeline_class)
            old = self._compiler
            self._compiler = LinkOnlyCompiler(py_func, old.targetdescr, old.targetoptions, old.locals,
                                              old.pipeline_class)
            self._twin = None
            self._twin_lock = threading.Lock()
            self._options = {}

        @classmethod
        def make(cls, py_func, targetoptions, always_inline=False):
            """The helper ``py_func`` with these Numba options; ``always_inline``: see :func:`fastpuzzle._jit.jit_inner`."""
            helper = cls(py_func, targetoptions=targetoptions)
            helper.always_inline = bool(always_inline)
            helper._options = {k: v for k, v in targetoptions.items() if k not in ("nopython", "no_cfunc_wrapper")}
            return helper

        def add_overload(self, cres):
            if cres.entry_point is not None:  # compiled the usual way (see LinkOnlyCompiler)
                return super().add_overload(cres)
            args = tuple(cres.signature.args)
            entry = LinkOnlyEntry(self.py_func.__qualname__, args)
            cres = cres._replace(entry_point=entry)
            cres.library.__class__ = LinkOnlyLibrary
            if self.always_inline:
                cres.library._final_module.get_function(cres.fndesc.llvm_func_name).add_function_attribute(
                    "alwaysinline")
            self.targetctx.insert_user_function(entry, cres.fndesc, [cres.library])
            self.overloads[args] = cres

        def __call__(self, *args, **kwargs):
            if self._twin is None:
                with self._twin_lock:  # two threads' first calls build one twin
                    if self._twin is None:
                        self._twin = twin_factory(self.py_func, self._options)
            return self._twin(*args, **kwargs)

    return LinkOnlyDispatcher


def uses_environment(cres) -> bool:
    """Whether the lowered code reads its Numba environment (a linked copy would find none)."""
    name = cres.fndesc.env_name
    # instructions are indented; the lines that define globals (the environment's own) start with @
    return any(name in line and not line.startswith("@") for line in str(cres.library._final_module).splitlines())
