"""
`ti.ad`: automatic differentiation (reverse and forward mode), as Taichi's.

    x = ti.field(ti.f32, 8, needs_grad=True)       # x.grad: a field of the same shape
    loss = ti.field(ti.f32, (), needs_grad=True)

    with ti.ad.Tape(loss=loss):                    # records the kernels launched,
        compute_loss()                             # then seeds loss.grad[None] = 1 and
                                                   # runs their adjoints in reverse
    x.grad.to_numpy()                              # d loss / d x

`kernel.grad(*args)` launches a kernel's adjoint by hand. The adjoint of an instance is
the `@k_grad` kernel that the `ti-auto-diff` pass (lowering/auto_diff.py) builds from the
primal's IR; it is compiled once per template signature, like the primal.

Forward mode: inside `with ti.ad.FwdMode(loss=y, param=x, seed=[...])` a kernel runs
`@k_fwd` instead (`ti-auto-diff{mode=forward}`, lowering/auto_diff_forward.py), which
does what the kernel does and also carries x.dual (the seed) through to y.dual.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

import numpy as np

from taichi_xdsl.utils.errors import (
    TaichiAssertionError,
    TaichiCompilationError,
    TaichiError,
    TaichiRuntimeError,
)

from . import kernel as _kernel
from . import program as _program
from .enums import AutodiffMode
from .field import Field, check_companions_placed
from .ndarray import Ndarray
from .ops import Intrinsic
from .tape_snapshots import Snapshot

AD_PIPELINE = "ti-mem2reg,canonicalize,cse,ti-localize-elements,ti-auto-diff"
"""What runs on a primal kernel's module before its adjoint is compiled (after
ti-scalarize, when registered: the adjoint is built on scalar IR)."""


# -- the adjoint of a kernel ---------------------------------------------------------------


def _annotate_grads(module: Any, prog: _program.Program, kind: str = "grad") -> None:
    """Name each field's gradient (kind 'grad') or dual ('dual') field on its
    taichi.field (`grad = @x_grad`, `dual = @x_dual`)."""
    from taichi_xdsl.dialects import taichi
    from xdsl.dialects.builtin import SymbolRefAttr

    by_symbol = {f.symbol: f for f in prog.fields if f.placed}
    for op in module.ops:
        if isinstance(op, taichi.FieldOp):
            f = by_symbol.get(op.sym_name.data)
            primal = f is not None and f.primal is None
            companion = getattr(f, kind, None) if primal else None
            if companion is not None and companion.placed:
                op.attributes[kind] = SymbolRefAttr(companion.symbol)


def _ndarray_grads(k: _kernel.Kernel, args: tuple[Any, ...]) -> tuple[int, ...]:
    """The positions of the ndarray arguments whose gradient the adjoint accumulates:
    those with a gradient ndarray, unless annotated `ndarray(needs_grad=False)` (a
    constant to the adjoint, whatever its argument carries)."""
    assert k._params is not None
    return tuple(
        i
        for i, (p, a) in enumerate(zip(k._params, args))
        if p.kind == "ndarray"
        and getattr(a, "grad", None) is not None
        and getattr(p.annotation, "needs_grad", None) is not False
    )


def _mark_ndarray_grads(
    kernel_op: Any, k: _kernel.Kernel, grad_positions: tuple[int, ...]
) -> None:
    """Give the ndarray arguments with a gradient the `taichi.grad` argument attribute."""
    from taichi_xdsl.lowering.auto_diff import NEEDS_GRAD_ARG
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, UnitAttr

    assert k._params is not None
    runtime = [i for i, p in enumerate(k._params) if p.kind != "template"]
    attrs = [
        DictionaryAttr({NEEDS_GRAD_ARG: UnitAttr()} if i in grad_positions else {})
        for i in runtime
    ]
    kernel_op.arg_attrs = ArrayAttr(attrs)


class AutodiffError(TaichiCompilationError, RuntimeError):
    """A kernel ti.ad cannot differentiate (Taichi raises a RuntimeError there)."""


def _uses_field(module: Any, symbol: str) -> bool:
    from taichi_xdsl.dialects import taichi

    return any(
        isinstance(op, taichi.GetFieldOp) and op.field.root_reference.data == symbol
        for op in module.walk()
    )


def adjoint_module(
    kernel: _kernel.Kernel,
    prog: _program.Program,
    args: tuple[Any, ...],
    symbol: str,
    grad_positions: tuple[int, ...] = (),
    forward: bool = False,
) -> Any:
    """
    The module holding `@<symbol>_grad`, the adjoint of the instance `args` select; it
    takes the gradients of the ndarrays at `grad_positions` as extra last arguments.
    With `forward`, `@<symbol>_fwd` instead: the primal computing the duals too.
    """
    from taichi_xdsl.dialects import taichi
    from taichi_xdsl.utils import registry
    from taichi_xdsl.utils.diagnostics import PassOptionError
    from xdsl.utils.exceptions import DiagnosticException

    assert kernel._params is not None
    named = [f"{p.name}.{a}" for p in kernel._params for a in p.companions]
    if named:  # Taichi's refusal: the adjoint of a gradient read is not defined here
        raise AutodiffError(
            f"kernel '{kernel.__name__}' reads {', '.join(named)}: Cannot automatically "
            "differentiate through a grad tensor"
        )
    module = kernel.build_module(prog, args, symbol, real_calls=False)
    counter = getattr(prog, "_rng_launch_counter", None)  # codegen/random.py's
    if not forward and counter is not None and _uses_field(module, counter.symbol):
        raise AutodiffError(
            f"kernel '{kernel.__name__}': RandStmt not supported in autodiff: its "
            "adjoint would draw other ti.random() numbers than the kernel did"
        )
    _annotate_grads(module, prog, "dual" if forward else "grad")
    if grad_positions:
        for op in module.ops:
            if isinstance(op, taichi.KernelOp) and op.sym_name.data == symbol:
                _mark_ndarray_grads(op, kernel, grad_positions)
    try:
        stack_size = int(prog.config.ad_stack_size or 0)
        spec = AD_PIPELINE + (
            "{mode=forward}"
            if forward
            else f"{{ad_stack_size={stack_size} restore_overwritten=true}}"
        )
        if "ti-scalarize" in registry.PASSES:
            spec = f"ti-scalarize,{spec}"
        registry.build_pipeline(spec).apply(registry.make_context(), module)
    except (DiagnosticException, PassOptionError) as error:
        raise AutodiffError(
            f"kernel '{kernel.__name__}': cannot differentiate it: {error}"
        ) from None
    for op in list(module.ops):
        if isinstance(op, taichi.KernelOp) and op.sym_name.data == symbol:
            module.body.block.erase_op(op)
    return module


def _derived_instance(
    k: _kernel.Kernel, args: tuple[Any, ...], kwargs: dict[str, Any], forward: bool
) -> tuple[Callable[[tuple[Any, ...]], Any], tuple[Any, ...]]:
    """The compiled adjoint (or, with `forward`, tangent) instance for these arguments,
    cached per program and signature; and the arguments bound."""
    prog = _program.get_program()
    slot = "_fwd_instances" if forward else "_grad_instances"
    owner, cache = k.__dict__.get(slot, (None, {}))
    if owner is not prog:
        cache = {}
        k.__dict__[slot] = (prog, cache)
    _prepare(k, prog)
    args = k._bind(args, kwargs)
    grads = () if forward else _ndarray_grads(k, args)
    key = (k._key_checked(args), grads)
    run = cache.get(key)
    if run is None:
        run = cache[key] = _instantiate_adjoint(k, prog, args, grads, forward)
    return run, args


class AdjointKernel:
    """`kernel.grad`: call it with the primal's arguments to run the adjoint."""

    __slots__ = ("kernel", "obj")

    def __init__(self, kernel: _kernel.Kernel, obj: Any = None):
        self.kernel = kernel
        self.obj = obj

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self.launch(args, kwargs, restored=False)

    def launch(self, args: tuple[Any, ...], kwargs: dict[str, Any], restored: bool) -> None:
        """Run the adjoint; `restored`: a ti.ad.Tape put back the fields it names
        (`restores`) as they were before the primal's launch."""
        if self.obj is not None:
            args = (self.obj, *args)
        run, args = _derived_instance(self.kernel, args, kwargs, forward=False)
        if run.restores and not restored:
            names = ", ".join(str(f) for f, _ in run.restores)
            raise TaichiRuntimeError(
                f"kernel '{self.kernel.__name__}' overwrites {names} after reading it, "
                "and its adjoint needs the values it read (global data access rule): "
                "differentiate it inside ti.ad.Tape, which keeps them, or write the "
                "result to another field"
            )
        run(args)

    def get_ir(self, *args: Any, **kwargs: Any) -> Any:
        """The module of the adjoint kernel (after ti-auto-diff), not compiled."""
        if self.obj is not None:
            args = (self.obj, *args)
        k = self.kernel
        prog = _program.get_program()
        _prepare(k, prog)
        args = k._bind(args, kwargs)
        k._key_checked(args)
        return adjoint_module(k, prog, args, k.__name__, _ndarray_grads(k, args))


