"""A numba compiler pipeline with a cheaper LLVM stage, for small kernels.

numba optimises every compiled function twice: each function of a module
at -O3 as it is added to the library, then the linked module at -O3 again.
For the kernels in this package the second pass alone gives the same
machine code speed (measured on a Syn1 fit), so :class:`LeanCompiler` skips
the first; with ``vectorize=False`` (see :func:`lean_pipeline`) the module
pass also runs at -O2 without loop or SLP vectorisation, which serves
kernels whose loops run over a handful of features, fronts or parents.
The kernels also get no C-callable wrapper (they are never first-class
function values).  Together these save about 0.6 s of a cold first fit's
compilation (CPU) at an unchanged Syn1 step time; the results are the same
bit for bit (vectorisation without fast-math does not reorder
floating-point sums).

Use as ``@njit(cache=True, pipeline_class=lean_pipeline(vectorize=False))``.
With ``parallel=True`` the function itself gets the cheaper stage (its parfor
lowering takes the same code library); the loop bodies that numba compiles
apart (the gufuncs of its prange loops) keep numba's.  On the smoothness
weight's parallel pair kernel that saved about 2.5 s of its 12 s cold compile (CPU).
The cache is unaffected: it stores the machine code, whatever made it.

The LLVM stage is reached through numba's code library, whose methods are
internal: where this numba does not have them (``_supported`` is False), the
pipeline is numba's default one and only the compile time changes.
"""
from __future__ import annotations

from functools import lru_cache

from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import LoweringPass, register_pass
from numba.core.typed_passes import NativeLowering, NativeParforLowering

_MODULE_OPT = 2  # -O2 for the module pass of non-vectorising kernels (-O1 measured no faster to compile)


def _supported(library) -> bool:
    codegen = getattr(library, "_codegen", None)
    return all(hasattr(obj, name) for obj, name in (
        (library, "_optimize_functions"), (library, "_optimize_final_module"), (library, "_final_module"),
        (codegen, "_module_pass_manager"), (codegen, "_data_layout")))


def _make_lean(library, vectorize: bool) -> None:
    """Skip the per-function -O3 pass of ``library``; without ``vectorize``, a -O2 module pass without vectorisers."""
    if not _supported(library):
        return
    codegen = library._codegen
    default_final = library._optimize_final_module

    def optimize_functions(ll_module):
        ll_module.data_layout = codegen._data_layout  # what the default pass does first

    def optimize_final_module():
        try:
            manager, builder = codegen._module_pass_manager(
                opt=_MODULE_OPT, loop_vectorize=False, slp_vectorize=False)
        except (TypeError, ValueError):  # another numba's pass-manager API: numba's own pass
            default_final()
            return
        manager.run(library._final_module, builder)

    library._optimize_functions = optimize_functions
    if not vectorize:
        library._optimize_final_module = optimize_final_module


def _lean_library_pass(vectorize: bool):
    @register_pass(mutates_CFG=False, analysis_only=False)
    class LeanLibrary(LoweringPass):
        """Give the lowering a code library with the cheaper LLVM stage (runs just before it)."""

        _name = f"ercot_lean_library_{'vectorize' if vectorize else 'plain'}"

        def __init__(self):
            LoweringPass.__init__(self)

        def run_pass(self, state):
            if state.library is None:
                library = state.targetctx.codegen().create_library(state.func_id.func_qualname)
                library.enable_object_caching()  # what NativeLowering does for a library it creates
                _make_lean(library, vectorize)
                state.library = library
            # No C-callable wrapper: kernels are called from Python or directly by other kernels,
            # never as first-class function values (~10 ms of a small kernel's compilation).
            state.flags.no_cfunc_wrapper = True
            return True

    return LeanLibrary


@lru_cache(maxsize=2)
def lean_pipeline(vectorize: bool = True) -> type:
    """A ``pipeline_class`` for ``numba.njit``: numba's nopython pipeline with the cheaper LLVM stage."""
    library_pass = _lean_library_pass(vectorize)

    class LeanCompiler(CompilerBase):
        def define_pipelines(self):
            manager = DefaultPassBuilder.define_nopython_pipeline(self.state)
            for index, (pass_class, _) in enumerate(manager.passes):
                if pass_class in (NativeLowering, NativeParforLowering):
                    manager.passes.insert(index, (library_pass, "cheaper LLVM stage"))
                    break
            manager.finalize()
            return [manager]

    LeanCompiler.__name__ = LeanCompiler.__qualname__ = f"LeanCompiler{'' if vectorize else 'Plain'}"
    return LeanCompiler


# ---------------------------------------------------------------------------
# The on-disk cache must never stop a fit
# ---------------------------------------------------------------------------

_CACHE_WRITES_FAILED: list[str] = []  # the first failure's message; later saves are skipped


def _guard_cache_writes() -> None:
    """Make numba's cache writes best-effort: a full disk compiles in memory, with one warning.

    numba writes each compiled kernel to its cache (``NUMBA_CACHE_DIR`` or
    ``__pycache__``) right after compiling it, and lets any ``OSError`` of
    that write escape, so a full disk (or quota) failed every fit although
    the machine code was already in memory.  Here a failed write warns once
    (naming the folder and the limit), and the process stops writing to the
    cache: the kernels are compiled in memory, and again in the next session.
    A read-only cache folder is handled by numba itself (it picks another).
    """
    import errno
    import warnings

    from numba.core import caching

    original = caching.Cache.save_overload
    if getattr(original, "_ercot_guarded", False):
        return
    reasons = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is exceeded",
               errno.EFBIG: "the file size limit is exceeded", errno.EROFS: "the file system is read-only"}

    def save_overload(self, sig, data):
        if _CACHE_WRITES_FAILED:
            return
        try:
            original(self, sig, data)
        except OSError as exc:
            folder = getattr(self, "_cache_path", None) or "the numba cache folder"
            reason = reasons.get(exc.errno, f"{type(exc).__name__}: {exc}")
            message = (f"cannot write the numba cache in {folder}: {reason}; compiling the fast kernels in "
                       "memory for this session (set NUMBA_CACHE_DIR to a folder with free space to keep them)")
            _CACHE_WRITES_FAILED.append(message)
            warnings.warn(message, RuntimeWarning, stacklevel=2)

    save_overload._ercot_guarded = True  # type: ignore[attr-defined]
    caching.Cache.save_overload = save_overload


_guard_cache_writes()

