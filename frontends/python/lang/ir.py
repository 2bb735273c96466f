"""
`ti.compile_ir`: compile and launch a kernel from MLIR text, so that a pass can be tried
by hand on real kernels: dump a kernel (`ti.init(dump_ir=dir)`, `kernel.get_ir(...)`),
change it or run `ti-opt` on it, and run the result.

    ti.init(arch=ti.cpu)
    k = ti.compile_ir("dump/saxpy.offload.mlir")      # a path, or the text itself
    k(2.0, x, y)                                        # numpy arrays, ti.ndarrays, scalars

The IR may be at any stage of the current arch's pipeline: `taichi` (the frontend's),
`offload`, or the last stage (`llvm` on cpu, `spirv` on vulkan), which carries its launch
plan in the module attribute `ti.launch_plans`; the rest of the pipeline (with ti.init's
pipeline edits) runs on it. Fields in the IR are the root-buffer offsets of the program
that dumped it: declare the same fields in the same order first (a root buffer smaller
than the IR's fields is an error, never a stray write).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from taichi_xdsl.utils.errors import TaichiCompilationError, TaichiTypeError

from . import program as _program


class IrKernel:
    """
    A kernel compiled from IR: call it with the kernel's arguments (scalars, NumPy
    arrays, ti.ndarrays) in order; returns what the kernel returns (one value, a tuple,
    or None). Integer returns come back signless, as the IR has them.

    Attributes:
        name: the kernel's symbol; stage: the stage the IR was in; compiled: the
        backend's kernel (its `plan`).
    """

    def __init__(self, prog: _program.Program, compiled: Any, name: str, stage: str):
        self._prog = prog
        self.compiled = compiled
        self.name = name
        self.stage = stage
        self._nargs = len(compiled.plan.args)
        self._nret = len(compiled.plan.returns)

    def __call__(self, *args: Any) -> Any:
        from .kernel import _ndarray_data

        if _program._current is not self._prog:
            raise TaichiCompilationError(
                f"kernel '{self.name}' from IR belongs to a program that ti.init ended"
            )
        if len(args) != self._nargs:
            raise TaichiTypeError(
                f"kernel '{self.name}' takes {self._nargs} argument(s), got {len(args)}"
            )
        launch_args = tuple(
            a if isinstance(a, int | float | np.number | np.bool_) else _ndarray_data(a)
            for a in args
        )
        self._prog.materialize()
        result = self.compiled.launch(self._prog._root, launch_args)
        if self._nret == 0:
            return None
        return result[0] if self._nret == 1 else tuple(result)


def compile_ir(source: str | os.PathLike[str], name: str | None = None) -> IrKernel:
    """
    Compile kernel `name` of MLIR `source` (a path to a .mlir file, or the text) for
    the current program's arch; `name` may be left out when the IR holds one kernel.

    Raises:
        TaichiCompilationError: the text does not parse (a located diagnostic), holds
            no such kernel, needs more root buffer than the program's fields give, or a
            pass rejects it.
    """
    from taichi_xdsl.utils import registry
    from taichi_xdsl.utils.diagnostics import LocatedDiagnostic, LocatingParser
    from taichi_xdsl.utils.pass_runner import required_root_bytes, stage_of
    from xdsl.utils.exceptions import ParseError

    text, filename = _read(source)
    prog = _program.get_program()
    try:
        module = LocatingParser(registry.make_context(), text, filename).parse_module()
        module.verify()
    except (ParseError, LocatedDiagnostic) as error:
        raise TaichiCompilationError(f"ti.compile_ir: {error}") from None
    except Exception as error:  # a verifier failure: name the op's position
        from taichi_xdsl.utils.diagnostics import verify_located

        try:
            verify_located(module)
        except LocatedDiagnostic as located:
            raise TaichiCompilationError(f"ti.compile_ir: {located}") from None
        raise TaichiCompilationError(f"ti.compile_ir: {error}") from None
    name = name or _only_kernel(module)
    stage = stage_of(module, name)
    needed = required_root_bytes(module, name)
    prog.materialize()
    have = 0 if prog._root is None else prog._root.nbytes
    if needed > have:
        raise TaichiCompilationError(
            f"ti.compile_ir: kernel '{name}' uses {needed} bytes of fields, the program "
            f"has {have}: declare the fields of the program that dumped it (same order)"
        )
    compiled = prog.backend.compile(module, name)
    return IrKernel(prog, compiled, name, stage)


def _read(source: str | os.PathLike[str]) -> tuple[str, str]:
    """(text, file name for diagnostics) of a path or of MLIR text."""
    if isinstance(source, os.PathLike) or (
        "\n" not in source and "{" not in source and Path(source).suffix == ".mlir"
    ):
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"ti.compile_ir: no file '{path}'")
        return path.read_text(), str(path)
    return str(source), "<compile_ir>"


def _only_kernel(module: Any) -> str:
    names = [
        op.sym_name.data  # type: ignore[attr-defined]
        for op in module.body.block.ops
        if op.name in ("taichi.kernel", "offload.kernel")
    ]
    plans = module.attributes.get("ti.launch_plans")
    names += [n for n in getattr(plans, "data", {}) if n not in names]
    if len(names) != 1:
        found = ", ".join(names) or "none"
        raise TaichiCompilationError(
            f"ti.compile_ir: name the kernel to compile (kernels in the IR: {found})"
        )
    return names[0]


# -- ti-opt --from-python -------------------------------------------------------------------


def kernels_of_file(path: str | os.PathLike[str], argv: list[str] | None = None) -> Any:
    """
    The taichi-dialect IR of every kernel of the Python program `path`, as one
    `builtin.module` (fields + one `taichi.kernel` per instance), for `ti-opt
    --from-python` and lit tests.

    The program runs (as `__main__`, with `sys.argv = [path, *argv]`, the offline cache
    off) and every kernel instance it compiles is kept. A kernel it never calls is
    built as well when its parameters say all it needs (scalars, and ndarrays with dtype
    and ndim); one taking templates is reported on stderr and left out.

    Raises:
        TaichiCompilationError: the program ran ti.init twice with different fields.
    """
    import runpy
    import sys

    import contextlib

    from xdsl.dialects.builtin import ModuleOp

    from . import kernel as _kernel

    path = Path(path)
    built: list[tuple[Any, Any]] = []
    seen: set[int] = set()

    def hook(kernel: Any, module: Any) -> None:
        seen.add(id(kernel))
        built.append((kernel, module.clone()))

    saved = (_kernel._build_hook, sys.argv, os.environ.get("TI_OFFLINE_CACHE"))
    _kernel._build_hook = hook
    sys.argv = [str(path), *(argv or [])]
    os.environ["TI_OFFLINE_CACHE"] = "0"
    try:
        with contextlib.redirect_stdout(sys.stderr):  # the program's prints: not the IR
            namespace = runpy.run_path(str(path), run_name="__main__")
            for value in list(namespace.values()):
                if isinstance(value, _kernel.Kernel) and id(value) not in seen:
                    _build_uncalled(value, hook)
    finally:
        _kernel._build_hook, sys.argv = saved[0], saved[1]
        if saved[2] is None:
            os.environ.pop("TI_OFFLINE_CACHE", None)
        else:
            os.environ["TI_OFFLINE_CACHE"] = saved[2]
    merged: dict[str, Any] = {}
    for kernel, module in built:
        for op in list(module.body.block.ops):
            symbol = op.sym_name.data  # type: ignore[attr-defined]
            text = str(op)
            if symbol in merged and str(merged[symbol]) != text:
                if op.name == "taichi.field":
                    raise TaichiCompilationError(
                        f"ti-opt --from-python: field @{symbol} is declared twice with "
                        f"different layouts (the program calls ti.init more than once)"
                    )
                continue  # a kernel instance built again under its own name
            op.detach()
            merged.setdefault(symbol, op)
    fields = [op for op in merged.values() if op.name == "taichi.field"]
    kernels = [op for op in merged.values() if op.name != "taichi.field"]
    return ModuleOp(fields + kernels)


def _build_uncalled(kernel: Any, hook: Any) -> None:
    """Build `kernel` with placeholder arguments when its annotations fix its types."""
    import sys

    from .types import NdarrayType

    prog = _program.get_program()
    try:
        params = kernel._resolve_params(prog)
    except Exception as error:  # noqa: BLE001 - reported, the rest goes on
        print(f"ti-opt: kernel '{kernel.__name__}' left out: {error}", file=sys.stderr)
        return
    args: list[Any] = []
    for p in params:
        if p.kind == "scalar":
            args.append(p.dtype.np_dtype.type(0))
            continue
        ann = p.annotation
        dtype = getattr(ann, "dtype", None)
        ndim = getattr(ann, "ndim", None)
        if p.kind != "ndarray" or not isinstance(ann, NdarrayType) or dtype is None or ndim is None:
            print(
                f"ti-opt: kernel '{kernel.__name__}' is never called and its parameter "
                f"'{p.name}' ({p.kind}) does not fix its type: left out",
                file=sys.stderr,
            )
            return
        from . import dtypes

        element_shape = tuple(getattr(dtype, "shape", ()) or ())
        scalar = getattr(dtype, "dtype", dtype) if element_shape else dtype
        cooked = dtypes.cook_dtype(scalar, prog.config.default_ip, prog.config.default_fp)
        args.append(np.zeros((1,) * ndim + element_shape, dtype=cooked.np_dtype))
    try:
        kernel.build_module(prog, tuple(args), kernel.__name__)
    except Exception as error:  # noqa: BLE001 - reported, the rest goes on
        print(f"ti-opt: kernel '{kernel.__name__}' left out: {error}", file=sys.stderr)