def _prepare(k: _kernel.Kernel, prog: _program.Program) -> None:
    """Resolve a kernel's parameters for the current program (as its first call does)."""
    if prog.generation != k._generation:
        k._instances.clear()
        k._keepalive.clear()
        k._params = None
        k._generation = prog.generation
    k._resolve_params(prog)


def _instantiate_adjoint(
    k: _kernel.Kernel,
    prog: _program.Program,
    args: tuple[Any, ...],
    grad_positions: tuple[int, ...],
    forward: bool = False,
) -> Callable[[tuple[Any, ...]], Any]:
    check_companions_placed(prog)
    symbol = prog.unique_symbol(k.__name__)
    module = adjoint_module(k, prog, args, symbol, grad_positions, forward)
    compiled = prog.backend.compile(module, f"{symbol}{'_fwd' if forward else '_grad'}")
    prog.materialize()
    assert k._params is not None
    conv = k._make_converter(k._params)
    launch = compiled.launch

    def run(args: tuple[Any, ...]) -> Any:
        launch_args = conv(args) if conv is not None else args
        if grad_positions:
            launch_args = (*launch_args, *(args[i].grad.arr for i in grad_positions))
        out = launch(prog._root, launch_args)
        if prog.__dict__.get("pools"):
            from .pools import clear_zero_blocks

            clear_zero_blocks(prog)
        return out

    run.restores = (  # type: ignore[attr-defined]
        [] if forward else _restores(module, symbol, prog)
    )
    return run


