"""
What loaded AOT modules share, whatever their arch: kernels callable with numpy arrays
(or ndarray-likes with `.arr`) and scalars, by position or name; graphs run by argument
name; fields by name. Imports numpy only.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from taichi_xdsl.targets.aot_format import (
    AotFormatError,
    ArgKind,
    GraphAttributes,
    KernelAttributes,
)
from taichi_xdsl.utils.errors import TaichiTypeError


def _array(value: Any) -> Any:
    """A numpy array from a numpy array or an ndarray-like (`.arr`)."""
    if type(value) is np.ndarray:
        return value
    arr = getattr(value, "arr", None)
    return arr if isinstance(arr, np.ndarray) else value


def _array_of(
    kernel: str, name: str, element_shape: tuple[int, ...]
) -> Callable[[Any], Any]:
    """`_array`, checking that the array's trailing dimensions are `element_shape` (a
    vector/matrix ndarray's elements: an array of another element shape would be read
    with the wrong layout)."""

    def array(value: Any) -> Any:
        arr = _array(value)
        k = len(element_shape)
        trailing = tuple(getattr(arr, "shape", ())[-k:])
        if trailing != element_shape:
            raise TaichiTypeError(
                f"kernel '{kernel}': argument '{name}' is an ndarray of elements of shape "
                f"{element_shape}, got an array of shape {getattr(arr, 'shape', None)}"
            )
        return arr

    return array


def _components(
    kernel: str, name: str, shape: tuple[int, ...], dtype: str
) -> Callable[[Any], list[Any]]:
    """A vector/matrix argument (a ti.Matrix, nested lists, an array) -> its components
    in row-major order, one launch argument each."""
    size = int(np.prod(shape))
    wrap = _wrap(int(dtype[1:])) if dtype.startswith("u") and dtype != "u1" else None

    def components(value: Any) -> list[Any]:
        arr = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
        if arr.shape != shape and arr.size != size:
            raise TaichiTypeError(
                f"kernel '{kernel}': argument '{name}' is a {shape} matrix, got "
                f"{arr.shape}"
            )
        items = [x.item() for x in arr.ravel()]
        return [wrap(x) for x in items] if wrap is not None else items

    return components


def _one(conv: Callable[[Any], Any] | None) -> Callable[[Any], list[Any]]:
    if conv is None:
        return lambda value: [value]
    return lambda value: [conv(value)]


def _unsupported(kernel: str, name: str, kind: str) -> Callable[[Any], Any]:
    """A parameter a loaded module cannot bind yet: the kernel loads, a call raises."""

    def refuse(value: Any) -> Any:
        raise TaichiTypeError(
            f"kernel '{kernel}': argument '{name}' is a {kind}; loaded AOT modules do not "
            "take texture arguments yet (compile the kernel in the program instead)"
        )

    return refuse


def _wrap(bits: int) -> Callable[[Any], int]:
    mask, top = (1 << bits) - 1, 1 << (bits - 1)

    def wrap(x: Any) -> int:
        x = int(x) & mask
        return x - (1 << bits) if x >= top else x

    return wrap


class AotKernel:
    """A kernel of a loaded module: call it with its arguments, by position or name."""

    def __init__(self, attrs: KernelAttributes, launch: Any, root: Callable[[], Any]):
        self.attrs = attrs
        self.name = attrs.name
        self._launch = launch
        self._root = root
        self._arg_names = [a.name for a in attrs.args]
        self._signature = inspect.Signature(
            [
                inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                for n in self._arg_names
            ]
        )
        convs: list[Callable[[Any], Any] | None] = []
        self._flat = any(a.kind is ArgKind.MATRIX for a in attrs.args)
        """Whether a parameter takes several launch arguments (its conv returns a list)."""
        for a in attrs.args:
            if a.kind is ArgKind.NDARRAY:
                convs.append(_array_of(self.name, a.name, a.element_shape) if a.element_shape else _array)
            elif a.kind is ArgKind.SCALAR:
                unsigned = a.dtype.startswith("u") and a.dtype != "u1"
                convs.append(_wrap(int(a.dtype[1:])) if unsigned else None)
            elif a.kind is ArgKind.MATRIX:
                convs.append(_components(self.name, a.name, a.element_shape, a.dtype))
            else:
                convs.append(_unsupported(self.name, a.name, a.kind.name))
        if self._flat:  # every parameter's launch arguments as a list, spliced in order
            convs = [
                c if a.kind is ArgKind.MATRIX else _one(c)
                for c, a in zip(convs, attrs.args)
            ]
        self._convs = convs
        self._masks = [
            (1 << int(d[1:])) - 1 if d.startswith("u") else 0 for d in attrs.rets
        ]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != len(self._convs):
            try:
                bound = self._signature.bind(*args, **kwargs)
            except TypeError as error:
                raise TypeError(f"kernel '{self.name}': {error}") from None
            args = tuple(bound.arguments[n] for n in self._arg_names)
        values = self.launch_values(args)
        result = self._launch(self._root(), values)
        if not result:
            return None
        result = tuple(int(r) & m if m else r for r, m in zip(result, self._masks))
        return result[0] if len(result) == 1 else result

    def launch_values(self, args: Sequence[Any]) -> list[Any]:
        """The launch arguments of a call with `args` (one per parameter, in order)."""
        if self._flat:
            return [x for c, v in zip(self._convs, args) for x in c(v)]  # type: ignore[misc]
        return [c(v) if c is not None else v for c, v in zip(self._convs, args)]

    def __repr__(self) -> str:
        return f"<AOT kernel {self.name}({', '.join(self._arg_names)})>"


class AotGraph:
    """A compiled graph of a loaded module: `run({arg name: value})` runs its dispatches."""

    def __init__(self, attrs: GraphAttributes, kernels: Mapping[str, AotKernel]):
        self.attrs = attrs
        self.name = attrs.name
        self.arg_names = [a.name for a in attrs.args]
        self._steps = []
        for kernel_name, names in attrs.dispatches:
            kernel = kernels.get(kernel_name)
            if kernel is None:
                raise AotFormatError(
                    f"graph '{self.name}' dispatches kernel '{kernel_name}', which the "
                    "module does not have"
                )
            if len(names) != len(kernel.attrs.args):
                raise AotFormatError(
                    f"graph '{self.name}': kernel '{kernel_name}' takes "
                    f"{len(kernel.attrs.args)} arguments, the graph passes {len(names)}"
                )
            self._steps.append((kernel, tuple(names)))

    def run(self, args: Mapping[str, Any]) -> None:
        missing = [n for n in self.arg_names if n not in args]
        if missing:
            raise TaichiTypeError(f"graph '{self.name}': missing argument(s) {missing}")
        for kernel, names in self._steps:
            kernel(*[args[n] for n in names])


class AotModuleBase:
    """`kernels`, `graphs`, `fields` by name; get_kernel / get_graph / get_field / set_field."""

    kernels: dict[str, AotKernel]
    graphs: dict[str, AotGraph]
    root: np.ndarray | None
    fields: Mapping[str, np.ndarray]

    def _get_root(self) -> Any:
        return self.root

    def get_kernel(self, name: str) -> AotKernel:
        try:
            return self.kernels[name]
        except KeyError:
            raise KeyError(
                f"the module has no kernel '{name}' (it has {sorted(self.kernels)})"
            ) from None

    def get_graph(self, name: str) -> AotGraph:
        try:
            return self.graphs[name]
        except KeyError:
            raise KeyError(
                f"the module has no graph '{name}' (it has {sorted(self.graphs)})"
            ) from None

    def get_field(self, name: str) -> np.ndarray:
        """A copy of field `name`'s values (after every launched kernel)."""
        if name not in self.fields:
            raise KeyError(
                f"the module has no field '{name}' (it has {sorted(self.fields)})"
            )
        return np.array(self.fields[name])

    def set_field(self, name: str, values: Any) -> None:
        """Write field `name` (an array of its shape)."""
        if name not in self.fields:
            raise KeyError(
                f"the module has no field '{name}' (it has {sorted(self.fields)})"
            )
        self.fields[name][...] = values
