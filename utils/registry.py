"""
The one registry of taichi-xdsl's dialects, passes, named pipelines and targets.

`ti-opt` and the Python JIT both read it, so what `ti-opt -p ti-to-llvm` prints is what
the JIT runs. Entries are "module:attribute" strings, imported on first use: building a
context for a kernel loads only the dialects and passes that kernel's pipeline names.

A researcher's pass plugs in without editing this file, through the entry-point group
`taichi_xdsl.passes` (name = "pkg.module:PassClass") or `ti-opt --pass-plugin file.py`.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taichi_xdsl.utils.pipelines import named_pipelines

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.ir import Dialect
    from xdsl.passes import ModulePass, PassPipeline

DIALECTS: dict[str, str] = {
    "taichi": "taichi_xdsl.dialects.taichi:Taichi",
    "offload": "taichi_xdsl.dialects.offload:Offload",
    "llvm_ext": "taichi_xdsl.dialects.llvm_ext:LLVMExt",
    "spirv": "taichi_xdsl.dialects.spirv:SPIRV",
}

PASSES: dict[str, str] = {
    "ti-scalarize": "taichi_xdsl.lowering.scalarize:ScalarizePass",
    "ti-mem2reg": "taichi_xdsl.lowering.mem2reg:Mem2RegPass",
    "ti-lower-sparse": "taichi_xdsl.lowering.lower_sparse:LowerSparsePass",
    "ti-demote-dense-struct-for": (
        "taichi_xdsl.lowering.demote_dense_struct_for:DemoteDenseStructForPass"
    ),
    "ti-split-parallel-loop": (
        "taichi_xdsl.lowering.split_parallel_loop:SplitParallelLoopPass"
    ),
    "ti-offload": "taichi_xdsl.lowering.offload:OffloadPass",
    "ti-align-rows": "taichi_xdsl.lowering.align_rows:AlignRowsPass",
    "ti-demote-atomics": "taichi_xdsl.lowering.demote_atomics:DemoteAtomicsPass",
    "ti-add-serial-forms": "taichi_xdsl.lowering.add_serial_forms:AddSerialFormsPass",
    "ti-make-thread-local": "taichi_xdsl.lowering.make_thread_local:MakeThreadLocalPass",
    "ti-auto-diff": "taichi_xdsl.lowering.auto_diff:AutoDiffPass",
    "ti-localize-elements": "taichi_xdsl.lowering.localize_elements:LocalizeElementsPass",
    "ti-lower-access": "taichi_xdsl.lowering.lower_access:LowerAccessPass",
    "ti-expand-f64-math": "taichi_xdsl.lowering.expand_f64_math:ExpandF64MathPass",
    "ti-guard-int-division": "taichi_xdsl.lowering.guard_int_division:GuardIntDivisionPass",
    "ti-unroll-loops": "taichi_xdsl.lowering.unroll_loops:UnrollLoopsPass",
    "ti-fast-reciprocal": "taichi_xdsl.lowering.fast_reciprocal:FastReciprocalPass",
    "ti-fold-sqrt-compare": "taichi_xdsl.lowering.fold_sqrt_compare:FoldSqrtComparePass",
    "ti-fuse-serial-reduction": (
        "taichi_xdsl.lowering.fuse_serial_reduction:FuseSerialReductionPass"
    ),
    "ti-serial-simt": "taichi_xdsl.lowering.serial_simt:SerialSimtPass",
    "ti-spirv-hoist": "taichi_xdsl.lowering.spirv_hoist:HoistPass",
    "convert-taichi-to-cf": "taichi_xdsl.lowering.convert_taichi_to_cf:ConvertTaichiToCfPass",
    "convert-offload-to-llvm": (
        "taichi_xdsl.lowering.convert_offload_to_llvm:ConvertOffloadToLLVMPass"
    ),
    "convert-arith-to-llvm": "taichi_xdsl.lowering.convert_arith_to_llvm:ConvertArithToLLVMPass",
    "convert-math-to-llvm": "taichi_xdsl.lowering.convert_math_to_llvm:ConvertMathToLLVMPass",
    "convert-cf-to-llvm": "taichi_xdsl.lowering.convert_cf_to_llvm:ConvertCfToLLVMPass",
    "convert-func-to-llvm": "taichi_xdsl.lowering.convert_func_to_llvm:ConvertFuncToLLVMPass",
    "convert-taichi-to-spirv": (
        "taichi_xdsl.lowering.convert_taichi_to_spirv:ConvertTaichiToSpirvPass"
    ),
    "convert-arith-to-spirv": (
        "taichi_xdsl.lowering.convert_arith_to_spirv:ConvertArithToSpirvPass"
    ),
    "convert-offload-to-spirv": (
        "taichi_xdsl.lowering.convert_offload_to_spirv:ConvertOffloadToSpirvPass"
    ),
}

XDSL_PASS_OVERRIDES: dict[str, str] = {
    "canonicalize": "taichi_xdsl.lowering.dead_code:CanonicalizePass",
    "dce": "taichi_xdsl.lowering.dead_code:DeadCodeEliminationPass",
}
"""xDSL passes that our pipelines and ti-opt run in a version of ours (the same IR out,
faster); not in UNIVERSE, so xdsl-opt keeps xDSL's (a universe may not redefine a pass)."""