def _restores(
    module: Any, symbol: str, prog: _program.Program
) -> list[tuple[Field, tuple[str, ...]]]:
    """The fields the adjoint `@<symbol>_grad` needs as they were before the primal's
    launch, each with the box of it the primal writes (lowering/auto_diff_restore.py)."""
    from taichi_xdsl.dialects import taichi

    by_symbol = {f.symbol: f for f in prog.fields if f.placed}
    for op in module.ops:
        if isinstance(op, taichi.KernelOp) and op.sym_name.data == f"{symbol}_grad":
            attr = op.attributes.get("restore")
            if attr is None:
                return []
            return [
                (
                    by_symbol[entry.data["field"].root_reference.data],
                    tuple(t.data for t in entry.data["box"].data),
                )
                for entry in attr.data
            ]
    return []


# -- validation: the global data access rule ---------------------------------------------


def check_global_data_access(module: Any, kernel_name: str) -> None:
    """
    Raise when a kernel writes a field with a gradient after reading it (program order):
    its adjoint would read the overwritten value and give wrong gradients (Taichi's
    global data access rule; `ti.ad.Tape(validation=True)`).
    """
    from taichi_xdsl.dialects import taichi
    from xdsl.dialects import memref

    with_grad = {
        op.sym_name.data
        for op in module.ops
        if isinstance(op, taichi.FieldOp) and "grad" in op.attributes
    }

    def field_of(ptr: Any) -> str | None:
        owner = ptr.owner
        if isinstance(owner, taichi.ElementPtrOp) and isinstance(
            owner.base.owner, taichi.GetFieldOp
        ):
            return owner.base.owner.field.root_reference.data
        return None

    read: set[str] = set()
    for op in module.walk():
        if isinstance(op, memref.LoadOp):
            name = field_of(op.memref)
            if name in with_grad:
                read.add(name)
        elif isinstance(op, memref.StoreOp | taichi.AtomicOp):
            dest = op.memref if isinstance(op, memref.StoreOp) else op.dest
            name = field_of(dest)
            if name is not None and name in read:
                raise TaichiAssertionError(
                    f"kernel '{kernel_name}' breaks the global data access rule: field "
                    f"'{name}' is written after it is read in the same kernel, so its "
                    "gradients would be wrong (write the result to another field)"
                )


