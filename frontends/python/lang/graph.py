"""
`ti.graph`: compute graphs, a fixed sequence of kernel launches over named arguments.

    x = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "x", dtype=ti.f32, ndim=1)
    n = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "n", ti.i32)
    g = ti.graph.GraphBuilder()
    g.dispatch(fill, x, n)
    g.dispatch(scale, x)
    graph = g.compile()                 # every kernel compiled now
    graph.run({"x": arr, "n": 8})       # the dispatches in order, args bound by name

On the CPU a compiled graph holds each dispatch's compiled launcher and calls them in
order. On Vulkan the first run records every dispatch into one command buffer and each
run replays it, with the argument buffers updated (targets/vulkan/graph.py). `ti.aot.Module.add_graph(name, graph)` saves it (graphs.json) with its kernels.
Template parameters take a concrete object in `dispatch` (a field, a number): it is
baked into the kernel instance, as in Taichi.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from taichi_xdsl.targets.aot_format import ArgKind
from taichi_xdsl.utils.errors import TaichiError, TaichiRuntimeError, TaichiTypeError

from . import dtypes
from . import program as _program
from .kernel import Kernel, _aggregate_flattener, _BoundKernel
from .ndarray import Ndarray
from .texture import TextureSlot, format_name
from .types import NdarrayType

__all__ = ["Arg", "ArgKind", "CompiledGraph", "GraphBuilder", "Sequential"]


class Arg:
    """
    A symbolic graph argument, bound by `name` when the graph runs.

    Args:
        tag: its kind (ArgKind.SCALAR, NDARRAY, MATRIX, TEXTURE, RWTEXTURE).
        name: the key of its value in `run({...})`.
        dtype: element type (a scalar's type, an ndarray's element type, a texture's
            channel format).
        ndim: an ndarray's (or texture's) number of dimensions; `field_dim` is its old name.
        fmt: a writable texture's format.
        element_shape, channel_format, shape, num_channels: removed in Taichi 1.7; each
            raises Taichi's TaichiRuntimeError saying what replaces it.
    """

    def __init__(
        self,
        tag: ArgKind,
        name: str,
        dtype: Any = None,
        ndim: int | None = None,
        field_dim: int | None = None,
        element_shape: tuple[int, ...] | None = None,
        channel_format: Any = None,
        shape: tuple[int, ...] | None = None,
        num_channels: int | None = None,
        fmt: Any = None,
    ):
        self.tag = ArgKind(tag)
        self.name = str(name)
        _reject_removed_arguments(self.tag, element_shape, channel_format, shape, num_channels)
        if dtype is None and channel_format is not None:
            dtype = channel_format
        cfg = _program.get_program().config
        self.element_shape: tuple[int, ...] = ()
        """(n,) / (n, m) for a vector/matrix dtype (`ti.math.vec2`), () for a scalar one."""
        if hasattr(dtype, "cooked") and hasattr(dtype, "shape"):  # ti.types.vector/matrix
            if self.tag is ArgKind.SCALAR:
                raise TaichiRuntimeError(
                    f"Tag ArgKind.SCALAR must specify a scalar type, but found {dtype!r}."
                )
            self.element_shape = tuple(dtype.shape)
            dtype = dtype.cooked(cfg)
        elif self.tag is ArgKind.MATRIX and dtype is not None:
            raise TaichiRuntimeError(
                f"Tag ArgKind.MATRIX must specify a vector or matrix type "
                f"(ti.types.vector/matrix), but found {dtype!r}."
            )
        self.dtype = (
            None
            if dtype is None
            else dtypes.cook_dtype(dtype, cfg.default_ip, cfg.default_fp)
        )
        self.ndim = ndim if ndim is not None else field_dim
        self.shape: tuple[int, ...] = ()
        self.num_channels = 0
        self.fmt = fmt
        if self.tag in (ArgKind.SCALAR, ArgKind.NDARRAY, ArgKind.MATRIX) and self.dtype is None:
            raise TaichiError(f"ti.graph.Arg '{self.name}': {self.tag.name} needs a dtype")
        if self.tag is ArgKind.NDARRAY and self.ndim is None:
            raise TaichiError(f"ti.graph.Arg '{self.name}': NDARRAY needs ndim")
        if self.tag is ArgKind.RWTEXTURE and fmt is None:
            raise TaichiError(f"ti.graph.Arg '{self.name}': RWTEXTURE needs fmt")

    @property
    def element_type(self) -> str:
        """Its dtype as Taichi's messages name it: `f32`, `VectorType[2, f32]`."""
        shape = self.element_shape
        if not shape:
            return str(self.dtype)
        if len(shape) == 1:
            return f"VectorType[{shape[0]}, {self.dtype}]"
        return f"MatrixType[{shape[0]},{shape[1]}, {self.dtype}]"

    def same_as(self, other: Arg) -> bool:
        return (
            self.tag,
            self.dtype,
            self.ndim,
            self.element_shape,
            self.fmt,
        ) == (
            other.tag,
            other.dtype,
            other.ndim,
            other.element_shape,
            other.fmt,
        )

    def to_json(self) -> dict[str, Any]:
        """The graphs.json record (aot_format.GraphArg)."""
        return {
            "name": self.name,
            "tag": self.tag.name,
            "dtype": None if self.dtype is None else self.dtype.name,
            "ndim": self.ndim or 0,
            "element_shape": list(self.element_shape),
            "num_channels": self.num_channels,
            "shape": list(self.shape),
        }

    def __repr__(self) -> str:
        return f"ti.graph.Arg({self.tag.name}, {self.name!r}, dtype={self.dtype})"