PIPELINES: dict[str, str] = named_pipelines()
"""
Named pipelines: a pass-spec string each, usable wherever a pass name is. They are the
stages of each arch's pipeline, defined once in utils/pipelines.py.
"""

TARGETS: dict[str, str] = {
    "llvm": "taichi_xdsl.targets.llvm.translate:emit_llvm_ir",
    "spirv": "taichi_xdsl.targets.spirv.serializer:emit_spirv",
    "spirv-asm": "taichi_xdsl.targets.spirv.serializer:emit_spirv_asm",
}
"""
ti-opt targets beyond xDSL's own (`mlir`, ...): name -> "module:function(module, stream)".
A function marked `binary_output = True` (`spirv`) gets ti-opt's real output stream and
writes bytes to its `.buffer`.
"""

PLUGIN_ENTRY_POINT_GROUP = "taichi_xdsl.passes"


def load_object(spec: str) -> Any:
    """Import "package.module:attribute" and return the attribute."""
    module_name, _, attribute = spec.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def _lazy(spec: str) -> Callable[[], Any]:
    return lambda: load_object(spec)


def dialect_factories() -> dict[str, Callable[[], Dialect]]:
    """Every xDSL dialect plus ours, as name -> factory."""
    from xdsl.dialects import get_all_dialects

    factories = dict(get_all_dialects())
    factories.update({name: _lazy(spec) for name, spec in DIALECTS.items()})
    return factories


def pass_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    """
    Every xDSL pass, ours, our named pipelines, the passes of register_pass and the
    installed plugins. A plugin cannot take a name that one of the others has (as
    register_pass refuses one): the others win.
    """
    factories = dict(_builtin_pass_factories())
    for name, factory in _plugin_pass_factories().items():
        factories.setdefault(name, factory)
    return factories


@cache
def _builtin_pass_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    """`pass_factories` less the plugins: found without scanning the installed
    packages' entry points (importing importlib.metadata and the scan cost a process
    some 60 ms, which a pipeline naming only these passes need not pay)."""
    from xdsl.transforms import get_all_passes

    factories = dict(get_all_passes())
    factories.update({name: _lazy(spec) for name, spec in XDSL_PASS_OVERRIDES.items()})
    factories.update({name: _lazy(spec) for name, spec in PASSES.items()})
    factories.update({name: (lambda t=t: t) for name, t in _REGISTERED_PASSES.items()})
    for name, spec in PIPELINES.items():
        factories[name] = _pipeline_factory(name, spec)
    return factories


def _plugin_pass_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    from importlib.metadata import entry_points

    return {
        ep.name: (lambda ep=ep: ep.load())
        for ep in entry_points(group=PLUGIN_ENTRY_POINT_GROUP)
    }


_REGISTERED_PASSES: dict[str, type[ModulePass]] = {}


def register_pass(pass_type: type[ModulePass]) -> type[ModulePass]:
    """
    Make a ModulePass subclass usable by name in every pipeline of this process (the
    JIT's, `ti.init(passes=...)`'s); usable as a class decorator. A name already taken
    by another pass is an error.

    Raises:
        TypeError: `pass_type` is not a ModulePass subclass.
        ValueError: another pass has that name.
    """
    from xdsl.passes import ModulePass

    if not (isinstance(pass_type, type) and issubclass(pass_type, ModulePass)):
        raise TypeError(f"register_pass takes a ModulePass subclass, got {pass_type!r}")
    name = pass_type.name
    known = _REGISTERED_PASSES.get(name)
    if known is None and (name in PASSES or name in PIPELINES):
        raise ValueError(f"a pass named '{name}' already exists")
    _REGISTERED_PASSES[name] = pass_type
    _builtin_pass_factories.cache_clear()
    _all_pass_factories.cache_clear()
    _shared_passes.cache_clear()
    return pass_type


def plugin_fingerprint(names: list[str]) -> str:
    """
    A digest of the source files of the passes among `names` that are not ours nor
    xDSL's (registered with register_pass, or installed through the entry-point group):
    part of the offline-cache key of a pipeline that runs them, so that editing a
    plugin's code never brings back code compiled by its old version. "" when none.
    """
    import hashlib

    found: dict[str, Any] = {}
    for name in names:
        if name in _REGISTERED_PASSES:
            found[name] = _REGISTERED_PASSES[name]
    missing = [n for n in names if n not in found and n not in PASSES and n not in PIPELINES]
    if missing:
        from importlib.metadata import entry_points

        for ep in entry_points(group=PLUGIN_ENTRY_POINT_GROUP):
            if ep.name in missing:
                found[ep.name] = ep.load()
    digest = hashlib.sha256()
    for name in sorted(found):
        source = b""
        for path in _source_files(found[name]):
            try:
                source += Path(path).read_bytes()
            except OSError:  # defined where no file holds it (a REPL): its name only
                pass
        digest.update(name.encode() + b"\0" + source + b"\0")
    return digest.hexdigest()[:16] if found else ""