# -- the tape ------------------------------------------------------------------------------

_tape: Tape | None = None


def _record(k: _kernel.Kernel, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    if _tape is not None and _tape.recording:
        _tape.insert(k, args, kwargs)
        if _tape.validating:
            _validate(k, args, kwargs)


def _validate(k: _kernel.Kernel, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    prog = _program.get_program()
    _prepare(k, prog)
    bound = k._bind(args, kwargs)
    key = (prog.generation, k._key_checked(bound))
    checked: set[Any] = k.__dict__.setdefault("_gdar_checked", set())
    if key in checked:
        return
    module = k.build_module(prog, bound, k.__name__, real_calls=False)
    _annotate_grads(module, prog)
    from taichi_xdsl.utils import registry

    if "ti-scalarize" in registry.PASSES:  # vector accesses become element accesses
        registry.build_pipeline("ti-scalarize").apply(registry.make_context(), module)
    check_global_data_access(module, k.__name__)
    checked.add(key)


class Tape:
    """
    Record kernel launches and differentiate them (Taichi's `ti.ad.Tape`). A kernel that
    overwrites a field it read has what it overwrites saved before its launch and put
    back while its adjoint runs (tape_snapshots.py), so its gradients are right where
    Taichi's reread the new values.

    Args:
        loss: a 0-d field with needs_grad=True; its gradient is set to 1 before the
            adjoints run (None: seed the gradients yourself).
        clear_gradients: zero every gradient field of the program on entry.
        validation: check each recorded kernel against the global data access rule
            (a field written after it is read) and raise TaichiAssertionError; as in
            Taichi, only under ti.init(debug=True) (otherwise it warns). Recorded
            kernels have `autodiff_mode` VALIDATION until the tape exits.
        grad_check: a list of fields whose gradients are checked against central
            differences of the loss after the adjoints ran (the loss must be f64, as in
            Taichi); AssertionError names each field that fails.
    """

    def __init__(
        self,
        loss: Any = None,
        clear_gradients: bool = True,
        validation: bool = False,
        grad_check: Any = None,
    ):
        if loss is not None:
            if not isinstance(loss, Field | Ndarray):
                raise TaichiError("ti.ad.Tape(loss=...) needs a field or an ndarray")
            if loss.grad is None or not getattr(loss.grad, "placed", True):
                raise TaichiError(
                    "ti.ad.Tape: the loss field needs needs_grad=True to be differentiated"
                )
            if isinstance(loss, Field) and loss.shape != ():
                raise TaichiError("ti.ad.Tape: the loss must be a 0-d field (x[None])")
            if isinstance(loss, Ndarray) and int(np.prod(loss.shape)) != 1:
                raise TaichiError("ti.ad.Tape: the loss must be an ndarray of one element")
        if grad_check is not None and not isinstance(grad_check, list):
            raise TaichiError("ti.ad.Tape(grad_check=...) takes a list of fields")
        self.grad_check: list[Field] = list(grad_check or [])
        self._backups: list[tuple[Field, Any]] = []
        if self.grad_check:
            if loss is None or str(loss.dtype) != "f64":
                raise TaichiError("ti.ad.Tape(grad_check=...) needs an f64 loss field")
        self.loss = loss
        self.clear_gradients = clear_gradients
        self.validation = validation
        self.entries: list[tuple[Any, tuple[Any, ...], dict[str, Any]]] = []
        self.snapshots: dict[int, list[Snapshot]] = {}
        """Entry -> the parts of the fields it overwrote after reading them, as they
        were before its launch (tape_snapshots.py); freed when the adjoints ran."""
        self.modes: list[AutodiffMode] = []
        """The `autodiff_mode` of each recorded call before the tape recorded it."""
        self.validating = False
        self.recording = False
        self.gradient_evaluated = False

    def __enter__(self) -> Self:
        global _tape
        if _tape is not None:
            raise TaichiError("ti.ad.Tape: tapes cannot be nested")
        if self.validation:
            prog = _program.get_program()
            self.validating = bool(prog.config.debug)
            if not self.validating:
                warnings.warn(
                    "Debug mode is disabled, autodiff valid check will not work. Please "
                    "specify `ti.init(debug=True)` to enable the check.",
                    stacklevel=2,
                )
            else:  # the fields the check covers (snode.ptr.has_adjoint_checkbit())
                for f in prog.fields:
                    if f.primal is None and f.grad is not None and f.grad.placed:
                        f.adjoint_checked = True
        if self.clear_gradients:
            clear_all_gradients()
        if self.loss is not None:
            self.loss.fill(0)  # as Taichi's: the recorded calls accumulate from zero
        if self.grad_check:
            # The state the recorded calls start from, to replay them perturbed.
            self._backups = [
                (f, f.to_numpy())
                for f in _program.get_program().fields
                if f.primal is None and f.placed
            ]
        self.recording = True
        _tape = self
        _kernel.set_hook("tape", _record)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        global _tape
        self.recording = False
        _tape = None
        _kernel.set_hook("tape", None)
        for (func, _, _), mode in zip(self.entries, self.modes):
            if isinstance(func, _kernel.Kernel):
                func.autodiff_mode = mode
        if exc_type is not None:
            return
        if self.loss is not None:
            self.loss.grad.fill(1)
        self.grad()

    @property
    def calls(self) -> list[tuple[Any, tuple[Any, ...]]]:
        """The recorded calls, (function, arguments), in call order (Taichi's)."""
        return [(func, args) for func, args, _ in self.entries]

    def insert(
        self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None
    ) -> None:
        """Record a call (kernels record themselves; @ti.ad.grad_replaced functions
        call this)."""
        self.modes.append(getattr(func, "autodiff_mode", AutodiffMode.NONE))
        if self.validating and isinstance(func, _kernel.Kernel):
            func.autodiff_mode = AutodiffMode.VALIDATION
        if isinstance(func, _kernel.Kernel):
            snapshots = self._snapshot(func, args, kwargs or {})
            if snapshots:
                self.snapshots[len(self.entries)] = snapshots
        self.entries.append((func, args, kwargs or {}))

    def _snapshot(
        self, k: _kernel.Kernel, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[Snapshot]:
        """Save what the kernel is about to overwrite that its adjoint needs."""
        try:
            run, bound = _derived_instance(k, args, kwargs, forward=False)
        except Exception:  # noqa: BLE001 - grad() builds the adjoint again and raises
            return []
        if not run.restores:
            return []
        assert k._params is not None
        recording, self.recording = self.recording, False  # the copies are not recorded
        try:
            return [Snapshot(f, box, k._params, bound) for f, box in run.restores]
        finally:
            self.recording = recording

    def grad(self) -> None:
        """Run the adjoints of the recorded calls in reverse order."""
        if self.gradient_evaluated:
            raise TaichiError("ti.ad.Tape: the gradients were already evaluated")
        swapped: list[int] = []
        try:
            for n in reversed(range(len(self.entries))):
                func, args, kwargs = self.entries[n]
                adjoint = getattr(func, "grad", None)
                if adjoint is None:
                    raise TaichiError(
                        f"ti.ad.Tape: '{getattr(func, '__name__', func)}' has no gradient "
                        "(register one with @ti.ad.grad_for)"
                    )
                for snapshot in self.snapshots.get(n, ()):  # the fields as it saw them
                    snapshot.swap()
                swapped.append(n)
                if isinstance(adjoint, AdjointKernel):
                    adjoint.launch(args, kwargs, restored=True)
                else:
                    adjoint(*args, **kwargs)
        finally:  # the fields as the forward pass left them
            for n in reversed(swapped):
                for snapshot in self.snapshots.get(n, ()):
                    snapshot.swap()
            self.snapshots.clear()
        self.gradient_evaluated = True
        if self.grad_check:
            self._check_gradients()

    def _replay(self, perturbed: Field | None = None, delta: Any = None) -> float:
        """The loss of the recorded calls from the saved state, `perturbed` + delta."""
        for f, saved in self._backups:
            f.from_numpy(saved + delta if f is perturbed else saved)
        for func, args, kwargs in self.entries:
            func(*args, **kwargs)
        return float(self.loss.to_numpy())

    def _check_gradients(self) -> None:
        """Taichi's grad check: for shrinking eps, the directional derivative along a
        random tangent from central differences must agree with the gradient within 1%."""
        import numpy as np

        rng = np.random.default_rng()
        failed: list[str] = []
        for x in self.grad_check:
            if x is self.loss:
                continue
            if x.grad is None:
                raise TaichiError(f"ti.ad.Tape(grad_check=...): {x} has no gradient")
            grad = x.grad.to_numpy().astype(np.float64)
            errors: list[float] = []
            for eps in 2.0 ** np.arange(-3, -30, -2):
                tangent = rng.random(grad.shape)
                step = eps * tangent
                numerical = (self._replay(x, step) - self._replay(x, -step)) * 0.5 / eps
                autodiff = float(np.sum(grad * tangent))
                error = abs(autodiff - numerical)
                errors.append(error / (abs(autodiff) + 1e-20))
                if error * 100 <= abs(autodiff):
                    break
            else:
                failed.append(f"{x} (relative error {min(errors):.3g})")
        self._replay()  # the fields as the recorded calls left them
        if failed:
            raise AssertionError(
                "ti.ad.Tape grad check failed, expected relative error 0.01: "
                + ", ".join(failed)
            )


def clear_all_gradients(gradient_type: Any = None) -> None:
    """Zero the gradient field of every field of the current program (the dual fields
    with `gradient_type=SNodeGradType.DUAL`)."""
    kind = "dual" if str(gradient_type).lower().endswith("dual") else "grad"
    prog = _program.get_program()
    for f in prog.fields:
        companion = getattr(f, kind, None) if f.primal is None else None
        if companion is not None and companion.placed:
            companion.fill(0)


# -- forward mode --------------------------------------------------------------------------


def _run_forward(k: _kernel.Kernel, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    run, bound = _derived_instance(k, args, kwargs, forward=True)
    return run(bound)


class FwdMode:
    """
    Forward-mode differentiation (Taichi's `ti.ad.FwdMode`): kernels launched inside
    run their tangent versions, which compute the primal and also the duals
    d(loss)/d(param) . seed in `loss.dual`.

        with ti.ad.FwdMode(loss=loss, param=x, seed=[1.0, 0.0]):
            compute()
        loss.dual[None]                     # d loss / d x[0]

    Args:
        loss: a field (or a list of fields) with a dual field placed.
        param: the field the derivatives are taken with respect to (dual placed).
        seed: the tangent of param, one value per element; may be left out for a
            param of one element (seed 1).
        clear_gradients: zero every dual field on entry.
    """

    def __init__(
        self, loss: Any, param: Any, seed: Any = None, clear_gradients: bool = True
    ):
        self.loss = loss if isinstance(loss, list) else [loss]
        self.param = param
        self.seed = list(seed) if seed is not None else None
        self.clear_gradients = clear_gradients
        self.entered = False

    def __enter__(self) -> Self:
        import numpy as np

        if self.entered:
            raise TaichiError("ti.ad.FwdMode can be entered only once")
        self.entered = True
        for f in (*self.loss, self.param):
            if not isinstance(f, Field) or f.dual is None or not f.dual.placed:
                raise TaichiError(
                    f"ti.ad.FwdMode: {f} needs a dual field (needs_dual=True, or "
                    "place(x.dual) / ti.root.lazy_dual())"
                )
        size = int(np.prod(self.param.shape + self.param.element_shape, dtype=np.int64))
        if not self.seed:
            if size != 1:
                raise TaichiRuntimeError(
                    "`seed` is not set for non 0-D field, please specify: one value "
                    f"per element of the parameter ({size}), e.g. [0, 0, 1] for the "
                    "derivatives with respect to its third element"
                )
            self.seed = [1.0]
        elif len(self.seed) != size:
            raise TaichiError(
                f"ti.ad.FwdMode: seed has {len(self.seed)} values, the parameter {size}"
            )
        if self.clear_gradients:
            clear_all_gradients("dual")
        dual = self.param.dual
        dual.from_numpy(
            np.asarray(self.seed, dtype=dual.dtype.np_dtype).reshape(dual.to_numpy().shape)
        )
        if _kernel._forward_hook is not None:
            raise TaichiError("ti.ad.FwdMode: forward modes cannot be nested")
        _kernel.set_hook("forward", _run_forward)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _kernel.set_hook("forward", None)
        self.param.dual.fill(0)  # the seed, as Taichi clears it


# -- stop_grad -----------------------------------------------------------------------------


# `ti.stop_grad(x)` inside a kernel: no gradient flows through field x in this kernel
# (lowered by codegen/calls.py into an attribute that ti-auto-diff reads).
stop_grad = Intrinsic("stop_grad")


# -- user-defined gradients ---------------------------------------------------------------


def grad_replaced(func: Callable[..., Any]) -> Callable[..., Any]:
    """
    A Python function (calling kernels) whose gradient is given by @ti.ad.grad_for:
    inside a Tape it is recorded as one step instead of the kernels it launches.
    """

    @functools.wraps(func)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        tape = _tape
        if tape is None or not tape.recording:
            return func(*args, **kwargs)
        tape.recording = False
        try:
            result = func(*args, **kwargs)
        finally:
            tape.recording = True
        tape.entries.append((decorated, args, kwargs))
        return result

    decorated.grad = None  # type: ignore[attr-defined]
    return decorated


def grad_for(
    primal: Callable[..., Any],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the gradient of a @ti.ad.grad_replaced one."""

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        if isinstance(primal, _kernel.Kernel):
            raise TaichiRuntimeError(
                f"ti.ad.grad_for: '{primal.__name__}' is a Taichi kernel, whose gradient "
                "is its own adjoint; decorate a Python function calling it with "
                "@ti.ad.grad_replaced instead"
            )
        if not hasattr(primal, "grad"):
            raise TaichiRuntimeError(
                "ti.ad.grad_for: the primal function must be decorated with "
                "@ti.ad.grad_replaced"
            )
        primal.grad = func  # type: ignore[attr-defined]
        return func

    return decorator


def no_grad(func: Callable[..., Any]) -> Callable[..., Any]:
    """A function that the tape records with an empty gradient."""

    @grad_replaced
    @functools.wraps(func)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    decorated.grad = lambda *args, **kwargs: None  # type: ignore[attr-defined]
    return decorated