def _reject_removed_arguments(
    tag: ArgKind, element_shape: Any, channel_format: Any, shape: Any, num_channels: Any
) -> None:
    """The arguments Taichi 1.7 removed from ti.graph.Arg raise its errors, word for
    word (a vector/matrix dtype replaces element_shape, ndim a texture's shape, fmt a
    writable texture's channel_format/num_channels)."""
    removed = "is deprecated in v1.6.0, and {} removed in v1.7.0."
    if element_shape is not None and tag is ArgKind.SCALAR:
        raise TaichiRuntimeError(
            "The element_shape argument for scalar " + removed.format("is")
            + " Please remove them."
        )
    if element_shape is not None:
        raise TaichiRuntimeError(
            "The element_shape argument for ndarray " + removed.format("it is")
            + " Please use vector or matrix data type instead."
        )
    if tag in (ArgKind.TEXTURE, ArgKind.RWTEXTURE) and shape is not None:
        raise TaichiRuntimeError(
            "The shape argument for texture " + removed.format("it is")
            + " Please use ndim instead. (Note that you no longer need the exact "
            "texture size.)"
        )
    if tag is ArgKind.TEXTURE and (channel_format is not None or num_channels is not None):
        raise TaichiRuntimeError(
            "The channel_format and num_channels arguments are no longer required for "
            "non-RW textures since v1.6.0, and they are removed in v1.7.0. Please remove them."
        )
    if tag is ArgKind.RWTEXTURE and (channel_format is not None or num_channels is not None):
        raise TaichiRuntimeError(
            "The channel_format and num_channels arguments for texture are deprecated in "
            "v1.6.0, and they are removed in v1.7.0. Please use fmt instead."
        )


class Dispatch:
    """One kernel launch of a graph: the kernel and its arguments (Args or objects)."""

    def __init__(self, kernel: Any, args: tuple[Any, ...]):
        if isinstance(kernel, _BoundKernel):
            args = (kernel.obj, *args)
            kernel = kernel.kernel
        if not isinstance(kernel, Kernel):
            raise TaichiTypeError(f"ti.graph dispatch: {kernel!r} is not a ti.kernel")
        self.kernel = kernel
        self.args = args
        self.instantiating = check_dispatch(self)
        """A value per parameter that selects the kernel instance the Args call for."""


class Sequential:
    """An ordered list of dispatches (and nested sequences); every Arg name of a builder
    stands for one argument (`args`, shared with the sequences it creates)."""

    def __init__(self, args: dict[str, Arg] | None = None) -> None:
        self.nodes: list[Dispatch | Sequential] = []
        self.args: dict[str, Arg] = {} if args is None else args

    def dispatch(self, kernel: Any, *args: Any) -> None:
        """Add a launch of `kernel`; its Args are checked against its parameters now.

        Raises:
            TaichiCompilationError: an Arg's kind, dtype or ndim differs from the
                kernel's annotation (Taichi's "doesn't match kernel's annotated ...").
            TaichiRuntimeError: another Arg of the graph has this Arg's name.
        """
        d = Dispatch(kernel, args)
        for a in d.args:
            if isinstance(a, Arg) and not self.args.setdefault(a.name, a).same_as(a):
                raise TaichiRuntimeError(f"An arg with name {a.name} already exists!")
        self.nodes.append(d)

    def append(self, node: Sequential) -> None:
        if not isinstance(node, Sequential):
            raise TaichiTypeError("append() takes a sequence from create_sequential()")
        self.nodes.append(node)

    def flatten(self) -> list[Dispatch]:
        out: list[Dispatch] = []
        for node in self.nodes:
            out.extend(node.flatten() if isinstance(node, Sequential) else [node])
        return out


class GraphBuilder(Sequential):
    """Builds a graph: `dispatch(kernel, *args)`, `create_sequential()` + `append`."""

    def create_sequential(self) -> Sequential:
        return Sequential(self.args)

    def compile(self) -> CompiledGraph:
        return CompiledGraph(self.flatten())


