"""
Building AOT modules (`ti.aot.Module`, `export_as`, `start_recording`); the format is
targets/aot_format.py, loading is `ti.aot.load` (targets/aot.py).

    m = ti.aot.Module(ti.cpu)                        # caps: the declared CPU
    m.add_field("x", x)
    m.add_kernel(paint, template_args={"pixels": pixels})
    with m.add_kernel_template(fill) as kt:
        kt.instantiate(a=x)
    m.add_graph("step", graph)                        # a ti.graph CompiledGraph
    m.archive("module.tcm")                           # or m.save("module/")

What makes the bytes depend on the source and caps only:
- a kernel is compiled afresh for the module under its module name (`paint`), never
  taken from the JIT's cache (where its symbol may be `paint_1`, depending on what
  compiled first), with the declared CPU, never the host's;
- every kernel, field and graph is written sorted by name, JSON with sorted keys;
- the .tcm is a stored zip with fixed dates (aot_format.tcm_bytes).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from taichi_xdsl.targets import aot_format as fmt
from taichi_xdsl.targets.aot_format import ArgKind
from taichi_xdsl.utils.spirv_abi import TEXTURE_FORMATS
from taichi_xdsl.utils.errors import TaichiError, TaichiTypeError

from . import dtypes
from . import kernel as _kernel_module
from . import program as _program
from .field import Field
from .kernel import Kernel, _BoundKernel, _ndarray_data
from .matrix import MatrixType
from .ndarray import Ndarray
from .texture import TextureSlot, check_texture_argument
from .types import NdarrayType

__all__ = [
    "DeviceCapability",
    "KernelTemplate",
    "Module",
    "Recording",
    "export",
    "export_as",
    "start_recording",
    "stop_recording",
]

class _DeviceCapabilities:
    """`ti.DeviceCapability`: the device capability names a Vulkan module may declare
    (`ti.aot.Module(ti.vulkan, caps=[ti.DeviceCapability.spirv_has_int8])`), each the
    string of its name, as in Taichi."""

    def __init__(self) -> None:
        from taichi_xdsl.utils.spirv_abi import DEVICE_CAPABILITIES

        for name in DEVICE_CAPABILITIES:
            if name.startswith("spirv_has_"):
                setattr(self, name, name)

    def __repr__(self) -> str:
        return "ti.DeviceCapability"


DeviceCapability = _DeviceCapabilities()

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _check_name(what: str, name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise TaichiError(
            f"ti.aot: {what} name {name!r} must be an identifier (letters, digits, _)"
        )
    return name


def _unwrap(fn: Any) -> tuple[Kernel, tuple[Any, ...]]:
    """A kernel (and the object of a data-oriented method, as its first argument)."""
    if isinstance(fn, _BoundKernel):
        return fn.kernel, (fn.obj,)
    if isinstance(fn, Kernel):
        return fn, ()
    raise TaichiTypeError(f"ti.aot: {fn!r} is not a ti.kernel")


# -- export_as ----------------------------------------------------------------------------


class _Export:
    def __init__(self, kernel: Any, name: str, template_types: dict[str, Any]):
        self.kernel, self.name, self.template_types = kernel, name, template_types


_exported: list[_Export] = []


def export_as(name: str, *, template_types: dict[str, Any] | None = None) -> Any:
    """
    Mark a kernel for AOT export under `name`; `template_types` instantiates its template
    and ndarray parameters (as `add_kernel(template_args=...)`). `Module.add_kernel(k)`
    then uses that name, and `Module.add_exported()` adds every marked kernel.
    """
    _check_name("kernel", name)

    def mark(fn: Any) -> Any:
        _unwrap(fn)
        _exported.append(_Export(fn, name, dict(template_types or {})))
        return fn

    return mark


def export(fn: Any) -> Any:
    """`export_as(fn.__name__)`."""
    return export_as(_unwrap(fn)[0].__name__)(fn)


def _exported_name(fn: Any) -> _Export | None:
    for record in reversed(_exported):
        if record.kernel is fn:
            return record
    return None


# -- instantiation without running ---------------------------------------------------------


def _instantiating_args(
    kernel: Kernel, leading: tuple[Any, ...], template_args: dict[str, Any]
) -> tuple[Any, ...]:
    """Values for every parameter: given ones, else a dummy of the annotated type."""
    prog = _program.get_program()
    params = kernel._resolve_params(prog)
    names = {p.name for p in params}
    unknown = set(template_args) - names
    if unknown:
        raise TaichiTypeError(
            f"ti.aot: kernel '{kernel.__name__}' has no parameter(s) {sorted(unknown)}"
        )
    values: list[Any] = list(leading)
    for p in params[len(leading) :]:
        given = template_args.get(p.name, _MISSING)
        if p.kind == "template":
            if given is _MISSING:
                raise TaichiTypeError(
                    f"ti.aot: template parameter '{p.name}' of '{kernel.__name__}' needs "
                    "a value in template_args"
                )
            values.append(given)
        elif p.kind == "ndarray":
            values.append(_ndarray_dummy(kernel, p, given))
        elif p.kind == "texture":
            # compiled from the annotation; a given ti.Texture must fit it
            check_texture_argument(p.name, p.annotation, given)
            values.append(TextureSlot(p.annotation))
        elif p.kind == "aggregate":
            if not isinstance(p.annotation, MatrixType):
                raise TaichiTypeError(
                    f"ti.aot: parameter '{p.name}' of '{kernel.__name__}': struct "
                    "parameters are not supported in AOT modules yet (vectors and "
                    "matrices are)"
                )
            values.append(p.annotation(0))
        else:
            values.append(0.0 if p.dtype is not None and p.dtype.is_float else 0)
    return tuple(values)


_MISSING = object()


def _ndarray_dummy(kernel: Kernel, p: Any, given: Any) -> Ndarray:
    """An ndarray of the element type and ndim the module's kernel takes for `p`: from
    `given` (an ndarray, or ti.types.ndarray(dtype, ndim)), else from its annotation."""
    cfg = _program.get_program().config
    ann = p.annotation if isinstance(p.annotation, NdarrayType) else NdarrayType()
    if isinstance(given, Ndarray):
        return Ndarray(given.dtype, (1,) * len(given.shape), tuple(given.element_shape))
    if isinstance(given, np.ndarray):
        dt = dtypes.from_numpy_dtype(given.dtype)
        if dt is None:
            raise TaichiTypeError(
                f"ti.aot: ndarray parameter '{p.name}' of '{kernel.__name__}': Taichi has "
                f"no dtype {given.dtype}"
            )
        shape, _, _ = Kernel._wanted_element(ann, cfg)
        element_shape = tuple(shape or ())
        return Ndarray(dt, (1,) * (given.ndim - len(element_shape)), element_shape)
    if isinstance(given, NdarrayType):
        ann = NdarrayType(given.dtype or ann.dtype, given.ndim or ann.ndim)
    elif given is not _MISSING:
        raise TaichiTypeError(
            f"ti.aot: ndarray parameter '{p.name}' of '{kernel.__name__}' takes an ndarray "
            f"or ti.types.ndarray(dtype, ndim) in template_args, got {given!r}"
        )
    if ann.dtype is None or ann.ndim is None:
        raise TaichiTypeError(
            f"ti.aot: ndarray parameter '{p.name}' of '{kernel.__name__}' needs its dtype "
            "and ndim: annotate it or give an ndarray in template_args"
        )
    shape, dt, _ = Kernel._wanted_element(ann, cfg)
    return Ndarray(dt, (1,) * ann.ndim, tuple(shape or ()))


def _signature(kernel: Kernel, args: tuple[Any, ...]) -> str:
    """A readable, deterministic description of an instance (template objects by name)."""
    params = kernel._params or []
    parts = []
    for p, a in zip(params, args):
        if p.kind == "scalar":
            parts.append(f"{p.name}:{p.dtype}")
        elif p.kind == "ndarray":
            arr = _ndarray_data(a)
            dt = dtypes.from_numpy_dtype(arr.dtype)
            parts.append(f"{p.name}:ndarray({dt},{arr.ndim})")
        elif p.kind in ("texture", "aggregate"):
            parts.append(f"{p.name}:{p.annotation!r}")
        else:
            parts.append(f"{p.name}={_template_label(a)}")
    return ",".join(parts)


def _template_label(value: Any) -> str:
    if isinstance(value, Field):
        return value.name or value.symbol
    if type(value) in (int, float, bool, str):
        return repr(value)
    return type(value).__name__


def _arg_attributes(params: list[Any], args: tuple[Any, ...]) -> list[fmt.ArgAttributes]:
    """The metadata of the non-template parameters, in order."""
    out: list[fmt.ArgAttributes] = []
    for p, a in zip(params, args):
        if p.kind == "template":
            continue
        if p.kind == "scalar":
            assert p.dtype is not None
            out.append(fmt.ArgAttributes(len(out), p.name, ArgKind.SCALAR, p.dtype.name))
        elif p.kind == "aggregate":
            cfg = _program.get_program().config
            out.append(
                fmt.ArgAttributes(
                    len(out), p.name, ArgKind.MATRIX, p.annotation.cooked(cfg).name, 0,
                    tuple(p.annotation.shape),
                )
            )
        elif p.kind == "texture":
            out.append(_texture_attributes(len(out), p.name, p.annotation))
        else:
            arr = _ndarray_data(a)
            dt = dtypes.from_numpy_dtype(arr.dtype)
            assert dt is not None
            element_shape = tuple(a.element_shape) if isinstance(a, Ndarray) else ()
            ndim = arr.ndim - len(element_shape)
            out.append(
                fmt.ArgAttributes(
                    len(out), p.name, ArgKind.NDARRAY, dt.name, ndim, element_shape
                )
            )
    return out


def _texture_attributes(index: int, name: str, ann: Any) -> fmt.ArgAttributes:
    """A texture parameter's metadata: an rw_texture's format, its channel type and
    count; a sampled texture reads f32 channels whatever its format."""
    if not ann.rw:
        return fmt.ArgAttributes(index, name, ArgKind.TEXTURE, "f32", ann.num_dimensions)
    _, _, channels, storage = TEXTURE_FORMATS[ann.fmt]
    dtype = {"unorm8": "u8", "unorm16": "u16"}.get(storage, storage)
    return fmt.ArgAttributes(
        index, name, ArgKind.RWTEXTURE, dtype, ann.num_dimensions, (), channels, 0, ann.fmt
    )


def _check_ir_args(name: str, ir_args: list[Any], attrs: list[fmt.ArgAttributes]) -> None:
    if ir_args != [dtype for a in attrs for dtype, _ in a.launch_args()]:
        raise TaichiError(
            f"ti.aot: kernel '{name}': argument types {ir_args} do not match the "
            "parameters (internal error)"
        )


def _args_bytes(attrs: list[fmt.ArgAttributes]) -> int:
    from taichi_xdsl.utils import abi

    ranks = [rank for a in attrs for _, rank in a.launch_args()]
    if not ranks:
        return 0
    last = ranks[-1]
    size = abi.SCALAR_ARG_BYTES if last is None else abi.ndarray_arg_bytes(last)
    return abi.arg_offsets(ranks)[-1] + size


class _Entry:
    """One kernel of a module, compiled: its metadata and object code."""

    def __init__(
        self, attrs: fmt.KernelAttributes, code: bytes | dict[str, bytes], signature: str
    ):
        self.attrs, self.code, self.signature = attrs, code, signature


# -- the module -----------------------------------------------------------------------------


class Module:
    """
    An AOT module for `arch` (ti.cpu or ti.vulkan), built for the declared `caps`, never
    the live host's or device's. CPU: a dict {"cpu": "x86-64-v3", "features": "+fma"} or
    a list ["x86-64-v3", "+fma"] (default x86-64-v2). Vulkan: Taichi's cap names, a list
    ["spirv_has_int64", ...] or a dict {name: value} (default utils/spirv_abi.DEFAULT_CAPS);
    metadata.json's required_caps lists what the generated SPIR-V actually uses.
    """

    def __init__(self, arch: Any = None, caps: Any = None):
        from taichi_xdsl.targets.llvm.aot import CpuTarget
        from taichi_xdsl.targets.vulkan.aot import declared_caps

        prog = _program.get_program()
        arch = prog.config.arch if arch is None else arch
        name = getattr(arch, "name", arch)
        if name in ("x64", "cpu"):
            self.arch = "x64"
            self.target = CpuTarget.from_caps(caps)
        elif name == "vulkan":
            self.arch = "vulkan"
            self.vulkan_caps = declared_caps(caps)
        else:
            raise TaichiError(
                f"ti.aot.Module: arch {name!r} is not supported (ti.cpu, ti.vulkan)"
            )
        self.program = prog
        self._kernels: dict[str, _Entry] = {}
        self._fields: dict[str, Field] = {}
        self._graphs: dict[str, fmt.GraphAttributes] = {}
        self._runtime_object: bytes | None = None
        self._required: dict[str, dict[str, int]] = {}

    # -- kernels ------------------------------------------------------------------------

    def add_kernel(
        self,
        kernel_fn: Any,
        template_args: dict[str, Any] | None = None,
        name: str | None = None,
    ) -> str:
        """
        Compile `kernel_fn` into the module (without running it) under `name` (default:
        its export_as name, else its __name__). `template_args` give template parameters
        their objects and ndarray parameters their dtype/ndim (an ndarray, or
        ti.types.ndarray(dtype, ndim)); annotated ndarrays and scalars need nothing.
        Returns the name.
        """
        record = _exported_name(kernel_fn)
        if name is None and record is not None:
            name = record.name
        if template_args is None and record is not None:
            template_args = record.template_types
        kernel, leading = _unwrap(kernel_fn)
        args = _instantiating_args(kernel, leading, dict(template_args or {}))
        return self._add_instance(kernel, args, name or kernel.__name__)

    def _add_instance(self, kernel: Kernel, args: tuple[Any, ...], name: str) -> str:
        _check_name("kernel", name)
        signature = _signature(kernel, args)
        existing = self._kernels.get(name)
        if existing is not None:
            if existing.signature == f"{kernel.__module__}.{kernel.__name__}({signature})":
                return name
            raise TaichiError(f"ti.aot: the module already has a kernel named '{name}'")
        attrs, code = self._compile(kernel, args, name)
        full = f"{kernel.__module__}.{kernel.__name__}({signature})"
        self._kernels[name] = _Entry(attrs, code, full)
        return name

    def _instance_name(self, kernel: Kernel, args: tuple[Any, ...]) -> str:
        """A name for a kernel instance added by a graph or a recording: its own name,
        suffixed by a digest of its signature if that name is taken by another instance."""
        base = kernel.__name__
        full = f"{kernel.__module__}.{kernel.__name__}({_signature(kernel, args)})"
        entry = self._kernels.get(base)
        if entry is None or entry.signature == full:
            return base
        return f"{base}_{hashlib.sha256(full.encode()).hexdigest()[:8]}"

    def _compile(
        self, kernel: Kernel, args: tuple[Any, ...], name: str
    ) -> tuple[fmt.KernelAttributes, bytes | dict[str, bytes]]:
        from taichi_xdsl.targets.llvm.aot import compile_object, lower_kernel
        from taichi_xdsl.utils import abi

        prog = self.program
        if prog is not _program._current:
            raise TaichiError("ti.aot: the module's program was ended by ti.init/ti.reset")
        params = kernel._resolve_params(prog)
        kernel._key_checked(args)
        named = [f"{p.name}.{a}" for p in params for a in p.companions]
        if named:  # kernel.py passes them as hidden arguments, which a module lacks
            raise TaichiError(
                f"ti.aot: kernel '{kernel.__name__}' reads {', '.join(named)}: an AOT "
                "module cannot pass an ndarray's gradient; pass it as a parameter"
            )
        taken = {f.symbol for f in prog.fields}
        symbol = name if name not in taken else f"{name}__kernel"
        try:
            module = kernel.build_module(prog, args, symbol)
        except TaichiError as error:
            raise error.with_traceback(None) from None
        cfg = prog.config
        if self.arch == "vulkan":
            return self._compile_vulkan(kernel, params, args, name, module, symbol)
        opt_level = _program.llvm_opt_level(cfg.opt_level)
        plan, llvm_ir = lower_kernel(
            module,
            symbol,
            debug=cfg.debug,
            passes=_edits(cfg.passes, kernel.passes),
            opt_level=opt_level,
        )
        code = compile_object(
            llvm_ir, self.target, opt_level=opt_level, fast_math=cfg.fast_math
        )
        arg_attrs = _arg_attributes(params, args)
        _check_ir_args(name, [getattr(a, "dtype", None) for a in plan.args], arg_attrs)
        rets = [t.name for t in kernel._returns]
        tasks = [
            fmt.TaskAttributes(
                t.symbol,
                t.kind,
                None
                if t.begin is None
                else fmt.Bound(t.begin.dtype, t.begin.value, t.begin.gtmp_offset),
                None
                if t.end is None
                else fmt.Bound(t.end.dtype, t.end.value, t.end.gtmp_offset),
                t.block_dim,
            )
            for t in plan.tasks
        ]
        attrs = fmt.KernelAttributes(
            name,
            arg_attrs,
            rets,
            tasks,
            plan.gtmp_bytes,
            plan.thread_local_bytes,
            f"{name}.o",
            _args_bytes(arg_attrs),
            abi.RETURN_SLOT_BYTES * len(rets),
        )
        return attrs, code

    def _compile_vulkan(
        self,
        kernel: Kernel,
        params: list[Any],
        args: tuple[Any, ...],
        name: str,
        module: Any,
        symbol: str,
    ) -> tuple[fmt.KernelAttributes, dict[str, bytes]]:
        from taichi_xdsl.targets.vulkan.aot import lower_kernel, required_caps
        from taichi_xdsl.utils import abi

        passes = _edits(self.program.config.passes, kernel.passes)
        compiled = lower_kernel(
            module,
            symbol,
            self.vulkan_caps,
            passes=passes,
            optimize=self.program.config.opt_level > 0,
            debug=self.program.config.debug,
        )
        needed = required_caps(compiled.binaries)
        extra = [
            cap
            for cap, value in needed.items()
            if cap.startswith("spirv_has") and self.vulkan_caps.get(cap, 0) < value
        ]
        if extra:
            raise TaichiError(
                f"ti.aot: kernel '{name}' uses {', '.join(sorted(extra))}, which the "
                "declared caps do not have (internal error)"
            )
        arg_attrs = _arg_attributes(params, args)
        _check_ir_args(name, [dtype for dtype, _ in compiled.plan.args], arg_attrs)
        rets = [t.name for t in kernel._returns]
        tasks = []
        code: dict[str, bytes] = {}
        for index, (t, binary) in enumerate(zip(compiled.plan.tasks, compiled.binaries)):
            begin = end = None
            if t.kind != "serial":
                begin, end = (
                    fmt.Bound("i32", None, compiled.gtmp_bounds[(index, side)])
                    if value is None
                    else fmt.Bound("i32", value)
                    for side, value in (("begin", t.begin), ("end", t.end))
                )
            spv = f"{t.symbol}.spv"
            code[spv] = binary
            tasks.append(
                fmt.TaskAttributes(t.symbol, t.kind, begin, end, None, spv, t.last_group)
            )
        attrs = fmt.KernelAttributes(
            name,
            arg_attrs,
            rets,
            tasks,
            compiled.plan.gtmp_bytes,
            0,
            None,
            _args_bytes(arg_attrs),
            abi.RETURN_SLOT_BYTES * len(rets),
            compiled.prints,
            compiled.asserts or None,
        )
        self._required[name] = needed
        return attrs, code

    @contextlib.contextmanager
    def add_kernel_template(self, kernel_fn: Any) -> Iterator[KernelTemplate]:
        """`with m.add_kernel_template(k) as kt: kt.instantiate(a=x)`."""
        yield KernelTemplate(kernel_fn, self)

    def add_exported(self) -> list[str]:
        """Add every kernel marked with ti.aot.export_as / export; their names."""
        return [self.add_kernel(r.kernel) for r in list(_exported)]

    def add_recording(self, recording: Recording | str | Path) -> list[str]:
        """Add the kernel instances of a recording (stop_recording(), or its .yml)."""
        if not isinstance(recording, Recording):
            recording = Recording.load(recording)
        names = []
        for kernel, args in recording.instances:
            names.append(
                self._add_instance(kernel, args, self._instance_name(kernel, args))
            )
        return names

    # -- fields and graphs ---------------------------------------------------------------

    def add_field(self, name: str, field: Field) -> None:
        """Add field `field` (its dtype, shape and place in the root buffer) as `name`."""
        _check_name("field", name)
        if not isinstance(field, Field):
            raise TaichiTypeError(f"ti.aot add_field: {field!r} is not a ti.field")
        if not field.placed:
            raise TaichiError(f"ti.aot add_field: field '{name}' has no shape yet")
        if field.program is not self.program:
            raise TaichiError(
                f"ti.aot add_field: field '{name}' belongs to another program"
            )
        self._fields[name] = field

    def add_graph(self, name: str, graph: Any) -> None:
        """Add a compiled ti.graph (and every kernel it dispatches) as `name`."""
        from .graph import CompiledGraph

        _check_name("graph", name)
        if not isinstance(graph, CompiledGraph):
            raise TaichiTypeError("ti.aot add_graph: expected a ti.graph compiled graph")
        dispatches = []
        for d, values in zip(graph.dispatches, graph.instantiating):
            kernel_name = self._add_instance(
                d.kernel, values, self._instance_name(d.kernel, values)
            )
            params = d.kernel._params or []
            names = [a.name for p, a in zip(params, d.args) if p.kind != "template"]
            dispatches.append((kernel_name, names))
        args = [fmt.GraphArg.from_json(a.to_json(), name) for a in graph.args.values()]
        self._graphs[name] = fmt.GraphAttributes(name, args, dispatches)

    # -- output -------------------------------------------------------------------------

    def metadata(self) -> fmt.ModuleMetadata:
        cfg = self.program.config
        fields = [
            fmt.FieldAttributes(name, f.dtype.name, f.shape, f.offset)
            for name, f in self._fields.items()
        ]
        root_size = (
            -(-self.program.root_size // _program.FIELD_ALIGN) * _program.FIELD_ALIGN
        )
        if self.arch == "vulkan":
            caps: dict[str, Any] = {"spirv_version": 0x10000}
            for name in self._kernels:
                for cap, value in self._required.get(name, {}).items():
                    caps[cap] = max(caps.get(cap, 0), value)
        else:
            caps = self.target.required_caps()
        return fmt.ModuleMetadata(
            self.arch,
            caps,
            root_size,
            fields,
            [e.attrs for e in self._kernels.values()],
            {"debug": cfg.debug, "fast_math": cfg.fast_math, "opt_level": cfg.opt_level},
        )

    def files(self) -> dict[str, bytes]:
        """Every file of the module, by name."""
        from taichi_xdsl.targets.llvm.aot import compile_pool_object
        from taichi_xdsl.targets.llvm.aot_loader import POOL_OBJECT

        metadata = self.metadata().to_json()
        graphs = fmt.graphs_json(list(self._graphs.values()))
        files = {
            fmt.CONTENT_FILE: fmt.content_lines(metadata, graphs),
            fmt.VERSION_FILE: fmt.FORMAT_VERSION.encode(),
            fmt.METADATA_FILE: fmt.dumps(metadata),
            fmt.GRAPHS_FILE: fmt.dumps(graphs),
        }
        if self.arch == "x64":
            if self._runtime_object is None:
                self._runtime_object = compile_pool_object(self.target)
            files[POOL_OBJECT] = self._runtime_object
        for entry in self._kernels.values():
            if isinstance(entry.code, dict):
                files.update(entry.code)
            else:
                assert entry.attrs.object_file is not None
                files[entry.attrs.object_file] = entry.code
        return files

    def save(self, filepath: str | Path) -> None:
        """Write the module as a folder (created if needed)."""
        fmt.write_folder(self.files(), filepath)

    def archive(self, filepath: str | Path) -> None:
        """Write the module as one .tcm file (`filepath` must end with .tcm)."""
        if not str(filepath).endswith(".tcm"):
            raise fmt.AotFormatError(f"an AOT archive must end with .tcm, got '{filepath}'")
        fmt.write_tcm(self.files(), filepath)


class KernelTemplate:
    """`kt.instantiate(a=x, b=y)` adds one instance of a template kernel."""

    def __init__(self, kernel_fn: Any, module: Module):
        self._kernel_fn = kernel_fn
        self._module = module

    def instantiate(self, **kwargs: Any) -> str:
        """Add the instance for these template arguments, named `<kernel>__<a>_<x>...`;
        a field is named by its module name (add_field) or its own name."""
        kernel, _ = _unwrap(self._kernel_fn)
        fields = {id(f): n for n, f in self._module._fields.items()}
        parts = [kernel.__name__]
        for key in sorted(kwargs):
            value = kwargs[key]
            label = fields.get(id(value)) or _template_label(value)
            parts.append(f"{key}_{re.sub(r'[^A-Za-z0-9_]', '_', label)}")
        return self._module.add_kernel(self._kernel_fn, kwargs, "__".join(parts))


# -- recording -------------------------------------------------------------------------------


class Recording:
    """The kernel instances launched between start_recording and stop_recording."""

    def __init__(self) -> None:
        self.instances: list[tuple[Kernel, tuple[Any, ...]]] = []
        self._seen: set[tuple[int, str]] = set()

    def record(self, kernel: Kernel, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        prog = _program.get_program()
        try:
            kernel._resolve_params(prog)
            bound = kernel._bind(args, kwargs)
            kernel._key_checked(bound)
        except Exception:  # noqa: BLE001 - the call itself reports bad arguments
            return
        params = kernel._params or []
        values = tuple(
            np.zeros((1,) * _ndarray_data(a).ndim, dtype=_ndarray_data(a).dtype)
            if p.kind == "ndarray"
            else a
            for p, a in zip(params, bound)
        )
        key = (id(kernel), _signature(kernel, values))
        if key not in self._seen:
            self._seen.add(key)
            self.instances.append((kernel, values))

    def to_yaml(self) -> str:
        lines = ["kernels:"]
        for kernel, values in self.instances:
            lines.append(f"- name: {kernel.__name__}")
            lines.append(f"  module: {kernel.__module__}")
            lines.append(
                f"  qualname: {getattr(kernel.fn, '__qualname__', kernel.__name__)}"
            )
            lines.append("  args:")
            for p, a in zip(kernel._params or [], values):
                if p.kind == "scalar":
                    lines.append(f"  - {{name: {p.name}, kind: scalar, dtype: {p.dtype}}}")
                elif p.kind == "ndarray":
                    dt = dtypes.from_numpy_dtype(a.dtype)
                    lines.append(
                        f"  - {{name: {p.name}, kind: ndarray, dtype: {dt}, ndim: {a.ndim}}}"
                    )
                else:
                    label = _template_label(a).replace("'", "''")
                    lines.append(
                        f"  - {{name: {p.name}, kind: template, value: '{label}'}}"
                    )
        return "\n".join(lines) + "\n"

    @classmethod
    def load(cls, path: str | Path) -> Recording:
        """Read a recording's .yml; its kernels must be importable module attributes and
        take no template arguments (those objects live only in the recording process)."""
        import yaml

        data = yaml.safe_load(Path(path).read_text()) or {}
        rec = cls()
        for item in data.get("kernels", []):
            module = importlib.import_module(item["module"])
            obj: Any = module
            for part in str(item["qualname"]).split("."):
                obj = getattr(obj, part, None)
            if not isinstance(obj, Kernel):
                raise TaichiError(
                    f"ti.aot recording {path}: {item['module']}.{item['qualname']} is not "
                    "an importable ti.kernel"
                )
            cfg = _program.get_program().config
            values: list[Any] = []
            for arg in item.get("args", []):
                if arg["kind"] == "template":
                    raise TaichiError(
                        f"ti.aot recording {path}: kernel '{item['name']}' has a template "
                        "argument; add it from the Recording object instead"
                    )
                dt = dtypes.cook_dtype(str(arg["dtype"]), cfg.default_ip, cfg.default_fp)
                if arg["kind"] == "ndarray":
                    values.append(np.zeros((1,) * int(arg["ndim"]), dtype=dt.np_dtype))
                else:
                    values.append(0.0 if dt.is_float else 0)
            rec.instances.append((obj, tuple(values)))
        return rec


_recording: tuple[Recording, Path] | None = None


def start_recording(filename: str | Path) -> None:
    """Record every kernel launched until stop_recording() (written to `filename`)."""
    global _recording
    recording = Recording()
    _recording = (recording, Path(filename))
    _kernel_module.set_hook("call", recording.record)


def stop_recording() -> Recording:
    """Stop recording; write the .yml and return the Recording (for Module.add_recording)."""
    global _recording
    if _recording is None:
        raise TaichiError("ti.aot.stop_recording(): start_recording() was not called")
    recording, path = _recording
    _recording = None
    _kernel_module.set_hook("call", None)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(recording.to_yaml())
    return recording


def _edits(program: Any, kernel: Any) -> Any:
    """The pipeline edits of a kernel: ti.init's, then the kernel's own."""
    if program is None:
        return kernel
    return program.merged(kernel)
