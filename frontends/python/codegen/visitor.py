"""
Python AST -> `taichi` dialect: the kernel code generator.

One `KernelCodegen` turns one kernel instance (its AST plus the types of its arguments)
into a `taichi.kernel`. Statements become structured taichi ops; expressions are
evaluated to either IR values (`Value`), places (`Place`, a 0-d memref: a local slot or
a field/ndarray element), containers (fields and ndarrays) or plain Python objects.
Python objects are compile-time constants: `n * 2` with `n` a global int folds in
Python, as in Taichi.

    @ti.kernel                                taichi.kernel @saxpy(%x: memref<?xf32>, ...) {
    def saxpy(x: ndarray(f32, 1), ...):         %n = memref.dim ...
        for i in range(x.shape[0]):             taichi.range_for %i = %c0 to %n : i32 {
            y[i] = a * x[i] + y[i]                %p = taichi.element_ptr %x[%i] ...

Only the outermost loops of a kernel body run in parallel (Taichi's rule); the code
generator marks nothing itself except `serialize` from `ti.loop_config`.

`KernelCodegen` is the one visitor: it holds the state of a kernel being built (the
Emitter, the scopes, the loop stack) and a typed `visit_<Node>` method for each Python
construct. Statements are lowered here; the other constructs are lowered by plain
functions taking the visitor, one module per kind: `expressions`, `calls`, `loops`,
`vectors` (vectors, matrices, ti.math), `structs`, `random`. Imports point one way:
visitor -> construct modules -> `values` / `emitter`. A construct module needing another
construct calls it through the visitor (`cg.binop`, `cg.as_vec`, ...), never by import.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from taichi_xdsl.dialects import taichi
from taichi_xdsl.utils.errors import (
    TaichiCompilationError,
    TaichiNameError,
    TaichiRuntimeError,
    TaichiSyntaxError,
    TaichiTypeError,
)
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    FileLineColLoc,
    FunctionType,
    IntAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from ..lang import dtypes, ops
from . import calls, expressions, loops, printing, quant, random, sparse, structs, vectors
from ..lang.dtypes import DataType
from .emitter import Emitter, Value, ir_type, memref_type, stored_as_byte
from .lists import KernelList
from .quant import QuantPlace
from ..lang.bitpacked import QuantField, QuantMatrixField
from ..lang.field import Field
from ..lang.kernel import ArgSpec, RealFunc
from ..lang.matrix import Matrix, MatrixType
from ..lang.ndarray import Ndarray
from ..lang.source import FunctionSource, is_located
from ..lang.struct import StructField, StructPlace, StructType, StructVal
from .textures import TextureHandle
from .values import (
    stored_into,
    ATOMIC_AUGASSIGN,
    container_index_offset,
    PY_BINOPS,
    TERMINATORS,
    UNSUPPORTED_NAMES,
    ArgPackValue,
    Container,
    FieldHandle,
    FunctionContext,
    LoopInfo,
    NdarrayHandle,
    Place,
    assigned_names,
    contains_return,
    describe,
    is_python,
    is_scalar,
)
from .vectors import (
    DynamicComponent,
    ElementVecPlace,
    LocalVecPlace,
    Vec,
    VecPlace,
    place_positions,
)

# ---------------------------------------------------------------------------------------
# The code generator
# ---------------------------------------------------------------------------------------


class KernelCodegen(ast.NodeVisitor):
    """Builds one `taichi.kernel` from a kernel's AST and its argument specs."""

    def __init__(self, program: Any, symbol: str):
        self.program = program
        cfg = program.config
        self.em = Emitter(cfg.default_ip, cfg.default_fp)
        self.symbol = symbol
        self.kernel_name = symbol  # the kernel's own name once build_kernel runs
        self.entry = Block()
        self.loops: list[LoopInfo] = []
        self.field_handles: dict[int, FieldHandle] = {}
        self.shared_arrays = 0  # ti.simt.block.SharedArray ids given so far
        self._prologue_last: Operation | None = None
        self.pending_loop_config: dict[str, Any] | None = None
        self.terminated = False
        self.func_depth = 0
        self.inlining: list[Any] = []  # the ti.funcs being inlined, outermost first
        self.real_functions: dict[tuple[Any, ...], str] = {}
        """The symbol of each ti.real_func instantiation called for real (real_funcs.py)."""
        self.function_ops: list[Operation] = []
        """Their `func.func`s, which build_module puts before the kernel."""
        self.real_calls = True
        """Whether ti.real_funcs may be called for real (off: inlined, for autodiff)."""
        self.ctx: FunctionContext
        self._node: ast.AST | None = None
        self._locs: dict[tuple[str, int, int], Attribute] = {}
        self.rng_used = False
        self.pending_grouped = False
        self.static_depth = 0
        """How many ti.static(...) calls enclose the expression being compiled."""
        self.folded_branches = 0
        """How many folded non-static `if`s enclose the statement being compiled."""

    # -- entry point -----------------------------------------------------------------

    def build_kernel(
        self,
        src: FunctionSource,
        global_vars: dict[str, Any],
        closure: dict[str, Any],
        specs: list[ArgSpec],
        return_types: list[DataType],
        return_layout: list[Any] | None = None,
    ) -> taichi.KernelOp:
        """The `taichi.kernel` of one instance; `return_layout` is the shape of each
        returned item (Kernel._return_types: a struct's is ("struct", members, type))."""
        self.return_layout = return_layout or []
        tree = src.tree
        self.kernel_name = tree.name  # runtime messages name it (and the ti.func they are in)
        runtime_specs = [s for s in specs if s.kind != "template"]  # templates are inlined
        arg_types = [
            t
            for s in runtime_specs
            for t in (
                self._aggregate_types(s.obj) if s.kind == "aggregate" else [self._arg_type(s)]
            )
        ]
        # x.grad / x.dual of an ndarray parameter named in the body: one more argument
        # each, after all the parameters' own (kernel.py's converter passes them).
        companions = [(s, a) for s in runtime_specs for a in s.companions]
        arg_types += [self._arg_type(s) for s, _ in companions]
        self.entry = Block(arg_types=arg_types)
        self.em.block = self.entry
        self.ctx = FunctionContext(
            src, global_vars, closure, True, self.entry, 0, return_types=return_types
        )
        self.em.loc = self.location(tree)
        self._check_arguments_not_assigned(tree, [spec.name for spec in specs])
        assigned = assigned_names(tree.body)
        args = iter(self.entry.args)
        for spec in specs:
            if spec.kind == "aggregate":  # its components are the next arguments
                value = self._bind_aggregate(spec.obj, args, spec.name)
                if spec.name in assigned or spec.name in stored_into(tree.body):
                    value = (
                        self.new_vec_local(spec.name, value)
                        if isinstance(value, Vec)
                        else self.new_struct_local(spec.name, value)
                        if isinstance(value, StructVal)
                        else self.new_local(spec.name, value)
                    )
                self._bind_param(spec.name, value)
                continue
            arg = next(args) if spec.kind != "template" else None
            if arg is not None:
                arg.name_hint = spec.name.replace(".", "_")
            self._bind_param(spec.name, self._bind_arg(spec, arg, assigned))
        for spec, attr in companions:
            arg = next(args)
            arg.name_hint = f"{spec.name}_{attr}"
            primal = self.ctx.scopes[0][spec.name]
            primal.companions[attr] = self._bind_arg(spec, arg, assigned)
        self._node = tree
        if return_types and not any(contains_return(s) for s in tree.body):
            raise self.error(
                TaichiSyntaxError,
                tree,
                "Kernel has a return type but does not have a return statement",
            )
        self.visit_stmts(tree.body)
        self._finish_kernel(tree)
        ret_ir = [ir_type(t) for t in return_types]
        kernel = taichi.KernelOp(
            self.symbol, FunctionType.from_lists(arg_types, ret_ir), Region(self.entry)
        )
        kernel.location = self.location(tree)  # pyright: ignore[reportAttributeAccessIssue]
        return kernel

    def _bind_param(self, name: str, value: Any) -> None:
        """Name a parameter's value in the kernel's scope; a member of an argpack
        (`pack.member`, kernel.py) goes into the pack's ArgPackValue."""
        *path, last = name.split(".")
        if not path:
            self.ctx.scopes[0][name] = value
            return
        scope, holder = self.ctx.scopes[0], None
        for depth, part in enumerate(path):
            members = scope if holder is None else holder._members
            if part not in members:
                members[part] = ArgPackValue(".".join(path[: depth + 1]))
            holder = members[part]
        assert holder is not None
        holder._members[last] = value

    def _check_arguments_not_assigned(self, tree: ast.FunctionDef, names: list[str]) -> None:
        """A kernel's arguments are immutable in its body (Taichi's rule; a ti.func's
        parameters are copies it may assign)."""
        params = set(names)
        for node in ast.walk(tree):
            targets: list[ast.expr] = (
                list(node.targets)
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AugAssign | ast.AnnAssign)
                else []
            )
            while targets:
                t = targets.pop()
                if isinstance(t, ast.Tuple | ast.List):
                    targets += t.elts
                elif isinstance(t, ast.Name) and t.id in params:
                    raise self.error(
                        TaichiSyntaxError, node, f'Kernel argument "{t.id}" is immutable in the kernel'
                    )

    def _aggregate_types(self, layout: Any) -> list[Attribute]:
        """The scalar argument types of a vector/matrix/struct parameter, in order."""
        kind = layout[0]
        if kind == "struct":
            return [t for _, sub in layout[2] for t in self._aggregate_types(sub)]
        if kind == "vector":
            count = 1
            for d in layout[1]:
                count *= d
            return [ir_type(layout[2])] * count
        return [ir_type(layout[1])]

    def _bind_aggregate(self, layout: Any, args: Any, name: str) -> Any:
        """A vector/matrix/struct parameter's value, from its scalar arguments."""
        kind = layout[0]
        if kind == "struct":
            return StructVal(
                layout[1],
                {m: self._bind_aggregate(sub, args, f"{name}_{m}") for m, sub in layout[2]},
            )
        if kind == "vector":
            shape, dt = layout[1], layout[2]
            count = 1
            for d in shape:
                count *= d
            return Vec(tuple(shape), [Value(next(args), dt) for _ in range(count)])
        return Value(next(args), layout[1])

    def _arg_type(self, spec: ArgSpec) -> Attribute:
        if spec.kind == "texture":
            return spec.obj.ir_type()
        if spec.kind == "ndarray":
            assert spec.dtype is not None
            return memref_type(spec.dtype, [-1] * spec.ndim + list(spec.element_shape))
        assert spec.kind == "scalar" and spec.dtype is not None
        return ir_type(spec.dtype)

    def _bind_arg(self, spec: ArgSpec, arg: SSAValue | None, assigned: set[str]) -> Any:
        if spec.kind == "template":
            return spec.obj
        assert arg is not None
        if spec.kind == "texture":
            return TextureHandle(self, arg, spec.obj)
        if spec.kind == "ndarray":
            assert spec.dtype is not None
            handle = NdarrayHandle(arg, spec.dtype, spec.ndim, spec.element_shape)
            handle.clamp = spec.obj == "clamp"
            return handle
        assert spec.dtype is not None
        value = Value(arg, spec.dtype)
        return self.new_local(spec.name, value) if spec.name in assigned else value

    def _finish_kernel(self, tree: ast.FunctionDef) -> None:
        if self.rng_used:
            random.advance_rng_launch_counter(self)
        if isinstance(self.entry.last_op, taichi.ReturnOp):
            return
        ctx = self.ctx
        if ctx.ret_slots is not None:
            types = ctx.return_types or []
            values = [self.em.load(s, t).ssa for s, t in zip(ctx.ret_slots, types)]
            self.em.emit(taichi.ReturnOp(*values))
        elif ctx.return_types:
            raise self.error(
                TaichiSyntaxError,
                tree,
                "Kernel has a return type but does not have a return statement",
            )
        else:
            self.em.emit(taichi.ReturnOp())

    # -- errors and locations ----------------------------------------------------------

    def location(self, node: ast.AST) -> Attribute:
        src = self.ctx.src
        key = (src.filename, src.file_line(node), getattr(node, "col_offset", 0) + 1)
        loc = self._locs.get(key)
        if loc is None:
            loc = FileLineColLoc(StringAttr(key[0]), IntAttr(key[1]), IntAttr(key[2]))
            self._locs[key] = loc
        return loc

    def error(
        self, cls: type[Exception], node: ast.AST | None, message: str
) -> Exception:
        return self.ctx.src.located(cls, node or self._node or self.ctx.src.tree, message)

    def visit(self, node: ast.AST) -> Any:
        if not hasattr(node, "lineno"):
            return super().visit(node)
        saved_loc, saved_node = self.em.loc, self._node
        self.em.loc, self._node = self.location(node), node
        try:
            return super().visit(node)
        except TaichiCompilationError as e:
            if is_located(e):
                raise
            raise self.error(type(e), node, str(e)) from None
        except NameError as e:
            name = getattr(e, "name", None)
            message = f'Name "{name}" is not defined' if name else str(e)
            raise self.error(TaichiNameError, node, message) from None
        except TaichiRuntimeError as e:  # Taichi's compile-time RuntimeErrors (ipow)
            if is_located(e):
                raise
            raise self.error(type(e), node, str(e)) from None
        except (VerifyException, AssertionError) as e:
            raise self.error(
                TaichiCompilationError, node, f"internal error: {type(e).__name__}: {e}"
            ) from e
        except Exception as e:  # a compile-time Python evaluation failed
            raise self.error(
                TaichiCompilationError, node, f"{type(e).__name__}: {e}"
            ) from e
        finally:
            self.em.loc, self._node = saved_loc, saved_node

    def generic_visit(self, node: ast.AST) -> Any:
        kind = type(node).__name__
        what = UNSUPPORTED_NAMES.get(kind, kind)
        if kind == "FunctionDef":
            scope = "ti.kernel" if self.ctx.is_kernel else "ti.func"
            raise self.error(
                TaichiSyntaxError,
                node,
                f"Function definition is not allowed in '{scope}'. Define it at module "
                "level as a @ti.func.",
            )
        raise self.error(
            TaichiSyntaxError, node, f'Unsupported node "{kind}": unsupported syntax \'{what}\''
        )

    def eval(self, node: ast.AST) -> Any:
        return self.visit(node)

    # -- blocks, scopes, places ----------------------------------------------------------

    @contextmanager
    def body(self, block: Block, new_scope: bool = True) -> Iterator[Block]:
        """Emit into a nested region's block (with its own variable scope)."""
        saved_block, saved_term = self.em.block, self.terminated
        self.em.block, self.terminated = block, False
        if new_scope:
            self.ctx.scopes.append({})
        try:
            yield block
        finally:
            if new_scope:
                self.ctx.scopes.pop()
            self.em.block, self.terminated = saved_block, saved_term

    @contextmanager
    def scope(self) -> Iterator[None]:
        self.ctx.scopes.append({})
        try:
            yield
        finally:
            self.ctx.scopes.pop()

    @contextmanager
    def loop(self, info: LoopInfo) -> Iterator[LoopInfo]:
        self.loops.append(info)
        try:
            yield info
        finally:
            self.loops.pop()

    def close(self, block: Block) -> None:
        """End `block` with taichi.yield unless it already ends in a terminator."""
        if not isinstance(block.last_op, TERMINATORS):
            self.em.emit(taichi.YieldOp())

    def at_top(self) -> bool:
        """Whether the current point is the kernel body itself (loops there are parallel)."""
        return self.em.block is self.entry

    def in_folded_branch(self) -> bool:
        """Whether the kernel body's current point is inside a non-static `if` that was
        folded (`if True:`): Taichi runs the range loops there serially."""
        return self.em.block is self.entry and self.folded_branches > 0

    def in_real_func(self) -> bool:
        """Whether a ti.real_func's body is being compiled, inlined or as a function of
        its own (real_funcs.py): its loops are serial, its own."""
        return any(isinstance(f, RealFunc) for f in self.inlining)

    def insert_prologue(self, op: Operation) -> Operation:
        """Insert `op` at the start of the kernel body (after earlier prologue ops)."""
        op.location = self.location(self.ctx.src.tree)  # pyright: ignore
        if self._prologue_last is None:
            first = self.entry.first_op
            if first is None:
                self.entry.add_op(op)
            else:
                self.entry.insert_op_before(op, first)
        else:
            self.entry.insert_op_after(op, self._prologue_last)
        self._prologue_last = op
        return op

    def prologue_slot(self, dt: DataType) -> SSAValue:
        """A zero-initialized local slot allocated at the start of the kernel."""
        slot = self.insert_prologue(memref.AllocaOp.get(ir_type(dt), shape=[])).results[0]
        zero = self.insert_prologue(self.em.make_const(0, dt)).results[0]
        self.insert_prologue(memref.StoreOp.get(zero, slot, []))
        return slot

    def field_handle(self, f: Field) -> FieldHandle:
        for scope in reversed(self.ctx.scopes):  # ti.stop_grad(f) in an enclosing scope
            marked = scope.get(("ti.stop_grad", id(f)))
            if marked is not None:
                return marked
        handle = self.field_handles.get(id(f))
        if handle is not None:
            return handle
        if f.program is not self.program:
            raise TaichiCompilationError(
                "this field belongs to a program that ti.init()/ti.reset() has ended"
            )
        if not f.placed:
            raise TaichiCompilationError(
                "this field has no shape: give ti.field a shape or place it with "
                "ti.root.dense(...).place(x) before the kernel runs"
            )
        if isinstance(f, QuantField | QuantMatrixField):  # elements: bits of words
            return quant.handle(self, f)
        op = taichi.GetFieldOp(f.symbol, memref_type(f.dtype, f.storage_shape + f.element_shape))
        self.insert_prologue(op)
        op.result.name_hint = f.symbol
        handle = FieldHandle(f, op.result)
        self.field_handles[id(f)] = handle
        return handle

    def new_local(
        self, name: str | None, value: Value | float | bool, dt: DataType | None = None
    ) -> Place:
        """A local variable slot holding `value`, bound to nothing yet."""
        if dt is None:
            dt = value.dtype if isinstance(value, Value) else self.em.literal_dtype(value)
        slot = self.em.alloca(dt, name)
        self.em.store(slot, self.em.value(value, dt))
        return Place(slot, dt, False)

    def lookup(self, name: str) -> Any:
        for scope in reversed(self.ctx.scopes):
            if name in scope:
                return scope[name]
        if name in self.ctx.closure:
            return self.ctx.closure[name]
        if name in self.ctx.globals:
            return self.ctx.globals[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise TaichiNameError(f'Name "{name}" is not defined')

    def find_binding(self, name: str) -> tuple[dict[str, Any], Any] | None:
        for scope in reversed(self.ctx.scopes):
            if name in scope:
                return scope, scope[name]
        return None

    def rvalue(self, obj: Any) -> Any:
        """What a name or attribute means in an expression."""
        if isinstance(obj, Place):
            return self.em.load(obj.ptr, obj.dtype)
        if isinstance(obj, VecPlace):
            return obj.load(self)
        if isinstance(obj, StructPlace):
            return structs.load_struct(self, obj)
        if isinstance(obj, QuantPlace):
            return obj.load(self)
        if isinstance(obj, Matrix):
            return vectors.as_vec(self, obj)
        if isinstance(obj, Field):
            return self.field_handle(obj)
        if isinstance(obj, Ndarray):
            raise TaichiCompilationError(
                "an ndarray reaches a kernel only as an argument "
                "(annotated ti.types.ndarray())"
            )
        # A global NumPy array is a Python value, as in Taichi: its shape, its elements at
        # compile-time indices and NumPy arithmetic on it are constants of the kernel.
        if isinstance(obj, np.ndarray) and obj.ndim == 0:
            return obj.item()  # a NumPy scalar: a constant, as in Taichi
        if isinstance(obj, np.generic):
            return obj.item()
        return obj

    def element(
        self, container: Container, index: Any, node: ast.AST, write: bool = False
    ) -> Any:
        """The place `container[index]` (a VecPlace for a Vector/Matrix container);
        a `write` activates the sparse cells above it (codegen/sparse.py)."""
        if isinstance(index, Vec):
            index = tuple(index.elems)
        if index is None:
            indices: tuple[Any, ...] = ()
        elif isinstance(index, tuple | list):
            indices = tuple(
                i
                for part in index
                for i in (
                    part.elems
                    if isinstance(part, Vec)
                    else part
                    if isinstance(part, tuple | list)
                    else (part,)
                )
            )
        else:
            indices = (index,)
        if len(indices) == container.ndim - 1 and isinstance(container, FieldHandle):
            values = [self.index_value(i, node) for i in indices]
            ref = sparse.dynamic_list(self, container, values)  # x[i].append(v)
            if ref is not None:
                return ref
        if len(indices) != container.ndim:
            raise self.error(
                TaichiSyntaxError,
                node,
                f"a {container.ndim}-d field or ndarray is indexed with {len(indices)} "
                f"index(es){' (use x[None] for a 0-d field)' if not container.ndim else ''}",
            )
        values = [self.index_value(i, node) for i in indices]
        if isinstance(container, FieldHandle) and isinstance(
            container.field, QuantField | QuantMatrixField
        ):
            return quant.element(self, container.field, values, node, write)
        offsets = container_index_offset(container)
        if any(offsets):  # ti.field(offset=...): storage starts at the offset
            values = [
                self.em.binary("-", v, o) if o else v for v, o in zip(values, offsets)
            ]
        if getattr(container, "clamp", False):  # ti.types.ndarray(boundary="clamp")
            values = [
                self.em.binary("max", self.em.binary("min", v, self.em.binary("-", d, 1)), 0)
                for v, d in zip(values, container.shape(self))
            ]
        if isinstance(container, FieldHandle) and container.field._snode is not None:
            skip = sparse.activate_element(self, container, values) if write else set()
            values = sparse.storage_values(self, container.field, values, write, skip)
        if container.element_shape:
            return ElementVecPlace(container, values)
        op = self.em.emit(taichi.ElementPtrOp(container.ssa, [v.ssa for v in values]))
        return Place(op.results[0], container.dtype, True)

    def index_value(self, index: Any, node: ast.AST) -> Value:
        if isinstance(index, bool) or not isinstance(index, int | Value):
            raise self.error(
                TaichiTypeError,
                node,
                f"an index must be an integer, got {describe(index)}",
            )
        if isinstance(index, Value) and index.dtype.is_float:
            raise self.error(
                TaichiTypeError,
                node,
                f"an index must be an integer, got a {index.dtype} value",
            )
        return self.em.value(index, dtypes.i32)

    def place_of(self, node: ast.expr) -> Any:
        """The place an assignment target or an atomic's first argument names."""
        if isinstance(node, ast.Name):
            binding = self.lookup(node.id)
            if isinstance(binding, Place | VecPlace | StructPlace):
                return binding
            raise self.error(
                TaichiSyntaxError,
                node,
                f"'{node.id}' is not a Taichi variable or element here",
            )
        if isinstance(node, ast.Subscript):
            base = self._place_or_value(node.value)
            if isinstance(base, KernelList):  # `verts[1] = x`: the element's variable
                return base.variable(self.eval(node.slice), node)
            if isinstance(base, Container):
                return self.element(base, self.eval(node.slice), node, write=True)
            if isinstance(base, VecPlace):
                return vectors.vec_place_component(self, base, self.eval(node.slice), node)
            if isinstance(base, StructField):
                return structs.struct_element(
                    self, base, self.eval(node.slice), node, write=True
                )
        if isinstance(node, ast.Attribute):
            base = self._place_or_value(node.value)
            if isinstance(base, StructPlace) and node.attr in base.places:
                return base.places[node.attr]
            if isinstance(base, VecPlace):
                from ..lang.matrix import swizzle_indices, swizzle_mismatch

                idx = swizzle_indices(node.attr)
                if idx is not None and len(base.shape) == 1:
                    if max(idx) >= base.shape[0]:
                        raise self.error(
                            TaichiSyntaxError, node, swizzle_mismatch(base.shape[0], node.attr)
                        )
                    if len(idx) == 1:
                        return base.component(self, idx[0])
                    return _SwizzlePlace(base, idx)
        raise self.error(
            TaichiSyntaxError, node, "expected a variable or a field/ndarray element"
        )

    def _python_owner(self, node: ast.expr) -> Any:
        """The Python object a name or attribute chain names, or None (no IR is made)."""
        if isinstance(node, ast.Name):
            binding = self.lookup(node.id)
            return binding if is_python(binding) else None
        if isinstance(node, ast.Attribute):
            base = self._python_owner(node.value)
            return getattr(base, node.attr, None) if base is not None else None
        return None

    def _subscript_add(self, add: Any, target: ast.Subscript, value: Any) -> None:
        """`obj[i, j] += v` for a Python object whose ti.func `ti_subscript_add(i, j, v)`
        says what adding to an element means."""
        index = self.eval(target.slice)
        index = list(index) if isinstance(index, tuple) else [index]
        func, owner = add.func, add.obj  # a BoundFunc: the method and its object
        params = list(func.signature().parameters)
        if len(params) != len(index) + 2:
            raise self.error(
                TaichiSyntaxError,
                target,
                f"{type(owner).__name__} takes {len(params) - 2} indices, got {len(index)}",
            )
        arguments = dict(zip(params, [owner, *index, value]))
        calls.inline_bound_func(self, func, arguments, target)

    def _place_or_value(self, node: ast.expr) -> Any:
        """A sub-expression of an assignment target: a place where it names one."""
        if isinstance(node, ast.Name):
            binding = self.lookup(node.id)
            if isinstance(binding, Place | VecPlace | StructPlace):
                return binding
            return self.rvalue(binding)
        if isinstance(node, ast.Subscript | ast.Attribute):
            try:
                return self.place_of(node)
            except TaichiSyntaxError:
                pass
        return self.eval(node)

    def store(self, place: Any, value: Any, node: ast.AST) -> None:
        if isinstance(place, DynamicComponent):
            if not is_scalar(value):
                raise self.error(TaichiTypeError, node, f"cannot store {describe(value)}")
            place.store(self, value, node)
            return
        if isinstance(place, _SwizzlePlace):
            v = vectors.as_vec(self, value)
            if v is None or v.shape != (len(place.idx),):
                raise self.error(TaichiTypeError, node, f"cannot store {describe(value)}")
            for k, e in zip(place.idx, v.elems):
                self.store(place.base.component(self, k), e, node)
            return
        if isinstance(place, VecPlace):
            vectors.store_vec(self, place, value, node)
            return
        if isinstance(place, StructPlace):
            structs.store_struct(self, place, value, node)
            return
        if isinstance(place, QuantPlace):
            if not is_scalar(value):
                raise self.error(TaichiTypeError, node, f"cannot store {describe(value)}")
            place.store(self, value, node)
            return
        if not is_scalar(value):
            raise self.error(
                TaichiTypeError,
                node,
                f"cannot store {describe(value)} into a {place.dtype} place",
            )
        self.em.store(place.ptr, self.em.value(value, place.dtype))

    # -- statements ------------------------------------------------------------------

    def visit_stmts(self, stmts: Sequence[ast.stmt]) -> None:
        for i, stmt in enumerate(stmts):
            if self.terminated:
                break  # dead code after break / continue / return
            self.visit(stmt)
            if self.at_top() and "pending_gc" in self.__dict__:
                sparse.collect_garbage(self)  # zero the pointer cells stmt released
            if (
                self.ctx.ret_flag is not None
                and isinstance(stmt, ast.For | ast.While)
                and contains_return(stmt)
                and len(self.loops) > self.ctx.loop_base
            ):  # an inner loop returned: leave this loop too
                calls.break_if_returned(self)
            rest = stmts[i + 1 :]
            if rest and self.ctx.ret_flag is not None and contains_return(stmt):
                # a branch of `stmt` returned: the rest runs only if it did not
                calls.guard_rest(self, list(rest))
                break

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        self.eval(node.value)

    def visit_Pass(self, node: ast.Pass) -> None:
        return None

    def visit_Assign(self, node: ast.Assign) -> None:
        static = self.is_call_to(node.value, ops.static)
        if static:  # `x = ti.static(...)` names a compile-time value once
            for target in node.targets:
                if isinstance(target, ast.Subscript | ast.Attribute):
                    raise self.error(
                        TaichiSyntaxError,
                        target,
                        "Static assign cannot be used on elements in arrays",
                    )
                if isinstance(target, ast.Name) and self.find_binding(target.id):
                    raise self.error(
                        TaichiSyntaxError,
                        target,
                        f"Recreating variables is not allowed: '{target.id}' already "
                        "exists, and `= ti.static(...)` declares a new compile-time name",
                    )
        value = self.eval(node.value)
        for target in node.targets:
            self.assign(target, value, static)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        ann = self.eval(node.annotation)
        if not isinstance(node.target, ast.Name):
            raise self.error(TaichiSyntaxError, node, "an annotated target must be a name")
        if isinstance(ann, MatrixType):
            value = self.eval(node.value) if node.value is not None else 0
            v = vectors.as_vec(self, value) if not is_scalar(value) else None
            if v is None:
                v = vectors.construct_type(self, ann, [value], node)
            elt = self.cook_dtype(ann.dtype, node)
            place = vectors.new_vec_local(self, node.target.id, v, elt)
            self.ctx.scopes[-1][node.target.id] = place
            return
        dt = self.cook_dtype(ann, node.annotation)
        found = self.find_binding(node.target.id)
        if found is not None and isinstance(found[1], Place) and found[1].dtype != dt:
            raise self.error(
                TaichiSyntaxError,
                node,
                f"Variable '{node.target.id}' is already declared as {found[1].dtype}; "
                f"it cannot be annotated again as {dt}",
            )
        value = self.eval(node.value) if node.value is not None else 0
        if not is_scalar(value):
            raise self.error(
                TaichiTypeError,
                node,
                f"cannot store {describe(value)} into a {dt} variable",
            )
        self.ctx.scopes[-1][node.target.id] = self.new_local(node.target.id, value, dt)

    def assign(self, target: ast.expr, value: Any, static: bool = False) -> None:
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value, target, static)
        elif isinstance(target, ast.Subscript | ast.Attribute):
            self.store(self.place_of(target), value, target)
        elif isinstance(target, ast.Tuple | ast.List):
            if isinstance(value, Vec):  # `a, b, c = v`; a matrix unpacks into rows
                value = (
                    list(value.elems)
                    if len(value.shape) == 1
                    else [value.row(i) for i in range(value.shape[0])]
                )
            elif isinstance(value, Matrix):
                value = list(value)
            if not isinstance(value, tuple | list) or len(value) != len(target.elts):
                raise self.error(
                    TaichiSyntaxError,
                    target,
                    f"cannot unpack {describe(value)} into {len(target.elts)} targets",
                )
            for t, v in zip(target.elts, value):
                self.assign(t, v, static)
        else:
            raise self.error(
                TaichiSyntaxError,
                target,
                f"cannot assign to '{ast.unparse(target)}' in a kernel",
            )

    def assign_name(self, name: str, value: Any, node: ast.AST, static: bool) -> None:
        if static:
            self.ctx.scopes[-1][name] = value
            return
        found = self.find_binding(name)
        if found is not None and isinstance(found[1], Place | VecPlace | StructPlace):
            self.store(found[1], value, node)
        elif isinstance(value, StructVal | StructPlace):
            if isinstance(value, StructPlace):
                value = structs.load_struct(self, value)
            self.ctx.scopes[-1][name] = structs.new_struct_local(self, name, value)
        elif isinstance(value, Vec):
            self.ctx.scopes[-1][name] = vectors.new_vec_local(self, name, value)
        elif isinstance(value, Value | bool | int | float):
            self.ctx.scopes[-1][name] = self.new_local(name, value)
        elif isinstance(value, np.generic):
            self.ctx.scopes[-1][name] = self.new_local(name, value.item())
        elif isinstance(value, np.ndarray):
            if value.ndim != 0:
                raise self.error(
                    TaichiTypeError,
                    node,
                    "Only 0-dimensional numpy array can be used to initialize a scalar "
                    "expression (pass arrays as ti.types.ndarray() arguments)",
                )
            self.ctx.scopes[-1][name] = self.new_local(name, value.item())
        else:
            self.ctx.scopes[-1][name] = value  # a field, a tuple, a Python object

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        op = expressions.binop_name(self, node.op, node)
        rhs = self.eval(node.value)
        target = node.target
        if isinstance(target, ast.Name):
            found = self.find_binding(target.id)
            if found is not None and is_python(found[1]) and is_python(rhs):
                found[0][target.id] = PY_BINOPS[op](found[1], rhs)
                return
        if isinstance(target, ast.Subscript) and op in ("+", "-"):
            owner = self._python_owner(target.value)
            add = getattr(owner, "ti_subscript_add", None)
            if add is not None:  # e.g. a SparseMatrixBuilder: `A[i, j] += v` appends
                self._subscript_add(add, target, rhs if op == "+" else self.unary_neg(rhs))
                return
        place = self.place_of(target)
        if isinstance(place, VecPlace):
            vectors.vec_aug(self, place, op, rhs, node, ATOMIC_AUGASSIGN.get(op))
            return
        if isinstance(place, DynamicComponent):
            atomic = ATOMIC_AUGASSIGN.get(op)
            if atomic is None:
                self.store(place, expressions.binop(self, op, place.load(self, node), rhs, node), node)
                return
            # `v[k] += x` with a run-time k: the atomic lands on the one slot k selects.
            for slot, hit in zip(place.base.slots, place.hits(self, node)):
                if hit is True:
                    self.atomic(atomic, slot, rhs, node)
                    continue
                then_block = Block()
                with self.body(then_block):
                    self.atomic(atomic, slot, rhs, node)
                    self.close(then_block)
                self.em.emit(taichi.IfOp(self.em.to_bool(hit).ssa, then_block))
            return
        if isinstance(place, _SwizzlePlace):
            current = Vec(
                (len(place.idx),),
                [self.rvalue(place.base.component(self, k)) for k in place.idx],
            )
            self.store(place, vectors.vec_binop(self, op, current, rhs, node), node)
            return
        if not is_scalar(rhs):
            raise self.error(
                TaichiTypeError, node, f"cannot apply '{op}=' with {describe(rhs)}"
            )
        atomic = ATOMIC_AUGASSIGN.get(op)
        if atomic is not None:
            # As in Taichi, `+=` and friends are atomic on locals too: a local declared
            # outside a parallel loop is shared by its iterations. ti-demote-atomics
            # turns the ones that cannot race back into load, op, store.
            self.atomic(atomic, place, rhs, node)
            return
        current = self.rvalue(place)
        self.store(place, expressions.binop(self, op, current, rhs, node), node)

    def visit_If(self, node: ast.If) -> None:
        cond = self.condition(node.test)
        if not isinstance(cond, Value):
            # folded; unless written `if ti.static(...)`, it is still a branch to
            # Taichi, and loops inside a branch are not the kernel's outermost loops
            branch = not self.is_call_to(node.test, ops.static)
            self.folded_branches += branch
            try:
                with self.scope():
                    self.visit_stmts(node.body if cond else node.orelse)
            finally:
                self.folded_branches -= branch
            return
        then_block = Block()
        with self.body(then_block):
            self.visit_stmts(node.body)
            self.close(then_block)
        else_block = None
        if node.orelse:
            else_block = Block()
            with self.body(else_block):
                self.visit_stmts(node.orelse)
                self.close(else_block)
        self.em.emit(taichi.IfOp(cond.ssa, then_block, else_block))

    def condition(self, node: ast.expr, what: str = "`if`") -> Value | bool:
        """An `if`/`while` test: a u1 value, or a Python truth value (folded)."""
        return self.as_condition(self.eval(node), node, what)

    def as_condition(self, cond: Any, node: ast.expr, what: str = "`if`") -> Value | bool:
        """The evaluated test `cond` of `node` as a condition (see condition). A vector
        or matrix has no truth value (Taichi's rule)."""
        if isinstance(cond, Value):
            return self.em.to_bool(cond)
        if isinstance(cond, Container | Place):
            raise self.error(TaichiTypeError, node, "a field or ndarray is not a condition")
        if isinstance(cond, Vec | VecPlace):
            if what == "conditional expression":
                raise self.error(
                    TaichiSyntaxError,
                    node,
                    "Using conditional expression for element-wise select operation on "
                    "Taichi vectors/matrices is deprecated and removed starting from "
                    'Taichi v1.5.0 Please use "ti.select" instead.',
                )
            raise self.error(
                TaichiTypeError,
                node,
                f"{what} conditions must be an integer; found {describe(cond)} "
                "(use any(v), all(v) or a component)",
            )
        if isinstance(cond, StructVal | StructPlace):
            raise self.error(TaichiTypeError, node, "a struct is not a condition")
        return bool(cond)

    def visit_Return(self, node: ast.Return) -> None:
        ctx = self.ctx
        inlined_func = not ctx.is_kernel and not isinstance(self.inlining[-1], RealFunc)
        if inlined_func and self.em.block is not ctx.entry_block:
            # Taichi inlines a ti.func's body: one return, outside run-time control flow
            # (a ti.real_func is a real call, and may return from anywhere)
            raise self.error(
                TaichiSyntaxError,
                node,
                "Return inside non-static if/for is not supported: a ti.func returns "
                "once, outside run-time if/for/while (ti.real_func may return anywhere)",
            )
        loops = self.loops[ctx.loop_base :]
        leaves_loops = self._return_leaves_loops(node, loops)
        value = self.eval(node.value) if node.value is not None else None
        at_top = self.em.block is ctx.entry_block and not leaves_loops
        if ctx.is_kernel:
            self._kernel_return(value, node, at_top)
        else:
            calls.func_return(self, value, node, at_top)
        if leaves_loops:  # the flag is set: leave this loop, and the outer ones after it
            self.em.emit(taichi.BreakOp())
        self.terminated = True

    def _return_leaves_loops(self, node: ast.Return, loops: list[LoopInfo]) -> bool:
        """
        Whether a `return` must leave run-time loops: in a ti.func, from serial `range`
        and `while` loops (it sets the returned flag and breaks; each enclosing loop
        breaks after its inner loop when the flag is set). ti.static loops alone return
        at compile time; a kernel's return, or one from a parallel or struct-for loop,
        is an error.
        """
        if all(loop.kind == "static" for loop in loops):
            return False
        if self.ctx.is_kernel or any(
            loop.kind in ("static", "struct") or loop.parallel for loop in loops
        ):
            raise self.error(
                TaichiSyntaxError,
                node,
                "Return inside non-static if/for is not supported: 'return' inside a "
                "loop of a kernel, a parallel or struct-for loop, or a ti.static loop "
                "mixed with run-time loops (a ti.func may return from serial loops)",
            )
        return True

    def _kernel_return(self, value: Any, node: ast.Return, at_top: bool) -> None:
        types = self.ctx.return_types or []
        values = (
            [] if value is None else list(value) if isinstance(value, tuple) else [value]
        )
        if len(values) == len(self.return_layout):
            for v, layout in zip(values, self.return_layout):
                self._check_struct_return(v, layout, node)
        values = [  # vectors, matrices and structs return their components
            e for v in values for e in self.flatten_value(v)
        ]
        if len(values) != len(types):
            raise self.error(
                TaichiSyntaxError,
                node,
                f"the kernel returns {len(values)} value(s) but its return "
                f"annotation declares {len(types)}",
            )
        for v in values:
            if not is_scalar(v):
                raise self.error(TaichiTypeError, node, f"cannot return {describe(v)}")
        cast = [self.em.value(v, t) for v, t in zip(values, types)]
        if at_top and self.ctx.ret_slots is None:
            self.em.emit(taichi.ReturnOp(*(v.ssa for v in cast)))
            return
        if self.ctx.ret_slots is None:
            self.ctx.ret_slots = [self.prologue_slot(t) for t in types]
        for slot, v in zip(self.ctx.ret_slots, cast):
            self.em.store(slot, v)
        calls.mark_returned(self)

    def _check_struct_return(self, value: Any, layout: Any, node: ast.Return) -> None:
        """A struct returned where the kernel declares one has its members, each of
        the declared scalar type (Taichi converts vectors, not struct members)."""
        if not (isinstance(layout, tuple) and layout[:1] == ("struct",)):
            return
        want: StructType = layout[2]

        def signature(stype: StructType) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for name, t in stype.members.items():
                if isinstance(t, StructType):
                    out[name] = signature(t)
                elif isinstance(t, MatrixType):
                    out[name] = tuple(t.shape)
                else:
                    out[name] = self.cook_dtype(t, node)
            return out

        def show(stype: StructType) -> str:
            members = ", ".join(f"{k}={v}" for k, v in signature(stype).items())
            return f"{stype.name}({members})"

        got = value.stype if isinstance(value, StructVal | StructPlace) else None
        if got is None or signature(got) != signature(want):
            raise self.error(
                TaichiTypeError,
                node,
                f"Return (type={show(got) if got else describe(value)}) cannot be "
                f"converted into required type {show(want)}",
            )

    def visit_Assert(self, node: ast.Assert) -> None:
        cond = self.condition(node.test)
        if cond is True:
            return
        values: list[SSAValue] = []
        if node.msg is None:
            message = f"Assertion failed: {ast.unparse(node.test)}"
        else:  # a string, or one formatted with values (%, f-string, str.format)
            message, values = printing.assert_message(self, node.msg)
        c = cond if isinstance(cond, Value) else self.em.const(False, dtypes.u1)
        self.em.emit(taichi.AssertOp(c.ssa, message, values=values))

    # -- helpers ---------------------------------------------------------------------

    def is_call_to(self, node: ast.AST, target: Any) -> bool:
        if not isinstance(node, ast.Call):
            return False
        try:
            return self.eval(node.func) is target
        except TaichiCompilationError:
            return False

    def cook_dtype(self, obj: Any, node: ast.AST) -> DataType:
        try:
            return dtypes.cook_dtype(obj, self.em.default_ip, self.em.default_fp)
        except TypeError as e:
            raise self.error(TaichiTypeError, node, str(e)) from None

    def flatten_value(self, v: Any) -> list[Any]:
        """A returned value's scalars: components of vectors, members of structs."""
        if isinstance(v, StructPlace):
            v = structs.load_struct(self, v)
        if isinstance(v, StructVal):
            return [e for m in v.values.values() for e in self.flatten_value(m)]
        vec = vectors.as_vec(self, v) if isinstance(v, Vec | Matrix) else None
        return vec.elems if vec is not None else [v]

    def convert_to_type(self, t: Any, v: Any, node: ast.AST | None) -> Any:
        """`v` as a value of a member/parameter type (primitive, vector, struct)."""
        if isinstance(t, StructType):
            if isinstance(v, StructPlace):
                return structs.load_struct(self, v)
            if isinstance(v, dict):
                return structs.make_struct(self, t, [], v, node)
            if is_scalar(v):  # line3f(1): the first member from 1, as Taichi's
                return structs.make_struct(self, t, [v], {}, node)
            return v
        if isinstance(t, MatrixType):
            vec = vectors.as_vec(self, v) if not is_scalar(v) else None
            if vec is None:
                return vectors.construct_type(self, t, [v], node or self.ctx.src.tree)
            return vectors.vec_cast(self, vec, self.cook_dtype(t.dtype, node or self.ctx.src.tree))
        if isinstance(v, Vec):
            return v
        return self.em.value(v, self.cook_dtype(t, node or self.ctx.src.tree))

    def atomic(
        self, op_cls: type[taichi.AtomicOp], place: Any, value: Any, node: ast.AST
    ) -> Any:
        if isinstance(place, VecPlace):
            v = vectors.as_vec(self, value)
            elems = (
                v.elems
                if v is not None
                else [value] * len(list(place_positions(place.shape)))
            )
            olds = [
                self.atomic(op_cls, place.component(self, k), e, node)
                for k, e in enumerate(elems)
            ]
            return Vec(place.shape, olds)
        if not is_scalar(value):
            raise self.error(TaichiTypeError, node, f"atomic update with {describe(value)}")
        if isinstance(place, QuantPlace):
            return place.atomic(self, op_cls, value, node)
        if place.dtype.is_float and issubclass(op_cls, taichi.IntegerAtomicOp):
            raise self.error(
                TaichiTypeError,
                node,
                f"{op_cls.name} needs an integer place, got {place.dtype}",
            )
        if place.dtype is dtypes.u1 and stored_as_byte(place.ptr):
            raise self.error(
                TaichiTypeError,
                node,
                "an atomic update (+=, ti.atomic_*) of a u1 (bool) field or ndarray "
                "element is not supported; assign it (x[i] = x[i] or v)",
            )
        v = self.em.value(value, place.dtype)
        op = op_cls(place.ptr, v.ssa)
        if place.dtype.is_unsigned and isinstance(
            op, taichi.AtomicMinOp | taichi.AtomicMaxOp
        ):
            op.properties["unsigned"] = UnitAttr()
        self.em.emit(op)
        return Value(op.old, place.dtype)

    # -- the constructs lowered in the modules this visitor calls -----------------------

    def visit_Call(self, node: ast.Call) -> Any:
        return calls.lower_call(self, node)

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        return expressions.lower_attribute(self, node)

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        return expressions.lower_bin_op(self, node)

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        return expressions.lower_bool_op(self, node)

    def visit_Compare(self, node: ast.Compare) -> Any:
        return expressions.lower_compare(self, node)

    def visit_Constant(self, node: ast.Constant) -> Any:
        return expressions.lower_constant(self, node)

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        return expressions.lower_if_exp(self, node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> Any:
        return expressions.lower_joined_str(self, node)

    def visit_List(self, node: ast.List) -> list[Any]:
        return expressions.lower_list(self, node)

    def visit_ListComp(self, node: ast.ListComp) -> list[Any]:
        return expressions.lower_comprehension(self, node)

    def visit_DictComp(self, node: ast.DictComp) -> dict[Any, Any]:
        return expressions.lower_comprehension(self, node)

    def visit_Dict(self, node: ast.Dict) -> dict[Any, Any]:
        return expressions.lower_dict(self, node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> Any:
        value = self.eval(node.value)
        self.assign(node.target, value)
        return self.eval(node.target)

    def visit_Name(self, node: ast.Name) -> Any:
        return expressions.lower_name(self, node)

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        return expressions.lower_subscript(self, node)

    def visit_Slice(self, node: ast.Slice) -> slice:
        """`a:b:c` in a vector/matrix index: its bounds must be known at compile time."""
        parts = [None if e is None else self.eval(e) for e in (node.lower, node.upper, node.step)]
        for part in parts:
            if part is not None and (not isinstance(part, int) or isinstance(part, bool)):
                raise self.error(
                    TaichiCompilationError,
                    node,
                    "Taichi does not support variables in slice now; use compile-time "
                    "bounds (Python ints or ti.static)",
                )
        return slice(*parts)

    def visit_Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return expressions.lower_tuple(self, node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        return expressions.lower_unary_op(self, node)

    def visit_Break(self, node: ast.Break) -> None:
        return loops.lower_break(self, node)

    def visit_Continue(self, node: ast.Continue) -> None:
        return loops.lower_continue(self, node)

    def visit_For(self, node: ast.For) -> None:
        return loops.lower_for(self, node)

    def visit_While(self, node: ast.While) -> None:
        return loops.lower_while(self, node)

    # -- construct operations the construct modules use from one another ---------------
    # (they call each other through the visitor, so their imports point one way)

    def fold_minmax(self, name: str, args: list[Any], node: ast.Call) -> Any:
        return calls.fold_minmax(self, name, args, node)

    def binop(self, op: str, a: Any, b: Any, node: ast.AST) -> Any:
        return expressions.binop(self, op, a, b, node)

    def compare(self, op: str, a: Any, b: Any, node: ast.AST) -> Any:
        return expressions.compare(self, op, a, b, node)

    def logical(self, op: str, a: Any, b: Any) -> Any:
        return expressions.logical(self, op, a, b)

    def random_call(
        self, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST
) -> Value:
        return random.random_call(self, name, args, kwargs, node)

    def make_struct(
        self, stype: StructType, args: list[Any], kwargs: dict[str, Any], node: Any
) -> StructVal:
        return structs.make_struct(self, stype, args, kwargs, node)

    def new_struct_local(self, name: str | None, value: StructVal) -> StructPlace:
        return structs.new_struct_local(self, name, value)

    def struct_attr(self, obj: StructVal | StructPlace, name: str, node: Any) -> Any:
        return structs.struct_attr(self, obj, name, node)

    def struct_element(self, sf: StructField, index: Any, node: Any) -> StructPlace:
        return structs.struct_element(self, sf, index, node)

    def as_vec(self, x: Any) -> Vec | None:
        return vectors.as_vec(self, x)

    def construct_type(self, t: MatrixType, args: list[Any], node: ast.AST) -> Vec:
        return vectors.construct_type(self, t, args, node)

    def make_matrix(
        self, args: list[Any], kwargs: dict[str, Any], node: ast.AST, is_vector: bool
) -> Vec:
        return vectors.make_matrix(self, args, kwargs, node, is_vector)

    def math_call(self, name: str, args: list[Any], node: ast.AST) -> Any:
        return vectors.math_call(self, name, args, node)

    def matmul(self, a: Any, b: Any, node: ast.AST) -> Any:
        return vectors.matmul(self, a, b, node)

    def new_vec_local(
        self, name: str | None, v: Vec, dt: DataType | None = None
) -> LocalVecPlace:
        return vectors.new_vec_local(self, name, v, dt)

    def s_math(self, name: str, x: Any) -> Any:
        return vectors.s_math(self, name, x)

    def transpose(self, v: Vec, node: ast.AST) -> Vec:
        return vectors.transpose(self, v, node)

    def unary_neg(self, x: Any) -> Any:
        return vectors.unary_neg(self, x)

    def vec_attr(self, v: Vec, name: str, node: ast.AST) -> Any:
        return vectors.vec_attr(self, v, name, node)

    def vec_binop(self, op: str, a: Any, b: Any, node: ast.AST) -> Vec:
        return vectors.vec_binop(self, op, a, b, node)

    def vec_cast(self, v: Vec, dt: DataType) -> Vec:
        return vectors.vec_cast(self, v, dt)

    def vec_compare(self, op: str, a: Any, b: Any, node: ast.AST) -> Vec:
        return vectors.vec_compare(self, op, a, b, node)

    def vec_dtype(self, v: Vec) -> DataType:
        return vectors.vec_dtype(self, v)

    def vec_getitem(self, v: Vec, index: Any, node: ast.AST) -> Any:
        return vectors.vec_getitem(self, v, index, node)

    def vec_map(self, fn: Callable[..., Any], *xs: Any, node: ast.AST) -> Vec:
        return vectors.vec_map(self, fn, *xs, node=node)


def build_module(
    program: Any, kernel: taichi.KernelOp, functions: Sequence[Operation] = ()
) -> ModuleOp:
    """The module handed to the compiler: every field of the program, the real functions
    the kernel calls (`func.func`), then the kernel; verified in debug mode
    (`ti.init(debug=True)`), where an invalid module is the frontend's fault."""
    fields = []
    for f in program.fields:
        if not f.placed:
            continue
        op = taichi.FieldOp(
            f.symbol, memref_type(f.dtype, f.storage_shape + f.element_shape), f.offset
        )
        if f.created_at is not None:
            file, line = f.created_at
            op.location = FileLineColLoc(  # pyright: ignore[reportAttributeAccessIssue]
                StringAttr(file), IntAttr(line), IntAttr(1)
            )
        fields.append(op)
    module = ModuleOp([*fields, *functions, kernel])
    trees = sparse.snode_trees(program)
    if trees is not None:
        module.attributes[taichi.SNODE_TREES] = trees
    if not program.config.debug:
        # Verified once, after the pipeline's last stage (each pass assumes valid input;
        # a module the frontend got wrong fails there, or in a pass). Verifying here too
        # cost a second walk of every op, 10% of a large kernel's compile (mpm88).
        return module
    try:
        module.verify()
    except VerifyException as e:
        raise TaichiCompilationError(
            f"internal error: the frontend built invalid IR for @{kernel.sym_name.data}: "
            f"{e}"
        ) from e
    return module


class _SwizzlePlace:
    """`v.xy` as an assignment target: components `idx` of a vector place."""

    def __init__(self, base: VecPlace, idx: list[int]):
        self.base = base
        self.idx = idx