def dummy_value(arg: Arg, param: Any) -> Any:
    """A value of `arg`'s type, to pick the kernel instance it selects."""
    if arg.tag is ArgKind.SCALAR:
        assert arg.dtype is not None
        return 0.0 if arg.dtype.is_float else 0
    if arg.tag is ArgKind.NDARRAY:
        assert arg.dtype is not None and arg.ndim is not None
        return Ndarray(arg.dtype, (1,) * arg.ndim, arg.element_shape)
    if arg.tag is ArgKind.MATRIX:
        return param.annotation(0)
    return TextureSlot(param.annotation)


def _mismatch(what: str, arg: Arg, p: Any, have: Any, want: Any) -> TaichiTypeError:
    return TaichiTypeError(
        f"Arg {arg.name}'s {what} {have} doesn't match kernel's annotated {what}={want} "
        f"(parameter '{p.name}')"
    )


_PARAM_TAGS = {
    "scalar": (ArgKind.SCALAR,),
    "ndarray": (ArgKind.NDARRAY,),
    "aggregate": (ArgKind.MATRIX,),
    "texture": (ArgKind.TEXTURE, ArgKind.RWTEXTURE),
}
"""The Arg kinds each kind of kernel parameter takes (a writable texture can be read)."""


def check_arg(kernel_name: str, p: Any, a: Arg) -> None:
    """`a` against the kernel parameter `p`, as Taichi checks at dispatch."""
    if a.tag not in _PARAM_TAGS.get(p.kind, ()):
        raise TaichiTypeError(
            f"ti.graph: '{p.name}' of '{kernel_name}' is a {p.kind} parameter, got a "
            f"{a.tag.name} Arg '{a.name}'"
        )
    cfg = _program.get_program().config
    ann = p.annotation
    if p.kind == "scalar" and a.dtype is not p.dtype:
        raise _mismatch("dtype", a, p, a.dtype, p.dtype)
    if p.kind == "aggregate":
        want = (tuple(ann.shape), ann.cooked(cfg))
        if (a.element_shape, a.dtype) != want:
            raise _mismatch("dtype", a, p, a.element_type, ann)
    if p.kind == "ndarray" and isinstance(ann, NdarrayType):
        if ann.ndim is not None and ann.ndim != a.ndim:
            raise TaichiTypeError(
                f"{a.ndim} from Arg {a.name} doesn't match kernel's annotated "
                f"ndim={ann.ndim} (parameter '{p.name}')"
            )
        want_shape, want_dt, want_name = Kernel._wanted_element(ann, cfg)
        if want_dt is not None and (
            a.dtype is not want_dt or a.element_shape != (want_shape or ())
        ):
            raise _mismatch("dtype", a, p, a.element_type, want_name)
    if p.kind == "texture":
        if a.ndim is not None and a.ndim != ann.num_dimensions:
            raise TaichiTypeError(
                f"{a.ndim} from Arg {a.name} doesn't match kernel's annotated "
                f"ndim={ann.num_dimensions} (parameter '{p.name}')"
            )
        if ann.rw and a.tag is not ArgKind.RWTEXTURE:
            raise TaichiTypeError(
                f"ti.graph: '{p.name}' of '{kernel_name}' is an rw_texture, Arg "
                f"'{a.name}' is a TEXTURE (use ArgKind.RWTEXTURE with fmt)"
            )
        if ann.rw and format_name(a.fmt) != ann.fmt:
            raise _mismatch("fmt", a, p, format_name(a.fmt), ann.fmt)


def check_dispatch(d: Dispatch) -> tuple[Any, ...]:
    """Check `d`'s arguments against its kernel's parameters; the instantiating values."""
    prog = _program.get_program()
    params = d.kernel._resolve_params(prog)
    name = d.kernel.__name__
    if len(d.args) != len(params):
        raise TaichiTypeError(
            f"ti.graph: kernel '{name}' takes {len(params)} argument(s), "
            f"dispatch gives {len(d.args)}"
        )
    values = []
    for p, a in zip(params, d.args):
        if p.kind == "template":
            if isinstance(a, Arg):
                raise TaichiTypeError(
                    f"ti.graph: template parameter '{p.name}' of '{name}' takes a concrete "
                    "object (a field, a number), not a graph Arg"
                )
            values.append(a)
            continue
        if not isinstance(a, Arg):
            raise TaichiTypeError(
                f"ti.graph: argument '{p.name}' of '{name}' must be a ti.graph.Arg"
            )
        check_arg(name, p, a)
        values.append(dummy_value(a, p))
    return tuple(values)