def _source_files(pass_type: type) -> list[str]:
    """The files defining `pass_type`: its module's, else those of its methods' code
    (a class from `load_pass_plugin` has no module in sys.modules)."""
    import inspect

    try:
        return [inspect.getfile(pass_type)]
    except TypeError:
        pass
    files = {
        value.__code__.co_filename
        for value in vars(pass_type).values()
        if hasattr(value, "__code__")
    }
    return sorted(files)


def load_pass_plugin(path: str | Path) -> dict[str, type[ModulePass]]:
    """
    Import a Python file and return the ModulePass subclasses it defines, by name.

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: the file defines no pass.
    """
    from xdsl.passes import ModulePass

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"pass plugin '{path}' does not exist")
    module_spec = importlib.util.spec_from_file_location(f"ti_plugin_{path.stem}", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    passes = {
        value.name: value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, ModulePass)
        and value is not ModulePass
        and value.__module__ == module.__name__
    }
    if not passes:
        raise ValueError(f"pass plugin '{path}' defines no ModulePass subclass")
    return passes


def _pipeline_factory(name: str, spec: str) -> Callable[[], type[ModulePass]]:
    """A named pipeline as a pass whose apply runs the passes of `spec` in order."""

    def factory() -> type[ModulePass]:
        from dataclasses import dataclass

        from xdsl.passes import ModulePass

        @dataclass(frozen=True)
        class NamedPipeline(ModulePass):
            __doc__ = f"The named pipeline `{name}`: {spec}"

            def apply(self, ctx: Context, op: Any) -> None:
                build_pipeline(spec).apply(ctx, op)

        NamedPipeline.name = name
        NamedPipeline.__name__ = NamedPipeline.__qualname__ = "Pipeline_" + name.replace(
            "-", "_"
        )
        return NamedPipeline

    return factory


@cache
def _all_pass_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    return pass_factories()


def build_pipeline(spec: str, callback: Any = None) -> PassPipeline:
    """Parse a pass-spec string (`a,b{opt=1},c`) against the registry (the installed
    plugins are looked up only when the spec names a pass the registry lacks)."""
    from xdsl.passes import PassPipeline
    from xdsl.utils.arg_spec import parse_pipeline

    passes = _shared_passes(spec)
    if passes is not None:
        return PassPipeline(passes, callback)
    factories = _builtin_pass_factories()
    if any(p.name not in factories for p in parse_pipeline(spec)):
        factories = _all_pass_factories()
    return PassPipeline.parse_spec(factories, spec, callback)


@lru_cache(maxsize=256)
def _shared_passes(spec: str) -> tuple[ModulePass, ...] | None:
    """
    The passes of `spec`, built once a process when the registry has them all and each
    is hashable: a ModulePass is a frozen dataclass, so one whose options are all
    immutable keeps nothing between runs and one instance serves every compile.
    Building them (a dataclass's type hints read per pass) was 2.5 ms of each kernel's
    compile, for the same two specs every time. None: a plugin's pass, or a pass with
    a mutable option, built every time.
    """
    from xdsl.passes import PassPipeline
    from xdsl.utils.arg_spec import parse_pipeline

    factories = _builtin_pass_factories()
    if any(p.name not in factories for p in parse_pipeline(spec)):
        return None
    passes = PassPipeline.parse_spec(factories, spec).passes
    try:
        hash(passes)
    except TypeError:  # an option holds a list, a dict, ...
        return None
    return passes


def make_context(dialects: tuple[str, ...] | None = None) -> Context:
    """
    A context with every dialect registered lazily (loaded when the parser or a pass
    first needs it); `dialects` are loaded eagerly.
    """
    from xdsl.context import Context

    ctx = Context()
    for name, factory in dialect_factories().items():
        ctx.register_dialect(name, factory)
    for name in dialects or ():
        ctx.load_registered_dialect(name)
    return ctx


def _universe() -> Any:
    from xdsl.universe import Universe

    return Universe(
        all_dialects={name: _lazy(spec) for name, spec in DIALECTS.items()},
        all_passes={name: _lazy(spec) for name, spec in PASSES.items()},
    )


def __getattr__(name: str) -> Any:
    # `UNIVERSE` is built on demand so that importing this module imports no xDSL.
    if name == "UNIVERSE":
        return _universe()
    raise AttributeError(name)
