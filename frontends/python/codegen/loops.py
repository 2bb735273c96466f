"""
Loops in kernels: `range`, `ti.ndrange` (flattened into one taichi.range_for), struct-for
over fields and ndarrays, `ti.static` unrolling, `while`, `break` and `continue`.

    for i, j in ti.ndrange((1, n - 1), (1, n - 1)):   taichi.range_for %t = %c0 to %N {
                                                          %j = (%t rem 62) + 1
                                                          %i = (%t div 62) + 1
"""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING, Any

import numpy as np

from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import TaichiSyntaxError, TaichiTypeError
from xdsl.dialects.builtin import IntegerAttr, UnitAttr
from xdsl.dialects.builtin import i32 as ir_i32
from xdsl.ir import Block, SSAValue

from ..lang import dtypes, ops
from . import calls
from .emitter import Value
from . import sparse
from .textures import TextureHandle
from .lists import prepare_loop
from .values import (
    Container,
    FieldHandle,
    container_index_offset,
    LoopInfo,
    assigned_names,
    describe,
    is_scalar,
)
from .vectors import Vec

if TYPE_CHECKING:
    from .visitor import KernelCodegen



def lower_while(cg: KernelCodegen, node: ast.While) -> None:
    if node.orelse:
        raise cg.error(TaichiSyntaxError, node, "unsupported syntax 'while ... else'")
    body = Block()
    prepare_loop(cg, node.body)
    with cg.body(body), cg.loop(LoopInfo("while", False)):
        cond = cg.condition(node.test, what="`while`")
        if cond is False:
            return  # `while False:` never runs
        if isinstance(cond, Value):
            stop = cg.em.logical_not(cond)
            cg.em.emit(taichi.IfOp(stop.ssa, Block([taichi.BreakOp()])))
        cg.visit_stmts(node.body)
        cg.close(body)
    cg.em.emit(taichi.WhileOp(body))

def _static_exit(cg: KernelCodegen, node: ast.AST, what: str) -> bool:
    """
    `break` / `continue` in a ti.static loop: decided at compile time, it ends the
    unrolling (or this unrolled iteration). It must not sit under a run-time `if`.
    """
    if len(cg.loops) <= cg.ctx.loop_base or cg.loops[-1].kind != "static":
        return False
    loop = cg.loops[-1]
    if cg.em.block is not loop.block:
        raise cg.error(
            TaichiSyntaxError,
            node,
            f"You are trying to `{what}` a static `for` loop, but the `{what}` statement "
            "is inside a non-static `if`. It must be reached at compile time: put it "
            "under `if ti.static(...)`.",
        )
    loop.static_exit = what
    cg.terminated = True
    return True

def lower_break(cg: KernelCodegen, node: ast.Break) -> None:
    if _static_exit(cg, node, "break"):
        return
    loop = _innermost_loop(cg, node, "break")
    if loop.kind == "struct":
        raise cg.error(
            TaichiSyntaxError,
            node,
            "'break' cannot leave a struct-for loop (for i in field)",
        )
    if loop.parallel:
        raise cg.error(
            TaichiSyntaxError,
            node,
            "Cannot break in the outermost loop: the outermost loops of a kernel run "
            "in parallel; put ti.loop_config(serialize=True) before the loop",
        )
    cg.em.emit(taichi.BreakOp())
    cg.terminated = True

def lower_continue(cg: KernelCodegen, node: ast.Continue) -> None:
    if _static_exit(cg, node, "continue"):
        return
    _innermost_loop(cg, node, "continue")
    cg.em.emit(taichi.ContinueOp())
    cg.terminated = True

def _innermost_loop(cg: KernelCodegen, node: ast.AST, what: str) -> LoopInfo:
    if len(cg.loops) <= cg.ctx.loop_base:
        raise cg.error(TaichiSyntaxError, node, f"'{what}' outside a loop")
    loop = cg.loops[-1]
    if loop.kind == "static":
        raise cg.error(
            TaichiSyntaxError, node, f"'{what}' in a ti.static loop is not supported"
        )
    return loop

# -- loops -----------------------------------------------------------------------