def bind_value(arg: Arg, value: Any) -> Any:
    """
    A value given to `run`, checked against the Arg its dispatches were compiled for;
    a matrix is taken by its components in row-major order (as Taichi: a vector of 8
    numbers fills a 4x2 matrix Arg).

    Raises:
        TaichiRuntimeError: Taichi's "Dispatch node is compiled for argument ..." errors
            (another ndim, dtype, element shape or matrix size).
    """
    where = f"Dispatch node is compiled for argument {arg.name} with"
    if arg.tag is ArgKind.NDARRAY:
        if not isinstance(value, Ndarray | np.ndarray):
            raise TaichiRuntimeError(
                f"{where} an ndarray, got {type(value).__name__} (a ti.ndarray or a "
                "NumPy array)"
            )
        if isinstance(value, Ndarray):
            element_shape, dtype = tuple(value.element_shape), value.dtype
            field_dim = len(value.shape)
        else:
            element_shape = tuple(value.shape[value.ndim - len(arg.element_shape) :])
            dtype = dtypes.from_numpy_dtype(value.dtype)
            field_dim = value.ndim - len(arg.element_shape)
        if element_shape != arg.element_shape:
            raise TaichiRuntimeError(
                f"{where} element_shape={arg.element_shape} but got an ndarray with "
                f"element_shape={element_shape}"
            )
        if field_dim != arg.ndim:
            raise TaichiRuntimeError(
                f"{where} field_dim={arg.ndim} but got an ndarray with field_dim={field_dim}"
            )
        if dtype is not arg.dtype:
            raise TaichiRuntimeError(
                f"{where} dtype={arg.dtype} but got an ndarray with dtype={dtype}"
            )
    elif arg.tag is ArgKind.MATRIX:
        components = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
        size = math.prod(arg.element_shape)
        if components.size != size:
            raise TaichiRuntimeError(
                f"{where} size={size} but got a matrix with size={components.size}"
            )
        return components.reshape(arg.element_shape)
    return value


class CompiledGraph:
    """A graph ready to run: `run({arg name: value})` launches its dispatches in order."""

    def __init__(self, dispatches: list[Dispatch]):
        if not dispatches:
            raise TaichiError("ti.graph: a graph needs at least one dispatch")
        self.dispatches = dispatches
        self.args: dict[str, Arg] = {}
        self.instantiating: list[tuple[Any, ...]] = []
        self._steps: list[tuple[Callable[[tuple[Any, ...]], Any], list[Any]]] = []
        self._program = _program.get_program()
        for d in dispatches:
            values = d.instantiating
            for a in d.args:
                if isinstance(a, Arg):
                    self.args.setdefault(a.name, a)
            self.instantiating.append(values)
            run = d.kernel.instance(*values)
            self._steps.append((run, list(d.args)))
        self.recorded: Any = self._recorded_graph()
        """Vulkan: the RecordedGraph that `run` replays (None on the CPU)."""

    def _recorded_graph(self) -> Any:
        """On Vulkan, the dispatches as one RecordedGraph (targets/vulkan/graph.py)."""
        prog = self._program
        if prog.config.arch is not _program.vulkan:
            return None
        from taichi_xdsl.targets.vulkan.graph import RecordedGraph

        steps = []
        self._converters: list[Callable[[tuple[Any, ...]], Any] | None] = []
        for d, (run, spec) in zip(self.dispatches, self._steps):
            compiled = getattr(run, "compiled", None)
            if compiled is None:
                return None
            params = d.kernel._resolve_params(prog)
            names: list[str | None] = []
            for p, a, value in zip(params, spec, d.instantiating):
                if p.kind == "ndarray":
                    names.append(a.name)
                elif p.kind == "aggregate":  # one launch argument per component
                    names.extend([None] * len(_aggregate_flattener(p.name, p.annotation)(value)))
                elif p.kind != "template":
                    names.append(None)
            # x.grad named in the kernel: one more ndarray, last (kernel.py's converter)
            names += [f"{a.name}.{c}" for p, a in zip(params, spec) for c in p.companions]
            steps.append((compiled, names))
            self._converters.append(d.kernel._make_converter(params))
        return RecordedGraph(prog.backend, steps)

    def run(self, args: Mapping[str, Any]) -> None:
        """Run every dispatch in order with `args` (values by Arg name)."""
        missing = [n for n in self.args if n not in args]
        if missing:
            raise TaichiTypeError(f"ti.graph run: missing argument(s) {sorted(missing)}")
        args = {name: bind_value(arg, args[name]) for name, arg in self.args.items()}
        if self.recorded is not None and self._program is _program._current:
            step_args = []
            for (_, spec), conv in zip(self._steps, self._converters):
                values = tuple(args[a.name] if isinstance(a, Arg) else a for a in spec)
                step_args.append(values if conv is None else conv(values))
            self.recorded.run(self._program._root, step_args)
            return
        for run, spec in self._steps:
            run(tuple(args[a.name] if isinstance(a, Arg) else a for a in spec))