def lower_for(cg: KernelCodegen, node: ast.For) -> None:
    if node.orelse:
        raise cg.error(TaichiSyntaxError, node, "unsupported syntax 'for ... else'")
    config, cg.pending_loop_config = cg.pending_loop_config, None
    # A real function's loops run serially, as the function body they are (Taichi
    # compiles a ti.real_func as a function of its own, called by one thread).
    serialize = bool(config and config.get("serialize")) or cg.in_real_func()
    block_dim = config.get("block_dim") if config else None
    it = node.iter
    for wrapper, name in ((ops.static, "ti.static"), (ops.grouped, "ti.grouped")):
        if cg.is_call_to(it, wrapper) and any(
            cg.is_call_to(arg, wrapper) for arg in it.args  # type: ignore[attr-defined]
        ):
            raise cg.error(TaichiSyntaxError, it, f"'{name}' cannot be nested")
    if cg.is_call_to(it, ops.static):
        assert isinstance(it, ast.Call)
        items = cg.eval(it)
        static_for(cg, node, items)
        return
    kind, payload = loop_iterable(cg, it)
    if kind != "static":
        _check_fresh_loop_variables(cg, node.target)
        prepare_loop(cg, node.body)
    if kind == "range":
        range_for(cg, node, payload[0], payload[1], serialize)
    elif kind == "ndrange":
        ndrange_for(cg, node, payload, serialize)
    elif kind == "struct":
        struct_for(cg, node, payload, serialize)
    elif kind == "sparse":
        sparse.struct_for(cg, node, *payload, serialize=serialize)
    else:
        static_for(cg, node, payload)
        return
    if block_dim is not None:
        # The threads of a group on Vulkan (ti-offload carries it to the task).
        assert cg.em.block is not None
        loop = cg.em.block.last_op  # the loop just emitted
        assert isinstance(loop, taichi.RangeForOp | taichi.StructForOp)
        loop.attributes["block_dim"] = IntegerAttr(block_dim, 64)

def _check_fresh_loop_variables(cg: KernelCodegen, target: ast.expr) -> None:
    """A run-time loop's variables are new: a name the kernel already declared is an
    error (Taichi's rule; the loop could not write the outer variable per thread)."""
    names = [target] if isinstance(target, ast.Name) else getattr(target, "elts", [])
    for name in names:
        if isinstance(name, ast.Name) and cg.find_binding(name.id) is not None:
            raise cg.error(
                TaichiSyntaxError,
                name,
                f"Variable '{name.id}' is already declared in the outer scope and "
                "cannot be used as loop variable",
            )


def loop_iterable(cg: KernelCodegen, it: ast.expr) -> tuple[str, Any]:
    """Classify a loop's iterable: range, ndrange, struct (a container) or static."""
    if isinstance(it, ast.Call):
        it = calls.expand_starred(cg, it)
        func = cg.eval(it.func)
        if func is builtins.range:
            return _range_args(cg, it)
        if func is ops.ndrange:
            return "ndrange", _ndrange_bounds(cg, it)
        if func is ops.grouped:
            if len(it.args) != 1:
                raise cg.error(TaichiSyntaxError, it, "ti.grouped takes one argument")
            cg.pending_grouped = True
            kind, payload = loop_iterable(cg, it.args[0])
            if kind == "range":
                payload = [(payload[0], payload[1])]
                kind = "ndrange"
            return kind, payload
    obj = cg.eval(it)
    from ..lang.struct import StructField

    if isinstance(obj, StructField):  # loop over the index space of its members
        obj = cg.field_handle(obj.leaf())
    from ..lang.snode import SNode, field_container, sparse_ancestors

    if isinstance(obj, FieldHandle) and sparse_ancestors(field_container(obj.field)):
        f = obj.field  # a sparse field: only its active cells
        return "sparse", (field_container(f), container_index_offset(obj))
    if isinstance(obj, SNode):
        if sparse_ancestors(obj):
            return "sparse", (obj, (0,) * len(obj.shape))
        return "ndrange", [(0, s) for s in obj.shape]
    if isinstance(obj, Container) and obj.element_shape:
        # a Vector/Matrix container: loop over its index space only
        offsets = container_index_offset(obj)
        return "ndrange", [
            (o, s + o if o else s) if isinstance(s, int) else (0, s)
            for s, o in zip(obj.shape(cg), offsets)
        ]
    if isinstance(obj, Container):
        return "struct", obj
    if isinstance(obj, TextureHandle) and obj.ann.rw:  # its extents, read at run time
        return "ndrange", [(0, s) for s in obj.shape]
    if isinstance(obj, ops.NdRange):
        return "ndrange", obj.bounds()
    if isinstance(obj, range | list | tuple):
        return "static", obj
    raise cg.error(
        TaichiSyntaxError,
        it,
        f"cannot loop over {describe(obj)} in a kernel (use range, "
        "ti.ndrange, a field or an ndarray)",
    )

def _range_args(cg: KernelCodegen, call: ast.Call) -> tuple[str, Any]:
    args = [cg.eval(a) for a in call.args]
    if not 1 <= len(args) <= 2:  # Taichi's words; located at the loop by the visitor
        raise TaichiSyntaxError(f"Range should have 1 or 2 arguments, found {len(args)}")
    if call.keywords:
        raise cg.error(
            TaichiSyntaxError,
            call,
            "range() in a kernel loop takes (end) or (begin, end); a step "
            "needs ti.static(range(...))",
        )
    lo, hi = (0, args[0]) if len(args) == 1 else (args[0], args[1])
    return "range", (lo, hi)

NDRANGE_INTEGERS = (
    "Every argument of ndrange should be an integer scalar or a tuple/list of (int, int)"
)


def _ndrange_bounds(cg: KernelCodegen, call: ast.Call) -> list[tuple[Any, Any]]:
    bounds = []
    for arg in call.args:
        value = cg.eval(arg)
        if isinstance(value, tuple | list):
            if len(value) != 2:
                raise cg.error(
                    TaichiSyntaxError,
                    arg,
                    "Every argument of ndrange should be a scalar or a tuple/list like "
                    "(begin, end)",
                )
            pair = (value[0], value[1])
        else:
            pair = (0, value)
        for bound in pair:
            if isinstance(bound, float | np.floating) or (
                isinstance(bound, Value) and bound.dtype.is_float
            ):
                raise cg.error(TaichiTypeError, arg, NDRANGE_INTEGERS)
        bounds.append(pair)
    if not bounds and not cg.pending_grouped:
        raise cg.error(
            TaichiSyntaxError,
            call,
            "ti.ndrange() of no dimensions is a loop only under ti.grouped (one "
            "iteration, an empty index)",
        )
    return bounds

def check_bound(cg: KernelCodegen, value: Any, node: ast.AST) -> None:
    if isinstance(value, float) or (isinstance(value, Value) and value.dtype.is_float):
        raise cg.error(TaichiTypeError, node, "loop bounds must be integers")
    if not is_scalar(value):
        raise cg.error(
            TaichiTypeError,
            node,
            f"a loop bound must be an integer, got {describe(value)}",
        )

def loop_bound(cg: KernelCodegen, value: Any, node: ast.AST) -> Value:
    check_bound(cg, value, node)
    return cg.em.value(value, dtypes.i32)

def range_for(
    cg: KernelCodegen, node: ast.For, lo: Any, hi: Any, serialize: bool
) -> None:
    serialize = serialize or cg.in_folded_branch()
    lo_v, hi_v = loop_bound(cg, lo, node.iter), loop_bound(cg, hi, node.iter)
    block = Block(arg_types=[ir_i32])
    info = LoopInfo("range", cg.at_top() and not serialize, block)
    with cg.body(block), cg.loop(info):
        bind_targets(cg, node, [Value(block.args[0], dtypes.i32)])
        cg.visit_stmts(node.body)
        cg.close(block)
    cg.em.emit(taichi.RangeForOp(lo_v.ssa, hi_v.ssa, block, serialize=serialize))

def ndrange_for(
    cg: KernelCodegen, node: ast.For, bounds: list[tuple[Any, Any]], serialize: bool
) -> None:
    """`ti.ndrange` flattened into one range_for; indices recovered by div/rem."""
    serialize = serialize or cg.in_folded_branch()
    if len(bounds) == 1 and not isinstance(node.target, ast.Tuple):
        range_for(cg, node, bounds[0][0], bounds[0][1], serialize)
        return
    em = cg.em
    begins = [
        loop_bound(cg, b, node.iter) if isinstance(b, Value) else b for b, _ in bounds
    ]
    extents = []
    for (b, e), begin in zip(bounds, begins):
        if not isinstance(b, Value) and not isinstance(e, Value):
            check_bound(cg, b, node.iter)
            check_bound(cg, e, node.iter)
            extents.append(max(0, int(e) - int(b)))
        else:
            diff = em.binary("-", loop_bound(cg, e, node.iter), begin)
            extents.append(em.binary("max", diff, 0))
    total: Any = 1
    for ext in extents:
        total = (
            ext * total
            if not isinstance(ext, Value) and not isinstance(total, Value)
            else em.binary("*", total, ext)
        )
    block = Block(arg_types=[ir_i32])
    info = LoopInfo("range", cg.at_top() and not serialize, block)
    with cg.body(block), cg.loop(info):
        indices = _unflatten(cg, Value(block.args[0], dtypes.i32), begins, extents)
        bind_targets(cg, node, indices)
        cg.visit_stmts(node.body)
        cg.close(block)
    lo_v, hi_v = em.const(0, dtypes.i32), loop_bound(cg, total, node.iter)
    em.emit(taichi.RangeForOp(lo_v.ssa, hi_v.ssa, block, serialize=serialize))

def _unflatten(
    cg: KernelCodegen, flat: Value, begins: list[Any], extents: list[Any]
) -> list[Value]:
    em = cg.em
    if not extents:  # ti.grouped(ti.ndrange()): one iteration, no index
        return []
    indices: list[Value] = [flat] * len(extents)
    rest = flat
    for k in range(len(extents) - 1, 0, -1):
        ext = em.value(extents[k], dtypes.i32)
        rem = em.irem(rest, ext)
        indices[k] = _offset(cg, rem, begins[k])
        rest = em.idiv(rest, ext)
    indices[0] = _offset(cg, rest, begins[0])
    return indices

def _offset(cg: KernelCodegen, v: Value, begin: Any) -> Value:
    if not isinstance(begin, Value) and int(begin) == 0:
        return v
    return cg.em.binary("+", v, begin)

def struct_for(
    cg: KernelCodegen, node: ast.For, container: Container, serialize: bool
) -> None:
    if getattr(getattr(container, "field", None), "slots", None) is not None:
        # a quant_array field (codegen/quant.py): its words are not its elements;
        # every element of a dense tree is visited
        ndrange_for(cg, node, [(0, n) for n in container.shape(cg)], serialize)
        return
    block = Block(arg_types=[ir_i32] * container.ndim)
    info = LoopInfo("struct", cg.at_top() and not serialize, block)
    with cg.body(block), cg.loop(info):
        indices = [Value(a, dtypes.i32) for a in block.args]
        offsets = container_index_offset(container)
        if any(offsets):  # ti.field(offset=...): the indices start at the offset
            indices = [
                cg.em.binary("+", v, o) if o else v for v, o in zip(indices, offsets)
            ]
        bind_targets(cg, node, indices)
        cg.visit_stmts(node.body)
        cg.close(block)
    op = taichi.StructForOp(container.ssa, block)
    if serialize:
        op.properties["serialize"] = UnitAttr()
    cg.em.emit(op)

def static_for(cg: KernelCodegen, node: ast.For, items: Any) -> None:
    """`for x in ti.static(...)`: the body once per item, x a Python value."""
    try:
        iterator = iter(items)
    except TaichiTypeError as e:  # the iterable's own check (ti.ndrange of floats)
        raise cg.error(TaichiTypeError, node.iter, str(e)) from None
    except TypeError:
        raise cg.error(
            TaichiSyntaxError,
            node.iter,
            f"ti.static loop over {describe(items)}: not iterable",
        ) from None
    info = LoopInfo("static", False, cg.em.block)
    with cg.loop(info):
        for item in iterator:
            with cg.scope():
                cg.assign(node.target, item, static=True)
                cg.visit_stmts(node.body)
            exit_, info.static_exit = info.static_exit, None
            if exit_ is not None:
                cg.terminated = False  # the unrolled code after the loop goes on
                if exit_ == "break":
                    break
                continue
            if cg.terminated:
                break

def bind_targets(cg: KernelCodegen, node: ast.For, indices: list[Value]) -> None:
    """Bind loop variables; a variable the body assigns to gets a slot."""
    target = node.target
    names: list[ast.expr] = (
        list(target.elts) if isinstance(target, ast.Tuple) else [target]
    )
    if not all(isinstance(n, ast.Name) for n in names):
        raise cg.error(TaichiSyntaxError, target, "loop variables must be names")
    assigned = assigned_names(node.body)
    grouped, cg.pending_grouped = cg.pending_grouped, False
    if len(names) == 1 and len(indices) > 1 and not grouped:
        raise cg.error(
            TaichiSyntaxError,
            target,
            "Ndrange for loop with number of the loop variables not equal to the "
            f"dimension of the ndrange is not supported: {len(indices)} indices, one "
            "loop variable (write `for I in ti.grouped(...)` for one index vector)",
        )
    if len(names) == 1 and (len(indices) != 1 or grouped):
        name = names[0].id  # type: ignore[attr-defined]
        # ti.grouped: one index vector
        cg.ctx.scopes[-1][name] = Vec((len(indices),), list(indices))
        return
    if len(names) != len(indices):
        raise cg.error(
            TaichiSyntaxError,
            target,
            f"the loop has {len(indices)} index(es) but {len(names)} loop variable(s)",
        )
    for name_node, index in zip(names, indices):
        name = name_node.id  # type: ignore[attr-defined]
        if isinstance(index.ssa, SSAValue) and index.ssa.name_hint is None:
            index.ssa.name_hint = name
        cg.ctx.scopes[-1][name] = (
            cg.new_local(name, index) if name in assigned else index
        )
